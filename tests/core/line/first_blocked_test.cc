// first_blocked_pixel against the independent reference of
// support/line_reference (the covered pixels decided in exact rational
// arithmetic from each rule's definition) on random maps, and its agreement
// with segment_walkable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <optional>
#include <random>

#include "pathcore/line.h"
#include "support/line_reference.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

using pathtest::reference_first_blocked;
using pathtest::reference_segment_pixels;

TEST(FirstBlockedTest, ReferencePixelsMatchTheEnginesBresenhamLine) {
  // The reference's Bresenham rule is written from line.h's description;
  // check it describes bresenham_line before trusting it below.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> coordinate(-12, 12);
  for (int i = 0; i < 5000; ++i) {
    const Point a{coordinate(rng), coordinate(rng)};
    const Point b{coordinate(rng), coordinate(rng)};
    EXPECT_EQ(reference_segment_pixels(a, b, LineRule::kBresenham), bresenham_line(a, b))
        << "a (" << a.x << "," << a.y << ") b (" << b.x << "," << b.y << ")";
  }
}

TEST(FirstBlockedTest, MatchesTheReferenceOnRandomMaps) {
  std::mt19937_64 rng(23);
  for (int round = 0; round < 60; ++round) {
    std::uniform_int_distribution<std::uint32_t> side(1, 40);
    const double obstacles = 0.02 + 0.03 * (round % 10);
    const Mask mask = pathtest::random_mask(rng, side(rng), side(rng), obstacles, 3);
    const AreaSet enabled = round % 3 == 0 ? AreaSet{0b1010} : kAllAreas;  // areas 1 and 3
    for (int i = 0; i < 300; ++i) {
      const Point a = pathtest::random_point(rng, mask);
      // Short segments often, so some are clear.
      Point b = pathtest::random_point(rng, mask);
      if (i % 2 == 0) {
        std::uniform_int_distribution<int> near(-4, 4);
        b = {std::clamp(a.x + near(rng), 0, static_cast<int>(mask.width()) - 1),
             std::clamp(a.y + near(rng), 0, static_cast<int>(mask.height()) - 1)};
      }
      for (const LineRule rule : {LineRule::kBresenham, LineRule::kNoCornerCutting}) {
        const std::optional<Point> expected = reference_first_blocked(mask, enabled, a, b, rule);
        const std::optional<Point> got = first_blocked_pixel(mask, enabled, a, b, rule);
        ASSERT_EQ(got, expected) << "a (" << a.x << "," << a.y << ") b (" << b.x << "," << b.y
                                 << ") rule " << static_cast<int>(rule);
        ASSERT_EQ(segment_walkable(mask, enabled, a, b, rule), !expected.has_value());
      }
    }
  }
}

TEST(FirstBlockedTest, CornerTiesGoRowMajorInEveryDirection) {
  // Exact diagonals pass through a pixel corner at every step, where the two
  // pixels beside it and the one beyond are entered together; both
  // diagonal directions, walked from either end, on cluttered maps.
  std::mt19937_64 rng(5);
  for (int i = 0; i < 2000; ++i) {
    Mask mask = pathtest::random_mask(rng, 9, 9, 0.3, 1);
    const int k = std::uniform_int_distribution<int>(1, 8)(rng);
    const int x0 = std::uniform_int_distribution<int>(0, 8 - k)(rng);
    const int y0 = std::uniform_int_distribution<int>(0, 8 - k)(rng);
    const bool flip = i % 2 == 0;
    Point a{x0, flip ? y0 + k : y0};
    Point b{x0 + k, flip ? y0 : y0 + k};
    if (i % 4 < 2) std::swap(a, b);
    EXPECT_EQ(first_blocked_pixel(mask, kAllAreas, a, b, LineRule::kNoCornerCutting),
              reference_first_blocked(mask, kAllAreas, a, b, LineRule::kNoCornerCutting));
  }
}

TEST(FirstBlockedTest, BlockedEndpointsAndOutsidePoints) {
  const Mask mask(3, 1, {1, 0, 1});
  EXPECT_EQ(first_blocked_pixel(mask, kAllAreas, {1, 0}, {2, 0}, LineRule::kBresenham),
            (Point{1, 0}));
  EXPECT_EQ(first_blocked_pixel(mask, kAllAreas, {2, 0}, {0, 0}, LineRule::kNoCornerCutting),
            (Point{1, 0}));
  EXPECT_EQ(first_blocked_pixel(mask, kAllAreas, {0, 0}, {0, 0}, LineRule::kBresenham),
            std::nullopt);
  EXPECT_THROW((void)first_blocked_pixel(mask, kAllAreas, {3, 0}, {0, 0}, LineRule::kBresenham),
               InvalidArgument);
  EXPECT_THROW((void)first_blocked_pixel(mask, kAllAreas, {0, 0}, {0, -1}, LineRule::kBresenham),
               InvalidArgument);
}

}  // namespace
}  // namespace pathcore
