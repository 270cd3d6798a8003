// End-to-end tests of the `pathfind` CLI against the real server on
// 127.0.0.1: output formats, exit codes, and error reporting. Expectations
// (digests, path costs) are computed here, independently of the code under test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <deque>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "pathcore/codec.h"
#include "pathcore/mask.h"
#include "pathfinder/client.h"
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

  // Runs `env NAME=VALUE pathfind args...` (no --server unless args has one).
  static CommandResult run_with_env(const std::string& assignment, std::vector<std::string> args) {
    args.insert(args.begin(), {"env", assignment, PATHFIND_CLI_BIN});
    return pathtest::run_command(args);
  }

  // The stored area grid of mask `name`, through GetMask include_areas (not the CLI).
  std::string stored_grid(const std::string& name) {
    pathfinder::Client client(server_->target());
    const auto info = client.get_mask(name, /*include_areas=*/true);
    EXPECT_TRUE(info.ok()) << info.status.error_message();
    return info.value.areas();
  }

  // Writes bytes to a file in the server's temp dir; returns its path.
  std::string scratch_file(const std::string& name, const std::string& bytes) {
    const std::string path = server_->temp_dir() + "/" + name;
    pathtest::write_file(path, bytes);
    return path;
  }

  // Runs each query at the current revision (2, after one patch) and at a stale one (1).
  void expect_stale_revision_refused(const std::vector<std::vector<std::string>>& queries) {
    upload_level("demo");
    ASSERT_EQ(run({"patch", "demo", "--fill", "0", "--rect", "3,3,1,1"}).exit_code, 0);
    for (const auto& query : queries) {
      auto current = query;
      current.insert(current.end(), {"--expected-revision", "2"});
      const auto ok = run(current);
      EXPECT_EQ(ok.exit_code, 0) << describe(ok);
      auto stale = query;
      stale.insert(stale.end(), {"--expected-revision", "1"});
      const auto refused = run(stale);
      EXPECT_EQ(refused.exit_code, 1) << query.front() << "\n" << describe(refused);
      EXPECT_THAT(refused.err, StartsWith("error: FAILED_PRECONDITION: ")) << query.front();
      EXPECT_THAT(refused.err, HasSubstr("--expected-revision")) << query.front();
    }
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
  for (const char* command : {"upload", "get", "list", "delete", "find", "reachable",
                              "standard-move", "los", "nearest", "patch", "health", "render"}) {
    EXPECT_THAT(result.out, HasSubstr(command));
  }
  EXPECT_THAT(result.out, AllOf(HasSubstr("--server"), HasSubstr("--json"), HasSubstr("--timeout"),
                                HasSubstr("--version")));
  // The server address's sources and the exit codes are documented.
  EXPECT_THAT(result.out, AllOf(HasSubstr("PATHFINDER_SERVER"), HasSubstr("127.0.0.1:50051")));
  EXPECT_THAT(result.out, AllOf(HasSubstr("Exit codes"), HasSubstr("3 no answer")));
}

