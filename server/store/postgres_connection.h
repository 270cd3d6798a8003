#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

// A thin, exception-safe layer over libpq for PostgresMaskStore: a connection
// and its results own their libpq objects, and failures become exceptions
// that say whether the database was unreachable (StoreUnavailable) or the
// statement itself failed (PgQueryError).
namespace pathserver {

// A statement failed on a working connection (an SQL error). what() is
// libpq's message, for the log: it may name tables, never the password.
class PgQueryError : public std::runtime_error {
 public:
  PgQueryError(const std::string& message, std::string sqlstate)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  [[nodiscard]] const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// One parameter of a statement: text (numbers are sent as their decimal
// text), or bytes sent in binary (a bytea). Bytes are not copied: they must
// outlive the statement.
class PgParam {
 public:
  PgParam(std::string_view text) : text_(text) {}     // NOLINT: implicit on purpose
  PgParam(const std::string& text) : text_(text) {}  // NOLINT
  PgParam(const char* text) : text_(text) {}          // NOLINT
  template <std::integral Number>
  PgParam(Number number) : text_(std::to_string(number)) {}  // NOLINT
  [[nodiscard]] static PgParam bytes(std::span<const std::uint8_t> bytes);

  [[nodiscard]] const char* data() const;
  [[nodiscard]] int length() const;
  [[nodiscard]] bool is_binary() const { return binary_; }

 private:
  PgParam() = default;
  std::string text_;
  std::span<const std::uint8_t> bytes_;
  bool binary_ = false;
};

// The rows of a statement, in binary format (integers big-endian, text and
// bytea as their bytes). The accessors check each value's type and length.
class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result, &PQclear) {}

  [[nodiscard]] ExecStatusType status() const { return PQresultStatus(result_.get()); }
  // The SQLSTATE of a failed statement ("" when there is none).
  [[nodiscard]] std::string sqlstate() const;
  [[nodiscard]] int rows() const { return PQntuples(result_.get()); }
  [[nodiscard]] bool is_null(int row, int column) const;
  [[nodiscard]] std::int64_t int8(int row, int column) const;  // bigint
  [[nodiscard]] std::int32_t int4(int row, int column) const;  // integer
  [[nodiscard]] std::string_view text(int row, int column) const;
  [[nodiscard]] std::span<const std::uint8_t> bytes(int row, int column) const;

 private:
  [[nodiscard]] const char* value(int row, int column, int length) const;
  std::unique_ptr<PGresult, decltype(&PQclear)> result_;
};

// Every wait on the database is bounded: connecting, sending and reading
// answers run nonblocking, polling the socket until a deadline (a stopped
// or partitioned server accepts TCP and keepalives but never answers, so
// no server-side timeout would fire). The server is also told to give up
// on its side (statement_timeout, lock_timeout), so a statement left behind
// by a client that gave up ends too.
class PgConnection {
 public:
  using Clock = std::chrono::steady_clock;

  // Connects with a libpq connection string (key=value words or a
  // postgresql:// URI; empty: libpq's PG* environment variables and
  // defaults), within `timeout` (and before `deadline` when given). A
  // connect timeout, TCP keepalives and user timeout, the server-side
  // timeouts and the application name are set unless the string sets them.
  // Throws StoreUnavailable with libpq's reason when the database cannot be
  // reached in time.
  explicit PgConnection(const std::string& conninfo,
                        std::chrono::milliseconds timeout = std::chrono::seconds(5),
                        std::optional<Clock::time_point> deadline = std::nullopt);
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs one statement and returns its rows, waiting at most the timeout
  // (and not past the deadline set). Throws StoreUnavailable when the
  // connection is lost, the server is shutting down or does not answer in
  // time (the connection is then broken: its state is unknown), or the
  // server gave up on it (statement or lock timeout); PgQueryError when the
  // statement fails otherwise.
  PgResult exec(const char* sql, std::initializer_list<PgParam> params = {});
  // No statement waits past `deadline` (std::nullopt: only the timeout
  // bounds each one), e.g. the end of a transaction's time.
  void set_deadline(std::optional<Clock::time_point> deadline) { deadline_ = deadline; }
  // True once the connection is known to be lost (or abandoned mid-statement).
  [[nodiscard]] bool is_broken() const {
    return timed_out_ || PQstatus(conn_.get()) != CONNECTION_OK;
  }
  // "user@host:port/dbname", for the log (never the password).
  [[nodiscard]] std::string describe() const;
  [[nodiscard]] PGconn* get() const { return conn_.get(); }
  [[nodiscard]] std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  // When the statement started now must be answered.
  [[nodiscard]] Clock::time_point statement_deadline() const;
  // Waits until the socket is ready for `events` or `deadline` passes
  // (false: it passed).
  [[nodiscard]] bool wait_socket(short events, Clock::time_point deadline) const;
  // Gives the connection up after a wait ran out, and says so.
  [[noreturn]] void give_up(const char* what);

  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
  std::chrono::milliseconds timeout_;
  std::optional<Clock::time_point> deadline_;
  bool timed_out_ = false;
};

// True when `conninfo` (key=value words or a URI) carries a password. Throws
// std::invalid_argument with libpq's reason when it cannot be parsed.
[[nodiscard]] bool conninfo_has_password(const std::string& conninfo);

}  // namespace pathserver
