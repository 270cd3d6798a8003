// Checks of the exact any-angle reference and the pixel-polyline yardstick
// (support/any_angle_reference.h) themselves, before path_quality_test
// measures beautify against them: hand-made masks with answers worked out by
// hand, and bounds on random masks.
#include "support/any_angle_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pathcore/path.h"
#include "support/random_mask.h"
#include "support/text_mask.h"

namespace pathtest {
namespace {

using pathcore::kAllAreas;
using pathcore::Mask;
using pathcore::Point;

TEST(AnyAngleReference, OpenRectangleIsTheStraightDistance) {
  const Mask mask = pathtest::mask_from_rows({".....", ".....", ".....", "....."});
  EXPECT_DOUBLE_EQ(any_angle_shortest_length(mask, kAllAreas, {0, 0}, {4, 3}).value_or(-1), 5.0);
  EXPECT_DOUBLE_EQ(any_angle_shortest_length(mask, kAllAreas, {4, 3}, {0, 0}).value_or(-1), 5.0);
  EXPECT_DOUBLE_EQ(any_angle_shortest_length(mask, kAllAreas, {2, 1}, {2, 1}).value_or(-1), 0.0);
}

TEST(AnyAngleReference, LShapedCorridorBendsAtTheInnerCorner) {
  // Row 0 and column 4 are walkable; from (0,0) to (4,4) the string wraps
  // the blocked block's corner at (4, 1) (square-corner coordinates; pixel
  // centres are at +0.5), touching it.
  const Mask mask = pathtest::mask_from_rows({".....", "####.", "####.", "####.", "####."});
  const double expected = std::hypot(4.0 - 0.5, 1.0 - 0.5) + std::hypot(4.5 - 4.0, 4.5 - 1.0);
  EXPECT_NEAR(any_angle_shortest_length(mask, kAllAreas, {0, 0}, {4, 4}).value_or(-1), expected,
              1e-12);
  EXPECT_NEAR(any_angle_shortest_length(mask, kAllAreas, {4, 4}, {0, 0}).value_or(-1), expected,
              1e-12);
}

TEST(AnyAngleReference, PinchIsNeverCrossed) {
  // Only a pinch joins the two walkable pixels: unreachable.
  const Mask closed = pathtest::mask_from_rows({".#", "#."});
  EXPECT_FALSE(any_angle_shortest_length(closed, kAllAreas, {0, 0}, {1, 1}).has_value());
  // Here the pinch at (1, 1) would be the beeline from (0,1) to (1,0): the
  // path goes round the blocked pixel (1,1) instead, grazing its bottom and
  // right edges: centre (0.5,1.5) -> corner (1,2) -> corner (2,2) -> corner
  // (2,1) -> centre (1.5,0.5).
  const Mask detour = pathtest::mask_from_rows({"#..", ".#.", "..."});
  const double expected = std::hypot(0.5, 0.5) + 1.0 + 1.0 + std::hypot(0.5, 0.5);
  EXPECT_NEAR(any_angle_shortest_length(detour, kAllAreas, {0, 1}, {1, 0}).value_or(-1), expected,
              1e-12);
}

TEST(AnyAngleReference, UnwalkableEndpointsHaveNoPath) {
  const Mask mask = pathtest::mask_from_rows({"..#", "..."});
  EXPECT_FALSE(any_angle_shortest_length(mask, kAllAreas, {0, 0}, {2, 0}).has_value());
  EXPECT_FALSE(any_angle_shortest_length(mask, kAllAreas, {2, 0}, {0, 0}).has_value());
  EXPECT_FALSE(any_angle_shortest_length(mask, kAllAreas, {0, 0}, {5, 0}).has_value());
}

TEST(AnyAngleReference, VisibilityAlongEdgesAndThroughCorners) {
  // Columns 1 and 2 blocked. Doubled coordinates: x = 2 is the edge between
  // walkable column 0 and blocked column 1 (grazing: visible), x = 4 the edge
  // between the two blocked columns (not free space).
  const Mask wall = pathtest::mask_from_rows({"#..##.", ".##..#", "..#..."});
  const Mask columns = pathtest::mask_from_rows({".##.", ".##.", ".##."});
  EXPECT_TRUE(any_angle_visible(columns, kAllAreas, {2, 0}, {2, 6}));
  EXPECT_FALSE(any_angle_visible(columns, kAllAreas, {4, 0}, {4, 6}));
  EXPECT_TRUE(any_angle_visible(columns, kAllAreas, {6, 0}, {6, 6}));
  EXPECT_FALSE(any_angle_visible(columns, kAllAreas, {1, 1}, {7, 1}));
  // Through the pinch at corner (2, 2) of ".#"/"#.": not visible; the same
  // diagonal with the pixels walkable is.
  const Mask pinch = pathtest::mask_from_rows({".#", "#."});
  EXPECT_FALSE(any_angle_visible(pinch, kAllAreas, {1, 1}, {3, 3}));
  const Mask open = pathtest::mask_from_rows({"..", ".."});
  EXPECT_TRUE(any_angle_visible(open, kAllAreas, {1, 1}, {3, 3}));
  // Touching a blocked pixel's corner is allowed: centre (0,1) to centre
  // (1,0), doubled (1,3) -> (3,1), passes through the square corner (2,2)
  // (doubled), a convex corner while only pixel (1,1) is blocked, a pinch
  // when pixel (0,0) is blocked too.
  const Mask corner = pathtest::mask_from_rows({"...", ".#."});
  EXPECT_TRUE(any_angle_visible(corner, kAllAreas, {1, 3}, {3, 1}));
  const Mask squeezed = pathtest::mask_from_rows({"#..", ".#."});
  EXPECT_FALSE(any_angle_visible(squeezed, kAllAreas, {1, 3}, {3, 1}));
  // Longer lines through a corner: also from (0,1) to (2,0) -- doubled
  // (1,3) -> (5,1) enters pixel (1,1) itself -- and (0,2) to (2,0) through
  // the pinch of a 3x3 mask.
  EXPECT_FALSE(any_angle_visible(corner, kAllAreas, {1, 3}, {5, 1}));
  const Mask diagonal = pathtest::mask_from_rows({"...", "#..", ".#."});
  EXPECT_FALSE(any_angle_visible(diagonal, kAllAreas, {1, 5}, {5, 1}));
  // Entering a blocked pixel's interior, even a little, is not visible.
  EXPECT_FALSE(any_angle_visible(wall, kAllAreas, {1, 3}, {11, 2}));
}

TEST(AnyAngleReference, BoundedSearchStillFindsADetourFarFromTheBeeline) {
  // A wall on row 10 from x = 0 to 36, open at x = 37..40: from (2,5) to
  // (2,15) the string goes round the wall's end, over square corners (37,10)
  // and (37,11), far from the beeline. The octile optimum as the upper bound
  // must not cut those corners out of the search.
  std::vector<std::string> rows(21, std::string(41, '.'));
  for (int x = 0; x <= 36; ++x) rows[10][x] = '#';
  const Mask mask = pathtest::mask_from_rows(rows);
  const double expected = 2 * std::hypot(37.0 - 2.5, 10.0 - 5.5) + 1.0;
  pathcore::FindPathOptions octile;
  octile.field.connectivity = pathcore::Connectivity::kEight;
  octile.smoothing = pathcore::Smoothing::kNone;
  const double bound = pathcore::find_path(mask, {2, 5}, {2, 15}, octile).cost;
  EXPECT_NEAR(any_angle_shortest_length(mask, kAllAreas, {2, 5}, {2, 15}).value_or(-1), expected,
              1e-9);
  EXPECT_NEAR(any_angle_shortest_length(mask, kAllAreas, {2, 5}, {2, 15}, bound).value_or(-1),
              expected, 1e-9);
}

TEST(PixelPolylineReference, LShapedCorridorKeepsClearOfTheInnerCorner) {
  // As above, but bending at pixel centres and never touching a blocked
  // pixel: along row 0 to (4,0), then down column 4.
  const Mask mask = pathtest::mask_from_rows({".....", "####.", "####.", "####.", "####."});
  EXPECT_NEAR(pixel_polyline_shortest_length(mask, kAllAreas, {0, 0}, {4, 4}).value_or(-1),
              4.0 + 4.0, 1e-12);
  EXPECT_FALSE(pixel_segment_clear(mask, kAllAreas, {3, 0}, {4, 1}));  // touches (3,1)
  EXPECT_TRUE(pixel_segment_clear(mask, kAllAreas, {0, 0}, {4, 0}));
  const Mask closed = pathtest::mask_from_rows({".#", "#."});
  EXPECT_FALSE(pixel_polyline_shortest_length(closed, kAllAreas, {0, 0}, {1, 1}).has_value());
}

// True when the point (doubled coordinates) lies in the closed square of a
// walkable pixel: a plain geometric check of the reference's paths.
bool in_free_space(const Mask& mask, double x2, double y2) {
  for (const double dx : {-1e-9, 1e-9}) {
    for (const double dy : {-1e-9, 1e-9}) {
      const Point pixel{static_cast<std::int32_t>(std::floor((x2 + dx) / 2)),
                        static_cast<std::int32_t>(std::floor((y2 + dy) / 2))};
      if (mask.walkable(pixel, kAllAreas)) return true;
    }
  }
  return false;
}

// On random masks the exact length lies between the straight distance and
// the octile grid optimum without corner cutting (its paths are valid here),
// exists exactly when the grid path does (both are four-connectivity of the
// walkable pixels), an upper bound equal to that optimum changes nothing,
// and the path's points add up to its length and sampled stay in free space.
TEST(AnyAngleReference, RandomMasksLieBetweenBeelineAndOctileOptimum) {
  std::mt19937_64 rng(20261123);
  pathcore::FindPathOptions octile;
  octile.field.connectivity = pathcore::Connectivity::kEight;
  octile.field.allow_corner_cutting = false;
  octile.smoothing = pathcore::Smoothing::kNone;
  int compared = 0;
  for (int round = 0; round < 600; ++round) {
    // Small masks, and larger sparse ones where the search bound matters.
    const bool large = round % 3 == 0;
    const auto width = static_cast<std::uint32_t>(large ? 30 + rng() % 30 : 4 + rng() % 14);
    const auto height = static_cast<std::uint32_t>(large ? 30 + rng() % 30 : 4 + rng() % 14);
    const double obstacles = (large ? 0.02 : 0.1) + 0.05 * static_cast<double>(rng() % 8);
    const Mask mask = random_mask(rng, width, height, obstacles, 1);
    const Point start = random_point(rng, mask);
    const Point goal = random_point(rng, mask);
    const std::optional<AnyAnglePath> exact = any_angle_shortest_path(mask, kAllAreas, start, goal);
    const pathcore::PathResult grid = pathcore::find_path(mask, start, goal, octile);
    const std::string where = "round " + std::to_string(round);
    ASSERT_EQ(exact.has_value(), grid.found) << where;
    if (!grid.found) continue;
    ++compared;
    const double beeline =
        std::hypot(static_cast<double>(goal.x - start.x), static_cast<double>(goal.y - start.y));
    EXPECT_GE(exact->length, beeline - 1e-9) << where;
    EXPECT_LE(exact->length, grid.cost + 1e-9) << where;
    const std::optional<double> bounded =
        any_angle_shortest_length(mask, kAllAreas, start, goal, grid.cost);
    ASSERT_TRUE(bounded.has_value()) << where;
    EXPECT_NEAR(*bounded, exact->length, 1e-9) << where;
    // The points: centre to centre, summing to the length, every segment
    // (sampled) inside the walkable squares.
    const std::vector<Point>& points = exact->points2;
    ASSERT_FALSE(points.empty()) << where;
    EXPECT_EQ(points.front(), (Point{2 * start.x + 1, 2 * start.y + 1})) << where;
    EXPECT_EQ(points.back(), (Point{2 * goal.x + 1, 2 * goal.y + 1})) << where;
    double length2 = 0;
    for (std::size_t i = 1; i < points.size(); ++i) {
      const double dx = points[i].x - points[i - 1].x;
      const double dy = points[i].y - points[i - 1].y;
      length2 += std::hypot(dx, dy);
      constexpr int kSamples = 64;
      for (int k = 0; k <= kSamples; ++k) {
        const double t = static_cast<double>(k) / kSamples;
        ASSERT_TRUE(in_free_space(mask, points[i - 1].x + t * dx, points[i - 1].y + t * dy))
            << where << ", segment " << i;
      }
    }
    EXPECT_NEAR(length2 / 2, exact->length, 1e-9) << where;
    // The pixel-centre yardstick lies between the exact length and the
    // octile optimum, and no beautified path beats it.
    const std::optional<double> pixel =
        pixel_polyline_shortest_length(mask, kAllAreas, start, goal);
    ASSERT_TRUE(pixel.has_value()) << where;
    EXPECT_GE(*pixel, exact->length - 1e-9) << where;
    EXPECT_LE(*pixel, grid.cost + 1e-9) << where;
    pathcore::FindPathOptions beautify;
    beautify.field.connectivity = pathcore::Connectivity::kEight;
    EXPECT_GE(pathcore::find_path(mask, start, goal, beautify).length, *pixel - 1e-9) << where;
    // Its line test and core's supercover rule are two independent codings
    // of the same rule.
    const Point other = random_point(rng, mask);
    EXPECT_EQ(pixel_segment_clear(mask, kAllAreas, start, other),
              pathcore::segment_walkable(mask, kAllAreas, start, other,
                                         pathcore::LineRule::kNoCornerCutting))
        << where << " to " << other.x << "," << other.y;
  }
  EXPECT_GE(compared, 200);
}

}  // namespace
}  // namespace pathtest
