// End-to-end tests of pictures: GetMask's area grid (include_areas) against
// the real server, and `pathfind render` from a local file and from the
// server. Output PNGs are read back with libpng, not with the code under test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <png.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "pathcore/codec.h"
#include "pathcore/mask.h"
#include "pathcore/render.h"
#include "pathfinder/client.h"
#include "support/server_process.h"

namespace {

using pathtest::CommandResult;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace pb = pathfinding::v1;

// A room with two walls to walk around (area 1) and an area-2 strip, as PGM.
struct Level {
  static constexpr int kWidth = 32;
  static constexpr int kHeight = 16;
  std::vector<std::uint8_t> areas = std::vector<std::uint8_t>(kWidth * kHeight, 1);

  Level() {
    for (int y = 0; y <= 12; ++y) areas[y * kWidth + 8] = 0;
    for (int y = 3; y < kHeight; ++y) areas[y * kWidth + 20] = 0;
    for (int y = 0; y <= 1; ++y) {
      for (int x = 24; x < kWidth; ++x) areas[y * kWidth + x] = 2;
    }
  }
  [[nodiscard]] std::string bytes() const { return {areas.begin(), areas.end()}; }
  [[nodiscard]] std::string pgm() const {
    return "P5\n" + std::to_string(kWidth) + " " + std::to_string(kHeight) + "\n255\n" + bytes();
  }
};

// A PNG file read with libpng as 8-bit RGBA.
struct Picture {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;
  std::string error;

  [[nodiscard]] pathcore::Rgba at(std::uint32_t x, std::uint32_t y) const {
    const std::size_t i = (std::size_t{y} * width + x) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
  }
};

Picture read_png(const std::string& path) {
  Picture picture;
  const std::string bytes = pathtest::read_text_file(path);
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()) == 0) {
    picture.error = image.message;
    return picture;
  }
  image.format = PNG_FORMAT_RGBA;
  picture.rgba.resize(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, picture.rgba.data(), 0, nullptr) == 0) {
    picture.error = image.message;
    return picture;
  }
  picture.width = image.width;
  picture.height = image.height;
  return picture;
}

double luma(pathcore::Rgba c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }

std::string describe(const CommandResult& result) {
  return "exit " + std::to_string(result.exit_code) + "\n--- stdout ---\n" + result.out +
         "--- stderr ---\n" + result.err;
}

// Runs the CLI; nothing listens on 127.0.0.1:1, so a local render that wrongly
// reaches for the network fails.
CommandResult pathfind_offline(std::vector<std::string> args) {
  args.insert(args.begin(), {PATHFIND_CLI_BIN, "--server", "127.0.0.1:1", "--timeout", "5"});
  return pathtest::run_command(args);
}

class RenderE2eTest : public ::testing::Test {
 protected:
  void SetUp() override { start_server({}); }

  void start_server(std::vector<std::string> extra_args) {
    client_.reset();
    server_.reset();
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    options.extra_args = std::move(extra_args);
    server_ = std::make_unique<ServerProcess>(options);
    client_ = std::make_unique<pathfinder::Client>(server_->target());
    level_path_ = file("level.pgm");
    pathtest::write_file(level_path_, Level().pgm());
  }

  void TearDown() override {
    if (HasFailure() && server_) {
      std::cerr << "---- server output ----\n" << server_->log() << "-----------------------\n";
    }
  }

  [[nodiscard]] std::string file(const std::string& name) const {
    return server_->temp_dir() + "/" + name;
  }

  CommandResult run(std::vector<std::string> args) {
    args.insert(args.begin(), {PATHFIND_CLI_BIN, "--server", server_->target()});
    return pathtest::run_command(args);
  }

  void upload_level(const std::string& name) {
    const auto result = run({"upload", name, level_path_});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
  }

  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<pathfinder::Client> client_;
  std::string level_path_;
};

// ---------------------------------------------------------------------------
// GetMask include_areas.

