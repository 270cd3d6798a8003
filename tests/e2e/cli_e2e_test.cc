// End-to-end tests of the `pathfind` CLI against the real server on
// 127.0.0.1: output formats, exit codes, and error reporting. Expectations
// (digests, path costs) are computed here, independently of the code under test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "pathcore/codec.h"
#include "support/server_process.h"

namespace {

using pathtest::CommandResult;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::AllOf;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A tiny independent grid model.
struct Grid {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> areas;

  Grid(int w, int h, std::uint8_t fill)
      : width(w), height(h), areas(static_cast<std::size_t>(w * h), fill) {}
  [[nodiscard]] std::size_t index(int x, int y) const {
    return static_cast<std::size_t>(y * width + x);
  }
  void fill_rect(int x0, int y0, int x1, int y1, std::uint8_t area) {
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        areas[index(x, y)] = area;
      }
    }
  }
  [[nodiscard]] bool walkable(int x, int y) const {
    return x >= 0 && y >= 0 && x < width && y < height && areas[index(x, y)] != 0;
  }
  [[nodiscard]] std::string bytes() const { return std::string(areas.begin(), areas.end()); }
  [[nodiscard]] std::string pgm() const {
    return "P5\n" + std::to_string(width) + " " + std::to_string(height) + "\n255\n" + bytes();
  }
  [[nodiscard]] std::size_t walkable_count() const {
    return static_cast<std::size_t>(
        std::count_if(areas.begin(), areas.end(), [](std::uint8_t a) { return a != 0; }));
  }
};

// A room with two walls to walk around: area 1, with an area-2 strip.
Grid level() {
  Grid grid(32, 16, 1);
  grid.fill_rect(8, 0, 8, 12, 0);
  grid.fill_rect(20, 3, 20, 15, 0);
  grid.fill_rect(24, 0, 31, 1, 2);
  return grid;
}

// Four-neighbour BFS distance; -1 when unreachable.
int bfs_distance(const Grid& grid, int sx, int sy, int gx, int gy) {
  std::vector<int> distance(grid.areas.size(), -1);
  std::deque<std::pair<int, int>> queue{{sx, sy}};
  distance[grid.index(sx, sy)] = 0;
  while (!queue.empty()) {
    const auto [x, y] = queue.front();
    queue.pop_front();
    const int dx[] = {1, -1, 0, 0};
    const int dy[] = {0, 0, 1, -1};
    for (int d = 0; d < 4; ++d) {
      const int nx = x + dx[d];
      const int ny = y + dy[d];
      if (grid.walkable(nx, ny) && distance[grid.index(nx, ny)] < 0) {
        distance[grid.index(nx, ny)] = distance[grid.index(x, y)] + 1;
        queue.emplace_back(nx, ny);
      }
    }
  }
  return distance[grid.index(gx, gy)];
}

std::string sha256_hex(const std::string& bytes) {
  pathtest::TempDir dir("pathfinder-sha");
  pathtest::write_file(dir.file("grid"), bytes);
  const auto result = pathtest::run_command({"sha256sum", dir.file("grid")});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out.substr(0, 64);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
  }
  return lines;
}

std::string describe(const CommandResult& result) {
  return "exit " + std::to_string(result.exit_code) + "\n--- stdout ---\n" + result.out +
         "--- stderr ---\n" + result.err;
}

// Runs the CLI without a server (help, usage errors).
CommandResult pathfind(std::vector<std::string> args) {
  args.insert(args.begin(), PATHFIND_CLI_BIN);
  return pathtest::run_command(args);
}

class CliE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    server_ = std::make_unique<ServerProcess>(options);
    level_path_ = server_->temp_dir() + "/level.pgm";
    pathtest::write_file(level_path_, level().pgm());
  }

  void TearDown() override {
    if (HasFailure() && server_) {
      std::cerr << "---- server output ----\n" << server_->log() << "-----------------------\n";
    }
  }

  // Runs `pathfind --server <this server> args...`.
  CommandResult run(std::vector<std::string> args) {
    args.insert(args.begin(), {PATHFIND_CLI_BIN, "--server", server_->target()});
    return pathtest::run_command(args);
  }

  // Uploads the level as `name`, failing the test on any error.
  void upload_level(const std::string& name) {
    const auto result = run({"upload", name, level_path_});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
  }

  std::unique_ptr<ServerProcess> server_;
  std::string level_path_;
};

// ---------------------------------------------------------------------------
// Help and usage.