// The version in the top-level CMakeLists.txt's project() line.
std::string project_version() {
  std::ifstream in(std::string(PATHFINDER_SOURCE_DIR) + "/CMakeLists.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(R"(project\(pathfinder VERSION ([0-9.]+))"))) {
    return "";
  }
  return match[1].str();
}

TEST(CliUsageTest, VersionPrintsTheProjectVersion) {
  const std::string version = project_version();
  ASSERT_FALSE(version.empty());
  const auto result = pathfind({"--version"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_EQ(result.out, "pathfind " + version + "\n");
}

TEST(CliUsageTest, MistypedCommandsAndFlagsGetASuggestion) {
  struct Case {
    std::vector<std::string> args;
    std::string suggestion;  // empty: nothing is near enough
  };
  const std::vector<Case> cases{
      {{"fnd"}, "did you mean 'find'?"},
      {{"standard-mvoe", "m", "1", "2", "3", "4"}, "did you mean 'standard-move'?"},
      {{"find", "m", "1", "2", "3", "4", "--eigth"}, "did you mean '--eight'?"},
      {{"find", "m", "1", "2", "3", "4", "--smoothing", "none", "--snapp"},
       "did you mean '--snap'?"},
      {{"--jsn", "list"}, "did you mean '--json'?"},
      {{"list", "--timout", "3"}, "did you mean '--timeout'?"},  // a global flag after the command
      {{"upload", "m", "f", "--rlue", "index"}, "did you mean '--rule'?"},
      {{"xyzzy"}, ""},  // nothing near: only "unknown command"
      {{"find", "m", "1", "2", "3", "4", "--completely-different"}, ""},
  };
  for (const auto& [args, suggestion] : cases) {
    auto with_server = args;
    with_server.insert(with_server.begin(), {"--server", "127.0.0.1:1"});
    const auto result = pathfind(with_server);
    EXPECT_EQ(result.exit_code, 2) << args.front() << "\n" << describe(result);
    if (args.front() == "fnd" || args.front() == "xyzzy") {
      EXPECT_THAT(result.err, HasSubstr("unknown command '" + args.front() + "'"));
    }
    if (suggestion.empty()) {
      EXPECT_THAT(result.err, Not(HasSubstr("did you mean"))) << describe(result);
    } else {
      EXPECT_THAT(result.err, HasSubstr(suggestion)) << describe(result);
    }
  }
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
      {"los", "m", "1", "2", "3"},        // not a multiple of four
      {"los", "m"},                       // no pairs
      {"los", "m", "--file", "/nonexistent/segments.txt"},
      {"nearest", "m", "1"},              // not a multiple of two
      {"nearest", "m", "1", "2", "--from", "3"},
      {"nearest", "m", "1", "2", "--clearance", "-1"},
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
  EXPECT_EQ(missing.exit_code, 2) << describe(missing);  // the server's INVALID_ARGUMENT
  EXPECT_THAT(missing.err, StartsWith("error: INVALID_ARGUMENT: "));
}

TEST_F(CliE2eTest, UploadWithAColourPalette) {
  // Green is area 1, blue area 2; with --block-unmapped every other colour
  // (black, red) is area 0.
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
  // Black and red are not in the palette: refused, naming them, nothing stored.
  const auto refused = run({"upload", "gate", path, "--format", "png", "--rule", "palette",
                            "--palette", "0x00ff00=1", "#0000FF=2"});
  EXPECT_EQ(refused.exit_code, 2) << describe(refused);
  EXPECT_THAT(refused.err, AllOf(HasSubstr("INVALID_ARGUMENT"), HasSubstr("0x000000, 0xff0000")));
  EXPECT_NE(run({"get", "gate"}).exit_code, 0);

  const auto result = run({"upload", "gate", path, "--format", "png", "--rule", "palette",
                           "--palette", "0x00ff00=1", "#0000FF=2", "--block-unmapped"});
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
  EXPECT_EQ(result.exit_code, 2) << describe(result);
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
  EXPECT_THAT(smooth.out, AllOf(StartsWith("found true "), HasSubstr("cache_hit true")));
  // Unit costs: the smoothed path's cost is its length (issue 21), printed alike.
  const std::string first = lines_of(smooth.out).at(0);
  const auto field = [&first](const std::string& name) {
    const std::size_t at = first.find(name + " ");
    if (at == std::string::npos) return std::string("missing");
    const std::size_t from = at + name.size() + 1;
    return first.substr(from, first.find(' ', from) - from);
  };
  EXPECT_EQ(field("cost"), field("length")) << first;
  EXPECT_THAT(lines_of(smooth.out).at(1), AllOf(HasSubstr(": (2,2) "), EndsWith(" (30,10)")));
}

TEST_F(CliE2eTest, BatchPrintsOnePathPerStartFromArgumentsFileAndStdin) {
  upload_level("demo");
  const Grid grid = level();
  ASSERT_FALSE(grid.walkable(8, 5));  // in the first wall: no path
  const std::string file = scratch_file("starts.txt", "4,4\n\n 10 , 3\n8,5\n");
  const auto result =
      run({"batch", "demo", "30", "10", "2,2", "--starts-file", file, "--smoothing", "none"});
  EXPECT_EQ(result.exit_code, 3) << describe(result);  // (8,5) has no path
  const auto lines = lines_of(result.out);
  const std::vector<std::pair<int, int>> starts = {{2, 2}, {4, 4}, {10, 3}};
  ASSERT_GE(lines.size(), 3 * starts.size() + 3) << result.out;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const auto [x, y] = starts[i];
    const int distance = bfs_distance(grid, x, y, 30, 10);
    ASSERT_GT(distance, 0);
    const std::string start = "(" + std::to_string(x) + "," + std::to_string(y) + ")";
    EXPECT_EQ(lines[3 * i], "start " + std::to_string(i) + " " + start);
    EXPECT_THAT(lines[3 * i + 1], AllOf(StartsWith("found true "),
                                        HasSubstr("cost " + std::to_string(distance) + " ")));
    EXPECT_THAT(lines[3 * i + 2],
                AllOf(StartsWith("points " + std::to_string(distance + 1) + ": " + start + " "),
                      EndsWith(" (30,10)")));
  }
  EXPECT_EQ(lines[9], "start 3 (8,5)");
  EXPECT_THAT(lines[10], StartsWith("found false "));
  EXPECT_THAT(lines[11], StartsWith("no path: "));

  // Starts from stdin, answered as one JSON object; all found: exit 0.
  const auto piped = pathtest::run_command(
      {"sh", "-c",
       "printf '2,2\\n4,4\\n' | \"$0\" --server \"$1\" --json batch demo 30 10 "
       "--starts-file -",
       PATHFIND_CLI_BIN, server_->target()});
  EXPECT_EQ(piped.exit_code, 0) << describe(piped);
  ASSERT_EQ(lines_of(piped.out).size(), 1U) << piped.out;
  EXPECT_THAT(piped.out, StartsWith("{\"paths\":[{\"found\":true"));

  // Bad local input is a usage error naming where; no starts at all too.
  const auto bad =
      run({"batch", "demo", "30", "10", "--starts-file", scratch_file("bad.txt", "1,1\n1;2\n")});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_THAT(bad.err, HasSubstr("line 2"));
  EXPECT_EQ(run({"batch", "demo", "30", "10", "3"}).exit_code, 2);
  EXPECT_EQ(run({"batch", "demo", "30", "10"}).exit_code, 2);
  // A start outside the mask is the server's INVALID_ARGUMENT: exit 2.
  const auto outside = run({"batch", "demo", "30", "10", "2,2", "99,1"});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, HasSubstr("starts[1]"));
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

// --smoothing any-angle: around a wall (x 5..6, y 0..5) by its two bottom
// corners, printed exactly.
TEST_F(CliE2eTest, FindAnyAnglePrintsThePreciseCorners) {
  Grid wall(12, 8, 1);
  wall.fill_rect(5, 0, 6, 5, 0);
  const auto uploaded = run({"upload", "wall", scratch_file("wall.pgm", wall.pgm())});
  ASSERT_EQ(uploaded.exit_code, 0) << describe(uploaded);

  const auto result = run({"find", "wall", "1", "1", "10", "1", "--smoothing", "any-angle"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 3U) << result.out;
  const double length = 2 * std::hypot(3.5, 4.5) + 2;
  char expected_length[32];
  std::snprintf(expected_length, sizeof expected_length, "length %.3f ", length);
  EXPECT_THAT(lines[0], AllOf(StartsWith("found true "), HasSubstr(expected_length)));
  EXPECT_THAT(lines[1], StartsWith("points 4: (1,1) "));
  EXPECT_EQ(lines[2], "precise 4: (1.5,1.5) (5,6) (7,6) (10.5,1.5)");

  const auto json = run(
      {"--json", "find", "wall", "1", "1", "10", "1", "--smoothing", "any-angle"});
  ASSERT_EQ(json.exit_code, 0) << describe(json);
  EXPECT_THAT(json.out, HasSubstr("\"precise_points\":[{\"x\":1.5,\"y\":1.5},{\"x\":5,\"y\":6},"));
  // The default mode prints no precise line, and its JSON has the centres.
  const auto plain = run({"--json", "find", "wall", "1", "1", "1", "6"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_THAT(plain.out, HasSubstr("\"precise_points\":[{\"x\":1.5,\"y\":1.5},{\"x\":1.5,\"y\":6.5}]"));

  const auto costs = run({"find", "wall", "1", "1", "10", "1", "--smoothing", "any-angle",
                          "--cost", "1=2"});
  EXPECT_EQ(costs.exit_code, 2) << describe(costs);
  EXPECT_THAT(costs.err, StartsWith("error: INVALID_ARGUMENT: --cost: "));
  EXPECT_THAT(costs.err, HasSubstr("--smoothing any-angle"));
}

// Two rooms, x 0..4 and x 6..9, split by a wall at x = 5.
Grid split_rooms() {
  Grid split(10, 5, 1);
  split.fill_rect(5, 0, 5, 4, 0);
  return split;
}

TEST_F(CliE2eTest, FindWithoutAPathExitsThree) {
  const Grid split = split_rooms();
  ASSERT_LT(bfs_distance(split, 1, 1, 8, 3), 0);  // the rooms are not connected
  ASSERT_EQ(run({"upload", "split", scratch_file("split.pgm", split.pgm())}).exit_code, 0);
  const auto result = run({"find", "split", "1", "1", "8", "3"});
  EXPECT_EQ(result.exit_code, 3) << describe(result);
  EXPECT_THAT(result.out, StartsWith("found false "));
  EXPECT_THAT(result.out, HasSubstr("\nno path: "));
  EXPECT_THAT(result.out, Not(HasSubstr("points")));
  const auto json = run({"find", "split", "1", "1", "8", "3", "--json"});
  EXPECT_EQ(json.exit_code, 3) << describe(json);
  ASSERT_EQ(lines_of(json.out).size(), 1U) << json.out;  // stdout stays one JSON object
  EXPECT_THAT(json.out, HasSubstr("\"found\":false"));
  EXPECT_THAT(json.err, StartsWith("{\"code\":\"NO_ANSWER\",\"message\":\"no path: "));
  // A path that exists still exits 0, a goal outside the mask 2 (INVALID_ARGUMENT),
  // another error 1.
  EXPECT_EQ(run({"find", "split", "1", "1", "3", "3"}).exit_code, 0);
  EXPECT_EQ(run({"find", "split", "1", "1", "30", "3"}).exit_code, 2);
  EXPECT_EQ(run({"find", "ghost", "1", "1", "3", "3"}).exit_code, 1);
}

// The reason and snap texts need the server to fill FindPathResponse.reason,
// goal_snapped and goal_snap_distance.
TEST_F(CliE2eTest, FindSaysWhyThereIsNoPath) {
  const Grid split = split_rooms();
  ASSERT_FALSE(split.walkable(5, 2));
  ASSERT_TRUE(split.walkable(1, 1));
  ASSERT_EQ(run({"upload", "split", scratch_file("split.pgm", split.pgm())}).exit_code, 0);

  const auto no_route = run({"find", "split", "1", "1", "8", "3"});
  EXPECT_EQ(no_route.exit_code, 3) << describe(no_route);
  EXPECT_EQ(lines_of(no_route.out).back(), "no path: no route between them") << no_route.out;

  const auto blocked_start = run({"find", "split", "5", "2", "1", "1"});
  EXPECT_EQ(blocked_start.exit_code, 3) << describe(blocked_start);
  EXPECT_EQ(lines_of(blocked_start.out).back(), "no path: the start (5,2) is not walkable")
      << blocked_start.out;

  const auto blocked_goal = run({"find", "split", "1", "1", "5", "2"});
  EXPECT_EQ(blocked_goal.exit_code, 3) << describe(blocked_goal);
  EXPECT_EQ(lines_of(blocked_goal.out).back(), "no path: the goal (5,2) is not walkable")
      << blocked_goal.out;

  // The same reason in JSON mode, on stderr.
  const auto json = run({"--json", "find", "split", "1", "1", "5", "2"});
  EXPECT_EQ(json.exit_code, 3) << describe(json);
  EXPECT_EQ(json.err,
            "{\"code\":\"NO_ANSWER\",\"message\":\"no path: the goal (5,2) is not walkable\"}\n");

  // An area the request does not enable is not walkable either.
  const auto disabled = run({"find", "split", "1", "1", "3", "3", "--areas", "2"});
  EXPECT_EQ(disabled.exit_code, 3) << describe(disabled);
  EXPECT_EQ(lines_of(disabled.out).back(), "no path: the start (1,1) is not walkable")
      << disabled.out;
}

TEST_F(CliE2eTest, FindSaysWhenAndHowFarTheGoalWasSnapped) {
  const Grid split = split_rooms();
  ASSERT_EQ(run({"upload", "split", scratch_file("split.pgm", split.pgm())}).exit_code, 0);
  // (5,2) is wall; the nearest pixel reachable from (1,1) is (4,2), one pixel away
  // ((6,2) is as near but in the other room).
  const auto snapped = run({"find", "split", "1", "1", "5", "2", "--snap"});
  ASSERT_EQ(snapped.exit_code, 0) << describe(snapped);
  EXPECT_THAT(snapped.out, HasSubstr("\ngoal snapped to (4,2), 1.0 px from (5,2)\n"));
  EXPECT_THAT(snapped.out, Not(HasSubstr("start snapped")));
  // Nothing to say when no end moved.
  const auto straight = run({"find", "split", "1", "1", "4", "2", "--snap"});
  ASSERT_EQ(straight.exit_code, 0) << describe(straight);
  EXPECT_THAT(straight.out, Not(HasSubstr("snapped")));
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

TEST_F(CliE2eTest, WatchPrintsTheRevisionThenOneLinePerChange) {
  upload_level("demo");
  pathfinder::Client client(server_->target());

  // The watch runs until it printed 3 lines; patches go on meanwhile (a patch
  // before the watch began shows as its first line instead, so patching until
  // it ends keeps the test free of timing).
  CommandResult watched;
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    watched = run({"watch", "demo", "--count", "3"});
    done = true;
  });
  std::map<std::uint64_t, pathfinding::v1::MaskInfo> patches;  // by revision
  for (int i = 0; !done && i < 400; ++i) {
    pathfinding::v1::PatchMaskRequest patch;
    patch.set_name("demo");
    patch.set_x(static_cast<std::uint32_t>(i % 4));
    patch.set_y(15);
    patch.set_width(1);
    patch.set_height(1);
    patch.set_areas(std::string(1, static_cast<char>(i / 4 % 2 == 0 ? 0 : 1)));
    const auto patched = client.patch_mask(patch);
    ASSERT_TRUE(patched.ok()) << patched.status.error_message();
    patches[patched.value.revision()] = patched.value;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  watcher.join();
  ASSERT_EQ(watched.exit_code, 0) << describe(watched);
  std::istringstream lines(watched.out);
  std::string line;
  std::vector<std::string> printed;
  while (std::getline(lines, line)) printed.push_back(line);
  ASSERT_EQ(printed.size(), 3U) << watched.out;
  const std::regex current(R"(revision (\d+) current 32x16 sha256 ([0-9a-f]{12}))");
  std::smatch match;
  ASSERT_TRUE(std::regex_match(printed[0], match, current)) << printed[0];
  std::uint64_t revision = std::stoull(match[1]);
  for (std::size_t i = 1; i < printed.size(); ++i) {
    const std::regex patch_line(
        R"(revision (\d+) patch (\d+),15 (\d+)x1 sha256 ([0-9a-f]{12})( \(\d+ changes? missed\))?)");
    ASSERT_TRUE(std::regex_match(printed[i], match, patch_line)) << printed[i];
    const std::uint64_t next = std::stoull(match[1]);
    EXPECT_GT(next, revision);
    revision = next;
    ASSERT_EQ(patches.count(revision), 1U) << printed[i];
    EXPECT_EQ(match[4].str(), patches[revision].sha256().substr(0, 12));
  }

  const auto json = run({"watch", "demo", "--count", "1", "--json"});
  ASSERT_EQ(json.exit_code, 0) << describe(json);
  EXPECT_THAT(json.out, HasSubstr("\"kind\":\"MASK_CHANGE_KIND_CURRENT\""));
  EXPECT_THAT(json.out, HasSubstr("\"sha256\":\"" + client.get_mask("demo").value.sha256()));

  // --for ends it with exit code 0 after printing the current revision.
  const auto timed = run({"watch", "demo", "--for", "0.2"});
  EXPECT_EQ(timed.exit_code, 0) << describe(timed);
  EXPECT_THAT(timed.out, StartsWith("revision "));

  const auto unknown = run({"watch", "ghost"});
  EXPECT_EQ(unknown.exit_code, 1) << describe(unknown);
  EXPECT_THAT(unknown.err, StartsWith("error: NOT_FOUND: "));
  const auto bad = run({"watch", "demo", "--count", "-1"});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
}

TEST_F(CliE2eTest, ServerErrorsPrintTheStatusNameAndExitOne) {
  upload_level("demo");
  const auto unknown = run({"find", "ghost", "1", "1", "2", "2"});
  EXPECT_EQ(unknown.exit_code, 1) << describe(unknown);
  EXPECT_THAT(unknown.err, StartsWith("error: NOT_FOUND: "));

  const auto outside = run({"find", "demo", "1", "1", "500", "2"});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, StartsWith("error: INVALID_ARGUMENT: "));
  EXPECT_THAT(outside.err, HasSubstr("goal"));

  const auto negative = run({"find", "demo", "--", "-1", "1", "2", "2"});
  EXPECT_EQ(negative.exit_code, 2) << describe(negative);
  EXPECT_THAT(negative.err, StartsWith("error: INVALID_ARGUMENT: "));

  const auto bad_name = run({"upload", "../escape", level_path_});
  EXPECT_EQ(bad_name.exit_code, 2) << describe(bad_name);
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

// The level: walls at x = 8 (rows 0..12) and x = 20 (rows 3..15).
TEST_F(CliE2eTest, LineOfSightCommand) {
  upload_level("demo");
  const auto result = run({"los", "demo", "2", "2", "30", "2", "30", "14", "2", "14", "0", "0", "7", "15"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 4U) << result.out;
  EXPECT_EQ(lines[0], "revision 1");
  EXPECT_EQ(lines[1], "(2,2) -> (30,2): blocked at (8,2)");
  EXPECT_EQ(lines[2], "(30,14) -> (2,14): blocked at (20,14)");  // walking from (30,14)
  EXPECT_EQ(lines[3], "(0,0) -> (7,15): clear");
  // The same pairs from a file, with a comment and commas.
  const std::string file = scratch_file("segments.txt", "# a b\n2,2 30,2\n30 14 2 14\n");
  const auto from_file = run({"--json", "los", "demo", "--file", file});
  ASSERT_EQ(from_file.exit_code, 0) << describe(from_file);
  EXPECT_THAT(from_file.out, HasSubstr("\"first_blocked\":{\"x\":8,\"y\":2}"));
  EXPECT_THAT(from_file.out, HasSubstr("\"first_blocked\":{\"x\":20,\"y\":14}"));
  const auto outside = run({"los", "demo", "0", "0", "32", "0"});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, HasSubstr("pairs[0].b"));
}

TEST_F(CliE2eTest, NearestCommand) {
  upload_level("demo");
  // (8,5) and (20,10) are wall: their nearest pixels are one to the left
  // (ties at distance 1 go to the first in row-major order).
  const std::string file = scratch_file("points.txt", "20 10\n");
  const auto result = run({"nearest", "demo", "8", "5", "3", "3", "--file", file, "--from", "30", "2"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 4U) << result.out;
  EXPECT_EQ(lines[0], "revision 1");
  EXPECT_EQ(lines[1], "(8,5): (7,5) at 1");
  EXPECT_EQ(lines[2], "(3,3): (3,3) at 0");
  EXPECT_EQ(lines[3], "(20,10): (19,10) at 1");
  const auto outside = run({"nearest", "demo", "1", "1", "--from", "40", "1"});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, HasSubstr("--from"));
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

// ---------------------------------------------------------------------------
// Issue 17: errors in the CLI's words, health, the server address, revisions,
// grids as PNG, patch forms, upload warnings.

TEST_F(CliE2eTest, ServerErrorsNameTheFlagsNotTheProtoEnums) {
  const Grid grid = level();
  const std::string raw = scratch_file("level.raw", grid.bytes());
  const std::vector<std::uint8_t> red_and_green{255, 0, 0, 255, 0, 255, 0, 255};
  const auto art_png = pathcore::encode_png_rgba(2, 1, red_and_green);
  const std::string art = scratch_file("art.png", std::string(art_png.begin(), art_png.end()));
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> flag_words;  // what the message must say instead
  };
  const std::vector<Case> cases{
      // PIXEL_RULE_PALETTE needs a palette.
      {{"upload", "m", level_path_, "--rule", "palette"}, {"--palette", "--rule palette"}},
      // The palette is only used with PIXEL_RULE_PALETTE.
      {{"upload", "m", level_path_, "--rule", "nonzero", "--palette", "0x00ff00=1"},
       {"--palette", "--rule palette"}},
      // MASK_FORMAT_RAW needs width and height.
      {{"upload", "m", raw, "--format", "raw"}, {"--width", "--format raw"}},
      // Core's decoder: rule BLUE_BIT7 does not apply to RAW data.
      {{"upload", "m", raw, "--format", "raw", "--width", "32", "--height", "16", "--rule",
        "blue-bit7"},
       {"--rule blue-bit7"}},
      // Core's decoder: red is not in the palette; set block_unmapped to block it.
      {{"upload", "m", art, "--rule", "palette", "--palette", "0x00ff00=1"},
       {"0xff0000", "--block-unmapped"}},
  };
  upload_level("demo");
  // Fields the CLI sets from a flag: the server names the field, the CLI the flag.
  const auto cost = run({"find", "demo", "1", "1", "2", "2", "--cost", "1=0"});
  EXPECT_EQ(cost.exit_code, 2) << describe(cost);
  EXPECT_THAT(cost.err, StartsWith("error: INVALID_ARGUMENT: --cost: "));
  const auto areas = run({"range", "demo", "1,1", "--max-cost", "3", "--cost", "99=2"});
  EXPECT_EQ(areas.exit_code, 2) << describe(areas);
  EXPECT_THAT(areas.err, StartsWith("error: INVALID_ARGUMENT: --cost: "));

  for (const auto& [args, flag_words] : cases) {
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 2) << describe(result);
    EXPECT_THAT(result.err, StartsWith("error: INVALID_ARGUMENT: ")) << describe(result);
    for (const auto& words : flag_words) {
      EXPECT_THAT(result.err, HasSubstr(words)) << describe(result);
    }
    for (const char* proto_name : {"PIXEL_RULE_", "MASK_FORMAT_", "CONNECTIVITY_", "SMOOTHING_",
                                   "BLUE_BIT7", "RAW needs", "block_unmapped"}) {
      EXPECT_THAT(result.err, Not(HasSubstr(proto_name))) << describe(result);
    }
  }
}

TEST_F(CliE2eTest, HealthSaysServing) {
  const auto result = run({"health"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_EQ(result.out, "SERVING\n");
  const auto json = run({"health", "--json"});
  EXPECT_EQ(json.exit_code, 0) << describe(json);
  EXPECT_EQ(json.out, "{\"status\":\"SERVING\"}\n");
  // A service the server does not know: the health service says NOT_FOUND.
  const auto unknown = run({"health", "no.such.Service"});
  EXPECT_EQ(unknown.exit_code, 1) << describe(unknown);
  EXPECT_THAT(unknown.err, StartsWith("error: NOT_FOUND"));
  EXPECT_TRUE(unknown.out.empty());
}

TEST(CliUsageTest, HealthOfNoServerFailsWithinItsTimeout) {
  const auto started = std::chrono::steady_clock::now();
  const auto result = pathfind({"--server", "127.0.0.1:1", "--timeout", "2", "health"});
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  EXPECT_THAT(result.err, StartsWith("error: "));
  EXPECT_THAT(result.out, Not(HasSubstr("SERVING")));
  EXPECT_LT(elapsed, std::chrono::seconds(4));
}

TEST_F(CliE2eTest, ServerAddressComesFromTheEnvironmentUnlessGiven) {
  upload_level("demo");
  const std::string env_here = "PATHFINDER_SERVER=" + server_->target();
  const std::string env_nowhere = "PATHFINDER_SERVER=127.0.0.1:1";

  const auto from_env = run_with_env(env_here, {"get", "demo"});
  EXPECT_EQ(from_env.exit_code, 0) << describe(from_env);
  EXPECT_THAT(from_env.out, StartsWith("mask demo "));
  EXPECT_EQ(run_with_env(env_here, {"health"}).exit_code, 0);

  // --server wins over the environment, both ways.
  const auto flag_wins = run_with_env(env_nowhere, {"--server", server_->target(), "get", "demo"});
  EXPECT_EQ(flag_wins.exit_code, 0) << describe(flag_wins);
  const auto flag_wins_too =
      run_with_env(env_here, {"--server", "127.0.0.1:1", "--timeout", "3", "get", "demo"});
  EXPECT_EQ(flag_wins_too.exit_code, 1) << describe(flag_wins_too);
  EXPECT_THAT(flag_wins_too.err, StartsWith("error: UNAVAILABLE"));

  // Neither (or an empty variable): the documented default, 127.0.0.1:50051. Another
  // server (`make run`) may listen there; when none does, the error names the address.
  for (const auto& env_args : {std::vector<std::string>{"env", "-u", "PATHFINDER_SERVER"},
                               std::vector<std::string>{"env", "PATHFINDER_SERVER="}}) {
    auto args = env_args;
    args.insert(args.end(), {PATHFIND_CLI_BIN, "--timeout", "3", "list"});
    const auto result = pathtest::run_command(args);
    if (result.exit_code != 0) {
      EXPECT_EQ(result.exit_code, 1) << describe(result);
      EXPECT_THAT(result.err, HasSubstr("127.0.0.1:50051")) << describe(result);
    }
  }
}

TEST_F(CliE2eTest, StaleExpectedRevisionIsFailedPrecondition) {
  expect_stale_revision_refused({{"reachable", "demo", "2", "2", "30", "10"},
                                 {"standard-move", "demo", "2", "2", "6", "10"},
                                 {"los", "demo", "2", "2", "6", "10"},
                                 {"nearest", "demo", "8", "5"}});
}

// Needs the server to honour FindPathRequest.expected_revision.
TEST_F(CliE2eTest, FindWithAStaleExpectedRevisionIsFailedPrecondition) {
  expect_stale_revision_refused({{"find", "demo", "2", "2", "30", "10"}});
}

TEST_F(CliE2eTest, GetAreasWritesAPngThatUploadsToTheSameGrid) {
  Grid grid = level();
  grid.fill_rect(10, 10, 12, 12, 63);  // the largest id survives too
  ASSERT_EQ(run({"upload", "original", scratch_file("original.pgm", grid.pgm())}).exit_code, 0);
  const std::string out = server_->temp_dir() + "/original.png";
  const auto got = run({"get", "original", "--areas", "-o", out});
  ASSERT_EQ(got.exit_code, 0) << describe(got);
  EXPECT_THAT(got.out, AllOf(StartsWith("mask original "), HasSubstr("wrote " + out)));

  const auto copy = run({"upload", "copy", out});  // --rule auto reads grey as INDEX
  ASSERT_EQ(copy.exit_code, 0) << describe(copy);
  EXPECT_THAT(copy.out, HasSubstr("sha256 " + sha256_hex(grid.bytes())));
  EXPECT_EQ(stored_grid("copy"), grid.bytes());
  EXPECT_TRUE(copy.err.empty()) << copy.err;  // a grey image: no warning

  const auto json = run({"--json", "get", "original", "--areas", "-o", out});
  ASSERT_EQ(json.exit_code, 0) << describe(json);
  EXPECT_THAT(json.out, AllOf(HasSubstr("\"name\":\"original\""), HasSubstr("\"areas\":\"\"")));

  EXPECT_EQ(run({"get", "original", "-o", out}).exit_code, 2);  // -o needs --areas
  EXPECT_EQ(run({"get", "original", "--areas"}).exit_code, 2);  // and --areas needs -o
  const auto unwritable = run({"get", "original", "--areas", "-o", out + ".d/x.png"});
  EXPECT_EQ(unwritable.exit_code, 2) << describe(unwritable);
  EXPECT_THAT(unwritable.err, HasSubstr(out + ".d/x.png"));
  const auto missing = run({"get", "ghost", "--areas", "-o", out});
  EXPECT_EQ(missing.exit_code, 1) << describe(missing);
}

TEST_F(CliE2eTest, PatchFillsARectangle) {
  upload_level("demo");
  const auto result = run({"patch", "demo", "--fill", "2", "--rect", "1,2,5,3"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("revision 2"));
  Grid expected = level();
  expected.fill_rect(1, 2, 5, 4, 2);
  EXPECT_EQ(stored_grid("demo"), expected.bytes());

  const auto wall =
      run({"patch", "demo", "--rect", "0,0,1,1", "--fill", "0", "--expected-revision", "2"});
  ASSERT_EQ(wall.exit_code, 0) << describe(wall);
  expected.fill_rect(0, 0, 0, 0, 0);
  EXPECT_EQ(stored_grid("demo"), expected.bytes());
}

TEST_F(CliE2eTest, PatchPastesAPng) {
  upload_level("demo");
  // A grey PNG: the grey value is the area id (--rule auto = index).
  const pathcore::Mask stamp(3, 2, {0, 5, 0, 5, 5, 5});
  const auto grey = pathcore::encode_png_areas(stamp);
  const std::string grey_path = scratch_file("stamp.png", std::string(grey.begin(), grey.end()));
  const auto pasted = run({"patch", "demo", "--png", grey_path, "--at", "10,4"});
  ASSERT_EQ(pasted.exit_code, 0) << describe(pasted);
  Grid expected = level();
  const std::uint8_t stamp_areas[] = {0, 5, 0, 5, 5, 5};
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x)
      expected.areas[expected.index(10 + x, 4 + y)] = stamp_areas[y * 3 + x];
  }
  EXPECT_EQ(stored_grid("demo"), expected.bytes());

  // A colour PNG with upload's --rule palette: green 7, red unlisted (blocked).
  const std::vector<std::uint8_t> rgba{0, 255, 0, 255, 255, 0,   0, 255,   // row 0: green, red
                                       0, 255, 0, 255, 0,   255, 0, 255};  // row 1: green, green
  const auto colour = pathcore::encode_png_rgba(2, 2, rgba);
  const std::string colour_path =
      scratch_file("colour.png", std::string(colour.begin(), colour.end()));
  // Red is not in the palette: refused locally, as upload would refuse it.
  const auto unmapped = run({"patch", "demo", "--png", colour_path, "--at", "0,14", "--rule",
                             "palette", "--palette", "0x00ff00=7"});
  EXPECT_EQ(unmapped.exit_code, 2) << describe(unmapped);
  EXPECT_THAT(unmapped.err, AllOf(HasSubstr(colour_path), HasSubstr("0xff0000")));
  EXPECT_EQ(stored_grid("demo"), expected.bytes());
  const auto palette = run({"patch", "demo", "--png", colour_path, "--at", "0,14", "--rule",
                            "palette", "--palette", "0x00ff00=7", "--block-unmapped"});
  ASSERT_EQ(palette.exit_code, 0) << describe(palette);
  expected.areas[expected.index(0, 14)] = 7;
  expected.areas[expected.index(1, 14)] = 0;
  expected.areas[expected.index(0, 15)] = 7;
  expected.areas[expected.index(1, 15)] = 7;
  EXPECT_EQ(stored_grid("demo"), expected.bytes());

  // A picture that does not fit is the server's INVALID_ARGUMENT.
  const auto outside = run({"patch", "demo", "--png", grey_path, "--at", "31,0"});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, StartsWith("error: INVALID_ARGUMENT: "));
  EXPECT_EQ(stored_grid("demo"), expected.bytes());
}

TEST_F(CliE2eTest, PatchRefusesBadCombinations) {
  upload_level("demo");
  const std::string bytes = scratch_file("one.bin", std::string(1, '\1'));
  const std::string png = scratch_file("stamp.png", [] {
    const auto encoded = pathcore::encode_png_areas(pathcore::Mask(1, 1, {1}));
    return std::string(encoded.begin(), encoded.end());
  }());
  const std::vector<std::vector<std::string>> cases{
      {"patch", "demo"},                                              // nothing to write
      {"patch", "demo", "--fill", "1"},                               // no --rect
      {"patch", "demo", "--rect", "0,0,1,1"},                         // no --fill
      {"patch", "demo", "--fill", "1", "--rect", "0,0,1"},            // three numbers
      {"patch", "demo", "--fill", "1", "--rect", "0,0,0,1"},          // empty
      {"patch", "demo", "--fill", "1", "--rect", "0,x,1,1"},          // not a number
      {"patch", "demo", "--fill", "64", "--rect", "0,0,1,1"},         // not an area id
      {"patch", "demo", "--png", png},                                // no --at
      {"patch", "demo", "--at", "1,1"},                               // no --png
      {"patch", "demo", "--png", png, "--at", "1"},                   // one number
      {"patch", "demo", "--png", png, "--at", "1,1", "--fill", "1"},  // two forms
      {"patch", "demo", "0", "0", "1", "1", bytes, "--fill", "1", "--rect", "0,0,1,1"},
      {"patch", "demo", "0", "0", "1", bytes},                                   // four positionals
      {"patch", "demo", "--fill", "1", "--rect", "0,0,1,1", "--rule", "index"},  // --rule, no --png
      {"patch", "demo", "--fill", "1", "--rect", "0,0,1,1", "--block-unmapped"},
      {"patch", "demo", "--png", scratch_file("garbage.png", "nope"), "--at", "0,0"},
      {"patch", "demo", "--png", server_->temp_dir() + "/missing.png", "--at", "0,0"},
  };
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& arg : args) joined += arg + " ";
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 2) << joined << "\n" << describe(result);
    EXPECT_THAT(result.err, StartsWith("error: ")) << joined;
  }
  // Nothing was written.
  EXPECT_EQ(stored_grid("demo"), level().bytes());
}

// An RGBA PNG of `colours` (0xRRGGBB each), width x 1.
std::string colour_png(const std::vector<std::uint32_t>& colours) {
  std::vector<std::uint8_t> rgba;
  for (const std::uint32_t c : colours) {
    rgba.insert(rgba.end(), {static_cast<std::uint8_t>(c >> 16), static_cast<std::uint8_t>(c >> 8),
                             static_cast<std::uint8_t>(c), 255});
  }
  const auto png = pathcore::encode_png_rgba(static_cast<std::uint32_t>(colours.size()), 1, rgba);
  return {png.begin(), png.end()};
}

TEST_F(CliE2eTest, UploadWarnsWhenAColourImageBecomesOneArea) {
  // Red and green level art: --rule auto (nonzero) makes both area 1; with
  // black walls too (area 0 beside area 1) it is the same loss of colours.
  const std::string art = scratch_file("art.png", colour_png({0xff0000, 0x00ff00, 0xff0000}));
  const std::string walled =
      scratch_file("walled.png", colour_png({0xff0000, 0x000000, 0x00ff00, 0x000000}));
  for (const auto& [name, file] : {std::pair{"art", art}, std::pair{"walled", walled}}) {
    const auto warned = run({"upload", name, file});
    ASSERT_EQ(warned.exit_code, 0) << describe(warned);
    EXPECT_THAT(warned.out, HasSubstr("walkable"));
    EXPECT_THAT(warned.err, AllOf(StartsWith("warning: "), HasSubstr(file), HasSubstr("one area"),
                                  HasSubstr("(area 1)"),
                                  HasSubstr("--rule palette --palette 0xRRGGBB=AREA"),
                                  HasSubstr("--rule blue-bit7")))
        << name;
    EXPECT_EQ(lines_of(warned.err).size(), 1U) << warned.err;
  }
  EXPECT_EQ(stored_grid("walled"), std::string("\x01\x00\x01\x00", 4));

  // No warning: all black (no walkable area at all); a chosen rule; a grey image.
  const std::string black = scratch_file("black.png", colour_png({0x000000, 0x000000}));
  const auto all_walls = run({"upload", "black", black});
  ASSERT_EQ(all_walls.exit_code, 0) << describe(all_walls);
  EXPECT_TRUE(all_walls.err.empty()) << all_walls.err;
  const auto chosen = run({"upload", "art", art, "--rule", "nonzero"});
  ASSERT_EQ(chosen.exit_code, 0) << describe(chosen);
  EXPECT_TRUE(chosen.err.empty()) << chosen.err;
  const auto grey = pathcore::encode_png_areas(pathcore::Mask(2, 1, {1, 1}));
  const auto one_grey_area =
      run({"upload", "grey", scratch_file("grey.png", std::string(grey.begin(), grey.end()))});
  ASSERT_EQ(one_grey_area.exit_code, 0) << describe(one_grey_area);
  EXPECT_TRUE(one_grey_area.err.empty()) << one_grey_area.err;
}

// ---------------------------------------------------------------------------
// One rule everywhere: the server address, number ranges, flags that do
// nothing, exit codes, JSON, --file and the environment.

// text as a JSON object (protobuf's parser, independent of the CLI's printer);
// fails the test when it is not one.
google::protobuf::Struct parse_json_object(const std::string& text) {
  google::protobuf::Struct object;
  const auto status = google::protobuf::util::JsonStringToMessage(text, &object);
  EXPECT_TRUE(status.ok()) << "not a JSON object: " << text;
  return object;
}

// The keys of a JSON object in the order the text gives them (top level only).
std::vector<std::string> top_level_keys(const std::string& text) {
  std::vector<std::string> keys;
  int depth = 0;
  bool in_string = false;
  std::string current;
  bool reading_key = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
        continue;
      }
      if (c == '"') {
        in_string = false;
        if (reading_key && text.find(':', i) == i + 1) keys.push_back(current);
        reading_key = false;
      } else {
        current += c;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      current.clear();
      reading_key = depth == 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return keys;
}

TEST(CliUsageTest, AServerAddressWithoutAPortOrWithASchemeIsAUsageError) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> said;
  };
  const std::vector<Case> cases{
      {{"--server", "127.0.0.1", "list"},
       {"--server '127.0.0.1'", "expected HOST:PORT", "the port is missing"}},
      {{"--server", "localhost", "health"}, {"--server 'localhost'", "HOST:PORT"}},
      {{"--server", "http://127.0.0.1:50051", "list"},
       {"--server 'http://127.0.0.1:50051'", "without a URL scheme", "e.g. 127.0.0.1:50051"}},
      {{"--server", "https://example.org:443", "list"},
       {"without a URL scheme", "example.org:443", "--tls-ca"}},
      {{"--server", "grpc://127.0.0.1:1", "list"}, {"without a URL scheme", "127.0.0.1:1"}},
      {{"--server", "127.0.0.1:0", "list"}, {"PORT must be a number 1..65535"}},
      {{"--server", "127.0.0.1:99999", "list"}, {"PORT must be a number 1..65535"}},
  };
  for (const auto& [args, said] : cases) {
    const auto result = pathfind(args);
    EXPECT_EQ(result.exit_code, 2) << args[1] << "\n" << describe(result);
    EXPECT_THAT(result.err, StartsWith("error: --server '")) << describe(result);
    for (const auto& words : said) EXPECT_THAT(result.err, HasSubstr(words)) << describe(result);
    EXPECT_THAT(result.err, Not(HasSubstr("DNS"))) << describe(result);
  }
  // From the environment, the same check.
  const auto from_env = pathtest::run_command({"env", "PATHFINDER_SERVER=127.0.0.1", PATHFIND_CLI_BIN, "list"});
  EXPECT_EQ(from_env.exit_code, 2) << describe(from_env);
  EXPECT_THAT(from_env.err, HasSubstr("the port is missing"));
  // pathfinder-load checks it too, before any call.
  const auto load = pathtest::run_command(
      {PATHFINDER_LOAD_BIN, "--server", "http://127.0.0.1:1", "--rpc", "health", "--requests", "1"});
  EXPECT_EQ(load.exit_code, 2) << describe(load);
  EXPECT_THAT(load.err, AllOf(HasSubstr("--server 'http://127.0.0.1:1'"),
                              HasSubstr("without a URL scheme")));
}

