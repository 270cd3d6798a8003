#include "runtime/logging.h"

#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <iterator>

namespace pathserver {
namespace {

// Length of the well-formed UTF-8 sequence at the start of text, or 0.
std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;  // allowed range of the second byte
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

// The fields of the record being logged on this thread by log_with_fields:
// spdlog formats synchronously on the logging thread, so the formatter
// finds them here (null for every other record).
struct PendingFields {
  std::string_view message;  // without the text rendering of the fields
  std::initializer_list<LogField> fields;
};
thread_local const PendingFields* pending_fields = nullptr;

enum class Quotes { kEscape, kKeep };

void append_escaped(std::string_view text, std::string& out, Quotes quotes) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto append_u00 = [&out](unsigned char c) {
    out.append("\\u00");
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  };
  while (!text.empty()) {
    const auto c = static_cast<unsigned char>(text.front());
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text);
      if (length == 0) {
        out.append("\\ufffd");
        text.remove_prefix(1);
        continue;
      }
      const std::string_view sequence = text.substr(0, length);
      const auto second = static_cast<unsigned char>(text[1]);
      if (c == 0xC2 && second < 0xA0) {
        append_u00(second);  // a C1 control, U+0080..U+009F (U+0085 is a line break)
      } else if (sequence == "\xe2\x80\xa8") {
        out.append("\\u2028");  // line separator
      } else if (sequence == "\xe2\x80\xa9") {
        out.append("\\u2029");  // paragraph separator
      } else {
        out.append(sequence);
      }
      text.remove_prefix(length);
      continue;
    }
    switch (c) {
      case '"':
        if (quotes == Quotes::kEscape) {
          out.append("\\\"");
        } else {
          out.push_back('"');
        }
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          append_u00(c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    text.remove_prefix(1);
  }
}

// The %* flag of text logs: the record's message escaped (and the fields of
// a log_with_fields record after it, escaped once), in place of spdlog's
// raw %v.
class EscapedMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*time*/,
              spdlog::memory_buf_t& dest) override {
    std::string text;
    if (pending_fields != nullptr) {
      append_log_text_escaped(pending_fields->message, text);
      for (const LogField& field : pending_fields->fields) {
        text.push_back(' ');
        field.append_text(text);
      }
    } else {
      append_log_text_escaped(std::string_view(msg.payload.data(), msg.payload.size()), text);
    }
    dest.append(text.data(), text.data() + text.size());
  }

  [[nodiscard]] std::unique_ptr<spdlog::custom_flag_formatter> clone() const override {
    return std::make_unique<EscapedMessageFlag>();
  }
};

}  // namespace

void LogField::append_value(std::string& out) const {
  switch (kind_) {
    case Kind::kText:
      out.push_back('"');
      append_json_escaped(text_, out);
      out.push_back('"');
      break;
    case Kind::kUnsigned:
      out.append(std::to_string(unsigned_));
      break;
    case Kind::kDouble:
      // JSON has no NaN or infinity; three decimals are enough for milliseconds.
      if (std::isfinite(double_)) {
        fmt::format_to(std::back_inserter(out), "{:.3f}", double_);
      } else {
        out.append("null");
      }
      break;
  }
}

void LogField::append_json(std::string& out) const {
  out.push_back('"');
  append_json_escaped(key_, out);
  out.append("\":");
  append_value(out);
}

void LogField::append_text(std::string& out) const {
  append_json_escaped(key_, out);
  out.push_back('=');
  append_value(out);
}

void log_with_fields(spdlog::level::level_enum level, std::string_view message,
                     std::initializer_list<LogField> fields) {
  spdlog::logger* logger = spdlog::default_logger_raw();
  if (logger == nullptr || !logger->should_log(level)) return;
  std::string text(message);
  for (const LogField& field : fields) {
    text.push_back(' ');
    field.append_text(text);
  }
  const PendingFields pending{message, fields};
  pending_fields = &pending;
  // spdlog catches what its sinks throw, so the pointer is always reset.
  logger->log(level, spdlog::string_view_t(text.data(), text.size()));
  pending_fields = nullptr;
}

void append_json_escaped(std::string_view text, std::string& out) {
  append_escaped(text, out, Quotes::kEscape);
}

void append_log_text_escaped(std::string_view text, std::string& out) {
  append_escaped(text, out, Quotes::kKeep);
}

std::unique_ptr<spdlog::formatter> make_text_log_formatter() {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  // spdlog's default layout ("%+") with the message escaped.
  formatter->add_flag<EscapedMessageFlag>('*').set_pattern(
      "[%Y-%m-%d %H:%M:%S.%e] [%n] [%^%l%$] %*");
  return formatter;
}

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  const auto since_epoch = msg.time.time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds).count();
  const std::time_t time = static_cast<std::time_t>(seconds.count());
  std::tm utc{};
  ::gmtime_r(&time, &utc);
  std::array<char, 40> stamp{};
  const std::size_t stamp_length =
      std::strftime(stamp.data(), stamp.size(), "%Y-%m-%dT%H:%M:%S", &utc);

  std::string line;
  line.reserve(96 + msg.payload.size());
  line.append("{\"time\":\"");
  line.append(stamp.data(), stamp_length);
  line.push_back('.');
  line.push_back(static_cast<char>('0' + millis / 100));
  line.push_back(static_cast<char>('0' + millis / 10 % 10));
  line.push_back(static_cast<char>('0' + millis % 10));
  line.append("Z\",\"level\":\"");
  const auto level = spdlog::level::to_string_view(msg.level);
  append_json_escaped(std::string_view(level.data(), level.size()), line);
  line.append("\",\"logger\":\"");
  append_json_escaped(std::string_view(msg.logger_name.data(), msg.logger_name.size()), line);
  line.append("\",\"message\":\"");
  if (pending_fields != nullptr) {
    append_json_escaped(pending_fields->message, line);
    line.push_back('"');
    for (const LogField& field : pending_fields->fields) {
      line.push_back(',');
      field.append_json(line);
    }
    line.append("}\n");
  } else {
    append_json_escaped(std::string_view(msg.payload.data(), msg.payload.size()), line);
    line.append("\"}\n");
  }
  dest.append(line.data(), line.data() + line.size());
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

void configure_logging(std::string_view level, LogFormat format) {
  std::shared_ptr<spdlog::logger> logger;
  if (format == LogFormat::kJson) {
    logger = spdlog::stderr_logger_mt("pathfinder");
    logger->set_formatter(std::make_unique<JsonLogFormatter>());
  } else {
    logger = spdlog::stderr_color_mt("pathfinder");
    logger->set_formatter(make_text_log_formatter());
  }
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(std::string(level)));
}

}  // namespace pathserver
