// The exact any-angle engine (pathcore/any_angle.h) against the independent
// reference (support/any_angle_reference.h): hand-made masks with answers
// worked out by hand, then thousands of small random masks with diagonal
// pinches, both corner rules, disabled areas, unreachable goals and
// start == goal, checking the length against the reference's and every
// segment with the reference's own line test.
#include "pathcore/any_angle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/any_angle_reference.h"
#include "support/random_mask.h"
#include "support/text_mask.h"

namespace pathcore {
namespace {

std::optional<AnyAnglePath> solve(const Mask& mask, Point start, Point goal,
                                  bool corner_cutting = false, AreaSet enabled = kAllAreas) {
  const AnyAngleMesh mesh = AnyAngleMesh::build(mask, enabled, corner_cutting);
  return find_any_angle_path(mesh, start, goal);
}

double polyline_length(const std::vector<PointD>& points) {
  double length = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    length += std::hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y);
  }
  return length;
}

TEST(AnyAngle, OpenRectangleIsTheStraightSegment) {
  const Mask mask = pathtest::mask_from_rows({".....", ".....", ".....", "....."});
  const auto path = solve(mask, {0, 0}, {4, 3});
  ASSERT_TRUE(path.has_value());
  EXPECT_DOUBLE_EQ(path->length, 5.0);
  EXPECT_EQ(path->points, (std::vector<PointD>{{0.5, 0.5}, {4.5, 3.5}}));
  EXPECT_EQ(path->pixels, (std::vector<Point>{{0, 0}, {4, 3}}));
}

TEST(AnyAngle, StartIsGoal) {
  const Mask mask = pathtest::mask_from_rows({"...", ".#."});
  const auto path = solve(mask, {2, 1}, {2, 1});
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->length, 0.0);
  EXPECT_EQ(path->points, (std::vector<PointD>{{2.5, 1.5}}));
  EXPECT_EQ(path->pixels, (std::vector<Point>{{2, 1}}));
}

TEST(AnyAngle, LShapedCorridorBendsAtTheInnerCorner) {
  // Row 0 and column 4 walkable: the path wraps the corner (4, 1).
  const Mask mask = pathtest::mask_from_rows({".....", "####.", "####.", "####.", "####."});
  const double expected = std::hypot(3.5, 0.5) + std::hypot(0.5, 3.5);
  for (const auto& [start, goal] : {std::pair{Point{0, 0}, Point{4, 4}}, {{4, 4}, {0, 0}}}) {
    const auto path = solve(mask, start, goal);
    ASSERT_TRUE(path.has_value());
    EXPECT_NEAR(path->length, expected, 1e-12);
    ASSERT_EQ(path->points.size(), 3U);
    EXPECT_EQ(path->points[1], (PointD{4.0, 1.0}));
    // The pixel given for the corner: diagonally opposite the blocked one.
    EXPECT_EQ(path->pixels[1], (Point{4, 0}));
  }
}

TEST(AnyAngle, PinchBlocksUnlessCornersMayBeCut) {
  const Mask closed = pathtest::mask_from_rows({".#", "#."});
  EXPECT_FALSE(solve(closed, {0, 0}, {1, 1}).has_value());
  const auto cut = solve(closed, {0, 0}, {1, 1}, true);
  ASSERT_TRUE(cut.has_value());
  EXPECT_NEAR(cut->length, std::sqrt(2.0), 1e-12);
  // Round the blocked pixel (1,1) without cutting; through the pinch with.
  const Mask detour = pathtest::mask_from_rows({"#..", ".#.", "..."});
  EXPECT_NEAR(solve(detour, {0, 1}, {1, 0}).value().length, std::sqrt(0.5) * 2 + 2, 1e-12);
  EXPECT_NEAR(solve(detour, {0, 1}, {1, 0}, true).value().length, std::sqrt(2.0), 1e-12);
}

TEST(AnyAngle, BendsAtAPinchPointWhenCuttingCorners) {
  // The only way from the top-left room to the bottom-right one is the pinch
  // at square corner (3, 3); the path bends there.
  const Mask mask =
      pathtest::mask_from_rows({"...###", "...###", "...###", "###...", "###...", "###..."});
  const auto path = solve(mask, {0, 2}, {5, 4}, true);
  ASSERT_TRUE(path.has_value());
  EXPECT_NEAR(path->length, std::hypot(2.5, 0.5) + std::hypot(2.5, 1.5), 1e-12);
  ASSERT_EQ(path->points.size(), 3U);
  EXPECT_EQ(path->points[1], (PointD{3.0, 3.0}));
  EXPECT_FALSE(solve(mask, {0, 2}, {5, 4}, false).has_value());
}