TEST_F(CliE2eTest, ARefusedConnectionAsksWhetherTheServerRuns) {
  upload_level("demo");
  // A port that served a moment ago and is closed now.
  const std::string target = server_->target();
  EXPECT_EQ(run({"get", "demo"}).exit_code, 0);
  server_->kill9();
  const auto refused = pathfind({"--server", target, "--timeout", "3", "get", "demo"});
  EXPECT_EQ(refused.exit_code, 1) << describe(refused);
  EXPECT_THAT(refused.err, AllOf(StartsWith("error: UNAVAILABLE: "),
                                 HasSubstr("is the server running at " + target + "?")));
  const auto json = pathfind({"--server", target, "--timeout", "3", "--json", "list"});
  EXPECT_EQ(json.exit_code, 1) << describe(json);
  const auto error = parse_json_object(json.err);
  EXPECT_EQ(error.fields().at("code").string_value(), "UNAVAILABLE");
  EXPECT_THAT(error.fields().at("message").string_value(),
              HasSubstr("is the server running at " + target + "?"));
  const auto load = pathtest::run_command({PATHFINDER_LOAD_BIN, "--server", target, "--timeout",
                                           "3", "--rpc", "reachable", "--requests", "1"});
  EXPECT_EQ(load.exit_code, 1) << describe(load);
  EXPECT_THAT(load.err, HasSubstr("is the server running at " + target + "?"));
}

