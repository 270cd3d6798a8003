// Checks of the reference's corner-cutting variant
// (support/any_angle_reference.h, allow_corner_cutting) by itself, before
// any_angle_test measures the engine against it: hand-made masks with answers
// worked out by hand, and relations to the no-cutting answer on random masks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/any_angle_reference.h"
#include "support/random_mask.h"
#include "support/text_mask.h"

namespace pathtest {
namespace {

using pathcore::kAllAreas;
using pathcore::Mask;
using pathcore::Point;

TEST(AnyAngleReferenceCutting, SegmentsPassPinchesOnlyWhenCutting) {
  const Mask mask = pathtest::mask_from_rows({".#", "#."});
  // Centre (0.5, 0.5) to centre (1.5, 1.5) through the pinch at (1, 1).
  EXPECT_FALSE(any_angle_visible(mask, kAllAreas, {1, 1}, {3, 3}));
  EXPECT_TRUE(any_angle_visible(mask, kAllAreas, {1, 1}, {3, 3}, true));
  // Into a blocked pixel stays forbidden.
  EXPECT_FALSE(any_angle_visible(mask, kAllAreas, {1, 1}, {3, 1}, true));
}

TEST(AnyAngleReferenceCutting, ShortestPathsSqueezeThroughPinches) {
  const Mask closed = pathtest::mask_from_rows({".#", "#."});
  EXPECT_FALSE(any_angle_shortest_length(closed, kAllAreas, {0, 0}, {1, 1}).has_value());
  EXPECT_NEAR(
      any_angle_shortest_length(closed, kAllAreas, {0, 0}, {1, 1}, std::nullopt, true).value_or(-1),
      std::sqrt(2.0), 1e-12);
  // Two rooms touching at the pinch (3, 3): the path bends there.
  const Mask rooms =
      pathtest::mask_from_rows({"...###", "...###", "...###", "###...", "###...", "###..."});
  const auto path = any_angle_shortest_path(rooms, kAllAreas, {0, 2}, {5, 4}, std::nullopt, true);
  ASSERT_TRUE(path.has_value());
  EXPECT_NEAR(path->length, std::hypot(2.5, 0.5) + std::hypot(2.5, 1.5), 1e-12);
  EXPECT_EQ(path->points2, (std::vector<Point>{{1, 5}, {6, 6}, {11, 9}}));
}

TEST(AnyAngleReferenceCutting, NeverLongerAndEqualWithoutPinches) {
  std::mt19937_64 rng(4);
  int shorter = 0;
  for (int round = 0; round < 400; ++round) {
    const Mask mask = random_mask(rng, 2 + round % 10, 2 + round / 40, 0.35, 1);
    bool has_pinch = false;
    for (std::int32_t j = 1; j < static_cast<std::int32_t>(mask.height()); ++j) {
      for (std::int32_t i = 1; i < static_cast<std::int32_t>(mask.width()); ++i) {
        const bool a = !mask.walkable({i - 1, j - 1}, kAllAreas);
        const bool b = !mask.walkable({i, j - 1}, kAllAreas);
        const bool c = !mask.walkable({i - 1, j}, kAllAreas);
        const bool d = !mask.walkable({i, j}, kAllAreas);
        has_pinch = has_pinch || (a == d && b == c && a != b);
      }
    }
    const Point start = random_point(rng, mask);
    const Point goal = random_point(rng, mask);
    const auto strict = any_angle_shortest_length(mask, kAllAreas, start, goal);
    const auto cut = any_angle_shortest_length(mask, kAllAreas, start, goal, std::nullopt, true);
    if (strict) {
      ASSERT_TRUE(cut.has_value());
      EXPECT_LE(*cut, *strict + 1e-9);
      if (*cut < *strict - 1e-9) ++shorter;
    }
    if (!has_pinch) {
      EXPECT_EQ(strict.has_value(), cut.has_value());
      if (strict && cut) {
        EXPECT_NEAR(*strict, *cut, 1e-9);
      }
    }
  }
  EXPECT_GT(shorter, 0);  // pinches do shorten some paths
}

}  // namespace
}  // namespace pathtest