TEST(AnyAngle, BlockedOrUnreachableEndsHaveNoPath) {
  const Mask mask = pathtest::mask_from_rows({"..#..", "..#..", "..#.."});
  EXPECT_FALSE(solve(mask, {0, 0}, {4, 0}).has_value());  // walled off
  EXPECT_FALSE(solve(mask, {2, 0}, {0, 0}).has_value());  // blocked start
  EXPECT_FALSE(solve(mask, {0, 0}, {2, 1}).has_value());  // blocked goal
  const AnyAngleMesh mesh = AnyAngleMesh::build(mask, kAllAreas, false);
  EXPECT_THROW((void)find_any_angle_path(mesh, {0, 0}, {5, 0}), InvalidArgument);
  EXPECT_THROW((void)find_any_angle_path(mesh, {-1, 0}, {0, 0}), InvalidArgument);
  EXPECT_THROW((void)find_any_angle_path(mesh, {0, 0}, {0, 3}), InvalidArgument);
}

TEST(AnyAngle, DisabledAreasAreBlocked) {
  // Area 2 is a shortcut only when enabled.
  const Mask mask = pathtest::mask_from_rows({".....", "#222#", "....."});
  const AreaSet only_one = AreaSet{1} << 1;
  EXPECT_NEAR(solve(mask, {2, 0}, {2, 2}).value().length, 2.0, 1e-12);
  EXPECT_FALSE(solve(mask, {2, 0}, {2, 2}, false, only_one).has_value());
}

TEST(AnyAngle, ReportsMemory) {
  const Mask mask = pathtest::mask_from_rows({".....", ".#.#.", "....."});
  const AnyAngleMesh mesh = AnyAngleMesh::build(mask, kAllAreas, false);
  // The top and bottom rows, and the three one-pixel columns between the
  // blocked pixels.
  EXPECT_EQ(mesh.rect_count(), 5U);
  EXPECT_GE(mesh.memory_bytes(), sizeof(mesh) + 7 * 5 + 5 * sizeof(AnyAngleMesh::Rect) +
                                     mesh.segments().size() * sizeof(AnyAngleMesh::Segment));
  const auto path = find_any_angle_path(mesh, {0, 0}, {4, 2});
  ASSERT_TRUE(path.has_value());
  EXPECT_GE(path->memory_bytes(), path->points.size() * sizeof(PointD));
}

TEST(AnyAngle, InterruptStopsTheBuildAndTheSearch) {
  std::mt19937_64 rng(7);
  const Mask mask = pathtest::random_mask(rng, 700, 700, 0.25, 1);
  const std::function<bool()> stop = [] { return true; };
  EXPECT_THROW((void)AnyAngleMesh::build(mask, kAllAreas, false, stop), Interrupted);
  const AnyAngleMesh mesh = AnyAngleMesh::build(mask, kAllAreas, false);
  // Corner to corner on dense clutter: a search long enough to be asked
  // whether to stop.
  Point start{0, 0};
  Point goal{699, 699};
  std::optional<AnyAnglePath> path;
  AnyAngleSearchStats stats;
  for (; !path && start.x < 100; ++start.x, --goal.x) {
    path = find_any_angle_path(mesh, start, goal, {}, &stats);
  }
  ASSERT_TRUE(path.has_value());
  --start.x;
  ++goal.x;
  stats = {};
  (void)find_any_angle_path(mesh, start, goal, {}, &stats);
  ASSERT_GT(stats.expanded, std::size_t{1} << 14);
  EXPECT_THROW((void)find_any_angle_path(mesh, start, goal, stop), Interrupted);
}

