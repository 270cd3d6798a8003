// Replays every scenario of the Moving AI benchmark maps in
// tests/data/movingai through core: with eight-connectivity, no corner
// cutting and SMOOTHING_NONE, the cost must be the benchmark's optimal length,
// the path a valid octile path, and its step costs must add up to the cost.
// Sanitizer builds replay every fourth scenario (support/test_scale.h).
#include "support/movingai.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "support/test_scale.h"

namespace pathcore {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = PATHFINDER_MOVINGAI_DIR;

using Scenario = pathtest::MovingAiScenario;

std::vector<std::string> scenario_files() { return pathtest::movingai_scenario_files(kDataDir); }

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
  const Mask mask = pathtest::load_movingai_map(scen);
  const std::vector<Scenario> scenarios =
      pathtest::parse_movingai_scenarios(pathtest::read_whole_file(scen), map_name);
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