TEST_F(RenderE2eTest, GetMaskSendsTheGridOnlyOnRequest) {
  upload_level("level");
  const auto plain = client_->get_mask("level");
  ASSERT_TRUE(plain.ok()) << plain.status.error_message();
  EXPECT_TRUE(plain.value.areas().empty());  // unchanged for existing callers
  EXPECT_EQ(plain.value.width(), 32U);

  const auto with_grid = client_->get_mask("level", /*include_areas=*/true);
  ASSERT_TRUE(with_grid.ok()) << with_grid.status.error_message();
  EXPECT_EQ(with_grid.value.areas(), Level().bytes());
  EXPECT_EQ(with_grid.value.width(), 32U);
  EXPECT_EQ(with_grid.value.height(), 16U);
  EXPECT_EQ(with_grid.value.sha256(), plain.value.sha256());
  EXPECT_EQ(with_grid.value.revision(), plain.value.revision());

  // ListMasks never carries grids.
  const auto list = client_->list_masks();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list.value.masks_size(), 1);
  EXPECT_TRUE(list.value.masks(0).areas().empty());

  const auto missing = client_->get_mask("ghost", true);
  EXPECT_EQ(missing.status.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(RenderE2eTest, GetMaskRefusesAGridLargerThanTheMessageLimit) {
  start_server({"--max-message-mb", "1"});
  // 1200 x 1000 = 1.2 MB of grid; as a PNG of stripes the upload is small.
  std::vector<std::uint8_t> areas(1200 * 1000);
  for (std::size_t i = 0; i < areas.size(); ++i) areas[i] = (i / 1200) % 3 == 0 ? 0 : 1;
  const auto png = pathcore::encode_png_areas(pathcore::Mask(1200, 1000, areas));
  ASSERT_LT(png.size(), 1024U * 1024);
  pb::UploadMaskRequest upload;
  upload.set_name("big");
  upload.set_image(png.data(), png.size());
  const auto uploaded = client_->upload_mask(upload);
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();

  const auto refused = client_->get_mask("big", true);
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(),
              AllOf(HasSubstr("include_areas"), HasSubstr("1200000 bytes"), HasSubstr("1048576")));
  const auto described = client_->get_mask("big");
  EXPECT_TRUE(described.ok()) << described.status.error_message();

  const auto cli = run({"render", "big", "-o", file("big.png")});
  EXPECT_EQ(cli.exit_code, 1) << describe(cli);
  EXPECT_THAT(cli.err, StartsWith("error: RESOURCE_EXHAUSTED: "));
}

// ---------------------------------------------------------------------------
// pathfind render.

TEST(RenderUsageTest, HelpDescribesTheOptions) {
  const auto result = pathfind_offline({"render", "--help"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out,
              AllOf(HasSubstr("--mask-file"), HasSubstr("--from"), HasSubstr("--to"),
                    HasSubstr("--heatmap"), HasSubstr("--components"), HasSubstr("--scale"),
                    HasSubstr("--output"), HasSubstr("--format"), HasSubstr("--rule"),
                    HasSubstr("--eight"), HasSubstr("--smoothing"), HasSubstr("--no-legend")));
  const auto top = pathfind_offline({"--help"});
  EXPECT_THAT(top.out, HasSubstr("render"));
}

TEST(RenderUsageTest, LocalFileWithPathHeatmapAndComponents) {
  pathtest::TempDir dir("pathfinder-render");
  const std::string level = dir.file("level.pgm");
  pathtest::write_file(level, Level().pgm());
  const std::string out = dir.file("out.png");
  const auto result =
      pathfind_offline({"render", "--mask-file", level, "--from", "2", "2", "--to", "30", "10",
                        "--heatmap", "--components", "--scale", "3", "-o", out});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("found true"));

  const Picture picture = read_png(out);
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  // The map is 96x48; the legend under it has one row, the heat scale (components
  // replace the area colours, so no area swatches), and needs more width than 96.
  EXPECT_GT(picture.width, 32U * 3);
  EXPECT_EQ(picture.height, 16U * 3 + pathcore::kLegendMargin + pathcore::kLegendRowHeight);
  EXPECT_THAT(result.out, StartsWith("wrote " + out + " (" + std::to_string(picture.width) + "x" +
                                     std::to_string(picture.height) + ")"));
  EXPECT_EQ(picture.at(32 * 3, 0), pathcore::kLegendBackground);  // beside the map
  // Markers at the centres of the start and goal blocks.
  EXPECT_EQ(picture.at(2 * 3 + 1, 2 * 3 + 1), pathcore::kStartColour);
  EXPECT_EQ(picture.at(30 * 3 + 1, 10 * 3 + 1), pathcore::kGoalColour);
  // Heatmap: a wall pixel far from the path is near black; the walkable pixel
  // next to the goal is brighter than one next to the start.
  EXPECT_LT(luma(picture.at(8 * 3 + 1, 0 * 3 + 1)), 20.0);
  EXPECT_GT(luma(picture.at(31 * 3 + 1, 15 * 3 + 1)), luma(picture.at(0 * 3 + 1, 15 * 3 + 1)));
}

