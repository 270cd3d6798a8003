// path_around_obstacles against the answer it stands for: path_from_field on
// the patched mask's own field, filled from scratch (compute_distance_field),
// on random masks with random shapes, every connectivity, corner rule, area
// costs and smoothing; and Mask::with_blocked's statistics against a mask
// built from the same grid.

#include "pathcore/detour.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/obstacles.h"
#include "pathcore/path.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

std::string describe(const PathResult& r) {
  std::string text = r.found ? "found" : "not found";
  text += " goal " + std::to_string(r.goal.x) + "," + std::to_string(r.goal.y) + " cost " +
          std::to_string(r.cost) + " grid " +
          (r.grid_cost ? std::to_string(*r.grid_cost) : std::string("-")) + ":";
  for (const Point p : r.points) text += " " + std::to_string(p.x) + "," + std::to_string(p.y);
  return text;
}

// The mask as text, for a failure's message.
std::string dump(const Mask& mask, Point start, Point goal) {
  std::string text;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      const Point p{x, y};
      text += p == start ? 'S' : p == goal ? 'G' : mask.area(p) == 0 ? '#' : '.';
    }
    text += '\n';
  }
  return text;
}

// The answer on the patched mask's own field.
PathResult reference(const Mask& patched, Point start, Point goal, const FindPathOptions& options) {
  const DistanceField field = compute_distance_field(patched, goal, options.field);
  return path_from_field(patched, field, start, options);
}

std::vector<Obstacle> random_shapes(std::mt19937_64& rng, const Mask& mask, int count) {
  std::vector<Obstacle> shapes;
  std::uniform_int_distribution<int> kind(0, 2);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < count; ++i) {
    const Point at = pathtest::random_point(rng, mask);
    switch (kind(rng)) {
      case 0:
        shapes.push_back(CircleObstacle{at.x + unit(rng), at.y + unit(rng), 0.5 + 3 * unit(rng)});
        break;
      case 1:
        shapes.push_back(RectObstacle{at.x, at.y, 1 + static_cast<std::int64_t>(6 * unit(rng)),
                                      1 + static_cast<std::int64_t>(6 * unit(rng))});
        break;
      default:
        shapes.push_back(PixelsObstacle{{at, pathtest::random_point(rng, mask)}});
    }
  }
  return shapes;
}

TEST(MaskWithBlocked, StatisticsMatchAMaskBuiltFromTheSameGrid) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const auto width = static_cast<std::uint32_t>(1 + rng() % 24);
    const auto height = static_cast<std::uint32_t>(1 + rng() % 24);
    const Mask mask =
        pathtest::random_mask(rng, width, height, 0.3, 1 + static_cast<int>(rng() % 4));
    std::vector<std::size_t> pixels;
    const std::size_t count = rng() % (mask.pixel_count() + 2);
    for (std::size_t i = 0; i < count; ++i) pixels.push_back(rng() % mask.pixel_count());
    const Mask patched = mask.with_blocked(pixels);
    std::vector<std::uint8_t> areas = mask.areas();
    for (const std::size_t i : pixels) areas[i] = 0;
    const Mask rebuilt(width, height, areas);
    ASSERT_EQ(patched.areas(), rebuilt.areas());
    EXPECT_EQ(patched.areas_present(), rebuilt.areas_present()) << trial;
    EXPECT_EQ(patched.walkable_pixels(), rebuilt.walkable_pixels()) << trial;
    EXPECT_EQ(patched.row_boundaries(), rebuilt.row_boundaries()) << trial;
  }
  const Mask mask(2, 1, {1, 1});
  const std::vector<std::size_t> outside = {2};
  EXPECT_THROW((void)mask.with_blocked(outside), InvalidArgument);
}

