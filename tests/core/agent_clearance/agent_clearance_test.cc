// Agent clearance (issue 21): the exact distance transform and the usable
// mask against brute force (every pixel against every blocked square, in
// integers; tests/support/clearance_reference.h), on random masks of many
// shapes and densities, with areas disabled and the mask edge.
#include "pathcore/agent_clearance.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "support/clearance_reference.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

using ::testing::HasSubstr;

struct Shape {
  std::uint32_t width;
  std::uint32_t height;
};

constexpr Shape kShapes[] = {{1, 1}, {1, 9}, {12, 1}, {2, 2}, {7, 13},
                             {31, 5}, {40, 25}, {64, 64}, {3, 50}};
constexpr double kDensities[] = {0.0, 0.02, 0.1, 0.3, 0.6, 0.95};

// Area 2 disabled in some rounds: its pixels then block like area 0.
AreaSet enabled_for(int round) { return round % 3 == 0 ? (kAllAreas & ~AreaSet{4}) : kAllAreas; }

TEST(ObstacleDistances, EqualTheBruteForceDistanceToTheNearestBlockedSquare) {
  std::mt19937_64 rng(2101);
  int round = 0;
  for (const Shape shape : kShapes) {
    for (const double density : kDensities) {
      for (int repeat = 0; repeat < 2; ++repeat, ++round) {
        const Mask mask = pathtest::random_mask(rng, shape.width, shape.height, density, 3);
        const AreaSet enabled = enabled_for(round);
        const ObstacleDistances distances(mask, enabled);
        ASSERT_EQ(distances.width(), mask.width());
        ASSERT_EQ(distances.height(), mask.height());
        for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
          for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
            const std::uint64_t expected =
                pathtest::reference_squared_half_pixels(mask, enabled, {x, y});
            ASSERT_EQ(distances.squared_half_pixels({x, y}), expected)
                << shape.width << "x" << shape.height << " density " << density << " at (" << x
                << "," << y << ")";
            ASSERT_DOUBLE_EQ(distances.distance({x, y}),
                             std::sqrt(static_cast<double>(expected)) / 2);
          }
        }
      }
    }
  }
}

TEST(ObstacleDistances, OnAnOpenMaskAreTheDistancesToTheEdge) {
  // Nothing blocked inside: the nearest blocked square is outside, straight
  // across the nearest edge, x + 0.5 pixels from the left one.
  const Mask mask(9, 4, std::vector<std::uint8_t>(36, 1));
  const ObstacleDistances distances(mask, kAllAreas);
  for (std::int32_t y = 0; y < 4; ++y) {
    for (std::int32_t x = 0; x < 9; ++x) {
      const double edge = std::min({x + 0.5, 9 - x - 0.5, y + 0.5, 4 - y - 0.5});
      EXPECT_DOUBLE_EQ(distances.distance({x, y}), edge) << x << "," << y;
    }
  }
}

TEST(ObstacleDistances, ABlockedCornerIsMeasuredToTheSquareNotItsCentre) {
  // One blocked pixel at (3,3) in an open 20x20 mask: from (5,6) its nearest
  // point is its corner (4,4), sqrt(1.5^2 + 2.5^2) away (its centre is
  // sqrt(2^2 + 3^2) away).
  std::vector<std::uint8_t> areas(400, 1);
  areas[3 * 20 + 3] = 0;
  const ObstacleDistances distances(Mask(20, 20, std::move(areas)), kAllAreas);
  EXPECT_EQ(distances.squared_half_pixels({5, 6}), 3U * 3U + 5U * 5U);
  EXPECT_EQ(distances.squared_half_pixels({3, 6}), 5U * 5U);  // straight above the square's side
  EXPECT_EQ(distances.squared_half_pixels({3, 3}), 0U);
}

TEST(RequiredSquaredHalfPixels, IsTheExactThreshold) {
  for (const double clearance : {0.0, 0.25, 0.5, 0.7071067811865476, 1.0, 1.118033988749895,
                                 1.5, 2.5, 3.1, 4.0, 7.3, 100.01}) {
    const std::uint64_t required = required_squared_half_pixels(clearance);
    EXPECT_TRUE(pathtest::reference_far_enough(required, clearance)) << clearance;
    if (required > 0) {
      EXPECT_FALSE(pathtest::reference_far_enough(required - 1, clearance)) << clearance;
    }
  }
}

TEST(UsableMask, KeepsExactlyTheBruteForceUsablePixelsWithTheirAreas) {
  std::mt19937_64 rng(2102);
  std::uniform_real_distribution<double> random_clearance(0.0, 6.0);
  int round = 0;
  for (const Shape shape : kShapes) {
    for (const double density : kDensities) {
      const Mask mask = pathtest::random_mask(rng, shape.width, shape.height, density, 3);
      const AreaSet enabled = enabled_for(round++);
      // Thresholds exactly on a distance (1, sqrt 2 / 2, sqrt 5 / 2 as
      // doubles, 2.5), just either side of one, and random ones.
      for (const double clearance :
           {0.0, 0.3, 0.5, std::nextafter(0.5, 1.0), 0.7071067811865476, 1.0,
            std::nextafter(1.0, 0.0), std::nextafter(1.0, 2.0), 1.118033988749895, 1.5, 2.5, 4.0,
            random_clearance(rng), random_clearance(rng), 1e9}) {
        const UsableMask usable(mask, enabled, clearance);
        const std::vector<bool> expected = pathtest::reference_usable(mask, enabled, clearance);
        ASSERT_EQ(usable.mask().width(), mask.width());
        ASSERT_EQ(usable.mask().height(), mask.height());
        EXPECT_EQ(usable.enabled(), enabled);
        EXPECT_EQ(usable.clearance(), clearance);
        for (std::size_t i = 0; i < mask.pixel_count(); ++i) {
          const Point p{static_cast<std::int32_t>(i % mask.width()),
                        static_cast<std::int32_t>(i / mask.width())};
          ASSERT_EQ(usable.usable(p), expected[i])
              << shape.width << "x" << shape.height << " density " << density << " clearance "
              << clearance << " at (" << p.x << "," << p.y << ")";
          // Usable pixels keep their area (costs still apply), others are 0.
          ASSERT_EQ(usable.mask().area(p), expected[i] ? mask.area(p) : 0);
        }
      }
    }
  }
}

TEST(UsableMask, ReportsItsMemory) {
  const Mask mask(100, 50, std::vector<std::uint8_t>(5000, 1));
  const UsableMask usable(mask, kAllAreas, 2);
  EXPECT_GE(usable.memory_bytes(), 5000U);
  EXPECT_LT(usable.memory_bytes(), 6000U);
}

TEST(UsableMask, RefusesANegativeOrNonFiniteClearanceNamingIt) {
  const Mask mask(4, 4, std::vector<std::uint8_t>(16, 1));
  for (const double clearance : {-1.0, -1e-300, std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity()}) {
    try {
      const UsableMask usable(mask, kAllAreas, clearance);
      ADD_FAILURE() << "accepted " << clearance;
    } catch (const InvalidArgument& error) {
      EXPECT_THAT(error.what(), HasSubstr("clearance"));
    }
  }
}

}  // namespace
}  // namespace pathcore