TEST(RenderUsageTest, LocalFileAloneShowsTheAreas) {
  pathtest::TempDir dir("pathfinder-render");
  const std::string level = dir.file("level.raw");
  pathtest::write_file(level, Level().bytes());
  const std::string out = dir.file("areas.png");
  const auto result =
      pathfind_offline({"--json", "render", "--mask-file", level, "--format", "raw", "--width",
                        "32", "--height", "16", "--no-legend", "-o", out});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, AllOf(HasSubstr("\"width\":32"), HasSubstr("\"height\":16")));
  const Picture picture = read_png(out);
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  ASSERT_EQ(picture.width, 32U);
  ASSERT_EQ(picture.height, 16U);
  // Pixels of one area share a colour; the three areas differ.
  const pathcore::Rgba wall = picture.at(8, 5);
  const pathcore::Rgba floor = picture.at(3, 5);
  const pathcore::Rgba strip = picture.at(26, 0);
  EXPECT_EQ(picture.at(20, 10), wall);
  EXPECT_EQ(picture.at(15, 15), floor);
  EXPECT_EQ(picture.at(31, 1), strip);
  EXPECT_NE(wall, floor);
  EXPECT_NE(floor, strip);
  EXPECT_NE(wall, strip);
  EXPECT_LT(luma(wall), luma(floor));
}

TEST(RenderUsageTest, TheDemoLevel) {
  pathtest::TempDir dir("pathfinder-render");
  const std::string out = dir.file("demo.png");
  const auto result = pathfind_offline(
      {"render", "--mask-file", std::string(PATHFINDER_SOURCE_DIR) + "/assets/demo.png", "--from",
       "20", "20", "--to", "600", "340", "--heatmap", "-o", out});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("found true"));
  const Picture picture = read_png(out);
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  // 640x360 of map; under it the legend: one row of areas (0, 1 and 2 fit one
  // row at this width), one of the heat scale.
  EXPECT_EQ(picture.width, 640U);
  EXPECT_EQ(picture.height, 360U + pathcore::kLegendMargin + 2 * pathcore::kLegendRowHeight);
  EXPECT_EQ(picture.at(20, 20), pathcore::kStartColour);
  EXPECT_EQ(picture.at(600, 340), pathcore::kGoalColour);
}