TEST_F(CliE2eTest, NumericFlagsHaveARangeAndAShortMessage) {
  upload_level("demo");
  struct Case {
    std::vector<std::string> args;
    std::string flag;
  };
  const std::string out = server_->temp_dir() + "/out.png";
  const std::vector<Case> cases{
      {{"find", "demo", "2", "2", "30", "10", "--expected-revision", "-1"}, "--expected-revision"},
      {{"reachable", "demo", "2", "2", "30", "10", "--expected-revision", "-1"},
       "--expected-revision"},
      {{"los", "demo", "2", "2", "30", "10", "--expected-revision", "x"}, "--expected-revision"},
      {{"patch", "demo", "--fill", "1", "--rect", "0,0,1,1", "--expected-revision", "-1"},
       "--expected-revision"},
      {{"prepare", "demo", "--labels", "--expected-revision", "-2"}, "--expected-revision"},
      {{"--timeout", "0", "list"}, "--timeout"},
      {{"--timeout", "1e300", "list"}, "--timeout"},
      {{"--timeout", "nan", "list"}, "--timeout"},
      {{"field", "demo", "--to", "30", "10", "-o", out, "--downsample", "0"}, "--downsample"},
      {{"field", "demo", "--to", "30", "10", "-o", out, "--crop", "-1", "0", "4", "4"}, "--crop"},
      {{"field", "demo", "--to", "30", "10", "-o", out, "--clearance", "-1"}, "--clearance"},
      {{"find", "demo", "2", "2", "30", "10", "--clearance", "inf"}, "--clearance"},
      {{"find", "demo", "2", "2", "30", "10", "--max-cost", "-1"}, "--max-cost"},
      {{"range", "demo", "2,2", "--max-cost", "0"}, "--max-cost"},
      {{"standard-move", "demo", "2", "2", "6", "10", "--max-moves", "9"}, "--max-moves"},
      {{"standard-move", "demo", "2", "2", "6", "10", "--max-moves", "-1"}, "--max-moves"},
      {{"render", "demo", "-o", out, "--scale", "0"}, "--scale"},
      {{"patch", "demo", "--fill", "64", "--rect", "0,0,1,1"}, "--fill"},
      {{"upload", "m", level_path_, "--format", "raw", "--width", "0", "--height", "4"}, "--width"},
      {{"nearest", "demo", "8", "5", "--clearance", "-0.5"}, "--clearance"},
  };
  for (const auto& [args, flag] : cases) {
    std::string joined;
    for (const auto& arg : args) joined += arg + " ";
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 2) << joined << "\n" << describe(result);
    EXPECT_THAT(result.err, HasSubstr(flag + ": must be a")) << joined << "\n" << describe(result);
    // No wrapped unsigned value, no 300-digit bound: one short line, then CLI11's hint.
    EXPECT_THAT(result.err, Not(HasSubstr("18446744073709551615"))) << joined;
    EXPECT_LT(lines_of(result.err).at(0).size(), 160U) << joined << "\n" << result.err;
    EXPECT_FALSE(std::regex_search(result.err, std::regex("[0-9]{25}"))) << joined << result.err;
  }
  // In range, the same flags work.
  EXPECT_EQ(run({"find", "demo", "2", "2", "30", "10", "--expected-revision", "1"}).exit_code, 0);
  EXPECT_EQ(run({"--timeout", "0.5", "list"}).exit_code, 0);
  EXPECT_EQ(run({"standard-move", "demo", "2", "2", "6", "10", "--max-moves", "3"}).exit_code, 0);
  EXPECT_EQ(run({"field", "demo", "--to", "30", "10", "-o", out, "--downsample", "2"}).exit_code, 0);
}

