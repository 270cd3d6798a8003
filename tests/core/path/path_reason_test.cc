// find_path says why: the reason and the snap fields against a brute-force
// reference (walkability lookups, a textbook flood fill, and a scan for the
// nearest reachable pixel), on random masks, with and without snapping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "pathcore/path.h"
#include "support/random_mask.h"
#include "support/reference.h"

namespace pathcore {
namespace {

// The pixel nearest to target (Euclidean, ties to the first in row-major
// order) among those `allowed` flags, by scanning them all.
std::optional<Point> nearest_of(const Mask& mask, const std::vector<bool>& allowed, Point target) {
  std::optional<Point> best;
  std::int64_t best_squared = 0;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      if (!allowed[static_cast<std::size_t>(y) * mask.width() + static_cast<std::size_t>(x)]) {
        continue;
      }
      const std::int64_t dx = x - target.x;
      const std::int64_t dy = y - target.y;
      if (!best || dx * dx + dy * dy < best_squared) {
        best = Point{x, y};
        best_squared = dx * dx + dy * dy;
      }
    }
  }
  return best;
}

std::vector<bool> walkable_flags(const Mask& mask, AreaSet enabled) {
  std::vector<bool> flags(static_cast<std::size_t>(mask.width()) * mask.height());
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      flags[static_cast<std::size_t>(y) * mask.width() + static_cast<std::size_t>(x)] =
          mask.walkable({x, y}, enabled);
    }
  }
  return flags;
}

FindPathOptions eight_connected(bool snap) {
  FindPathOptions options;
  options.field.connectivity = Connectivity::kEight;
  options.snap_to_reachable = snap;
  return options;
}

TEST(PathReason, WithoutSnappingSaysWhichEndIsBlockedOrThatNoRouteExists) {
  std::mt19937_64 rng(17);
  int seen[6] = {};
  for (int round = 0; round < 300; ++round) {
    const Mask mask = pathtest::random_mask(rng, 12, 9, 0.45, 1);
    const Point start = pathtest::random_point(rng, mask);
    const Point goal = pathtest::random_point(rng, mask);
    const PathResult result = find_path(mask, start, goal, eight_connected(false));
    const std::vector<bool> connected = pathtest::reference_flood_fill(
        mask, start, kAllAreas, pathtest::Diagonals::kBothSidesFree);
    PathReason expected = PathReason::kFound;
    if (!mask.walkable(start, kAllAreas)) {
      expected = PathReason::kStartNotWalkable;
    } else if (!mask.walkable(goal, kAllAreas)) {
      expected = PathReason::kGoalNotWalkable;
    } else if (!connected[static_cast<std::size_t>(goal.y) * mask.width() +
                          static_cast<std::size_t>(goal.x)]) {
      expected = PathReason::kNoRoute;
    }
    ASSERT_EQ(result.reason, expected) << "round " << round;
    EXPECT_EQ(result.found, expected == PathReason::kFound);
    EXPECT_FALSE(result.start_snapped);
    EXPECT_FALSE(result.goal_snapped);
    EXPECT_EQ(result.goal_snap_distance, 0.0);
    ++seen[static_cast<int>(expected)];
  }
  // The masks are cluttered enough that every outcome occurs.
  for (const PathReason reason : {PathReason::kFound, PathReason::kStartNotWalkable,
                                  PathReason::kGoalNotWalkable, PathReason::kNoRoute}) {
    EXPECT_GT(seen[static_cast<int>(reason)], 0) << static_cast<int>(reason);
  }
}

TEST(PathReason, SnappingSaysWhichEndMovedAndHowFar) {
  std::mt19937_64 rng(1717);
  int goal_snaps = 0;
  int start_only_snaps = 0;
  for (int round = 0; round < 300; ++round) {
    const Mask mask = pathtest::random_mask(rng, 11, 10, 0.45, 1);
    const Point start = pathtest::random_point(rng, mask);
    const Point goal = pathtest::random_point(rng, mask);
    const PathResult result = find_path(mask, start, goal, eight_connected(true));

    const std::optional<Point> from = nearest_of(mask, walkable_flags(mask, kAllAreas), start);
    ASSERT_TRUE(from.has_value());  // 45% blocked on 110 pixels: never all blocked here
    const std::optional<Point> to = nearest_of(
        mask,
        pathtest::reference_flood_fill(mask, *from, kAllAreas, pathtest::Diagonals::kBothSidesFree),
        goal);
    ASSERT_TRUE(result.found);
    EXPECT_EQ(result.points.front(), *from);
    EXPECT_EQ(result.goal, *to);
    EXPECT_EQ(result.start_snapped, *from != start);
    EXPECT_EQ(result.goal_snapped, *to != goal);
    EXPECT_DOUBLE_EQ(result.goal_snap_distance, std::hypot(to->x - goal.x, to->y - goal.y));
    const PathReason expected = *to != goal     ? PathReason::kGoalSnapped
                                : *from != start ? PathReason::kStartSnapped
                                                 : PathReason::kFound;
    EXPECT_EQ(result.reason, expected) << "round " << round;
    goal_snaps += expected == PathReason::kGoalSnapped;
    start_only_snaps += expected == PathReason::kStartSnapped;
  }
  EXPECT_GT(goal_snaps, 0);
  EXPECT_GT(start_only_snaps, 0);
}

TEST(PathReason, NoWalkablePixelAtAllIsABlockedStartEvenWhenSnapping) {
  const Mask mask(4, 3, std::vector<std::uint8_t>(12, 0));
  const PathResult result = find_path(mask, {1, 1}, {3, 2}, eight_connected(true));
  EXPECT_FALSE(result.found);
  EXPECT_EQ(result.reason, PathReason::kStartNotWalkable);
  EXPECT_FALSE(result.goal_snapped);
}

TEST(PathReason, ABlockedStartIsReportedBeforeABlockedGoal) {
  const Mask mask(3, 1, std::vector<std::uint8_t>{0, 1, 0});
  EXPECT_EQ(find_path(mask, {0, 0}, {2, 0}, eight_connected(false)).reason,
            PathReason::kStartNotWalkable);
  EXPECT_EQ(find_path(mask, {1, 0}, {2, 0}, eight_connected(false)).reason,
            PathReason::kGoalNotWalkable);
  EXPECT_EQ(find_path(mask, {1, 0}, {1, 0}, eight_connected(false)).reason, PathReason::kFound);
}

}  // namespace
}  // namespace pathcore
