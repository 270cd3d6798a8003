#pragma once

#include <libpq-fe.h>

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <memory>
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

class PgConnection {
 public:
  // Connects with a libpq connection string (key=value words or a
  // postgresql:// URI; empty: libpq's PG* environment variables and
  // defaults). A connect timeout, TCP keepalives and the application name
  // are set unless the string sets them. Throws StoreUnavailable with
  // libpq's reason when the database cannot be reached.
  explicit PgConnection(const std::string& conninfo);
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs one statement and returns its rows. Throws StoreUnavailable when the
  // connection is lost (or the server is shutting down), PgQueryError when
  // the statement fails otherwise.
  PgResult exec(const char* sql, std::initializer_list<PgParam> params = {});
  // True once the connection is known to be lost.
  [[nodiscard]] bool is_broken() const { return PQstatus(conn_.get()) != CONNECTION_OK; }
  // "user@host:port/dbname", for the log (never the password).
  [[nodiscard]] std::string describe() const;
  [[nodiscard]] PGconn* get() const { return conn_.get(); }

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

// True when `conninfo` (key=value words or a URI) carries a password. Throws
// std::invalid_argument with libpq's reason when it cannot be parsed.
[[nodiscard]] bool conninfo_has_password(const std::string& conninfo);

}  // namespace pathserver
