#include "store/postgres_connection.h"

#include <endian.h>
#include <poll.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "store/mask_store.h"

namespace pathserver {
namespace {

// Binary results, so integers and bytea need no text parsing or unescaping.
constexpr int kBinaryResults = 1;

// libpq's message on one line (its messages end in, and may hold, newlines
// and tabs).
std::string trimmed(const char* message) {
  std::string text;
  for (const char* c = message != nullptr ? message : ""; *c != '\0'; ++c) {
    const bool space = *c == '\n' || *c == '\t' || *c == ' ';
    if (!space) {
      text += *c;
    } else if (!text.empty() && text.back() != ' ') {
      text += ' ';
    }
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// The server's notices ("relation ... already exists, skipping") go to the
// debug log instead of libpq's default, stderr.
void log_notice(void* /*context*/, const char* message) {
  spdlog::debug("mask store: database notice: {}", trimmed(message));
}

// SQLSTATEs of a server going away or not accepting connections yet
// (class 08 connection exceptions, 57P01-57P03 shutdown and start-up): the
// database is unavailable, not the statement wrong.
// 57014 and 55P03 are the server giving up on a statement (statement_timeout)
// or a lock (lock_timeout) after the time a call has: the database is too
// slow or blocked to answer in time, which clients see as unavailable too.
bool means_unavailable(const std::string& sqlstate) {
  return sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03" || sqlstate == "57014" || sqlstate == "55P03";
}

}  // namespace

PgParam PgParam::bytes(std::span<const std::uint8_t> bytes) {
  PgParam param;
  param.bytes_ = bytes;
  param.binary_ = true;
  return param;
}

const char* PgParam::data() const {
  return binary_ ? reinterpret_cast<const char*>(bytes_.data()) : text_.c_str();
}

int PgParam::length() const {
  return binary_ ? static_cast<int>(bytes_.size()) : static_cast<int>(text_.size());
}

std::string PgResult::sqlstate() const {
  const char* code = PQresultErrorField(result_.get(), PG_DIAG_SQLSTATE);
  return code != nullptr ? code : "";
}

bool PgResult::is_null(int row, int column) const {
  return PQgetisnull(result_.get(), row, column) != 0;
}

const char* PgResult::value(int row, int column, int length) const {
  if (row >= rows() || column >= PQnfields(result_.get()) || is_null(row, column)) {
    throw PgQueryError("no value at row " + std::to_string(row) + ", column " +
                           std::to_string(column),
                       "");
  }
  if (length >= 0 && PQgetlength(result_.get(), row, column) != length) {
    throw PgQueryError("column " + std::to_string(column) + " has " +
                           std::to_string(PQgetlength(result_.get(), row, column)) +
                           " bytes, expected " + std::to_string(length),
                       "");
  }
  return PQgetvalue(result_.get(), row, column);
}

std::int64_t PgResult::int8(int row, int column) const {
  std::uint64_t big_endian = 0;
  std::memcpy(&big_endian, value(row, column, 8), 8);
  return static_cast<std::int64_t>(be64toh(big_endian));
}

std::int32_t PgResult::int4(int row, int column) const {
  std::uint32_t big_endian = 0;
  std::memcpy(&big_endian, value(row, column, 4), 4);
  return static_cast<std::int32_t>(be32toh(big_endian));
}

std::string_view PgResult::text(int row, int column) const {
  const char* data = value(row, column, -1);
  return {data, static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
}

std::span<const std::uint8_t> PgResult::bytes(int row, int column) const {
  const char* data = value(row, column, -1);
  return {reinterpret_cast<const std::uint8_t*>(data),
          static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
}

PgConnection::PgConnection(const std::string& conninfo, std::chrono::milliseconds timeout,
                           std::optional<Clock::time_point> deadline)
    : conn_(nullptr, &PQfinish), timeout_(timeout) {
  Clock::time_point until = Clock::now() + timeout_;
  if (deadline) until = std::min(until, *deadline);
  // libpq counts its connect timeout in whole seconds (at least 2); the
  // poll below holds the real bound. tcp_user_timeout ends a connection
  // whose sent data stays unacknowledged that long (a dead peer).
  const std::string connect_seconds =
      std::to_string(std::max<long long>(2, (timeout_.count() + 999) / 1000));
  const std::string user_timeout_ms = std::to_string(timeout_.count());
  // Ours come first and `dbname` (expanded: the whole connection string)
  // last, so the operator's settings override them.
  const char* const keywords[] = {"connect_timeout",     "keepalives",       "keepalives_idle",
                                  "keepalives_interval", "keepalives_count", "tcp_user_timeout",
                                  "application_name",    "dbname",           nullptr};
  const char* const values[] = {
      connect_seconds.c_str(), "1",    "10", "5", "3", user_timeout_ms.c_str(), "pathfinder-server",
      conninfo.c_str(),        nullptr};
  conn_.reset(PQconnectStartParams(keywords, values, /*expand_dbname=*/1));
  if (!conn_) throw StoreUnavailable("cannot connect to the database: out of memory");
  PostgresPollingStatusType polled = PGRES_POLLING_WRITING;
  while (PQstatus(conn_.get()) != CONNECTION_BAD && polled != PGRES_POLLING_OK &&
         polled != PGRES_POLLING_FAILED) {
    if (!wait_socket(polled == PGRES_POLLING_READING ? POLLIN : POLLOUT, until)) {
      throw StoreUnavailable("cannot connect to the database: no answer within " +
                             std::to_string(timeout_.count()) + " ms");
    }
    polled = PQconnectPoll(conn_.get());
  }
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    throw StoreUnavailable("cannot connect to the database: " +
                           trimmed(PQerrorMessage(conn_.get())));
  }
  PQsetNoticeProcessor(conn_.get(), &log_notice, nullptr);
  // Sending a large grid must not block either: exec flushes by polling.
  if (PQsetnonblocking(conn_.get(), 1) != 0) {
    throw StoreUnavailable("cannot connect to the database: " +
                           trimmed(PQerrorMessage(conn_.get())));
  }
  // The server gives up on its side after the same time, so a statement a
  // client abandoned (a lock wait, say) does not hold on: set here rather
  // than through the `options` keyword, which the operator's string may set.
  deadline_ = until;
  const std::string server_timeout = std::to_string(timeout_.count());
  exec("SELECT set_config('statement_timeout', $1, false), set_config('lock_timeout', $1, false)",
       {server_timeout});
  deadline_.reset();
}

PgConnection::Clock::time_point PgConnection::statement_deadline() const {
  const Clock::time_point until = Clock::now() + timeout_;
  return deadline_ ? std::min(until, *deadline_) : until;
}

bool PgConnection::wait_socket(short events, Clock::time_point deadline) const {
  while (true) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd socket{PQsocket(conn_.get()), events, 0};
    const int ready =
        ::poll(&socket, 1, static_cast<int>(std::min<long long>(left.count(), 60'000)));
    if (ready > 0) return true;  // readable, writable, or an error libpq will report
    if (ready < 0 && errno != EINTR) {
      throw StoreUnavailable(std::string("the database connection failed: poll: ") +
                             std::strerror(errno));
    }
  }
}

void PgConnection::give_up(const char* what) {
  // Its state is unknown now (a statement may be half sent or still
  // running): the owner drops the connection, which the server notices.
  timed_out_ = true;
  throw StoreUnavailable(std::string("the database did not answer within ") +
                         std::to_string(timeout_.count()) + " ms (" + what + ")");
}

PgResult PgConnection::exec(const char* sql, std::initializer_list<PgParam> params) {
  if (timed_out_) throw StoreUnavailable("the database connection was abandoned");
  const Clock::time_point until = statement_deadline();
  std::vector<const char*> data;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const PgParam& param : params) {
    data.push_back(param.data());
    lengths.push_back(param.length());
    formats.push_back(param.is_binary() ? 1 : 0);
  }
  PGconn* conn = conn_.get();
  const auto lost = [&] {
    return StoreUnavailable("the database connection was lost: " + trimmed(PQerrorMessage(conn)));
  };
  if (PQsendQueryParams(conn, sql, static_cast<int>(params.size()), nullptr, data.data(),
                        lengths.data(), formats.data(), kBinaryResults) == 0) {
    throw lost();
  }
  // Sends what libpq buffered, reading meanwhile as libpq asks.
  while (true) {
    const int flushed = PQflush(conn);
    if (flushed == 0) break;
    if (flushed < 0) throw lost();
    if (!wait_socket(POLLIN | POLLOUT, until)) give_up("sending a statement");
    if (PQconsumeInput(conn) == 0) throw lost();
  }
  // Every result of the statement (one, unless it failed): the first error
  // or the last result, as PQexec would answer.
  std::optional<PgResult> answer;
  while (true) {
    while (PQisBusy(conn) != 0) {
      if (!wait_socket(POLLIN, until)) give_up("waiting for an answer");
      if (PQconsumeInput(conn) == 0) throw lost();
    }
    PGresult* next = PQgetResult(conn);
    if (next == nullptr) break;
    PgResult result(next);
    const ExecStatusType status = result.status();
    const bool failed = status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK;
    if (!answer ||
        (failed && (answer->status() == PGRES_COMMAND_OK || answer->status() == PGRES_TUPLES_OK))) {
      answer.emplace(std::move(result));
    }
  }
  if (!answer) throw lost();
  const ExecStatusType status = answer->status();
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return std::move(*answer);
  const std::string sqlstate = answer->sqlstate();
  const std::string message = trimmed(PQerrorMessage(conn));
  if (is_broken() || means_unavailable(sqlstate)) {
    throw StoreUnavailable("the database connection was lost: " + message);
  }
  throw PgQueryError(message, sqlstate);
}

std::string PgConnection::describe() const {
  PGconn* conn = conn_.get();
  const char* host = PQhost(conn);
  return std::string(PQuser(conn)) + "@" + (host != nullptr ? host : "") + ":" + PQport(conn) +
         "/" + PQdb(conn);
}

bool conninfo_has_password(const std::string& conninfo) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(
      PQconninfoParse(conninfo.c_str(), &error), &PQconninfoFree);
  if (!options) {
    const std::string reason = trimmed(error);
    PQfreemem(error);
    throw std::invalid_argument(reason.empty() ? "cannot be parsed" : reason);
  }
  for (const PQconninfoOption* option = options.get(); option->keyword != nullptr; ++option) {
    if (std::strcmp(option->keyword, "password") == 0 && option->val != nullptr &&
        *option->val != '\0') {
      return true;
    }
  }
  return false;
}

}  // namespace pathserver