TEST(CliUsageTest, HelpExitsZeroAndNamesEveryCommand) {
  const auto result = pathfind({"--help"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  for (const char* command :
       {"upload", "get", "list", "delete", "find", "reachable", "standard-move", "patch"}) {
    EXPECT_THAT(result.out, HasSubstr(command));
  }
  EXPECT_THAT(result.out,
              AllOf(HasSubstr("--server"), HasSubstr("--json"), HasSubstr("--timeout")));
}

TEST(CliUsageTest, SubcommandHelpExitsZero) {
  const auto find = pathfind({"find", "--help"});
  EXPECT_EQ(find.exit_code, 0) << describe(find);
  EXPECT_THAT(find.out, AllOf(HasSubstr("--smoothing"), HasSubstr("--areas"), HasSubstr("--eight"),
                              HasSubstr("--snap"), HasSubstr("--cost")));
  const auto upload = pathfind({"upload", "--help"});
  EXPECT_EQ(upload.exit_code, 0) << describe(upload);
  EXPECT_THAT(upload.out, AllOf(HasSubstr("--format"), HasSubstr("--rule"), HasSubstr("--palette"),
                                HasSubstr("--width"), HasSubstr("--height")));
}

TEST(CliUsageTest, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> cases{
      {},                                 // no command
      {"frobnicate"},                     // unknown command
      {"get"},                            // missing NAME
      {"find", "m", "1", "2", "3"},       // missing GY
      {"find", "m", "1", "2", "3", "x"},  // not a number
      {"find", "m", "1", "2", "3", "4", "--smoothing", "wobbly"},
      {"find", "m", "1", "2", "3", "4", "--areas", "0,99"},
      {"find", "m", "1", "2", "3", "4", "--cost", "nonsense"},
      {"upload", "m", "f", "--format", "gif"},
      {"reachable", "m", "1", "2", "3"},  // not a multiple of four
      {"--timeout", "-3", "list"},
      {"list", "--no-such-option"},
  };
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& arg : args) {
      joined += arg + " ";
    }
    // Nothing listens on port 1: a case that wrongly reaches the network exits 1, not 2.
    auto with_server = args;
    with_server.insert(with_server.begin(), {"--server", "127.0.0.1:1"});
    const auto result = pathfind(with_server);
    EXPECT_EQ(result.exit_code, 2) << "pathfind " << joined << "\n" << describe(result);
    EXPECT_FALSE(result.err.empty()) << "pathfind " << joined;
  }
}

TEST(CliUsageTest, UnreachableServerExitsOneWithUnavailable) {
  // Port 1 on loopback: nothing listens there (it is privileged).
  const auto result = pathfind({"--server", "127.0.0.1:1", "--timeout", "5", "list"});
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  EXPECT_THAT(result.err, StartsWith("error: UNAVAILABLE"));
}

// ---------------------------------------------------------------------------
// Commands against a server.

TEST_F(CliE2eTest, UploadPrintsMaskInfo) {
  const Grid grid = level();
  const auto result = run({"upload", "demo", level_path_});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_EQ(lines_of(result.out).size(), 1U) << result.out;
  EXPECT_THAT(result.out, StartsWith("mask demo "));
  EXPECT_THAT(result.out, HasSubstr("revision 1"));
  EXPECT_THAT(result.out, HasSubstr("32x16"));
  EXPECT_THAT(result.out, HasSubstr("walkable " + std::to_string(grid.walkable_count())));
  EXPECT_THAT(result.out, HasSubstr("areas 1,2"));
  EXPECT_THAT(result.out, HasSubstr("sha256 " + sha256_hex(grid.bytes())));
  EXPECT_TRUE(result.err.empty()) << result.err;

  // The same level again (the same grid) keeps its revision.
  const auto again = run({"upload", "demo", level_path_, "--format", "pgm", "--rule", "index"});
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_THAT(again.out, HasSubstr("revision 1"));
  EXPECT_THAT(again.out, HasSubstr("sha256 " + sha256_hex(grid.bytes())));
}

TEST_F(CliE2eTest, UploadJsonIsOneObjectWithProtoFieldNames) {
  const Grid grid = level();
  const auto result = run({"--json", "upload", "demo", level_path_});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  ASSERT_EQ(lines_of(result.out).size(), 1U) << result.out;
  EXPECT_THAT(result.out, StartsWith("{"));
  EXPECT_THAT(result.out, EndsWith("}\n"));
  EXPECT_THAT(result.out, HasSubstr("\"name\":\"demo\""));
  EXPECT_THAT(result.out, HasSubstr("\"revision\":\"1\""));  // uint64 is a JSON string
  EXPECT_THAT(result.out, HasSubstr("\"width\":32"));
  EXPECT_THAT(result.out, HasSubstr("\"height\":16"));
  EXPECT_THAT(result.out,
              HasSubstr("\"walkable_pixels\":\"" + std::to_string(grid.walkable_count()) + "\""));
  EXPECT_THAT(result.out, HasSubstr("\"sha256\":\"" + sha256_hex(grid.bytes()) + "\""));
}

