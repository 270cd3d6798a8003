// Temporary obstacles end to end: the real server (with --max-obstacles 3)
// and the `pathfind` CLI's --obstacle on find, batch, los and reachable.
// Each answer with obstacles is compared with the same command, without
// them, on an uploaded copy of the level whose pixels under the shapes are
// blocked (rasterised here); the stored level is unchanged afterwards; bad
// shapes are usage errors (exit 2) or the server's INVALID_ARGUMENT, and too
// many are RESOURCE_EXHAUSTED naming --max-obstacles.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "pathfinder/client.h"
#include "support/server_process.h"

namespace {

using pathtest::CommandResult;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kWidth = 32;
constexpr int kHeight = 16;

// A room with two walls to walk around (as the CLI tests' level).
std::vector<std::uint8_t> level() {
  std::vector<std::uint8_t> areas(kWidth * kHeight, 1);
  for (int y = 0; y <= 12; ++y) areas[y * kWidth + 8] = 0;
  for (int y = 3; y < kHeight; ++y) areas[y * kWidth + 20] = 0;
  return areas;
}

std::string pgm(const std::vector<std::uint8_t>& areas) {
  return "P5\n" + std::to_string(kWidth) + " " + std::to_string(kHeight) + "\n255\n" +
         std::string(areas.begin(), areas.end());
}

void block_rect(std::vector<std::uint8_t>& areas, int x, int y, int w, int h) {
  for (int yy = y; yy < y + h && yy < kHeight; ++yy) {
    for (int xx = x; xx < x + w && xx < kWidth; ++xx) areas[yy * kWidth + xx] = 0;
  }
}

void block_circle(std::vector<std::uint8_t>& areas, double cx, double cy, double r) {
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      const double dx = x + 0.5 - cx;
      const double dy = y + 0.5 - cy;
      if (dx * dx + dy * dy <= r * r) areas[y * kWidth + x] = 0;
    }
  }
}

std::string describe(const CommandResult& result) {
  return "exit " + std::to_string(result.exit_code) + "\n--- stdout ---\n" + result.out +
         "--- stderr ---\n" + result.err;
}

// The answer's lines without the revision and cache_hit words (which may differ).
std::string answer_only(const std::string& out) {
  std::istringstream in(out);
  std::string kept;
  std::string line;
  while (std::getline(in, line)) {
    for (const char* word : {"revision ", "cache_hit "}) {
      const auto at = line.find(word);
      if (at != std::string::npos) {
        const auto end = line.find(' ', at + std::string(word).size());
        line.erase(at, end == std::string::npos ? std::string::npos : end - at);
      }
    }
    kept += line + "\n";
  }
  return kept;
}

class ObstaclesE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    options.extra_args = {"--max-obstacles", "3"};
    server_ = std::make_unique<ServerProcess>(options);
    upload("level", level());
  }
  void TearDown() override {
    if (HasFailure() && server_) std::cerr << "---- server output ----\n" << server_->log();
  }

  CommandResult run(std::vector<std::string> args) {
    args.insert(args.begin(), {PATHFIND_CLI_BIN, "--server", server_->target()});
    return pathtest::run_command(args);
  }
  void upload(const std::string& name, const std::vector<std::uint8_t>& areas) {
    const std::string path = server_->temp_dir() + "/" + name + ".pgm";
    pathtest::write_file(path, pgm(areas));
    const auto result = run({"upload", name, path});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
  }
  // `command` on "level" with `obstacles`, and on the copy without them:
  // the same exit code and answer.
  void expect_as_on_copy(std::vector<std::string> command, const std::vector<std::string>& shapes,
                         const std::string& copy) {
    std::vector<std::string> with = command;
    with.insert(with.begin() + 1, "level");
    for (const std::string& shape : shapes) with.insert(with.end(), {"--obstacle", shape});
    std::vector<std::string> on_copy = command;
    on_copy.insert(on_copy.begin() + 1, copy);
    const auto a = run(with);
    const auto b = run(on_copy);
    EXPECT_EQ(a.exit_code, b.exit_code) << describe(a) << describe(b);
    EXPECT_EQ(answer_only(a.out), answer_only(b.out)) << command.front();
    EXPECT_FALSE(a.out.empty()) << describe(a);
  }
  std::uint64_t revision() {
    pathfinder::Client client(server_->target());
    const auto info = client.get_mask("level");
    EXPECT_TRUE(info.ok()) << info.status.error_message();
    return info.value.revision();
  }

  std::unique_ptr<ServerProcess> server_;
};