TEST_F(CliE2eTest, FlagsThatWouldDoNothingAreRefused) {
  upload_level("demo");
  const std::string out = server_->temp_dir() + "/out.png";
  struct Case {
    std::vector<std::string> args;
    std::string flag;    // the flag refused
    std::string needed;  // the flag it needs (or conflicts with)
  };
  const std::vector<Case> cases{
      {{"find", "demo", "2", "2", "30", "10", "--corner-cutting"}, "--corner-cutting", "--eight"},
      {{"find", "demo", "2", "2", "30", "10", "--eight", "--smoothing", "any-angle"}, "--eight",
       "--smoothing any-angle"},
      {{"batch", "demo", "30", "10", "2,2", "--corner-cutting"}, "--corner-cutting", "--eight"},
      {{"render", "demo", "-o", out, "--from", "2", "2", "--to", "30", "10", "--eight",
        "--smoothing", "any-angle"},
       "--eight", "--smoothing any-angle"},
      {{"render", "demo", "-o", out, "--snap"}, "--snap", "--from"},
      {{"field", "demo", "--to", "30", "10", "-o", out, "--corner-cutting"}, "--corner-cutting",
       "--eight"},
      {{"range", "demo", "2,2", "--max-cost", "5", "--corner-cutting"}, "--corner-cutting",
       "--eight"},
      {{"nearest", "demo", "8", "5", "--eight"}, "--eight", "--from"},
      {{"nearest", "demo", "8", "5", "--from", "3", "3", "--corner-cutting"}, "--corner-cutting",
       "--eight"},
      {{"prepare", "demo", "--any-angle", "--eight"}, "--eight", "--labels"},
      {{"prepare", "demo", "--labels", "--corner-cutting"}, "--corner-cutting", "--eight"},
  };
  for (const auto& [args, flag, needed] : cases) {
    std::string joined;
    for (const auto& arg : args) joined += arg + " ";
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 2) << joined << "\n" << describe(result);
    EXPECT_THAT(result.err, AllOf(StartsWith("error: " + flag), HasSubstr(needed)))
        << joined << "\n" << describe(result);
  }
  // The combinations that mean something still work.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"find", "demo", "2", "2", "30", "10", "--eight", "--corner-cutting"},
           {"find", "demo", "2", "2", "30", "10", "--smoothing", "any-angle", "--corner-cutting"},
           {"nearest", "demo", "8", "5", "--from", "3", "3", "--eight", "--corner-cutting"},
           {"range", "demo", "2,2", "--max-cost", "5", "--eight", "--corner-cutting"},
           {"prepare", "demo", "--labels", "--eight", "--corner-cutting"}}) {
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 0) << args.front() << "\n" << describe(result);
  }
}