// with_obstacles into a mask that held anything (another size, other
// areas): the same grid and statistics as the copy it returns.
TEST(WithObstaclesInto, MatchesTheCopyWhateverTheMaskHeld) {
  std::mt19937_64 rng(11);
  Mask into(1, 1, {1});
  for (int trial = 0; trial < 200; ++trial) {
    const auto width = static_cast<std::uint32_t>(1 + rng() % 30);
    const auto height = static_cast<std::uint32_t>(1 + rng() % 30);
    const Mask mask =
        pathtest::random_mask(rng, width, height, 0.3, 1 + static_cast<int>(rng() % 4));
    const ObstacleSet blocked(width, height,
                              random_shapes(rng, mask, 1 + static_cast<int>(rng() % 5)));
    const Mask expected = with_obstacles(mask, blocked);
    with_obstacles(mask, blocked, into);
    ASSERT_EQ(into.width(), width);
    ASSERT_EQ(into.height(), height);
    ASSERT_EQ(into.areas(), expected.areas()) << trial;
    EXPECT_EQ(into.areas_present(), expected.areas_present()) << trial;
    EXPECT_EQ(into.walkable_pixels(), expected.walkable_pixels()) << trial;
    EXPECT_EQ(into.row_boundaries(), expected.row_boundaries()) << trial;
  }
}

struct Case {
  Connectivity connectivity;
  bool cutting;
  int areas;  // area ids in use (1: unit costs)
  Smoothing smoothing;
};

class DetourMatchesPatchedField : public ::testing::TestWithParam<Case> {};

TEST_P(DetourMatchesPatchedField, OnRandomMasksAndShapes) {
  const Case c = GetParam();
  std::mt19937_64 rng(static_cast<std::uint64_t>(c.connectivity == Connectivity::kEight) * 7 +
                      (c.cutting ? 3 : 0) + static_cast<std::uint64_t>(c.areas) * 11 +
                      static_cast<std::uint64_t>(c.smoothing) * 101);
  int answered = 0;
  int detoured = 0;
  // Kept across the starts of a trial (one field and blocked mask), cleared
  // for the next trial's, like the server's pooled buffers.
  DetourScratch kept;
  for (int trial = 0; trial < 150; ++trial) {
    kept.clear();
    const auto width = static_cast<std::uint32_t>(8 + rng() % 40);
    const auto height = static_cast<std::uint32_t>(8 + rng() % 40);
    const double ratio = 0.05 + 0.3 * std::uniform_real_distribution<double>(0, 1)(rng);
    const Mask mask = pathtest::random_mask(rng, width, height, ratio, c.areas);
    FindPathOptions options;
    options.field.connectivity = c.connectivity;
    options.field.allow_corner_cutting = c.cutting;
    options.smoothing = c.smoothing;
    for (int a = 1; a <= c.areas; ++a) {
      options.field.area_costs[a] = static_cast<std::uint8_t>(1 + (a - 1) * 3);
    }
    const Point goal = pathtest::random_point(rng, mask);
    if (!mask.walkable(goal, kAllAreas)) continue;
    const DistanceField field = compute_distance_field(mask, goal, options.field);
    const std::vector<Obstacle> shapes = random_shapes(rng, mask, 1 + static_cast<int>(rng() % 6));
    const ObstacleSet blocked(width, height, shapes);
    const Mask patched = with_obstacles(mask, blocked);
    for (int s = 0; s < 6; ++s) {
      const Point start = pathtest::random_point(rng, mask);
      const PathResult expected = reference(patched, start, goal, options);
      // Odd trials: a fresh scratch per call. Even ones: the kept scratch,
      // every other start first with a bound of a few pixels (the server's
      // attempt on gRPC's thread), then again without: it goes on from what
      // the attempt learnt.
      DetourScratch* scratch = trial % 2 == 0 ? &kept : nullptr;
      std::optional<PathResult> got;
      if (scratch != nullptr && s % 2 == 0) {
        got = path_around_obstacles(patched, field, blocked, start, options, 1 + rng() % 24, {},
                                    nullptr, scratch);
      }
      if (!got) {
        got = path_around_obstacles(patched, field, blocked, start, options,
                                    std::numeric_limits<std::size_t>::max(), {}, nullptr, scratch);
      }
      ASSERT_TRUE(got.has_value());
      ASSERT_EQ(describe(*got), describe(expected))
          << dump(patched, start, goal) << "trial " << trial << " start " << start.x << ","
          << start.y << " goal " << goal.x << "," << goal.y;
      ++answered;
      if (expected.found && field.reachable(start) &&
          field.exact(start) != compute_distance_field(patched, goal, options.field).exact(start)) {
        ++detoured;
      }
    }
  }
  // The cases that matter happened: paths whose cost the obstacles raised.
  EXPECT_GT(answered, 300);
  EXPECT_GT(detoured, 20);
}