TEST(RenderUsageTest, LegendShowsEachAreaUnderTheMap) {
  pathtest::TempDir dir("pathfinder-render");
  const std::string level = dir.file("level.pgm");
  pathtest::write_file(level, Level().pgm());
  const std::string out = dir.file("legend.png");
  const auto result = pathfind_offline({"render", "--mask-file", level, "--scale", "4", "-o", out});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Picture picture = read_png(out);
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  // The level has areas 0, 1 and 2; a 128-pixel-wide picture fits
  // (128 - 2 * margin) / entry width of them in a row.
  const std::uint32_t map_width = 32 * 4;
  const std::uint32_t map_height = 16 * 4;
  const std::uint32_t per_row =
      (map_width - 2 * pathcore::kLegendMargin) / pathcore::kLegendEntryWidth;
  const std::uint32_t rows = (3 + per_row - 1) / per_row;
  ASSERT_EQ(picture.width, map_width);
  ASSERT_EQ(picture.height,
            map_height + pathcore::kLegendMargin + rows * pathcore::kLegendRowHeight);
  // Each area's swatch: its colour in the map (a pixel known to be that area)
  // fills the inside of the swatch at the documented place.
  const pathcore::Rgba colours[] = {picture.at(8 * 4, 0), picture.at(0, 0), picture.at(24 * 4, 0)};
  for (std::uint32_t k = 0; k < 3; ++k) {
    const std::uint32_t x = pathcore::kLegendMargin + (k % per_row) * pathcore::kLegendEntryWidth;
    const std::uint32_t y =
        map_height + pathcore::kLegendMargin + (k / per_row) * pathcore::kLegendRowHeight;
    EXPECT_EQ(picture.at(x, y), pathcore::kOutlineColour) << "area " << k;
    for (std::uint32_t dy = 1; dy + 1 < pathcore::kLegendSwatch; ++dy) {
      for (std::uint32_t dx = 1; dx + 1 < pathcore::kLegendSwatch; ++dx) {
        ASSERT_EQ(picture.at(x + dx, y + dy), colours[k])
            << "area " << k << " +" << dx << "," << dy;
      }
    }
  }

  // --no-legend: the map alone, pixel for pixel the same.
  const std::string bare_out = dir.file("bare.png");
  const auto bare = pathfind_offline(
      {"render", "--mask-file", level, "--scale", "4", "--no-legend", "-o", bare_out});
  ASSERT_EQ(bare.exit_code, 0) << describe(bare);
  EXPECT_THAT(bare.out, StartsWith("wrote " + bare_out + " (128x64)"));
  const Picture bare_picture = read_png(bare_out);
  ASSERT_EQ(bare_picture.width, map_width);
  ASSERT_EQ(bare_picture.height, map_height);
  for (std::uint32_t y = 0; y < map_height; ++y) {
    for (std::uint32_t x = 0; x < map_width; ++x) {
      ASSERT_EQ(bare_picture.at(x, y), picture.at(x, y)) << x << "," << y;
    }
  }
}

TEST(RenderUsageTest, LocalErrorsExitTwo) {
  pathtest::TempDir dir("pathfinder-render");
  const std::string level = dir.file("level.pgm");
  pathtest::write_file(level, Level().pgm());
  const std::string out = dir.file("out.png");
  const std::vector<std::vector<std::string>> cases{
      {"render", "-o", out},                                            // no mask at all
      {"render", "m", "--mask-file", level, "-o", out},                 // both
      {"render", "--mask-file", level},                                 // no output
      {"render", "--mask-file", level, "--from", "1", "1", "-o", out},  // --from without --to
      {"render", "--mask-file", level, "--heatmap", "-o", out},         // heatmap without --to
      {"render", "--mask-file", level, "--scale", "0", "-o", out},
      {"render", "--mask-file", level, "--from", "1", "-o", out},  // one coordinate
      {"render", "--mask-file", level, "--areas", "99", "-o", out},
      {"render", "--mask-file", level, "--from", "1", "1", "--to", "2", "2", "--cost", "1=0", "-o",
       out},
  };
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& arg : args) joined += arg + " ";
    const auto result = pathfind_offline(args);
    EXPECT_EQ(result.exit_code, 2) << joined << "\n" << describe(result);
    EXPECT_FALSE(result.err.empty()) << joined;
  }

  const auto outside = pathfind_offline(
      {"render", "--mask-file", level, "--from", "1", "1", "--to", "40", "3", "-o", out});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, AllOf(StartsWith("error: "), HasSubstr("--to"), HasSubstr("(40,3)")));

  const std::string missing = dir.file("missing.pgm");
  const auto unreadable = pathfind_offline({"render", "--mask-file", missing, "-o", out});
  EXPECT_EQ(unreadable.exit_code, 2) << describe(unreadable);
  EXPECT_THAT(unreadable.err, HasSubstr(missing));

  const std::string garbage = dir.file("garbage.bin");
  pathtest::write_file(garbage, "not an image at all");
  const auto undecodable = pathfind_offline({"render", "--mask-file", garbage, "-o", out});
  EXPECT_EQ(undecodable.exit_code, 2) << describe(undecodable);
  EXPECT_THAT(undecodable.err, HasSubstr(garbage));

  const std::string unwritable = dir.file("no-such-dir/out.png");
  const auto cannot_write = pathfind_offline({"render", "--mask-file", level, "-o", unwritable});
  EXPECT_EQ(cannot_write.exit_code, 2) << describe(cannot_write);
  EXPECT_THAT(cannot_write.err, AllOf(StartsWith("error: "), HasSubstr(unwritable)));
}