TEST_F(CliE2eTest, ExitCodesFollowOneRule) {
  const Grid split = split_rooms();
  ASSERT_EQ(run({"upload", "split", scratch_file("split.pgm", split.pgm())}).exit_code, 0);
  ASSERT_LT(bfs_distance(split, 1, 1, 8, 3), 0);
  ASSERT_FALSE(split.walkable(5, 2));
  const std::string out = server_->temp_dir() + "/out.png";
  // 3: answered, without a result.
  const auto move = run({"standard-move", "split", "1", "1", "8", "3"});
  EXPECT_EQ(move.exit_code, 3) << describe(move);
  EXPECT_THAT(move.out, StartsWith("found false "));
  const auto render = run({"render", "split", "-o", out, "--from", "1", "1", "--to", "8", "3"});
  EXPECT_EQ(render.exit_code, 3) << describe(render);
  EXPECT_THAT(render.out, HasSubstr("found false"));
  const auto local =
      run({"render", "--mask-file", scratch_file("split2.pgm", split.pgm()), "-o", out, "--from",
           "1", "1", "--to", "8", "3"});
  EXPECT_EQ(local.exit_code, 3) << describe(local);
  const auto batch = run({"batch", "split", "8", "3", "1,1"});
  EXPECT_EQ(batch.exit_code, 3) << describe(batch);
  const auto blocked_field = run({"field", "split", "--to", "5", "2", "-o", out});
  EXPECT_EQ(blocked_field.exit_code, 3) << describe(blocked_field);
  EXPECT_THAT(blocked_field.out, HasSubstr("no answer: no sample reaches the goal (5,2)"));
  // 0: the same commands with an answer.
  EXPECT_EQ(run({"standard-move", "split", "1", "1", "3", "3"}).exit_code, 0);
  EXPECT_EQ(run({"render", "split", "-o", out, "--from", "1", "1", "--to", "3", "3"}).exit_code, 0);
  EXPECT_EQ(run({"field", "split", "--to", "8", "3", "-o", out}).exit_code, 0);
  // 2: the server's INVALID_ARGUMENT about what the command line gave.
  const auto outside = run({"find", "split", "1", "1", "50", "2"});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, StartsWith("error: INVALID_ARGUMENT: "));
  const auto cost = run({"find", "split", "1", "1", "3", "3", "--cost", "1=0"});
  EXPECT_EQ(cost.exit_code, 2) << describe(cost);
  EXPECT_THAT(cost.err, StartsWith("error: INVALID_ARGUMENT: --cost: "));
  // 1: the server's other errors.
  const auto missing = run({"standard-move", "ghost", "1", "1", "3", "3"});
  EXPECT_EQ(missing.exit_code, 1) << describe(missing);
  EXPECT_THAT(missing.err, StartsWith("error: NOT_FOUND: "));
  // --help says so.
  const auto help = pathfind({"--help"});
  EXPECT_THAT(help.out, AllOf(HasSubstr("0 done"), HasSubstr("1 the server or the connection"),
                              HasSubstr("2 a usage error"), HasSubstr("INVALID_ARGUMENT"),
                              HasSubstr("3 no answer"), HasSubstr("standard-move"),
                              HasSubstr("field")));
}

