// find_path with agent clearance (issue 21): every point and every segment
// of every answer keeps to the usable pixels, the grid answer costs what a
// textbook Dijkstra over the brute-force usable pixels says, ends that lack
// clearance are snapped or reported, on random masks and the demo level.
// The usable pixels come from the brute force (tests/support/
// clearance_reference.h), never from the code under test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/clearance.h"
#include "pathcore/codec.h"
#include "pathcore/path.h"
#include "support/clearance_reference.h"
#include "support/random_mask.h"
#include "support/reference.h"

namespace pathcore {
namespace {

using ::testing::HasSubstr;

struct Rules {
  Connectivity connectivity;
  bool corner_cutting;
  pathtest::Diagonals diagonals;  // the reference grid's
};

constexpr Rules kRules[] = {
    {Connectivity::kFour, false, pathtest::Diagonals::kNone},
    {Connectivity::kEight, false, pathtest::Diagonals::kBothSidesFree},
    {Connectivity::kEight, true, pathtest::Diagonals::kAlways},
};
constexpr Smoothing kModes[] = {Smoothing::kNone, Smoothing::kSimplify, Smoothing::kBeautify};

bool flag(const std::vector<bool>& flags, const Mask& mask, Point p) {
  return mask.contains(p) && flags[mask.index(p)];
}

// The pixel nearest to target (Euclidean, ties to the first in row-major
// order) among those flagged.
std::optional<Point> nearest_flagged(const Mask& mask, const std::vector<bool>& flags,
                                     Point target) {
  std::optional<Point> best;
  std::int64_t best_squared = 0;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (!flags[i]) continue;
    const Point p{static_cast<std::int32_t>(i % mask.width()),
                  static_cast<std::int32_t>(i / mask.width())};
    const std::int64_t dx = p.x - target.x;
    const std::int64_t dy = p.y - target.y;
    if (!best || dx * dx + dy * dy < best_squared) {
      best = p;
      best_squared = dx * dx + dy * dy;
    }
  }
  return best;
}

// Every point usable, and every segment's pixels (a grid step's two, a
// smoothed segment's supercover, or its Bresenham pixels when corners may be
// cut) usable too.
void expect_keeps_to_usable(const Mask& mask, const std::vector<bool>& usable,
                            const PathResult& result, const Rules& rules, Smoothing mode) {
  for (const Point p : result.points) {
    ASSERT_TRUE(flag(usable, mask, p)) << "point (" << p.x << "," << p.y << ")";
  }
  for (std::size_t i = 1; i < result.points.size(); ++i) {
    const Point a = result.points[i - 1];
    const Point b = result.points[i];
    if (mode == Smoothing::kNone) {
      ASSERT_LE(std::max(std::abs(a.x - b.x), std::abs(a.y - b.y)), 1);
    }
    const std::vector<Point> pixels = rules.corner_cutting ? pathtest::reference_bresenham(a, b)
                                                           : pathtest::reference_supercover(a, b);
    for (const Point p : pixels) {
      ASSERT_TRUE(flag(usable, mask, p))
          << "segment (" << a.x << "," << a.y << ")-(" << b.x << "," << b.y << ") touches ("
          << p.x << "," << p.y << ")";
    }
  }
}

// find_path from start to goal, both usable, against Dijkstra over the
// brute-force usable pixels, in every mode.
void check_pair(const Mask& mask, const std::vector<bool>& usable, double clearance,
                const Rules& rules, Point start, Point goal, const AreaCosts& costs) {
  const Mask usable_mask = pathtest::mask_of_usable(mask, usable);
  pathtest::ReferenceGrid grid;
  grid.diagonals = rules.diagonals;
  for (std::uint32_t area = 1; area <= kMaxAreaId; ++area) grid.area_costs[area] = costs[area];
  const double expected =
      pathtest::reference_distances(usable_mask, goal, grid)[usable_mask.index(start)];
  for (const Smoothing mode : kModes) {
    FindPathOptions options;
    options.field.connectivity = rules.connectivity;
    options.field.allow_corner_cutting = rules.corner_cutting;
    options.field.area_costs = costs;
    options.smoothing = mode;
    options.clearance = clearance;
    const PathResult result = find_path(mask, start, goal, options);
    SCOPED_TRACE(::testing::Message()
                 << "clearance " << clearance << " mode " << static_cast<int>(mode)
                 << " connectivity " << static_cast<int>(rules.connectivity) << " cutting "
                 << rules.corner_cutting << " (" << start.x << "," << start.y << ")->(" << goal.x
                 << "," << goal.y << ")");
    ASSERT_EQ(result.found, std::isfinite(expected));
    if (!result.found) {
      EXPECT_EQ(result.reason, PathReason::kNoRoute);
      continue;
    }
    EXPECT_EQ(result.reason, PathReason::kFound);
    ASSERT_EQ(result.points.front(), start);
    ASSERT_EQ(result.points.back(), goal);
    expect_keeps_to_usable(mask, usable, result, rules, mode);
    // grid_cost is the optimal grid cost over the usable pixels (cost is the
    // returned polyline's own integral); a beeline answer may leave it unset.
    if (result.grid_cost.has_value()) {
      EXPECT_NEAR(*result.grid_cost, expected, 1e-9);
    } else {
      EXPECT_NE(mode, Smoothing::kNone) << "a traced grid path always knows its grid cost";
    }
    if (costs == unit_area_costs()) {
      // Unit costs: the grid cost is the grid path's length, which
      // smoothing only shortens.
      EXPECT_LE(result.length, expected + 1e-9);
    }
  }
}

TEST(FindPathClearance, KeepsToUsablePixelsAndCostsWhatDijkstraOverThemSays) {
  std::mt19937_64 rng(2103);
  AreaCosts dear_second = unit_area_costs();
  dear_second[2] = 3;
  int found = 0;
  int not_found = 0;
  for (int round = 0; round < 60; ++round) {
    const std::uint32_t width = 12 + static_cast<std::uint32_t>(rng() % 25);
    const std::uint32_t height = 8 + static_cast<std::uint32_t>(rng() % 20);
    const double density = std::array{0.03, 0.08, 0.15, 0.25}[round % 4];
    const Mask mask = pathtest::random_mask(rng, width, height, density, 2);
    const double clearance = std::array{0.6, 1.0, 1.5, 2.2, 0.9}[round % 5];
    const std::vector<bool> usable = pathtest::reference_usable(mask, kAllAreas, clearance);
    std::vector<Point> usable_points;
    for (std::size_t i = 0; i < usable.size(); ++i) {
      if (usable[i]) {
        usable_points.push_back({static_cast<std::int32_t>(i % width),
                                 static_cast<std::int32_t>(i / width)});
      }
    }
    if (usable_points.size() < 2) continue;
    for (int pair = 0; pair < 3; ++pair) {
      const Point start = usable_points[rng() % usable_points.size()];
      const Point goal = usable_points[rng() % usable_points.size()];
      const Rules& rules = kRules[(round + pair) % 3];
      check_pair(mask, usable, clearance, rules, start, goal,
                 pair == 2 ? dear_second : unit_area_costs());
      if (HasFatalFailure()) return;
      const pathtest::ReferenceGrid grid{kAllAreas, rules.diagonals, {}};
      const bool connected = std::isfinite(pathtest::reference_distances(
          pathtest::mask_of_usable(mask, usable), goal, grid)[mask.index(start)]);
      (connected ? found : not_found) += 1;
    }
  }
  // Both outcomes occur, so neither branch goes untested.
  EXPECT_GT(found, 20);
  EXPECT_GT(not_found, 5);
}

TEST(FindPathClearance, AnEndThatLacksClearanceIsReportedOrSnapped) {
  std::mt19937_64 rng(2104);
  int lacking_starts = 0;
  int lacking_goals = 0;
  int snapped = 0;
  for (int round = 0; round < 150; ++round) {
    const Mask mask = pathtest::random_mask(rng, 20, 14, 0.08, 1);
    const double clearance = round % 2 == 0 ? 1.0 : 1.6;
    const std::vector<bool> usable = pathtest::reference_usable(mask, kAllAreas, clearance);
    const std::vector<bool> walkable = pathtest::reference_usable(mask, kAllAreas, 0);
    const Point start = pathtest::random_point(rng, mask);
    const Point goal = pathtest::random_point(rng, mask);
    const Rules& rules = kRules[round % 3];
    FindPathOptions options;
    options.field.connectivity = rules.connectivity;
    options.field.allow_corner_cutting = rules.corner_cutting;
    options.clearance = clearance;
    SCOPED_TRACE(::testing::Message() << "round " << round);

    const PathResult plain = find_path(mask, start, goal, options);
    if (!flag(usable, mask, start)) {
      EXPECT_FALSE(plain.found);
      EXPECT_EQ(plain.reason, PathReason::kStartNotWalkable);
      EXPECT_EQ(plain.lacks_clearance, flag(walkable, mask, start));
      lacking_starts += plain.lacks_clearance ? 1 : 0;
    } else if (!flag(usable, mask, goal)) {
      EXPECT_FALSE(plain.found);
      EXPECT_EQ(plain.reason, PathReason::kGoalNotWalkable);
      EXPECT_EQ(plain.lacks_clearance, flag(walkable, mask, goal));
      lacking_goals += plain.lacks_clearance ? 1 : 0;
    } else {
      EXPECT_FALSE(plain.lacks_clearance);
    }

    options.snap_to_reachable = true;
    const PathResult result = find_path(mask, start, goal, options);
    const std::optional<Point> from = nearest_flagged(mask, usable, start);
    if (!from) {
      EXPECT_FALSE(result.found);
      continue;
    }
    const std::vector<bool> reached = pathtest::reference_flood_fill(
        pathtest::mask_of_usable(mask, usable), *from, kAllAreas, rules.diagonals);
    const std::optional<Point> to = nearest_flagged(mask, reached, goal);
    ASSERT_TRUE(result.found);
    EXPECT_EQ(result.points.front(), *from);
    EXPECT_EQ(result.goal, *to);
    EXPECT_EQ(result.points.back(), *to);
    EXPECT_EQ(result.start_snapped, *from != start);
    EXPECT_FALSE(result.lacks_clearance);
    expect_keeps_to_usable(mask, usable, result, rules, Smoothing::kBeautify);
    snapped += (*from != start || *to != goal) ? 1 : 0;
  }
  EXPECT_GT(lacking_starts, 5);
  EXPECT_GT(lacking_goals, 5);
  EXPECT_GT(snapped, 20);
}

TEST(FindPathClearance, ABlockedEndIsNotOneThatLacksClearance) {
  // 9x9 open with one blocked pixel at (4,4): (4,4) is blocked, (4,5) is
  // walkable but half a pixel from it.
  std::vector<std::uint8_t> areas(81, 1);
  areas[4 * 9 + 4] = 0;
  const Mask mask(9, 9, std::move(areas));
  FindPathOptions options;
  options.clearance = 1;
  const PathResult blocked = find_path(mask, {4, 4}, {1, 1}, options);
  EXPECT_EQ(blocked.reason, PathReason::kStartNotWalkable);
  EXPECT_FALSE(blocked.lacks_clearance);
  const PathResult close = find_path(mask, {4, 5}, {1, 1}, options);
  EXPECT_EQ(close.reason, PathReason::kStartNotWalkable);
  EXPECT_TRUE(close.lacks_clearance);
  const PathResult goal_close = find_path(mask, {1, 1}, {5, 4}, options);
  EXPECT_EQ(goal_close.reason, PathReason::kGoalNotWalkable);
  EXPECT_TRUE(goal_close.lacks_clearance);
  // A clearance no pixel has: nothing is usable, the start is reported.
  options.clearance = 100;
  options.snap_to_reachable = true;
  const PathResult nothing = find_path(mask, {1, 1}, {7, 7}, options);
  EXPECT_FALSE(nothing.found);
  EXPECT_EQ(nothing.reason, PathReason::kStartNotWalkable);
  EXPECT_TRUE(nothing.lacks_clearance);
}

TEST(FindPathClearance, ZeroIsTodaysAnswer) {
  std::mt19937_64 rng(2105);
  for (int round = 0; round < 40; ++round) {
    const Mask mask = pathtest::random_mask(rng, 25, 17, 0.2, 2);
    const Point start = pathtest::random_point(rng, mask);
    const Point goal = pathtest::random_point(rng, mask);
    FindPathOptions options;
    options.snap_to_reachable = round % 2 == 0;
    const PathResult today = find_path(mask, start, goal, options);
    options.clearance = 0;
    const PathResult zero = find_path(mask, start, goal, options);
    EXPECT_EQ(zero.points, today.points);
    EXPECT_EQ(zero.reason, today.reason);
    EXPECT_FALSE(zero.lacks_clearance);
  }
}

TEST(FindPathClearance, RefusesANegativeOrNonFiniteClearanceNamingIt) {
  const Mask mask(4, 4, std::vector<std::uint8_t>(16, 1));
  for (const double clearance : {-0.5, std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity()}) {
    FindPathOptions options;
    options.clearance = clearance;
    try {
      (void)find_path(mask, {0, 0}, {3, 3}, options);
      ADD_FAILURE() << "accepted " << clearance;
    } catch (const InvalidArgument& error) {
      EXPECT_THAT(error.what(), HasSubstr("clearance"));
    }
  }
}

TEST(FindPathClearance, AClearanceMapOfTheFullMaskDoesNotServeTheUsableOne) {
  // Beautify must not take the walkable pixels' map for the usable ones'.
  std::vector<std::uint8_t> areas(100, 1);
  areas[55] = 0;
  const Mask mask(10, 10, std::move(areas));
  const UsableMask usable(mask, kAllAreas, 1.5);
  EXPECT_FALSE(ClearanceMap(mask, kAllAreas).serves(usable.mask(), kAllAreas));
  EXPECT_TRUE(ClearanceMap(usable.mask(), kAllAreas).serves(usable.mask(), kAllAreas));
}

// ------------------------------------------------------------------------
// The demo level (assets/demo.png)

Mask demo_mask() {
  std::ifstream in(PATHFINDER_DEMO_MASK, std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                        std::istreambuf_iterator<char>()};
  return decode_mask(bytes, DecodeOptions{});
}

TEST(FindPathClearance, TheDemoLevelAtClearancesZeroToFour) {
  const Mask mask = demo_mask();
  ASSERT_EQ(mask.width(), 640U);
  const Point start{20, 20};
  const Point goal{600, 340};
  double previous_cost = 0;
  for (const double clearance : {0.0, 1.0, 2.5, 4.0}) {
    const std::vector<bool> usable = pathtest::reference_usable(mask, kAllAreas, clearance);
    const UsableMask built(mask, kAllAreas, clearance);
    for (std::size_t i = 0; i < usable.size(); ++i) {
      ASSERT_EQ(built.mask().areas()[i] != 0, usable[i]) << "clearance " << clearance;
    }
    ASSERT_TRUE(flag(usable, mask, start));
    ASSERT_TRUE(flag(usable, mask, goal));
    for (const Rules& rules : {kRules[0], kRules[1]}) {
      check_pair(mask, usable, clearance, rules, start, goal, unit_area_costs());
    }
    // Larger clearances use fewer pixels: the grid cost never drops.
    FindPathOptions options;
    options.smoothing = Smoothing::kNone;
    options.clearance = clearance;
    const PathResult grid = find_path(mask, start, goal, options);
    if (grid.found) {
      EXPECT_GE(grid.cost, previous_cost);
      previous_cost = grid.cost;
    }
  }
}

}  // namespace
}  // namespace pathcore