TEST_F(RenderE2eTest, ServerMaskWithTheServersPath) {
  upload_level("level");
  const std::string out = file("server.png");
  const auto result = run({"render", "level", "--from", "2", "2", "--to", "30", "10", "--eight",
                           "--components", "-o", out});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  // The drawn path is the server's: the same number of points as `find` prints.
  const auto find = run({"find", "level", "2", "2", "30", "10", "--eight"});
  ASSERT_EQ(find.exit_code, 0) << describe(find);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(find.out, match, std::regex("points ([0-9]+):"))) << find.out;
  EXPECT_THAT(result.out, AllOf(HasSubstr("found true"), HasSubstr("points " + match[1].str())));

  const Picture picture = read_png(out);
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  EXPECT_EQ(picture.width, 32U);
  EXPECT_EQ(picture.height, 16U);
  EXPECT_EQ(picture.at(2, 2), pathcore::kStartColour);
  EXPECT_EQ(picture.at(30, 10), pathcore::kGoalColour);

  // The same picture as rendering the same file locally.
  const std::string local_out = file("local.png");
  const auto local = run({"render", "--mask-file", level_path_, "--from", "2", "2", "--to", "30",
                          "10", "--eight", "--components", "-o", local_out});
  ASSERT_EQ(local.exit_code, 0) << describe(local);
  EXPECT_EQ(read_png(local_out).rgba, picture.rgba);
}

// --smoothing any-angle draws the exact path: around a wall (x 5..6, y 0..5)
// through its bottom corners (5, 6) and (7, 6), not through pixel centres.
TEST_F(RenderE2eTest, AnyAngleDrawsThePrecisePath) {
  constexpr int kW = 12;
  constexpr int kH = 8;
  std::string areas(kW * kH, '\x01');
  for (int y = 0; y <= 5; ++y) areas[y * kW + 5] = areas[y * kW + 6] = '\0';
  const std::string wall = file("wall.pgm");
  pathtest::write_file(wall, "P5\n12 8\n255\n" + areas);
  ASSERT_EQ(run({"upload", "wall", wall}).exit_code, 0);
  const std::string out = file("wall.png");
  const auto result = run({"render", "wall", "--from", "1", "1", "--to", "10", "1", "--smoothing",
                           "any-angle", "--scale", "8", "--no-legend", "-o", out});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, AllOf(HasSubstr("found true"), HasSubstr("points 4")));
  const Picture picture = read_png(out);
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  ASSERT_EQ(picture.width, 96U);
  // At scale 8 a point (x, y) is picture pixel (8x, 8y): the corners, the
  // middle of the segment between them, and a point on the first segment.
  EXPECT_EQ(picture.at(40, 48), pathcore::kPathColour);
  EXPECT_EQ(picture.at(48, 48), pathcore::kPathColour);
  EXPECT_EQ(picture.at(56, 48), pathcore::kPathColour);
  EXPECT_EQ(picture.at(26, 30), pathcore::kPathColour);  // (3.25, 3.75)
  // Well below the bend the map shows through.
  EXPECT_NE(picture.at(48, 60), pathcore::kPathColour);

  const std::string local_out = file("wall-local.png");
  const auto local =
      run({"render", "--mask-file", wall, "--from", "1", "1", "--to", "10", "1", "--smoothing",
           "any-angle", "--scale", "8", "--no-legend", "-o", local_out});
  ASSERT_EQ(local.exit_code, 0) << describe(local);
  EXPECT_EQ(read_png(local_out).rgba, picture.rgba);
}