TEST_F(CliE2eTest, JsonUsesTheProtoMappingEverywhereAndErrorsAreJsonToo) {
  upload_level("demo");
  const std::string out = server_->temp_dir() + "/out.png";
  // field: GetField's keys and forms (a uint64 revision is a string), in a fixed order.
  const auto field = run({"--json", "field", "demo", "--to", "30", "10", "-o", out});
  ASSERT_EQ(field.exit_code, 0) << describe(field);
  const auto field_object = parse_json_object(field.out);
  EXPECT_EQ(field_object.fields().at("mask_revision").string_value(), "1");
  EXPECT_EQ(field_object.fields().at("width").number_value(), 32);
  EXPECT_EQ(field_object.fields().at("height").number_value(), 16);
  EXPECT_EQ(field_object.fields().at("output").string_value(), out);
  EXPECT_EQ(top_level_keys(field.out),
            (std::vector<std::string>{"width", "height", "mask_revision", "cache_hit", "reachable",
                                      "output"}));
  EXPECT_EQ(field_object.fields().at("reachable").number_value(),
            static_cast<double>(level().walkable_count()));
  // render: points as find prints them (a list of {x,y}), the revision as a string.
  const auto render = run({"--json", "render", "demo", "-o", out, "--from", "2", "2", "--to", "30",
                           "10", "--smoothing", "none"});
  ASSERT_EQ(render.exit_code, 0) << describe(render);
  const auto render_object = parse_json_object(render.out);
  EXPECT_EQ(render_object.fields().at("mask_revision").string_value(), "1");
  const auto& points = render_object.fields().at("points").list_value().values();
  ASSERT_EQ(points.size(), bfs_distance(level(), 2, 2, 30, 10) + 1);
  EXPECT_EQ(points.begin()->struct_value().fields().at("x").number_value(), 2);
  EXPECT_EQ(points.rbegin()->struct_value().fields().at("y").number_value(), 10);
  const auto find = run({"--json", "find", "demo", "2", "2", "30", "10", "--smoothing", "none"});
  ASSERT_EQ(find.exit_code, 0) << describe(find);
  EXPECT_THAT(find.out, HasSubstr("\"points\":[{\"x\":2,\"y\":2},"));
  EXPECT_THAT(render.out, HasSubstr("\"points\":[{\"x\":2,\"y\":2},"));
  EXPECT_EQ(top_level_keys(render.out),
            (std::vector<std::string>{"output", "width", "height", "mask_revision", "found",
                                      "length", "points", "precise_points"}));
  // range: RangeChunk's keys; pixel_count and the revision are uint64, strings.
  const auto range = run({"--json", "range", "demo", "2,2", "--max-cost", "3"});
  ASSERT_EQ(range.exit_code, 0) << describe(range);
  const auto range_object = parse_json_object(range.out);
  std::size_t within_three = 0;  // four-neighbour steps of cost 1
  for (int y = 0; y < level().height; ++y) {
    for (int x = 0; x < level().width; ++x) {
      const int distance = level().walkable(x, y) ? bfs_distance(level(), 2, 2, x, y) : -1;
      within_three += distance >= 0 && distance <= 3 ? 1 : 0;
    }
  }
  EXPECT_EQ(range_object.fields().at("pixel_count").string_value(), std::to_string(within_three));
  EXPECT_EQ(range_object.fields().at("mask_revision").string_value(), "1");
  EXPECT_EQ(top_level_keys(range.out),
            (std::vector<std::string>{"bounds", "pixel_count", "mask_revision"}));
  // The same command twice prints the same keys in the same order.
  EXPECT_EQ(top_level_keys(run({"--json", "field", "demo", "--to", "30", "10", "-o", out}).out),
            top_level_keys(field.out));

  // Errors: one JSON object on stderr with code and message, stdout empty.
  const auto missing = run({"--json", "get", "ghost"});
  EXPECT_EQ(missing.exit_code, 1) << describe(missing);
  EXPECT_TRUE(missing.out.empty()) << missing.out;
  ASSERT_EQ(lines_of(missing.err).size(), 1U) << missing.err;
  const auto error = parse_json_object(missing.err);
  EXPECT_EQ(error.fields().at("code").string_value(), "NOT_FOUND");
  EXPECT_THAT(error.fields().at("message").string_value(), HasSubstr("ghost"));
  EXPECT_EQ(top_level_keys(missing.err), (std::vector<std::string>{"code", "message"}));
  // A usage error, found by the CLI or by CLI11, likewise.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--json", "find", "demo", "2", "2", "30", "10", "--corner-cutting"},
           {"--json", "find", "demo", "2", "2", "30", "10", "--expected-revision", "-1"},
           {"--json", "find", "demo", "2", "x", "30", "10"},
           {"--json", "find", "demo", "2", "2", "300", "10"}}) {
    const auto usage = run(args);
    EXPECT_EQ(usage.exit_code, 2) << describe(usage);
    ASSERT_EQ(lines_of(usage.err).size(), 1U) << usage.err;
    const auto object = parse_json_object(usage.err);
    EXPECT_EQ(object.fields().at("code").string_value(), "INVALID_ARGUMENT") << usage.err;
    EXPECT_FALSE(object.fields().at("message").string_value().empty());
  }
  // No answer: the reason as a JSON object too.
  const Grid split = split_rooms();
  ASSERT_EQ(run({"upload", "split", scratch_file("split.pgm", split.pgm())}).exit_code, 0);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--json", "find", "split", "1", "1", "8", "3"},
           {"--json", "standard-move", "split", "1", "1", "8", "3"},
           {"--json", "field", "split", "--to", "5", "2", "-o", out}}) {
    const auto none = run(args);
    EXPECT_EQ(none.exit_code, 3) << describe(none);
    parse_json_object(none.out);
    const auto object = parse_json_object(none.err);
    EXPECT_EQ(object.fields().at("code").string_value(), "NO_ANSWER") << none.err;
  }
}

