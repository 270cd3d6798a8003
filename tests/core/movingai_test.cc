// Replays every scenario of the Moving AI benchmark maps in
// ../shared/data/movingai through core: with eight-connectivity, no corner
// cutting and SMOOTHING_NONE, the cost must be the benchmark's optimal length,
// the path a valid octile path, and its step costs must add up to the cost.
// Sanitizer builds replay every fourth scenario (support/test_scale.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pathcore/codec.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "support/test_scale.h"

namespace pathcore {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = PATHFINDER_MOVINGAI_DIR;

struct Scenario {
  Point start;
  Point goal;
  double optimal = 0;
  double tolerance = 0;  // from the printed precision of `optimal`
  std::string line;
};

// Every .map.scen under the data folder (sorted), as paths relative to it.
std::vector<std::string> scenario_files() {
  std::vector<std::string> files;
  if (fs::is_directory(kDataDir)) {
    for (const auto& entry : fs::recursive_directory_iterator(kDataDir)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > 9 && name.ends_with(".map.scen")) {
        files.push_back(fs::relative(entry.path(), kDataDir).string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The printed lengths are rounded (bg512 to 2 decimals, dao to 6 significant
// digits, street to 8 decimals): allow half a unit of the last printed digit
// (at least 1e-4), plus 1e-6 relative.
double tolerance_for(const std::string& printed, double value) {
  const std::size_t dot = printed.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(printed.size() - dot - 1);
  return std::max(1e-4, 0.5 * std::pow(10.0, -decimals)) + 1e-6 * value;
}

std::vector<Scenario> parse_scenarios(const std::string& text, const std::string& map_name) {
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("version", 0), 0U) << "first line: " << line;
  std::vector<Scenario> scenarios;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::istringstream fields(line);
    int bucket = 0;
    std::string map;
    int width = 0;
    int height = 0;
    Scenario s;
    std::string optimal;
    fields >> bucket >> map >> width >> height >> s.start.x >> s.start.y >> s.goal.x >> s.goal.y >>
        optimal;
    EXPECT_FALSE(fields.fail()) << "unreadable scenario: " << line;
    EXPECT_EQ(fs::path(map).filename().string(), map_name) << line;
    s.optimal = std::stod(optimal);
    s.tolerance = tolerance_for(optimal, s.optimal);
    s.line = line;
    scenarios.push_back(s);
  }
  return scenarios;
}

// One scenario through the same steps a cold FindPath takes (fill until the
// start is settled, trace), with independent checks of the answer.
void replay(const Mask& mask, const Scenario& s, bool check_full_field) {
  FindPathOptions options;
  options.field.connectivity = Connectivity::kEight;
  options.field.allow_corner_cutting = false;
  options.smoothing = Smoothing::kNone;
  FieldBuilder builder(mask, s.goal, options.field);
  ASSERT_TRUE(builder.run_until_settled(s.start)) << s.line;
  const PathResult result = path_from_field(mask, builder.field(), s.start, options);
  ASSERT_TRUE(result.found) << s.line;
  EXPECT_NEAR(result.cost, s.optimal, s.tolerance) << s.line;
  const Path& path = result.points;
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.front(), s.start);
  EXPECT_EQ(path.back(), s.goal);
  double walked = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const Point a = path[i - 1];
    const Point b = path[i];
    const int dx = b.x - a.x;
    const int dy = b.y - a.y;
    ASSERT_TRUE(std::abs(dx) <= 1 && std::abs(dy) <= 1 && (dx != 0 || dy != 0)) << s.line;
    ASSERT_TRUE(mask.walkable(b, kAllAreas)) << s.line;
    if (dx != 0 && dy != 0) {
      ASSERT_TRUE(mask.walkable({a.x + dx, a.y}, kAllAreas) &&
                  mask.walkable({a.x, a.y + dy}, kAllAreas))
          << "corner cut at step " << i << ": " << s.line;
      walked += std::sqrt(2.0);
    } else {
      walked += 1;
    }
  }
  EXPECT_NEAR(walked, result.cost, 1e-9) << s.line;
  if (check_full_field) {
    // The finished field gives the very same answer (warm == cold).
    builder.finish();
    const PathResult warm = path_from_field(mask, builder.field(), s.start, options);
    EXPECT_EQ(warm.points, result.points) << s.line;
    EXPECT_EQ(warm.cost, result.cost) << s.line;
  }
}

class MovingAiReplay : public testing::TestWithParam<std::string> {};

TEST_P(MovingAiReplay, CostsAreOptimalAndPathsValid) {
  const fs::path scen = kDataDir / GetParam();
  const std::string map_name = scen.stem().string();  // "x.map"
  const std::string map_text = read_file(scen.parent_path() / map_name);
  ASSERT_FALSE(map_text.empty()) << "cannot read " << map_name;
  DecodeOptions decode;
  decode.format = MaskFormat::kMovingAi;
  const Mask mask = decode_mask(
      std::span(reinterpret_cast<const std::uint8_t*>(map_text.data()), map_text.size()), decode);
  const std::vector<Scenario> scenarios = parse_scenarios(read_file(scen), map_name);
  ASSERT_FALSE(scenarios.empty());
  // Every stride-th scenario (all of them unless scaled down, see
  // test_scale.h); both cores: each thread replays every other one of those.
  const std::size_t stride = pathtest::test_stride();
  std::vector<std::thread> threads;
  for (std::size_t part = 0; part < 2; ++part) {
    threads.emplace_back([&, part] {
      for (std::size_t i = part * stride; i < scenarios.size(); i += 2 * stride) {
        replay(mask, scenarios[i], i % (64 * stride) == 0);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  RecordProperty("scenarios", static_cast<int>(scenarios.size()));
  RecordProperty("replayed", static_cast<int>((scenarios.size() + stride - 1) / stride));
}

INSTANTIATE_TEST_SUITE_P(AllMaps, MovingAiReplay, testing::ValuesIn(scenario_files()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(MovingAiData, IsThere) {
  EXPECT_GE(scenario_files().size(), 10U) << "no Moving AI scenarios under " << kDataDir;
}

}  // namespace
}  // namespace pathcore