INSTANTIATE_TEST_SUITE_P(
    AllOptions, DetourMatchesPatchedField,
    ::testing::Values(Case{Connectivity::kFour, false, 1, Smoothing::kNone},
                      Case{Connectivity::kFour, false, 1, Smoothing::kSimplify},
                      Case{Connectivity::kFour, false, 1, Smoothing::kBeautify},
                      Case{Connectivity::kFour, false, 3, Smoothing::kNone},
                      Case{Connectivity::kFour, false, 3, Smoothing::kBeautify},
                      Case{Connectivity::kEight, false, 1, Smoothing::kNone},
                      Case{Connectivity::kEight, false, 1, Smoothing::kBeautify},
                      Case{Connectivity::kEight, true, 1, Smoothing::kNone},
                      Case{Connectivity::kEight, true, 1, Smoothing::kSimplify},
                      Case{Connectivity::kEight, false, 3, Smoothing::kNone},
                      Case{Connectivity::kEight, true, 3, Smoothing::kBeautify}));

// A one-pixel corridor: blocking it cuts the start off; blocking the goal
// or the start leaves nothing to find.
TEST(PathAroundObstacles, CutOffBlockedEndsAndTheWorkBound) {
  // ##########
  // #........#
  // ####.#####
  // #........#
  // ##########
  std::vector<std::uint8_t> areas(10 * 5, 0);
  for (int x = 1; x < 9; ++x) {
    areas[1 * 10 + x] = 1;
    areas[3 * 10 + x] = 1;
  }
  areas[2 * 10 + 4] = 1;
  const Mask mask(10, 5, areas);
  const Point goal{1, 1};
  const Point start{8, 3};
  FindPathOptions options;
  options.smoothing = Smoothing::kNone;
  const DistanceField field = compute_distance_field(mask, goal, options.field);
  const auto unlimited = std::numeric_limits<std::size_t>::max();
  for (const Point wall : {Point{4, 2}, goal, start}) {
    const std::vector<Obstacle> shapes = {PixelsObstacle{{wall}}};
    const ObstacleSet blocked(10, 5, shapes);
    const Mask patched = with_obstacles(mask, blocked);
    const auto got = path_around_obstacles(patched, field, blocked, start, options, unlimited);
    ASSERT_TRUE(got.has_value());
    EXPECT_FALSE(got->found);
    EXPECT_EQ(describe(*got), describe(reference(patched, start, goal, options)));
  }
  // A detour the bound does not allow: no answer, for the caller to fill.
  const std::vector<Obstacle> shapes = {PixelsObstacle{{Point{4, 3}}}};
  const ObstacleSet blocked(10, 5, shapes);
  const Mask patched = with_obstacles(mask, blocked);
  EXPECT_FALSE(path_around_obstacles(patched, field, blocked, start, options, 1).has_value());
  const auto got = path_around_obstacles(patched, field, blocked, start, options, unlimited);
  ASSERT_TRUE(got.has_value());
  EXPECT_FALSE(got->found);
}

TEST(PathAroundObstacles, RefusesAFieldToSeveralGoalsOrOfAnotherSize) {
  const Mask mask(4, 4, std::vector<std::uint8_t>(16, 1));
  const ObstacleSet none;
  const std::vector<Point> goals = {{0, 0}, {3, 3}};
  FieldBuilder builder(mask, goals, FieldOptions{});
  builder.finish();
  EXPECT_THROW((void)path_around_obstacles(mask, builder.field(), none, {1, 1}, {}, 100),
               InvalidArgument);
  const Mask other(5, 4, std::vector<std::uint8_t>(20, 1));
  const DistanceField field = compute_distance_field(mask, {0, 0}, FieldOptions{});
  EXPECT_THROW((void)path_around_obstacles(other, field, none, {1, 1}, {}, 100), InvalidArgument);
  EXPECT_THROW((void)path_around_obstacles(mask, field, none, {4, 1}, {}, 100), InvalidArgument);
}

}  // namespace
}  // namespace pathcore