// Exit 1, or 2 for INVALID_ARGUMENT (the server refused a value the command line gave).
TEST_F(RenderE2eTest, ServerErrorsExitOneOrTwo) {
  upload_level("level");
  const auto unknown = run({"render", "ghost", "-o", file("ghost.png")});
  EXPECT_EQ(unknown.exit_code, 1) << describe(unknown);
  EXPECT_THAT(unknown.err, AllOf(StartsWith("error: NOT_FOUND: "), HasSubstr("ghost")));

  const auto outside =
      run({"render", "level", "--from", "1", "1", "--to", "99", "2", "-o", file("o.png")});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, AllOf(StartsWith("error: INVALID_ARGUMENT: "), HasSubstr("goal")));

  const std::string unwritable = file("no-such-dir/out.png");
  const auto cannot_write = run({"render", "level", "-o", unwritable});
  EXPECT_EQ(cannot_write.exit_code, 2) << describe(cannot_write);
  EXPECT_THAT(cannot_write.err, HasSubstr(unwritable));
}

// ---------------------------------------------------------------------------
// pathfind field (GetField).

// Four-connected step counts to goal over the level's walkable pixels, by
// breadth-first search; -1 where the goal cannot be reached.
std::vector<int> level_steps(const Level& level, int gx, int gy) {
  std::vector<int> steps(level.areas.size(), -1);
  std::deque<std::pair<int, int>> open{{gx, gy}};
  steps[gy * Level::kWidth + gx] = 0;
  while (!open.empty()) {
    const auto [x, y] = open.front();
    open.pop_front();
    for (const auto& [dx, dy] : {std::pair{0, -1}, {1, 0}, {0, 1}, {-1, 0}}) {
      const int nx = x + dx;
      const int ny = y + dy;
      if (nx < 0 || ny < 0 || nx >= Level::kWidth || ny >= Level::kHeight) continue;
      const int n = ny * Level::kWidth + nx;
      if (level.areas[n] == 0 || steps[n] >= 0) continue;
      steps[n] = steps[y * Level::kWidth + x] + 1;
      open.emplace_back(nx, ny);
    }
  }
  return steps;
}

TEST_F(RenderE2eTest, FieldWritesAHeatMapRawFloatsAndFlow) {
  upload_level("level");
  const Level level;
  const std::vector<int> steps = level_steps(level, 30, 14);

  const auto picture_run = run({"field", "level", "--to", "30", "14", "-o", file("field.png")});
  ASSERT_EQ(picture_run.exit_code, 0) << describe(picture_run);
  EXPECT_THAT(picture_run.out, HasSubstr("32x16"));
  const Picture picture = read_png(file("field.png"));
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  // The map, one pixel per sample, and the legend under it (a row for the
  // walls, the only area not reached, and the heat scale).
  ASSERT_GE(picture.width, 32U);
  ASSERT_EQ(picture.height, 16U + pathcore::kLegendMargin + 2 * pathcore::kLegendRowHeight);
  EXPECT_EQ(picture.at(30, 14), pathcore::kGoalColour);  // the goal's marker
  const pathcore::Rgba wall = pathcore::unreachable_colour(pathcore::kBlockedColour);
  EXPECT_EQ(picture.at(8, 0), wall);  // a wall: unreachable
  EXPECT_NE(picture.at(0, 0), wall);
  EXPECT_GT(luma(picture.at(23, 14)), luma(picture.at(0, 0)));  // near is brighter than far

  const auto raw_run = run({"field", "level", "--to", "30", "14", "--raw", "-o", file("field.f32"),
                            "--flow", file("field.flow")});
  ASSERT_EQ(raw_run.exit_code, 0) << describe(raw_run);
  const std::string raw = pathtest::read_text_file(file("field.f32"));
  const std::string flow = pathtest::read_text_file(file("field.flow"));
  ASSERT_EQ(raw.size(), level.areas.size() * 4);
  ASSERT_EQ(flow.size(), level.areas.size());
  for (std::size_t i = 0; i < level.areas.size(); ++i) {
    std::uint32_t bits = 0;
    for (int b = 3; b >= 0; --b) bits = (bits << 8) | static_cast<unsigned char>(raw[i * 4 + b]);
    const float value = std::bit_cast<float>(bits);
    if (steps[i] < 0) {
      EXPECT_TRUE(std::isinf(value)) << i;
      EXPECT_EQ(flow[i], 0) << i;
    } else {
      EXPECT_EQ(value, static_cast<float>(steps[i])) << i;
      EXPECT_EQ(flow[i] == 0, steps[i] == 0) << i;  // a direction everywhere but the goal
    }
  }

  const auto part_run = run({"field", "level", "--to", "30", "14", "--crop", "0", "0", "16", "8",
                             "--downsample", "2", "-o", file("part.png")});
  ASSERT_EQ(part_run.exit_code, 0) << describe(part_run);
  const Picture part = read_png(file("part.png"));
  EXPECT_GE(part.width, 8U);  // the legend may be wider than the 8x4 samples
  EXPECT_EQ(part.height, 4U + pathcore::kLegendMargin + 2 * pathcore::kLegendRowHeight);
  EXPECT_EQ(part.at(4, 0), wall);  // pixel (8, 0), the wall
  EXPECT_EQ(part.at(8, 0), pathcore::kLegendBackground);  // beside the samples

  const auto outside = run(
      {"field", "level", "--to", "30", "14", "--crop", "30", "0", "5", "5", "-o", file("bad.png")});
  EXPECT_EQ(outside.exit_code, 2) << describe(outside);
  EXPECT_THAT(outside.err, StartsWith("error: INVALID_ARGUMENT: crop:"));
  const auto help = run({"field", "--help"});
  EXPECT_EQ(help.exit_code, 0) << describe(help);
  EXPECT_THAT(help.out, AllOf(HasSubstr("--raw"), HasSubstr("--flow"), HasSubstr("--crop"),
                              HasSubstr("--downsample")));
}

