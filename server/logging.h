#pragma once

#include <spdlog/formatter.h>

#include <memory>
#include <string>
#include <string_view>

namespace pathserver {

enum class LogFormat {
  kText,  // "[time] [logger] [level] message", coloured on a terminal
  kJson,  // one JSON object per line: {"time","level","logger","message"}
};

// Formats every record as one line of JSON:
//   {"time":"2026-01-02T03:04:05.678Z","level":"info","logger":"pathfinder","message":"..."}
// Time is UTC with milliseconds; the message is escaped (quotes, backslashes,
// control characters as \uXXXX) and invalid UTF-8 bytes become U+FFFD, so
// every line parses whatever a request carried.
class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  [[nodiscard]] std::unique_ptr<spdlog::formatter> clone() const override;
};

// Appends text to out as the contents of a JSON string (no quotes around).
void append_json_escaped(std::string_view text, std::string& out);

// Makes the default logger: "pathfinder" on stderr, in `format`, at `level`
// (a spdlog level name: trace, debug, info, warn, error, off).
void configure_logging(std::string_view level, LogFormat format);

}  // namespace pathserver
