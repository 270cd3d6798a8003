#pragma once

#include <spdlog/common.h>
#include <spdlog/formatter.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace pathserver {

enum class LogFormat {
  kText,  // "[time] [logger] [level] message", coloured on a terminal
  kJson,  // one JSON object per line: {"time","level","logger","message"}
};

// Both formats escape what a request may carry into a record (a mask name,
// an error message quoting it) so that one record is always one line and
// cannot forge another: control characters (C0, DEL, C1), U+2028 and
// U+2029 become \n, \r, \t or \uXXXX, invalid UTF-8 bytes \ufffd, and the
// backslash \\ (so an escape in the text cannot pass for one of ours).

// Formats every record as one line of JSON:
//   {"time":"2026-01-02T03:04:05.678Z","level":"info","logger":"pathfinder","message":"..."}
// Time is UTC with milliseconds; the message is escaped (quotes, backslashes,
// control characters as \uXXXX) and invalid UTF-8 bytes become U+FFFD, so
// every line parses whatever a request carried. A record logged with
// log_with_fields also carries its fields as keys after "message" (strings
// escaped the same way, numbers as JSON numbers).
class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  [[nodiscard]] std::unique_ptr<spdlog::formatter> clone() const override;
};

// Appends text to out as the contents of a JSON string (no quotes around).
void append_json_escaped(std::string_view text, std::string& out);

// Appends text to out escaped for a text log line: as append_json_escaped,
// but double quotes are kept (they break nothing there).
void append_log_text_escaped(std::string_view text, std::string& out);

// The formatter of text logs:
//   [2026-01-02 03:04:05.678] [pathfinder] [info] message key="value" ...
// in local time, the level coloured on a terminal, the message escaped with
// append_log_text_escaped (a record of log_with_fields: its message escaped,
// then its fields as LogField::append_text writes them).
[[nodiscard]] std::unique_ptr<spdlog::formatter> make_text_log_formatter();

// One key and value of a structured log line. The value is text, an
// unsigned integer or a floating-point number (pass those types exactly).
class LogField {
 public:
  LogField(std::string_view key, std::string_view text) : key_(key), text_(text) {}
  LogField(std::string_view key, std::uint64_t number)
      : key_(key), kind_(Kind::kUnsigned), unsigned_(number) {}
  LogField(std::string_view key, double number)
      : key_(key), kind_(Kind::kDouble), double_(number) {}

  // `"key":value` as JSON (text quoted and escaped).
  void append_json(std::string& out) const;
  // `key=value` for text logs (text quoted and escaped as in JSON, so a
  // value cannot break the line).
  void append_text(std::string& out) const;

 private:
  void append_value(std::string& out) const;
  enum class Kind { kText, kUnsigned, kDouble };
  std::string_view key_;
  Kind kind_ = Kind::kText;
  std::string_view text_;
  std::uint64_t unsigned_ = 0;
  double double_ = 0;
};

// Logs `message` at `level` on the default logger with `fields`: in JSON
// logs as keys of the line's object, in text logs appended to the message as
// ` key=value`. Nothing is formatted when the level is off.
void log_with_fields(spdlog::level::level_enum level, std::string_view message,
                     std::initializer_list<LogField> fields);

// Makes the default logger: "pathfinder" on stderr, in `format`, at `level`
// (a spdlog level name: trace, debug, info, warn, error, off).
void configure_logging(std::string_view level, LogFormat format);

}  // namespace pathserver