TEST_F(ObstaclesE2eTest, EveryCommandAnswersAsOnThePatchedCopy) {
  const std::uint64_t before = revision();
  const auto plain = run({"find", "level", "2", "2", "30", "10"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);

  // Units in the gap under the first wall, leaving its last row; one more by the second.
  const std::vector<std::string> shapes = {"rect:7,13,3,2", "circle:24.5,1.5,1",
                                           "pixels:4,4;5,5"};
  std::vector<std::uint8_t> patched = level();
  block_rect(patched, 7, 13, 3, 2);
  block_circle(patched, 24.5, 1.5, 1);
  patched[4 * kWidth + 4] = 0;
  patched[5 * kWidth + 5] = 0;
  upload("copy", patched);
  for (const char* smoothing : {"beautify", "simplify", "none", "any-angle"}) {
    expect_as_on_copy({"find", "2", "2", "30", "10", "--smoothing", smoothing}, shapes, "copy");
    if (std::string(smoothing) == "any-angle") continue;  // any direction: --eight is refused
    expect_as_on_copy({"find", "2", "2", "30", "10", "--smoothing", smoothing, "--eight"}, shapes,
                      "copy");
  }
  expect_as_on_copy({"find", "2", "2", "30", "10", "--clearance", "1"}, shapes, "copy");
  expect_as_on_copy({"find", "4", "4", "24", "1", "--snap"}, shapes, "copy");  // both ends blocked
  expect_as_on_copy({"batch", "30", "10", "2,2", "8,14", "12,2", "4,4"}, shapes, "copy");
  expect_as_on_copy({"los", "0", "14", "12", "14", "0", "15", "12", "15", "22", "1", "27", "1"},
                    shapes, "copy");
  expect_as_on_copy({"reachable", "2", "2", "30", "10", "8", "14", "12", "14"}, shapes, "copy");

  // Blocking the whole gap: no route (exit 3), as on a copy so walled.
  block_rect(patched, 8, 15, 1, 1);
  upload("walled", patched);
  const std::vector<std::string> walled = {"rect:7,13,3,2", "rect:8,15,1,1"};
  expect_as_on_copy({"find", "2", "2", "30", "10"}, walled, "walled");
  const auto none = run({"find", "level", "2", "2", "30", "10", "--obstacle", "rect:8,13,1,3"});
  EXPECT_EQ(none.exit_code, 3) << describe(none);

  // The stored level is as it was, and answers as before.
  EXPECT_EQ(revision(), before);
  const auto again = run({"find", "level", "2", "2", "30", "10"});
  EXPECT_EQ(answer_only(again.out), answer_only(plain.out));
}

TEST_F(ObstaclesE2eTest, BadShapesAndTooManyAreRefused) {
  // Malformed values: usage errors, before any call.
  for (const char* bad : {"rect:1,2,3", "rect:1,2,0,4", "rect:-1,0,2,2", "circle:1,1,0",
                          "circle:1,1", "circle:a,1,2", "pixels:1,2;3", "pixels:", "blob:1,2",
                          "1,2,3,4"}) {
    const auto result = run({"find", "level", "0", "0", "5", "5", "--obstacle", bad});
    EXPECT_EQ(result.exit_code, 2) << bad << "\n" << describe(result);
    EXPECT_THAT(result.err, HasSubstr("--obstacle")) << bad;
  }
  // Shapes the server refuses: a listed pixel outside the mask.
  const auto outside = run({"los", "level", "0", "0", "5", "5", "--obstacle", "pixels:1,1;40,3"});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);  // INVALID_ARGUMENT: a usage error
  EXPECT_THAT(outside.err, StartsWith("error: INVALID_ARGUMENT: obstacles[0].pixels[1] (40,3)"));
  // Over the server's --max-obstacles 3.
  for (const char* command : {"find", "reachable", "los"}) {
    std::vector<std::string> args = {command, "level", "0", "0", "5", "5"};
    for (int i = 0; i < 4; ++i) args.insert(args.end(), {"--obstacle", "rect:10,10,1,1"});
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 1) << command << "\n" << describe(result);
    EXPECT_THAT(result.err, StartsWith("error: RESOURCE_EXHAUSTED: obstacles: 4 shapes"))
        << command;
    EXPECT_THAT(result.err, HasSubstr("--max-obstacles")) << command;
  }
  const auto batch = run({"batch", "level", "5", "5", "0,0", "--obstacle", "rect:10,10,1,1",
                          "--obstacle", "rect:10,10,1,1", "--obstacle", "rect:10,10,1,1",
                          "--obstacle", "rect:10,10,1,1"});
  EXPECT_EQ(batch.exit_code, 1) << describe(batch);
  EXPECT_THAT(batch.err, HasSubstr("--max-obstacles"));
  // The help says what a shape is.
  for (const char* command : {"find", "batch", "los", "reachable"}) {
    const auto help = run({command, "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_THAT(help.out, HasSubstr("--obstacle")) << command;
    EXPECT_THAT(help.out, HasSubstr("circle:X,Y,R")) << command;
  }
}

}  // namespace
