#include "support/postgres_process.h"

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace pathtest {
namespace {

using Clock = std::chrono::steady_clock;

// How long PostgreSQL gets to start or stop (it needs 1-2 s).
constexpr auto kReadyTimeout = std::chrono::seconds(30);
constexpr auto kStopTimeout = std::chrono::seconds(15);
constexpr int kStartAttempts = 3;  // a port picked free may be taken meanwhile

std::string bin_dir() {
  if (const char* env = std::getenv("PATHFINDER_POSTGRES_BINDIR"); env != nullptr && *env) {
    return env;
  }
  return PATHFINDER_POSTGRES_BINDIR;
}

// A port free on 127.0.0.1 now.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::system_error(error, std::generic_category(), "bind 127.0.0.1:0");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace

PostgresProcess::PostgresProcess() : temp_dir_("pathfinder-pg"), bin_dir_(bin_dir()) {
  data_dir_ = temp_dir_.file("data");
  log_file_ = temp_dir_.file("postgres.log");
  if (::geteuid() == 0) {
    const passwd* nobody = ::getpwnam("nobody");
    if (nobody == nullptr) throw std::runtime_error("no user 'nobody' to run PostgreSQL as");
    run_as_ = RunAs{nobody->pw_uid, nobody->pw_gid};
    if (::chown(temp_dir_.path().c_str(), nobody->pw_uid, nobody->pw_gid) != 0) {
      throw std::system_error(errno, std::generic_category(), "chown " + temp_dir_.path());
    }
  }
  const CommandResult initdb = run_command(
      {bin_dir_ + "/initdb", "-D", data_dir_, "-U", "pathfinder", "-A", "trust", "-E", "UTF8",
       "--locale=C", "--no-sync", "--no-instructions"},
      std::chrono::seconds(60), run_as_);
  if (initdb.exit_code != 0) {
    throw std::runtime_error("initdb failed (exit " + std::to_string(initdb.exit_code) +
                             "):\n" + initdb.out + initdb.err);
  }
  for (int attempt = 1;; ++attempt) {
    port_ = free_port();
    try {
      start();
      return;
    } catch (const std::exception&) {
      if (attempt == kStartAttempts) throw;
    }
  }
}

PostgresProcess::~PostgresProcess() { stop(); }

std::string PostgresProcess::conninfo(const std::string& dbname) const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " user=pathfinder dbname=" + dbname +
         " connect_timeout=5";
}

void PostgresProcess::start() {
  if (pid_ > 0) return;
  pid_ = start_process(
      {bin_dir_ + "/postgres", "-D", data_dir_, "-p", std::to_string(port_), "-k",
       temp_dir_.path(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c",
       "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=60", "-c",
       "shared_buffers=16MB"},
      log_file_, run_as_);
  const auto deadline = Clock::now() + kReadyTimeout;
  const std::string target = conninfo();
  while (PQping(target.c_str()) != PQPING_OK) {
    if (process_exited(pid_)) {
      pid_ = -1;
      throw std::runtime_error("postgres exited while starting; its log:\n" + log());
    }
    if (Clock::now() >= deadline) {
      stop();
      throw std::runtime_error("postgres did not accept connections in time; its log:\n" +
                               log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void PostgresProcess::stop() {
  if (pid_ <= 0) return;
  stop_process(pid_, SIGINT, std::chrono::duration_cast<std::chrono::milliseconds>(kStopTimeout));
  pid_ = -1;
}

std::string PostgresProcess::create_database(const std::string& dbname) {
  execute("postgres", "CREATE DATABASE \"" + dbname + "\"");
  return conninfo(dbname);
}

void PostgresProcess::execute(const std::string& dbname, const std::string& sql) const {
  const std::unique_ptr<PGconn, decltype(&PQfinish)> connection(
      PQconnectdb(conninfo(dbname).c_str()), &PQfinish);
  if (PQstatus(connection.get()) != CONNECTION_OK) {
    throw std::runtime_error("cannot connect to " + dbname + ": " +
                             PQerrorMessage(connection.get()));
  }
  const std::unique_ptr<PGresult, decltype(&PQclear)> result(
      PQexec(connection.get(), sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw std::runtime_error("'" + sql + "' failed: " + PQerrorMessage(connection.get()));
  }
}

std::string PostgresProcess::log() const {
  try {
    return read_text_file(log_file_);
  } catch (const std::exception&) {
    return "(no postgres log)";
  }
}

}  // namespace pathtest
