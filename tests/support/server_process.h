#pragma once

// Test helpers that start real binaries: the pathfinder server on loopback
// (ServerProcess) and one-shot commands such as the `pathfind` CLI
// (run_command). Pure POSIX: no gRPC here.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pathtest {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it
// when the object dies.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "pathfinder-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  // path() + "/" + name.
  [[nodiscard]] std::string file(const std::string& name) const;

 private:
  std::string path_;
};

struct ServerOptions {
  // The server executable (e2e tests pass PATHFINDER_SERVER_BIN).
  std::string binary;
  // The data directory; empty = a fresh one inside the helper's temp dir.
  std::string data_dir;
  // When not empty, passed instead of "--data-dir DIR", e.g. {"--store",
  // "postgres"} (the connection string then comes through `env`).
  std::vector<std::string> store_args;
  // Appended after --listen/--data-dir/--port-file, e.g. {"--max-pixels", "1000"}.
  std::vector<std::string> extra_args;
  // How long start() waits for the port file.
  std::chrono::milliseconds startup_timeout{std::chrono::seconds(20)};
  // Appended as "--log-level LEVEL" unless empty.
  std::string log_level = "warn";
  // Added to the server's environment, "NAME=VALUE" each (a NAME already in
  // the test's environment is replaced).
  std::vector<std::string> env;
  // When not 0, the server's file size limit (RLIMIT_FSIZE, as `ulimit -f`
  // sets it): its writes past that many bytes fail, as on a full disk.
  std::uint64_t max_file_bytes = 0;
};

// One real server process bound to 127.0.0.1 on a port the kernel picks.
// The constructor starts it and waits until it has written its port file
// (throws std::runtime_error, with the server's stderr, when it does not).
// The destructor always kills and reaps the child, and removes the temp dir.
class ServerProcess {
 public:
  explicit ServerProcess(ServerOptions options);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // The port the running (or last) server bound.
  [[nodiscard]] int port() const { return port_; }
  // "127.0.0.1:PORT".
  [[nodiscard]] std::string target() const;
  [[nodiscard]] const std::string& data_dir() const { return data_dir_; }
  // The helper's own temp dir (port file, log, scratch files for the test).
  [[nodiscard]] const std::string& temp_dir() const { return temp_dir_.path(); }
  [[nodiscard]] bool running() const { return pid_ > 0; }
  [[nodiscard]] pid_t pid() const { return pid_; }

  // SIGKILL and reap. No-op when not running.
  void kill9();
  // SIGTERM, then wait at most timeout (SIGKILL after it). Returns the exit
  // status: the exit code, or 128 + signal number when killed by a signal.
  int terminate_and_wait(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  // Starts the server again on the same data dir and waits for its new port.
  // Stops a running one first with SIGKILL. Throws like the constructor.
  void restart();
  // Everything the server wrote to stdout and stderr so far (all runs).
  [[nodiscard]] std::string log() const;

 private:
  void start();

  ServerOptions options_;
  TempDir temp_dir_;
  std::string data_dir_;
  std::string port_file_;
  std::string log_file_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// The user a child process runs as: root's tests start programs that refuse
// root (PostgreSQL) as an unprivileged user. Only root can switch.
struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
};

// Starts argv (argv[0] is searched on PATH when it has no '/') with stdin
// from /dev/null and stdout and stderr appended to log_path, as `run_as` when
// given. The child gets SIGKILL if the test process dies. Throws
// std::system_error when fork fails.
[[nodiscard]] pid_t start_process(const std::vector<std::string>& argv,
                                  const std::string& log_path,
                                  const std::optional<RunAs>& run_as = std::nullopt);

// Sends `signal` to pid and waits at most timeout for it to exit (SIGKILL
// after it), and reaps it. Returns the exit code, or 128 + signal number.
int stop_process(pid_t pid, int signal, std::chrono::milliseconds timeout);

// True when pid (a child of this process) has exited; reaps it.
[[nodiscard]] bool process_exited(pid_t pid);

// The outcome of run_command.
struct CommandResult {
  int exit_code = -1;  // the exit code, or 128 + signal number; -1 when it could not start
  std::string out;     // standard output
  std::string err;     // standard error
  bool timed_out = false;
};

// Runs argv (argv[0] is searched on PATH when it has no '/') with stdin from
// /dev/null, captures its output, and kills it after timeout.
[[nodiscard]] CommandResult run_command(
    const std::vector<std::string>& argv,
    std::chrono::milliseconds timeout = std::chrono::seconds(30),
    const std::optional<RunAs>& run_as = std::nullopt);

// Reads / writes a whole file (binary). read_text_file throws std::runtime_error
// when the file cannot be read; write_file when it cannot be written.
[[nodiscard]] std::string read_text_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);

}  // namespace pathtest
