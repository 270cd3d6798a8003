// The strict seed fill (bench/strict_seed_fill.h), issue 20's baseline, is an
// independent four-connected fill: its distances must equal pathcore's
// four-connected, unit-cost distance field on the same masks.
#include "strict_seed_fill.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "pathcore/distance_field.h"
#include "support/random_mask.h"

namespace {

using pathcore::Mask;
using pathcore::Point;

// Checks every pixel of one run against the engine; returns the pixels reached.
std::size_t expect_same_as_engine(pathbench::StrictSeedFill& fill, const Mask& mask, Point goal) {
  const std::vector<std::int32_t>& strict = fill.run(mask, goal);
  pathcore::FieldOptions options;  // four-connected, unit costs, every area
  const pathcore::DistanceField field = pathcore::compute_distance_field(mask, goal, options);
  EXPECT_EQ(strict.size(), mask.pixel_count());
  std::size_t reached = 0;
  std::size_t mismatches = 0;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      const std::int32_t ours = strict[mask.index({x, y})];
      const auto engine = field.at({x, y});
      const bool blocked = mask.area({x, y}) == 0;
      const bool same = engine == pathcore::DistanceField::kUnreachable
                            ? ours == (blocked ? pathbench::StrictSeedFill::kBlocked : -1)
                            : ours >= 0 && static_cast<std::uint32_t>(ours) == engine;
      if (!same && ++mismatches <= 5) {
        ADD_FAILURE() << "pixel (" << x << "," << y << ") goal (" << goal.x << "," << goal.y
                      << "): strict " << ours << ", engine " << engine;
      }
      reached += ours >= 0 ? 1 : 0;
    }
  }
  EXPECT_EQ(mismatches, 0U);
  return reached;
}

TEST(StrictSeedFillTest, SmallCaseByHand) {
  // 3x3 with the centre blocked: the way round it from the top-left corner.
  const Mask mask(3, 3, {1, 1, 1, 1, 0, 1, 1, 1, 1});
  pathbench::StrictSeedFill fill(3, 3);
  constexpr std::int32_t kBlocked = pathbench::StrictSeedFill::kBlocked;
  const std::vector<std::int32_t> expected{0, 1, 2, 1, kBlocked, 3, 2, 3, 4};
  EXPECT_EQ(fill.run(mask, {0, 0}), expected);
}

TEST(StrictSeedFillTest, BlockedGoalReachesNothing) {
  const Mask mask(4, 2, {1, 1, 0, 1, 1, 1, 1, 1});
  pathbench::StrictSeedFill fill(4, 2);
  std::vector<std::int32_t> expected(8, -1);
  expected[2] = pathbench::StrictSeedFill::kBlocked;
  EXPECT_EQ(fill.run(mask, {2, 0}), expected);
}

TEST(StrictSeedFillTest, WallSplitsTheMask) {
  // A wall down column 2: the right side is walkable but unreachable (-1).
  const Mask mask(4, 2, {1, 1, 0, 1, 1, 1, 0, 1});
  pathbench::StrictSeedFill fill(4, 2);
  constexpr std::int32_t kBlocked = pathbench::StrictSeedFill::kBlocked;
  const std::vector<std::int32_t> expected{1, 0, kBlocked, -1, 2, 1, kBlocked, -1};
  EXPECT_EQ(fill.run(mask, {1, 0}), expected);
}

TEST(StrictSeedFillTest, RejectsAnotherSizeAndGoalsOutside) {
  const Mask mask(4, 2, std::vector<std::uint8_t>(8, 1));
  pathbench::StrictSeedFill fill(2, 4);
  EXPECT_THROW((void)fill.run(mask, {0, 0}), pathcore::InvalidArgument);
  pathbench::StrictSeedFill right(4, 2);
  EXPECT_THROW((void)right.run(mask, {4, 0}), pathcore::InvalidArgument);
}

// Random masks of several sizes and densities, several goals each through one
// fill object (its buffer and lists are reused: each run must start clean).
TEST(StrictSeedFillTest, EqualsEnginesFourConnectedFieldOnRandomMasks) {
  std::mt19937_64 rng(20261126);
  struct Shape {
    std::uint32_t width;
    std::uint32_t height;
    double obstacles;
  };
  const Shape shapes[] = {{1, 1, 0.0},    {1, 17, 0.2},  {23, 1, 0.1},   {16, 16, 0.3},
                          {37, 29, 0.35}, {64, 48, 0.4}, {101, 67, 0.25}};
  std::size_t reached_total = 0;
  for (const Shape& shape : shapes) {
    const Mask mask = pathtest::random_mask(rng, shape.width, shape.height, shape.obstacles, 3);
    pathbench::StrictSeedFill fill(shape.width, shape.height);
    for (int k = 0; k < 6; ++k) {
      reached_total += expect_same_as_engine(fill, mask, pathtest::random_point(rng, mask));
    }
  }
  EXPECT_GT(reached_total, 10000U);  // the comparison is not vacuous
}

}  // namespace
