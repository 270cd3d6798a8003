// The exact any-angle engine on the Moving AI benchmark maps
// (tests/data/movingai), against the independent reference: on each map a
// sample of scenarios, both corner rules where the map has pinch points. The
// reference is slow (O(corners^2) inside the ellipse its upper bound allows,
// the scenario's octile optimum), so the sample is the scenarios with at
// most kMaxEllipseCorners corners in that ellipse, spread over the file.
// The maze and random maps (49,000 and 110,000 corners: the maze's ellipses
// hold too many for the reference, the random map's graph takes about 40 s)
// are checked on a crop with random pairs, bounded by pathcore's octile cost. Sanitizer builds
// check a quarter of the sample (support/test_scale.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pathcore/any_angle.h"
#include "pathcore/path.h"
#include "support/any_angle_reference.h"
#include "support/movingai.h"
#include "support/test_scale.h"

namespace pathcore {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = PATHFINDER_MOVINGAI_DIR;
constexpr std::size_t kPerMap = 12;
constexpr std::size_t kMaxEllipseCorners = 2000;
constexpr std::uint64_t kMaxGraphCorners = 20000;
constexpr std::uint32_t kCrop = 96;

// Convex corners (one blocked pixel of four) and pinch points of a mask,
// counted here independently of the engine.
struct CornerCounts {
  std::uint64_t convex = 0;
  std::uint64_t pinches = 0;
};
CornerCounts count_corners(const Mask& mask) {
  CornerCounts counts;
  const auto blocked = [&](std::int32_t x, std::int32_t y) {
    return !mask.walkable({x, y}, kAllAreas);
  };
  for (std::int32_t j = 1; j < static_cast<std::int32_t>(mask.height()); ++j) {
    for (std::int32_t i = 1; i < static_cast<std::int32_t>(mask.width()); ++i) {
      const bool a = blocked(i - 1, j - 1);
      const bool b = blocked(i, j - 1);
      const bool c = blocked(i - 1, j);
      const bool d = blocked(i, j);
      if (a + b + c + d == 1) ++counts.convex;
      if (a == d && b == c && a != b) ++counts.pinches;
    }
  }
  return counts;
}

void expect_same_as_reference(const Mask& mask, bool cut, Point start, Point goal,
                              double upper_bound, const AnyAngleGraph& graph,
                              const std::string& context) {
  const AnyAngleGoalTable table = AnyAngleGoalTable::build(graph, goal);
  const std::optional<AnyAnglePath> path = find_any_angle_path(graph, table, start);
  const std::optional<double> expected =
      pathtest::any_angle_shortest_length(mask, kAllAreas, start, goal, upper_bound, cut);
  ASSERT_EQ(path.has_value(), expected.has_value()) << context;
  if (!path) return;
  EXPECT_NEAR(path->length, *expected, 1e-9 * std::max(1.0, *expected)) << context;
  double walked = 0;
  for (std::size_t i = 1; i < path->points.size(); ++i) {
    const PointD a = path->points[i - 1];
    const PointD b = path->points[i];
    walked += std::hypot(b.x - a.x, b.y - a.y);
    EXPECT_TRUE(pathtest::any_angle_visible(
        mask, kAllAreas, {static_cast<std::int32_t>(2 * a.x), static_cast<std::int32_t>(2 * a.y)},
        {static_cast<std::int32_t>(2 * b.x), static_cast<std::int32_t>(2 * b.y)}, cut))
        << context << " segment " << i;
  }
  EXPECT_NEAR(walked, path->length, 1e-9 * std::max(1.0, walked)) << context;
  for (const Point& pixel : path->pixels) EXPECT_TRUE(mask.walkable(pixel, kAllAreas)) << context;
}

class AnyAngleMovingAi : public testing::TestWithParam<std::string> {};

TEST_P(AnyAngleMovingAi, MatchesTheReference) {
  const fs::path scen = kDataDir / GetParam();
  const Mask mask = pathtest::load_movingai_map(scen);
  const CornerCounts counts = count_corners(mask);
  const std::size_t stride = pathtest::test_stride();
  std::vector<bool> rules = {false};
  if (counts.pinches > 0) rules.push_back(true);

  if (counts.convex > kMaxGraphCorners) {
    // A crop, with random walkable pairs.
    const std::uint32_t w = std::min(kCrop, mask.width());
    const std::uint32_t h = std::min(kCrop, mask.height());
    std::vector<std::uint8_t> areas;
    for (std::uint32_t y = 0; y < h; ++y) {
      for (std::uint32_t x = 0; x < w; ++x) areas.push_back(mask.areas()[y * mask.width() + x]);
    }
    const Mask crop(w, h, std::move(areas));
    std::mt19937_64 rng(21);
    std::uniform_int_distribution<std::int32_t> xs(0, static_cast<std::int32_t>(w) - 1);
    std::uniform_int_distribution<std::int32_t> ys(0, static_cast<std::int32_t>(h) - 1);
    for (const bool cut : rules) {
      const AnyAngleGraph graph = AnyAngleGraph::build(crop, kAllAreas, cut);
      for (std::size_t k = 0; k < 2 * kPerMap; k += stride) {
        Point start{xs(rng), ys(rng)};
        Point goal{xs(rng), ys(rng)};
        while (!crop.walkable(start, kAllAreas)) start = {xs(rng), ys(rng)};
        while (!crop.walkable(goal, kAllAreas)) goal = {xs(rng), ys(rng)};
        // The octile optimum without corner cutting bounds both rules.
        FindPathOptions octile;
        octile.field.connectivity = Connectivity::kEight;
        octile.smoothing = Smoothing::kNone;
        const PathResult grid_path = find_path(crop, start, goal, octile);
        const std::optional<double> bound =
            grid_path.found ? std::optional<double>(grid_path.cost) : std::nullopt;
        if (!bound) continue;  // unreachable pairs: the unbounded reference is too slow here
        expect_same_as_reference(crop, cut, start, goal, *bound, graph,
                                 "crop of " + GetParam() + " cut " + std::to_string(cut));
      }
    }
    return;
  }

  const std::vector<pathtest::MovingAiScenario> scenarios =
      pathtest::parse_movingai_scenarios(pathtest::read_whole_file(scen), scen.stem().string());
  ASSERT_FALSE(scenarios.empty());
  for (const bool cut : rules) {
    const AnyAngleGraph graph = AnyAngleGraph::build(mask, kAllAreas, cut);
    // Scenarios the reference can afford, longest buckets first (the file
    // is sorted by length), at least `gap` lines apart.
    std::size_t checked = 0;
    const std::size_t gap = std::max<std::size_t>(1, scenarios.size() / (4 * kPerMap));
    std::size_t next_allowed = scenarios.size();
    for (std::size_t i = scenarios.size(); i-- > 0 && checked < kPerMap;) {
      if (i >= next_allowed) continue;
      const pathtest::MovingAiScenario& s = scenarios[i];
      const double bound = s.optimal + s.tolerance;
      const auto centre = [](Point p) { return std::pair{p.x + 0.5, p.y + 0.5}; };
      const auto [sx, sy] = centre(s.start);
      const auto [gx, gy] = centre(s.goal);
      std::size_t in_ellipse = 0;
      for (const AnyAngleGraph::Corner& c : graph.corners()) {
        const double x = c.x2 / 2.0;
        const double y = c.y2 / 2.0;
        if (std::hypot(x - sx, y - sy) + std::hypot(x - gx, y - gy) <= bound) ++in_ellipse;
      }
      if (in_ellipse > kMaxEllipseCorners) continue;
      next_allowed = i + 1 > gap ? i + 1 - gap : 0;
      ++checked;
      if (checked % stride != 0 && checked != 1) continue;
      expect_same_as_reference(mask, cut, s.start, s.goal, bound, graph,
                               s.line + " cut " + std::to_string(cut));
    }
    EXPECT_GE(checked, kPerMap / 2) << "too few affordable scenarios on " << GetParam();
    RecordProperty(cut ? "checked_cutting" : "checked", static_cast<int>(checked));
  }
}

INSTANTIATE_TEST_SUITE_P(AllMaps, AnyAngleMovingAi,
                         testing::ValuesIn(pathtest::movingai_scenario_files(kDataDir)),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace pathcore