// A 12x8 level: a pocket at (8..11, 0..3) walled off by x = 7 (rows 0..4)
// and y = 4 (x 7..11), the rest open; the goal at (1, 6) cannot reach it.
std::string pocket_level_pgm() {
  std::vector<std::uint8_t> areas(12 * 8, 1);
  for (int y = 0; y <= 4; ++y) areas[static_cast<std::size_t>(y * 12 + 7)] = 0;
  for (int x = 7; x < 12; ++x) areas[static_cast<std::size_t>(4 * 12 + x)] = 0;
  return "P5\n12 8\n255\n" + std::string(areas.begin(), areas.end());
}

TEST_F(RenderE2eTest, FieldTellsWallsFromCutOffPixelsMarksTheGoalAndHasALegend) {
  const std::string level = file("pocket.pgm");
  pathtest::write_file(level, pocket_level_pgm());
  ASSERT_EQ(run({"upload", "pocket", level}).exit_code, 0);
  const auto drawn = run({"field", "pocket", "--to", "1", "6", "-o", file("pocket.png")});
  ASSERT_EQ(drawn.exit_code, 0) << describe(drawn);
  const Picture picture = read_png(file("pocket.png"));
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  // Walls and the cut-off pocket differ: each its area's colour, dimmed.
  const pathcore::Rgba wall = pathcore::unreachable_colour(pathcore::area_colour(0));
  const pathcore::Rgba cut_off = pathcore::unreachable_colour(pathcore::area_colour(1));
  ASSERT_NE(wall, cut_off);
  EXPECT_EQ(picture.at(7, 2), wall);
  EXPECT_EQ(picture.at(10, 1), cut_off);
  EXPECT_EQ(picture.at(1, 6), pathcore::kGoalColour);
  EXPECT_EQ(picture.at(11, 7), pathcore::heatmap_colour(1));  // a farthest pixel (cost 11)
  // The legend: areas 0 and 1 (both drawn dimmed somewhere), then the heat scale.
  ASSERT_EQ(picture.height, 8U + pathcore::kLegendMargin + 2 * pathcore::kLegendRowHeight);
  const std::uint32_t top = 8 + pathcore::kLegendMargin;
  for (std::uint32_t k = 0; k < 2; ++k) {
    const std::uint32_t x = pathcore::kLegendMargin + k * pathcore::kLegendEntryWidth;
    EXPECT_EQ(picture.at(x, top), pathcore::kOutlineColour) << k;
    EXPECT_EQ(picture.at(x + pathcore::kLegendSwatch / 2, top + pathcore::kLegendSwatch / 2),
              k == 0 ? wall : cut_off)
        << k;
  }
}

