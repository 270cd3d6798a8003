// The log formatters: JSON lines, text lines, and the fields of
// log_with_fields in both.

#include "runtime/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "support/captured_log.h"
#include "support/server_process.h"

namespace {

using ::testing::HasSubstr;

std::string escaped(std::string_view text) {
  std::string out;
  pathserver::append_json_escaped(text, out);
  return out;
}

TEST(JsonLog, EscapesQuotesControlsAndBadUtf8) {
  EXPECT_EQ(escaped("plain text"), "plain text");
  EXPECT_EQ(escaped("a \"b\" \\c"), "a \\\"b\\\" \\\\c");
  EXPECT_EQ(escaped("l1\nl2\r\t"), "l1\\nl2\\r\\t");
  EXPECT_EQ(escaped(std::string("x\0y\x01\x1f\x7f", 6)), "x\\u0000y\\u0001\\u001f\\u007f");
  EXPECT_EQ(escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");  // valid UTF-8 kept
  EXPECT_EQ(escaped("\xff"), "\\ufffd");
  EXPECT_EQ(escaped("\xc3"), "\\ufffd");                        // truncated
  EXPECT_EQ(escaped("\xc0\xaf"), "\\ufffd\\ufffd");             // overlong
  EXPECT_EQ(escaped("\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd");  // surrogate
}

TEST(JsonLog, FormatsOneObjectPerLine) {
  pathserver::JsonLogFormatter formatter;
  spdlog::details::log_msg msg("pathfinder", spdlog::level::warn, "GetMask failed: \"x\"\n");
  msg.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1767323045678));
  spdlog::memory_buf_t buffer;
  formatter.format(msg, buffer);
  EXPECT_EQ(std::string(buffer.data(), buffer.size()),
            "{\"time\":\"2026-01-02T03:04:05.678Z\",\"level\":\"warning\",\"logger\":"
            "\"pathfinder\",\"message\":\"GetMask failed: \\\"x\\\"\\n\"}\n");
  EXPECT_NE(formatter.clone(), nullptr);
}

using pathtest::CapturedLog;

TEST(JsonLog, FieldsBecomeKeysWithEscapedStrings) {
  const CapturedLog log(std::make_unique<pathserver::JsonLogFormatter>());
  pathserver::log_with_fields(spdlog::level::info, "GetMask failed",
                              {{"rpc", "GetMask"},
                               {"mask", std::string_view("a\"b\n\x01\x7f\xff", 7)},
                               {"revision", std::uint64_t{18446744073709551615ULL}},
                               {"latency_ms", 1.25}});
  pathserver::log_with_fields(spdlog::level::debug, "below the level", {{"rpc", "x"}});
  const std::string line = log.text();
  // The time varies; everything after it is exact.
  const std::string tail = line.substr(line.find("\",\"level\""));
  EXPECT_EQ(tail,
            "\",\"level\":\"info\",\"logger\":\"pathfinder\",\"message\":\"GetMask failed\","
            "\"rpc\":\"GetMask\",\"mask\":\"a\\\"b\\n\\u0001\\u007f\\ufffd\","
            "\"revision\":18446744073709551615,\"latency_ms\":1.250}\n");
  // A record without fields right after is the plain form again.
  spdlog::info("plain");
  EXPECT_THAT(log.text(), HasSubstr("\"message\":\"plain\"}\n"));
}

TEST(JsonLog, TextLogsGetTheFieldsAppendedEscaped) {
  const CapturedLog log(std::make_unique<spdlog::pattern_formatter>("%v"));
  pathserver::log_with_fields(
      spdlog::level::info, "audit: UploadMask",
      {{"mask", "two\nlines"}, {"width", std::uint64_t{64}}, {"token", "admin"}});
  EXPECT_EQ(log.text(), "audit: UploadMask mask=\"two\\nlines\" width=64 token=\"admin\"\n");
}

// Characters that break a line in some viewer but are not ASCII controls.
TEST(JsonLog, EscapesC1ControlsAndUnicodeLineBreaks) {
  EXPECT_EQ(escaped("a\xc2\x85z"), "a\\u0085z");  // NEL, a line break
  EXPECT_EQ(escaped("\xc2\x80\xc2\x9b\xc2\x9f"), "\\u0080\\u009b\\u009f");
  EXPECT_EQ(escaped("a\xe2\x80\xa8z\xe2\x80\xa9"), "a\\u2028z\\u2029");
  // Their neighbours are ordinary text.
  EXPECT_EQ(escaped("\xc2\xa0\xe2\x80\xa7\xe2\x80\xaa"), "\xc2\xa0\xe2\x80\xa7\xe2\x80\xaa");
}

std::string text_escaped(std::string_view text) {
  std::string out;
  pathserver::append_log_text_escaped(text, out);
  return out;
}

TEST(TextLog, EscapesAsJsonButKeepsQuotes) {
  EXPECT_EQ(text_escaped("mask 'a' \"b\""), "mask 'a' \"b\"");
  EXPECT_EQ(text_escaped("a\nINFO fake\r\x1b[31m\t\x7f\\n"),
            "a\\nINFO fake\\r\\u001b[31m\\t\\u007f\\\\n");
  EXPECT_EQ(text_escaped("\xc2\x85\xe2\x80\xa8\xff"), "\\u0085\\u2028\\ufffd");
}

// What a text formatter makes of one record, and how many lines that is.
std::string format_text(std::string_view message) {
  const auto formatter = pathserver::make_text_log_formatter();
  const spdlog::details::log_msg msg("pathfinder", spdlog::level::info,
                                     spdlog::string_view_t(message.data(), message.size()));
  spdlog::memory_buf_t buffer;
  formatter->format(msg, buffer);
  return {buffer.data(), buffer.size()};
}

TEST(TextLog, OneRecordIsOneLineWhateverItsMessageCarries) {
  const std::string line = format_text("GetMask failed: 'a\nINFO fake' \r\x1b[2J\x1b[31mred\t\\");
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  EXPECT_THAT(line, ::testing::MatchesRegex(
                        "\\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\\.[0-9]{3}\\] \\[pathfinder\\] "
                        "\\[info\\] .*\n"));
  EXPECT_THAT(line,
              ::testing::EndsWith(
                  "[info] GetMask failed: 'a\\nINFO fake' \\r\\u001b[2J\\u001b[31mred\\t\\\\\n"));
}

TEST(TextLog, FieldsFollowTheEscapedMessageEscapedOnce) {
  const CapturedLog log(pathserver::make_text_log_formatter());
  pathserver::log_with_fields(spdlog::level::info, "GetMask failed: x\ny",
                              {{"mask", "a\nINFO fake"}, {"width", std::uint64_t{64}}});
  spdlog::info("plain\nafter");
  const std::string text = log.text();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
  EXPECT_THAT(text, HasSubstr("[info] GetMask failed: x\\ny mask=\"a\\nINFO fake\" width=64\n"));
  EXPECT_THAT(text, HasSubstr("[info] plain\\nafter\n"));
}

// configure_logging, the server's set-up, writes stderr through the
// escaping formatters in both formats.
TEST(ConfigureLogging, BothFormatsWriteOneLinePerRecord) {
  const auto previous = spdlog::default_logger();
  const pathtest::TempDir dir("pathfinder-logging-unit");
  for (const auto format : {pathserver::LogFormat::kText, pathserver::LogFormat::kJson}) {
    const std::string path = dir.file(format == pathserver::LogFormat::kText ? "text" : "json");
    std::fflush(stderr);
    const int saved_stderr = ::dup(STDERR_FILENO);
    ASSERT_GE(saved_stderr, 0);
    FILE* file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    ::dup2(::fileno(file), STDERR_FILENO);
    pathserver::configure_logging("info", format);
    spdlog::info("name 'a\nINFO fake' \x1b[2J");
    spdlog::default_logger()->flush();
    ::dup2(saved_stderr, STDERR_FILENO);
    ::close(saved_stderr);
    std::fclose(file);
    spdlog::drop("pathfinder");
    spdlog::set_default_logger(previous);

    const std::string written = pathtest::read_text_file(path);
    EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 1) << written;
    EXPECT_THAT(written, HasSubstr("name 'a\\nINFO fake' \\u001b[2J")) << written;
  }
}

}  // namespace
