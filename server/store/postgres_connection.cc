#include "store/postgres_connection.h"

#include <endian.h>
#include <spdlog/spdlog.h>

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
bool means_unavailable(const std::string& sqlstate) {
  return sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
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

PgConnection::PgConnection(const std::string& conninfo) : conn_(nullptr, &PQfinish) {
  // Ours come first and `dbname` (expanded: the whole connection string)
  // last, so the operator's settings override them.
  const char* const keywords[] = {"connect_timeout",     "keepalives",     "keepalives_idle",
                                  "keepalives_interval", "keepalives_count", "application_name",
                                  "dbname",              nullptr};
  const char* const values[] = {"5", "1", "10", "5", "3", "pathfinder-server", conninfo.c_str(),
                                nullptr};
  conn_.reset(PQconnectdbParams(keywords, values, /*expand_dbname=*/1));
  if (!conn_) throw StoreUnavailable("cannot connect to the database: out of memory");
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    throw StoreUnavailable("cannot connect to the database: " +
                           trimmed(PQerrorMessage(conn_.get())));
  }
  PQsetNoticeProcessor(conn_.get(), &log_notice, nullptr);
}

PgResult PgConnection::exec(const char* sql, std::initializer_list<PgParam> params) {
  std::vector<const char*> data;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const PgParam& param : params) {
    data.push_back(param.data());
    lengths.push_back(param.length());
    formats.push_back(param.is_binary() ? 1 : 0);
  }
  PgResult result(PQexecParams(conn_.get(), sql, static_cast<int>(params.size()), nullptr,
                               data.data(), lengths.data(), formats.data(), kBinaryResults));
  const ExecStatusType status = result.status();
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
  const std::string sqlstate = result.sqlstate();
  const std::string message = trimmed(PQerrorMessage(conn_.get()));
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