TEST(RenderUsageTest, HeatmapLegendListsOnlyTheAreasDrawnInTheirColour) {
  pathtest::TempDir dir("pathfinder-render");
  const std::string level = dir.file("level.pgm");
  pathtest::write_file(level, Level().pgm());
  const std::string out = dir.file("heat.png");
  // Every pixel of areas 1 and 2 is reached: only the walls keep their colour.
  const auto result = pathfind_offline(
      {"render", "--mask-file", level, "--to", "30", "14", "--heatmap", "--scale", "4", "-o", out});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Picture picture = read_png(out);
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  const std::uint32_t map_height = 16 * 4;
  ASSERT_EQ(picture.height, map_height + pathcore::kLegendMargin + 2 * pathcore::kLegendRowHeight);
  const std::uint32_t top = map_height + pathcore::kLegendMargin;
  const std::uint32_t middle = pathcore::kLegendSwatch / 2;
  EXPECT_EQ(picture.at(pathcore::kLegendMargin + middle, top + middle), picture.at(8 * 4, 0));
  // No second swatch beside it: the legend's background there.
  EXPECT_EQ(picture.at(pathcore::kLegendMargin + pathcore::kLegendEntryWidth, top),
            pathcore::kLegendBackground);
}

TEST(RenderUsageTest, SnapDrawsTheAskedGoalToo) {
  pathtest::TempDir dir("pathfinder-render");
  const std::string level = dir.file("level.pgm");
  pathtest::write_file(level, Level().pgm());
  const std::string out = dir.file("snap.png");
  // (31,0) is area 2, not walkable for --areas 1: the goal snaps to (31,2).
  const auto result =
      pathfind_offline({"render", "--mask-file", level, "--areas", "1", "--from", "2", "2", "--to",
                        "31", "0", "--snap", "--scale", "8", "--no-legend", "-o", out});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("found true"));
  const Picture picture = read_png(out);
  ASSERT_TRUE(picture.error.empty()) << picture.error;
  const auto centre = [](int v) { return static_cast<std::uint32_t>(v * 8 + 4); };
  EXPECT_EQ(picture.at(centre(31), centre(2)), pathcore::kGoalColour);  // where the path ends
  // The asked goal: a red ring around the map's own colour.
  EXPECT_EQ(picture.at(centre(31) - 8, centre(0)), pathcore::kGoalColour);
  EXPECT_EQ(picture.at(centre(31), centre(0)), pathcore::area_colour(2));
}

TEST(RenderUsageTest, ComponentsPrintsHowManyThereAre) {
  pathtest::TempDir dir("pathfinder-render");
  // Three walkable blocks apart: columns 0-1, 4-5 and 8-9 of a 10x3 mask.
  std::string areas(30, '\0');
  for (int y = 0; y < 3; ++y) {
    for (const int x : {0, 1, 4, 5, 8, 9}) areas[static_cast<std::size_t>(y * 10 + x)] = 1;
  }
  const std::string level = dir.file("three.pgm");
  pathtest::write_file(level, "P5\n10 3\n255\n" + areas);
  const auto text = pathfind_offline(
      {"render", "--mask-file", level, "--components", "-o", dir.file("three.png")});
  ASSERT_EQ(text.exit_code, 0) << describe(text);
  EXPECT_THAT(text.out, HasSubstr("  components 3"));
  const auto json = pathfind_offline(
      {"--json", "render", "--mask-file", level, "--components", "-o", dir.file("three.png")});
  ASSERT_EQ(json.exit_code, 0) << describe(json);
  EXPECT_THAT(json.out, HasSubstr("\"components\":3"));
  const auto without = pathfind_offline({"render", "--mask-file", level, "-o", dir.file("a.png")});
  EXPECT_THAT(without.out, ::testing::Not(HasSubstr("components")));
}

}  // namespace
