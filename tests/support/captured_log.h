#pragma once

// The server's log captured in memory, for tests of what it logs. Header-only
// and not part of test_support (which has no spdlog): for tests that link the
// server library.

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

namespace pathtest {

// Makes a logger writing to memory the default one while alive (the server's
// logging is the default logger's), at level info; puts the previous one back
// after. The default format is "[level] message".
class CapturedLog {
 public:
  explicit CapturedLog(std::unique_ptr<spdlog::formatter> formatter =
                           std::make_unique<spdlog::pattern_formatter>("[%l] %v"))
      : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    auto logger = std::make_shared<spdlog::logger>("pathfinder", sink);
    logger->set_formatter(std::move(formatter));
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  // Everything logged so far. Call it when no other thread is logging.
  [[nodiscard]] std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace pathtest
