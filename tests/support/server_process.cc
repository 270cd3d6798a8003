#include "support/server_process.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

extern char** environ;

namespace pathtest {

namespace {

using Clock = std::chrono::steady_clock;

int decode_wait_status(int status) {
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status);
  }
  if (WIFSIGNALED(status)) {
    return 128 + WTERMSIG(status);
  }
  return -1;
}

// Finds an executable on PATH (in the parent: execvp is not async-signal-safe).
std::string resolve_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return name;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return name;
}

// Starts argv with stdin from /dev/null and stdout/stderr appended to
// out_path/err_path. The child gets SIGKILL if this process dies, so no test
// crash leaves a server behind. Throws std::system_error when fork fails.
pid_t spawn(const std::vector<std::string>& argv, const std::string& out_path,
            const std::string& err_path, const std::vector<std::string>& extra_env = {},
            std::uint64_t max_file_bytes = 0, const std::optional<RunAs>& run_as = std::nullopt) {
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls are allowed (the test process has gRPC threads).
  const std::string executable = resolve_executable(argv.at(0));
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  // environ, minus the names extra_env sets, plus extra_env.
  std::vector<char*> envp;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view variable(*entry);
    const bool replaced = std::any_of(extra_env.begin(), extra_env.end(), [&](const auto& extra) {
      const auto eq = extra.find('=');
      return variable.substr(0, variable.find('=')) == std::string_view(extra).substr(0, eq);
    });
    if (!replaced) envp.push_back(*entry);
  }
  for (const auto& extra : extra_env) envp.push_back(const_cast<char*>(extra.c_str()));
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) {
    throw std::system_error(errno, std::generic_category(), "fork");
  }
  if (pid == 0) {
    // Files are opened before dropping privileges (as root, in the test's
    // own temp dir), and the death signal is set after: changing
    // credentials clears it.
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int err =
        out_path == err_path ? out : ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
        ::dup2(err, 2) < 0) {
      ::_exit(127);
    }
    if (max_file_bytes != 0) {
      rlimit limit{};
      if (::getrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(127);
      limit.rlim_cur = static_cast<rlim_t>(max_file_bytes);
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(127);
    }
    if (run_as && (::setgroups(0, nullptr) != 0 || ::setgid(run_as->gid) != 0 ||
                   ::setuid(run_as->uid) != 0)) {
      ::_exit(126);
    }
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) {
      ::_exit(127);  // the parent died before prctl took effect
    }
#endif
    ::execve(executable.c_str(), args.data(), envp.data());
    const char message[] = "exec failed\n";
    [[maybe_unused]] const auto written = ::write(2, message, sizeof message - 1);
    ::_exit(127);
  }
  (void)parent;
  return pid;
}

// Waits for pid at most timeout. Returns the decoded status, or nullopt-like -2
// when it is still running after the timeout.
constexpr int kStillRunning = -2;

int wait_for(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      return decode_wait_status(status);
    }
    if (done < 0 && errno != EINTR) {
      return -1;
    }
    if (Clock::now() >= deadline) {
      return kStillRunning;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return -1;
    }
  }
  return decode_wait_status(status);
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" + prefix + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  path_ = buffer.data();
}

TempDir::~TempDir() {
  std::error_code error;
  std::filesystem::remove_all(path_, error);
}

std::string TempDir::file(const std::string& name) const { return path_ + "/" + name; }

ServerProcess::ServerProcess(ServerOptions options)
    : options_(std::move(options)), temp_dir_("pathfinder-e2e") {
  data_dir_ = options_.data_dir.empty() ? temp_dir_.file("data") : options_.data_dir;
  std::filesystem::create_directories(data_dir_);
  port_file_ = temp_dir_.file("port");
  log_file_ = temp_dir_.file("server.log");
  start();
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    kill_and_reap(pid_);
    pid_ = -1;
  }
}

std::string ServerProcess::target() const { return "127.0.0.1:" + std::to_string(port_); }

void ServerProcess::start() {
  std::error_code ignored;
  std::filesystem::remove(port_file_, ignored);
  std::vector<std::string> argv{options_.binary, "--listen", "127.0.0.1:0", "--port-file",
                                port_file_};
  if (options_.store_args.empty()) {
    argv.insert(argv.end(), {"--data-dir", data_dir_});
  } else {
    argv.insert(argv.end(), options_.store_args.begin(), options_.store_args.end());
  }
  if (!options_.log_level.empty()) {
    argv.insert(argv.end(), {"--log-level", options_.log_level});
  }
  argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
  pid_ = spawn(argv, log_file_, log_file_, options_.env, options_.max_file_bytes);

  const auto deadline = Clock::now() + options_.startup_timeout;
  while (true) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("server exited with status " +
                               std::to_string(decode_wait_status(status)) +
                               " before writing its port file; its output:\n" + log());
    }
    std::ifstream in(port_file_);
    std::string line;
    if (in && std::getline(in, line) && !in.eof()) {  // complete: ends with a newline
      try {
        const int port = std::stoi(line);
        if (port > 0 && port < 65536) {
          port_ = port;
          return;
        }
      } catch (const std::exception&) {
        // fall through: report below if it never becomes valid
      }
    }
    if (Clock::now() >= deadline) {
      kill_and_reap(pid_);
      pid_ = -1;
      throw std::runtime_error("server wrote no port file within " +
                               std::to_string(options_.startup_timeout.count()) +
                               " ms; its output:\n" + log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void ServerProcess::kill9() {
  if (pid_ > 0) {
    kill_and_reap(pid_);
    pid_ = -1;
  }
}

int ServerProcess::terminate_and_wait(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) {
    return -1;
  }
  ::kill(pid_, SIGTERM);
  int result = wait_for(pid_, timeout);
  if (result == kStillRunning) {
    result = kill_and_reap(pid_);
  }
  pid_ = -1;
  return result;
}

void ServerProcess::restart() {
  kill9();
  start();
}

std::string ServerProcess::log() const {
  try {
    return read_text_file(log_file_);
  } catch (const std::exception&) {
    return "(no server output)";
  }
}

pid_t start_process(const std::vector<std::string>& argv, const std::string& log_path,
                    const std::optional<RunAs>& run_as) {
  return spawn(argv, log_path, log_path, {}, 0, run_as);
}

int stop_process(pid_t pid, int signal, std::chrono::milliseconds timeout) {
  ::kill(pid, signal);
  const int result = wait_for(pid, timeout);
  return result == kStillRunning ? kill_and_reap(pid) : result;
}

bool process_exited(pid_t pid) {
  int status = 0;
  return ::waitpid(pid, &status, WNOHANG) == pid;
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::optional<RunAs>& run_as) {
  CommandResult result;
  TempDir dir("pathfinder-cmd");
  const std::string out_path = dir.file("stdout");
  const std::string err_path = dir.file("stderr");
  pid_t pid = -1;
  try {
    pid = spawn(argv, out_path, err_path, {}, 0, run_as);
  } catch (const std::exception& error) {
    result.err = error.what();
    return result;
  }
  result.exit_code = wait_for(pid, timeout);
  if (result.exit_code == kStillRunning) {
    result.timed_out = true;
    result.exit_code = kill_and_reap(pid);
  }
  try {
    result.out = read_text_file(out_path);
  } catch (const std::exception&) {
  }
  try {
    result.err = read_text_file(err_path);
  } catch (const std::exception&) {
  }
  return result;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return std::move(contents).str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    throw std::runtime_error("cannot write " + path);
  }
}

}  // namespace pathtest