// Checks one answer against the reference: same existence, same length,
// and the path itself legal by the reference's line test.
void check_against_reference(const Mask& mask, AreaSet enabled, bool corner_cutting, Point start,
                             Point goal, const std::optional<AnyAnglePath>& path,
                             const std::string& context) {
  const std::optional<double> expected =
      pathtest::any_angle_shortest_length(mask, enabled, start, goal, std::nullopt, corner_cutting);
  ASSERT_EQ(path.has_value(), expected.has_value()) << context;
  if (!path) return;
  EXPECT_NEAR(path->length, *expected, 1e-9 * std::max(1.0, *expected)) << context;
  ASSERT_FALSE(path->points.empty());
  ASSERT_EQ(path->points.size(), path->pixels.size()) << context;
  EXPECT_EQ(path->points.front(), (PointD{start.x + 0.5, start.y + 0.5})) << context;
  EXPECT_EQ(path->points.back(), (PointD{goal.x + 0.5, goal.y + 0.5})) << context;
  EXPECT_EQ(path->pixels.front(), start);
  EXPECT_EQ(path->pixels.back(), goal);
  EXPECT_NEAR(polyline_length(path->points), path->length, 1e-9 * std::max(1.0, path->length))
      << context;
  for (std::size_t i = 0; i < path->points.size(); ++i) {
    const PointD p = path->points[i];
    const Point pixel = path->pixels[i];
    EXPECT_TRUE(mask.walkable(pixel, enabled)) << context << " vertex " << i;
    EXPECT_TRUE(p.x >= pixel.x && p.x <= pixel.x + 1 && p.y >= pixel.y && p.y <= pixel.y + 1)
        << context << " vertex " << i;
    if (i == 0) continue;
    const PointD q = path->points[i - 1];
    // Vertices are centres or corners: integers in doubled coordinates.
    const Point a2{static_cast<std::int32_t>(2 * q.x), static_cast<std::int32_t>(2 * q.y)};
    const Point b2{static_cast<std::int32_t>(2 * p.x), static_cast<std::int32_t>(2 * p.y)};
    EXPECT_EQ(a2.x, 2 * q.x);
    EXPECT_EQ(b2.y, 2 * p.y);
    EXPECT_TRUE(pathtest::any_angle_visible(mask, enabled, a2, b2, corner_cutting))
        << context << " segment " << i;
  }
}

TEST(AnyAngle, MatchesTheReferenceOnRandomMasks) {
  std::mt19937_64 rng(2101);
  std::uniform_int_distribution<std::uint32_t> side(1, 14);
  std::uniform_real_distribution<double> ratio(0.0, 0.5);
  std::uniform_int_distribution<int> areas(1, 3);
  int compared = 0;
  int found = 0;
  for (int round = 0; round < 1500; ++round) {
    const int area_count = areas(rng);
    const Mask mask = pathtest::random_mask(rng, side(rng), side(rng), ratio(rng), area_count);
    // Sometimes one area disabled.
    const AreaSet enabled = round % 3 == 0 ? kAllAreas & ~(AreaSet{1} << 2) : kAllAreas;
    const bool corner_cutting = round % 2 == 1;
    const AnyAngleMesh mesh = AnyAngleMesh::build(mask, enabled, corner_cutting);
    for (int g = 0; g < 2; ++g) {
      const Point goal = pathtest::random_point(rng, mask);
      for (int s = 0; s < 3; ++s) {
        // Now and then start at the goal.
        const Point start = s == 2 && g == 0 ? goal : pathtest::random_point(rng, mask);
        const auto path = find_any_angle_path(mesh, start, goal);
        check_against_reference(
            mask, enabled, corner_cutting, start, goal, path,
            "round " + std::to_string(round) + " cut " + std::to_string(corner_cutting) +
                " start " + std::to_string(start.x) + "," + std::to_string(start.y) + " goal " +
                std::to_string(goal.x) + "," + std::to_string(goal.y));
        if (HasFatalFailure() || HasFailure()) return;
        ++compared;
        found += path.has_value() ? 1 : 0;
      }
    }
  }
  // Both outcomes are well represented.
  EXPECT_GT(found, compared / 4);
  EXPECT_LT(found, compared);
}

// Dense diagonal pinches: checkerboard-like masks where most corners are
// pinch points, both rules.
TEST(AnyAngle, MatchesTheReferenceOnPinchHeavyMasks) {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 300; ++round) {
    const std::uint32_t w = 3 + round % 9;
    const std::uint32_t h = 3 + (round / 9) % 9;
    std::vector<std::uint8_t> cells(std::size_t{w} * h);
    std::bernoulli_distribution flip(0.15);
    for (std::uint32_t y = 0; y < h; ++y) {
      for (std::uint32_t x = 0; x < w; ++x) {
        const bool blocked = ((x + y) % 2 == 0) != flip(rng);
        cells[std::size_t{y} * w + x] = blocked ? 0 : 1;
      }
    }
    const Mask mask(w, h, std::move(cells));
    for (const bool cut : {false, true}) {
      const AnyAngleMesh mesh = AnyAngleMesh::build(mask, kAllAreas, cut);
      for (int k = 0; k < 4; ++k) {
        const Point goal = pathtest::random_point(rng, mask);
        const Point start = pathtest::random_point(rng, mask);
        check_against_reference(mask, kAllAreas, cut, start, goal,
                                find_any_angle_path(mesh, start, goal),
                                "pinch round " + std::to_string(round));
        if (HasFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace pathcore
