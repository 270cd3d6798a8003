#pragma once

// A real PostgreSQL server for tests of the PostgreSQL mask store: never a
// mock. Pure POSIX and libpq.

#include <sys/types.h>

#include <string>

#include "support/server_process.h"

namespace pathtest {

// initdb into a fresh temp dir, then postgres on 127.0.0.1 at a free port
// (its Unix socket in the temp dir), trust authentication for user
// "pathfinder", durability off (fsync, synchronous_commit: tests only). As
// root, both run as user `nobody`, who owns the temp dir, since PostgreSQL
// refuses to run as root. The constructor returns once the server accepts
// connections (throws std::runtime_error with the server's log when it does
// not); the destructor always stops it and removes everything.
//
// The binaries come from $PATHFINDER_POSTGRES_BINDIR, else the directory
// CMake found (PATHFINDER_POSTGRES_BINDIR, /usr/lib/postgresql/N/bin).
class PostgresProcess {
 public:
  PostgresProcess();
  ~PostgresProcess();
  PostgresProcess(const PostgresProcess&) = delete;
  PostgresProcess& operator=(const PostgresProcess&) = delete;

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] bool running() const { return pid_ > 0; }
  // A libpq connection string for `dbname` on this server.
  [[nodiscard]] std::string conninfo(const std::string& dbname = "postgres") const;
  // Creates an empty database (a test's own) and returns its conninfo.
  std::string create_database(const std::string& dbname);
  // Runs `sql` on `dbname` (throws std::runtime_error with the server's
  // message when it fails).
  void execute(const std::string& dbname, const std::string& sql) const;

  // Fast shutdown (SIGINT), waiting for the exit. No-op when stopped.
  void stop();
  // Starts the server again on the same data and port, and waits until it
  // accepts connections.
  void start();
  // The server's log so far.
  [[nodiscard]] std::string log() const;

 private:
  TempDir temp_dir_;
  std::string bin_dir_;
  std::string data_dir_;
  std::string log_file_;
  std::optional<RunAs> run_as_;  // nobody, when the test runs as root
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace pathtest