TEST_F(CliE2eTest, ReachableReadsPairsFromAFile) {
  upload_level("demo");
  const Grid grid = level();
  // (2,2)->(30,10) and (2,2)->(9,0); the second from the file, with a comment.
  const std::string file = scratch_file("pairs.txt", "# a b\n2,2 9,0\n30 14 0 15\n");
  const auto result = run({"reachable", "demo", "2", "2", "30", "10", "--file", file});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 4U) << result.out;
  const auto word = [&grid](int ax, int ay, int bx, int by) {
    return bfs_distance(grid, ax, ay, bx, by) >= 0 ? "reachable" : "unreachable";
  };
  EXPECT_EQ(lines[1], std::string("(2,2) -> (30,10): ") + word(2, 2, 30, 10));
  EXPECT_EQ(lines[2], std::string("(2,2) -> (9,0): ") + word(2, 2, 9, 0));
  EXPECT_EQ(lines[3], std::string("(30,14) -> (0,15): ") + word(30, 14, 0, 15));
  // Only the file; stdin; and a bad line, named.
  const auto only_file = run({"reachable", "demo", "--file", file});
  EXPECT_EQ(only_file.exit_code, 0) << describe(only_file);
  EXPECT_EQ(lines_of(only_file.out).size(), 3U) << only_file.out;
  const auto piped = pathtest::run_command(
      {"sh", "-c", "printf '2 2 9 0\\n' | \"$0\" --server \"$1\" reachable demo --file -",
       PATHFIND_CLI_BIN, server_->target()});
  EXPECT_EQ(piped.exit_code, 0) << describe(piped);
  EXPECT_EQ(lines_of(piped.out).at(1), std::string("(2,2) -> (9,0): ") + word(2, 2, 9, 0));
  const auto bad = run({"reachable", "demo", "--file", scratch_file("bad.txt", "1 2 3\nx\n")});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_THAT(bad.err, HasSubstr("bad.txt:2"));
  const auto odd = run({"reachable", "demo", "--file", scratch_file("odd.txt", "1 2 3\n")});
  EXPECT_EQ(odd.exit_code, 2) << describe(odd);
}

}  // namespace