TEST_F(CliE2eTest, UploadRawNeedsDimensions) {
  const Grid grid = level();
  const std::string raw_path = server_->temp_dir() + "/level.raw";
  pathtest::write_file(raw_path, grid.bytes());
  const auto result =
      run({"upload", "raw", raw_path, "--format", "raw", "--width", "32", "--height", "16"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("sha256 " + sha256_hex(grid.bytes())));

  const auto missing = run({"upload", "raw2", raw_path, "--format", "raw"});
  EXPECT_EQ(missing.exit_code, 1) << describe(missing);
  EXPECT_THAT(missing.err, StartsWith("error: INVALID_ARGUMENT: "));
}

TEST_F(CliE2eTest, UploadWithAColourPalette) {
  // Green is area 1, blue area 2; every other colour (black, red) is area 0.
  const std::uint32_t colours[] = {0x00ff00, 0x0000ff, 0x000000, 0x00ff00,
                                   0x0000ff, 0x00ff00, 0xff0000, 0x000000};
  Grid expected(4, 2, 0);
  std::vector<std::uint8_t> rgba;
  for (std::size_t i = 0; i < std::size(colours); ++i) {
    rgba.push_back(static_cast<std::uint8_t>(colours[i] >> 16));
    rgba.push_back(static_cast<std::uint8_t>(colours[i] >> 8));
    rgba.push_back(static_cast<std::uint8_t>(colours[i]));
    rgba.push_back(255);
    expected.areas[i] = colours[i] == 0x00ff00 ? 1 : colours[i] == 0x0000ff ? 2 : 0;
  }
  const auto png = pathcore::encode_png_rgba(4, 2, rgba);
  const std::string path = server_->temp_dir() + "/colours.png";
  pathtest::write_file(path, std::string(png.begin(), png.end()));
  const auto result = run({"upload", "gate", path, "--format", "png", "--rule", "palette",
                           "--palette", "0x00ff00=1", "#0000FF=2"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, AllOf(HasSubstr("4x2"), HasSubstr("walkable 5"), HasSubstr("areas 1,2"),
                                HasSubstr("sha256 " + sha256_hex(expected.bytes()))));

  const auto bad = run({"upload", "gate", path, "--rule", "palette", "--palette", "0x00ff00"});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_THAT(bad.err, HasSubstr("--palette"));
}

TEST_F(CliE2eTest, UploadOfAMissingFileIsALocalError) {
  const std::string path = server_->temp_dir() + "/does-not-exist.png";
  const auto result = run({"upload", "demo", path});
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_THAT(result.err, AllOf(StartsWith("error: "), HasSubstr(path)));
  EXPECT_TRUE(result.out.empty());
}

TEST_F(CliE2eTest, UploadOfGarbageIsInvalidArgument) {
  const std::string path = server_->temp_dir() + "/garbage.bin";
  pathtest::write_file(path, "certainly not an image");
  const auto result = run({"upload", "demo", path});
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  EXPECT_THAT(result.err, StartsWith("error: INVALID_ARGUMENT: "));
}

TEST_F(CliE2eTest, GetAndListInBothFormats) {
  upload_level("zulu");
  upload_level("alpha");
  upload_level("mike");
  const std::string sha = sha256_hex(level().bytes());

  const auto get = run({"get", "mike"});
  ASSERT_EQ(get.exit_code, 0) << describe(get);
  EXPECT_THAT(get.out,
              AllOf(StartsWith("mask mike "), HasSubstr("revision 1"), HasSubstr("sha256 " + sha)));

  const auto get_json = run({"get", "mike", "--json"});
  ASSERT_EQ(get_json.exit_code, 0) << describe(get_json);
  EXPECT_THAT(get_json.out, HasSubstr("\"name\":\"mike\""));

  const auto list = run({"list"});
  ASSERT_EQ(list.exit_code, 0) << describe(list);
  const auto lines = lines_of(list.out);
  ASSERT_EQ(lines.size(), 3U) << list.out;
  EXPECT_THAT(lines[0], StartsWith("mask alpha "));
  EXPECT_THAT(lines[1], StartsWith("mask mike "));
  EXPECT_THAT(lines[2], StartsWith("mask zulu "));

  const auto list_json = run({"--json", "list"});
  ASSERT_EQ(list_json.exit_code, 0) << describe(list_json);
  ASSERT_EQ(lines_of(list_json.out).size(), 1U) << list_json.out;
  EXPECT_THAT(list_json.out, StartsWith("{\"masks\":["));
  const auto alpha = list_json.out.find("\"name\":\"alpha\"");
  const auto mike = list_json.out.find("\"name\":\"mike\"");
  const auto zulu = list_json.out.find("\"name\":\"zulu\"");
  ASSERT_NE(alpha, std::string::npos);
  ASSERT_NE(mike, std::string::npos);
  ASSERT_NE(zulu, std::string::npos);
  EXPECT_LT(alpha, mike);
  EXPECT_LT(mike, zulu);
}

TEST_F(CliE2eTest, FindPrintsThePath) {
  upload_level("demo");
  const Grid grid = level();
  const int distance = bfs_distance(grid, 2, 2, 30, 10);
  ASSERT_GT(distance, 0);

  const auto raw = run({"find", "demo", "2", "2", "30", "10", "--smoothing", "none"});
  ASSERT_EQ(raw.exit_code, 0) << describe(raw);
  const auto lines = lines_of(raw.out);
  ASSERT_EQ(lines.size(), 2U) << raw.out;
  EXPECT_THAT(lines[0], StartsWith("found true "));
  EXPECT_THAT(lines[0], HasSubstr("cost " + std::to_string(distance) + " "));
  EXPECT_THAT(lines[0], HasSubstr("goal (30,10)"));
  EXPECT_THAT(lines[0], HasSubstr("revision 1"));
  EXPECT_THAT(lines[0], HasSubstr("cache_hit false"));
  EXPECT_THAT(lines[1], StartsWith("points " + std::to_string(distance + 1) + ": (2,2) "));
  EXPECT_THAT(lines[1], EndsWith(" (30,10)"));

  const auto smooth = run({"find", "demo", "2", "2", "30", "10"});
  ASSERT_EQ(smooth.exit_code, 0) << describe(smooth);
  EXPECT_THAT(smooth.out,
              AllOf(StartsWith("found true "), HasSubstr("cost 0 "), HasSubstr("cache_hit true")));
  EXPECT_THAT(lines_of(smooth.out).at(1), AllOf(HasSubstr(": (2,2) "), EndsWith(" (30,10)")));
}

TEST_F(CliE2eTest, FindJson) {
  upload_level("demo");
  const int distance = bfs_distance(level(), 2, 2, 30, 10);
  const auto result = run(
      {"--json", "find", "demo", "2", "2", "30", "10", "--smoothing", "none", "--areas", "1,2"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  ASSERT_EQ(lines_of(result.out).size(), 1U) << result.out;
  EXPECT_THAT(result.out, HasSubstr("\"found\":true"));
  EXPECT_THAT(result.out, HasSubstr("\"cost\":" + std::to_string(distance) + ","));
  EXPECT_THAT(result.out, HasSubstr("\"points\":[{\"x\":2,\"y\":2},"));
  EXPECT_THAT(result.out, HasSubstr("{\"x\":30,\"y\":10}]"));
  EXPECT_THAT(result.out, HasSubstr("\"mask_revision\":\"1\""));
  EXPECT_THAT(result.out, HasSubstr("\"cache_hit\":false"));
}

TEST_F(CliE2eTest, FindWithoutAPathSaysFoundFalseAndExitsZero) {
  const std::string path = server_->temp_dir() + "/split.pgm";
  Grid split(10, 5, 1);
  split.fill_rect(5, 0, 5, 4, 0);
  pathtest::write_file(path, split.pgm());
  ASSERT_EQ(run({"upload", "split", path}).exit_code, 0);
  const auto result = run({"find", "split", "1", "1", "8", "3"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, StartsWith("found false "));
  const auto json = run({"find", "split", "1", "1", "8", "3", "--json"});
  EXPECT_EQ(json.exit_code, 0) << describe(json);
  EXPECT_THAT(json.out, HasSubstr("\"found\":false"));
}

TEST_F(CliE2eTest, DeleteThenGetIsNotFound) {
  upload_level("doomed");
  const auto deleted = run({"delete", "doomed"});
  ASSERT_EQ(deleted.exit_code, 0) << describe(deleted);
  EXPECT_THAT(deleted.out, HasSubstr("deleted doomed"));
  const auto get = run({"get", "doomed"});
  EXPECT_EQ(get.exit_code, 1) << describe(get);
  EXPECT_THAT(get.err, StartsWith("error: NOT_FOUND: "));
  EXPECT_THAT(get.err, HasSubstr("doomed"));
  EXPECT_TRUE(get.out.empty());
  const auto again = run({"delete", "doomed"});
  EXPECT_EQ(again.exit_code, 1) << describe(again);
  EXPECT_THAT(again.err, StartsWith("error: NOT_FOUND: "));
}

TEST_F(CliE2eTest, ServerErrorsPrintTheStatusNameAndExitOne) {
  upload_level("demo");
  const auto unknown = run({"find", "ghost", "1", "1", "2", "2"});
  EXPECT_EQ(unknown.exit_code, 1) << describe(unknown);
  EXPECT_THAT(unknown.err, StartsWith("error: NOT_FOUND: "));

  const auto outside = run({"find", "demo", "1", "1", "500", "2"});
  EXPECT_EQ(outside.exit_code, 1) << describe(outside);
  EXPECT_THAT(outside.err, StartsWith("error: INVALID_ARGUMENT: "));
  EXPECT_THAT(outside.err, HasSubstr("goal"));

  const auto negative = run({"find", "demo", "--", "-1", "1", "2", "2"});
  EXPECT_EQ(negative.exit_code, 1) << describe(negative);
  EXPECT_THAT(negative.err, StartsWith("error: INVALID_ARGUMENT: "));

  const auto bad_name = run({"upload", "../escape", level_path_});
  EXPECT_EQ(bad_name.exit_code, 1) << describe(bad_name);
  EXPECT_THAT(bad_name.err, StartsWith("error: INVALID_ARGUMENT: "));
}

TEST_F(CliE2eTest, TimeoutIsAcceptedAfterTheCommandToo) {
  upload_level("demo");
  const auto result = run({"get", "demo", "--timeout", "3", "--json"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("\"name\":\"demo\""));
}

TEST_F(CliE2eTest, ReachableCommand) {
  upload_level("demo");
  const Grid grid = level();
  const auto result = run({"reachable", "demo", "2", "2", "30", "10", "2", "2", "9", "0"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 3U) << result.out;
  EXPECT_EQ(lines[0], "revision 1");
  const bool first = bfs_distance(grid, 2, 2, 30, 10) >= 0;
  const bool second = bfs_distance(grid, 2, 2, 9, 0) >= 0;
  EXPECT_EQ(lines[1], std::string("(2,2) -> (30,10): ") + (first ? "reachable" : "unreachable"));
  EXPECT_EQ(lines[2], std::string("(2,2) -> (9,0): ") + (second ? "reachable" : "unreachable"));
}

TEST_F(CliE2eTest, StandardMoveCommand) {
  upload_level("demo");
  const auto result = run({"standard-move", "demo", "2", "2", "6", "10", "--max-moves", "2"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, StartsWith("found true "));
  EXPECT_THAT(result.out, HasSubstr("\nmoves "));
  EXPECT_THAT(result.out,
              AllOf(HasSubstr("waypoints "), HasSubstr(": (2,2) "), HasSubstr(" (6,10)")));
}

TEST_F(CliE2eTest, PatchCommand) {
  upload_level("demo");
  const std::string areas_path = server_->temp_dir() + "/patch.bin";
  pathtest::write_file(areas_path, std::string(6, '\0'));  // 2x3 wall
  const auto result =
      run({"patch", "demo", "3", "3", "2", "3", areas_path, "--expected-revision", "1"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  Grid patched = level();
  patched.fill_rect(3, 3, 4, 5, 0);
  EXPECT_THAT(result.out, AllOf(StartsWith("mask demo "), HasSubstr("revision 2"),
                                HasSubstr("sha256 " + sha256_hex(patched.bytes()))));
  const auto stale =
      run({"patch", "demo", "3", "3", "2", "3", areas_path, "--expected-revision", "1"});
  EXPECT_EQ(stale.exit_code, 1) << describe(stale);
  EXPECT_THAT(stale.err, StartsWith("error: FAILED_PRECONDITION: "));
}

TEST_F(CliE2eTest, PatchWithAMissingAreasFileIsALocalError) {
  const auto result = run({"patch", "demo", "0", "0", "1", "1", server_->temp_dir() + "/nope"});
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_THAT(result.err, StartsWith("error: "));
  EXPECT_THAT(result.err, Not(HasSubstr("UNIMPLEMENTED")));
}

}  // namespace
