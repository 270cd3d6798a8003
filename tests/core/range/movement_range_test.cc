// Movement ranges against a textbook Dijkstra from the start
// (support/range_reference.h: the whole mask, exact straight/diagonal sums), on random
// masks with area costs, both connectivities, the corner rule, clearance
// (the usable mask) and obstacles (the same search on the patched mask).
#include "pathcore/movement_range.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/obstacles.h"
#include "support/random_mask.h"
#include "support/range_reference.h"

namespace pathcore {
namespace {

using ::testing::HasSubstr;

constexpr std::uint32_t kNone = pathtest::kNotReached;

double value_of(std::uint32_t straight, std::uint32_t diagonal) {
  return pathtest::reference_cost_value({straight, diagonal});
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> reference_costs(
    const Mask& mask, Point start, const FieldOptions& options) {
  return pathtest::reference_costs_from(mask, start, options);
}

FieldOptions random_options(std::mt19937_64& rng) {
  FieldOptions options;
  options.connectivity = rng() % 2 == 0 ? Connectivity::kFour : Connectivity::kEight;
  options.allow_corner_cutting = options.connectivity == Connectivity::kEight && rng() % 2 == 0;
  if (rng() % 3 != 0) {
    for (int id = 1; id <= 3; ++id) options.area_costs[id] = static_cast<std::uint8_t>(1 + rng() % 6);
  }
  if (rng() % 4 == 0) options.enabled = kAllAreas & ~AreaSet{1U << 3};  // area 3 blocked
  return options;
}

// Asserts that range holds exactly the reference pixels within max_cost, with their costs.
void expect_matches(const MovementRange& range, const Mask& reference_mask, Point start,
                    double max_cost, const FieldOptions& options) {
  const auto costs = reference_costs(reference_mask, start, options);
  std::size_t count = 0;
  std::int32_t x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
  bool beyond = false;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(reference_mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(reference_mask.width()); ++x) {
      const auto [straight, diagonal] = costs[reference_mask.index({x, y})];
      const bool in = straight != kNone && value_of(straight, diagonal) <= max_cost;
      beyond = beyond || (straight != kNone && !in);
      const auto got = range.cost_at({x, y});
      ASSERT_EQ(got.has_value(), in) << "at (" << x << "," << y << ") start (" << start.x << ","
                                     << start.y << ") budget " << max_cost;
      if (!in) continue;
      ASSERT_EQ(got->straight, straight) << "at (" << x << "," << y << ")";
      ASSERT_EQ(got->diagonal, diagonal) << "at (" << x << "," << y << ")";
      ++count;
      x0 = std::min(x0, x);
      y0 = std::min(y0, y);
      x1 = std::max(x1, x);
      y1 = std::max(y1, y);
    }
  }
  ASSERT_EQ(range.pixel_count(), count);
  EXPECT_EQ(range.budget_reached(), beyond);
  if (count == 0) {
    EXPECT_TRUE(range.bounds().empty());
  } else {
    EXPECT_EQ(range.bounds(), (PixelRect{x0, y0, static_cast<std::uint32_t>(x1 - x0 + 1),
                                         static_cast<std::uint32_t>(y1 - y0 + 1)}));
  }
}

// Every path_to is a legal walk from the start whose steps cost exactly the pixel's cost.
void expect_paths_legal(const MovementRange& range, const Mask& walked, const FieldOptions& options) {
  const auto walkable = [&](Point p) { return walked.walkable(p, options.enabled & kAllAreas); };
  range.for_each([&](Point p, GridCost cost) {
    const Path path = range.path_to(p);
    ASSERT_FALSE(path.empty());
    ASSERT_EQ(path.front(), range.start());
    ASSERT_EQ(path.back(), p);
    std::uint32_t straight = 0, diagonal = 0;
    for (std::size_t i = 1; i < path.size(); ++i) {
      const int dx = path[i].x - path[i - 1].x;
      const int dy = path[i].y - path[i - 1].y;
      ASSERT_LE(std::abs(dx), 1);
      ASSERT_LE(std::abs(dy), 1);
      ASSERT_TRUE(walkable(path[i]));
      const std::uint8_t c = options.area_costs[walked.area(path[i])];
      if (dx != 0 && dy != 0) {
        ASSERT_EQ(options.connectivity, Connectivity::kEight);
        if (!options.allow_corner_cutting) {
          ASSERT_TRUE(walkable({path[i - 1].x + dx, path[i - 1].y}));
          ASSERT_TRUE(walkable({path[i - 1].x, path[i - 1].y + dy}));
        }
        diagonal += c == 0 ? 1 : c;
      } else {
        straight += c == 0 ? 1 : c;
      }
    }
    ASSERT_EQ(straight, cost.straight);
    ASSERT_EQ(diagonal, cost.diagonal);
  });
}

TEST(MovementRange, EqualsTheBruteForceDijkstraOnRandomMasks) {
  std::mt19937_64 rng(4242);
  for (int round = 0; round < 300; ++round) {
    const auto w = static_cast<std::uint32_t>(1 + rng() % 40);
    const auto h = static_cast<std::uint32_t>(1 + rng() % 40);
    const Mask mask = pathtest::random_mask(rng, w, h, 0.05 * static_cast<double>(rng() % 8), 3);
    const FieldOptions options = random_options(rng);
    const Point start = pathtest::random_point(rng, mask);
    const double budget = round % 10 == 0 ? std::numeric_limits<double>::infinity()
                                          : 0.5 + static_cast<double>(rng() % 400) / 10.0;
    const MovementRange range = compute_range(mask, start, budget, options);
    ASSERT_NO_FATAL_FAILURE(expect_matches(range, mask, start, budget, options)) << "round " << round;
    ASSERT_NO_FATAL_FAILURE(expect_paths_legal(range, mask, options)) << "round " << round;
  }
}

TEST(MovementRange, BudgetExactlyOnACostIsInclusive) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 100; ++round) {
    const Mask mask = pathtest::random_mask(rng, 30, 30, 0.2, 3);
    const FieldOptions options = random_options(rng);
    const Point start = pathtest::random_point(rng, mask);
    const auto costs = reference_costs(mask, start, options);
    const Point target = pathtest::random_point(rng, mask);
    const auto [straight, diagonal] = costs[mask.index(target)];
    if (straight == kNone || (straight == 0 && diagonal == 0)) continue;
    const double budget = GridCost{straight, diagonal}.value();
    const MovementRange range = compute_range(mask, start, budget, options);
    ASSERT_TRUE(range.in_range(target)) << "round " << round;
    ASSERT_NO_FATAL_FAILURE(expect_matches(range, mask, start, budget, options));
    // Just below, the target is out.
    const MovementRange below =
        compute_range(mask, start, std::nextafter(budget, 0.0), options);
    ASSERT_FALSE(below.in_range(target));
  }
}

TEST(MovementRange, OnTheUsableMaskOfAClearance) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 60; ++round) {
    const Mask mask = pathtest::random_mask(rng, 35, 30, 0.08, 3);
    FieldOptions options = random_options(rng);
    const double clearance = 0.6 + static_cast<double>(rng() % 20) / 10.0;
    const UsableMask usable(mask, options.enabled, clearance);
    const Point start = pathtest::random_point(rng, mask);
    const double budget = 3.0 + static_cast<double>(rng() % 30);
    const MovementRange range = compute_range(usable.mask(), start, budget, options);
    ASSERT_NO_FATAL_FAILURE(expect_matches(range, usable.mask(), start, budget, options));
  }
}

std::vector<Obstacle> random_obstacles(std::mt19937_64& rng, const Mask& mask) {
  std::vector<Obstacle> shapes;
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < count; ++i) {
    switch (rng() % 3) {
      case 0:
        shapes.emplace_back(RectObstacle{static_cast<std::int64_t>(rng() % mask.width()) - 2,
                                         static_cast<std::int64_t>(rng() % mask.height()) - 2,
                                         1 + static_cast<std::int64_t>(rng() % 6),
                                         1 + static_cast<std::int64_t>(rng() % 6)});
        break;
      case 1:
        shapes.emplace_back(CircleObstacle{static_cast<double>(rng() % (mask.width() * 10)) / 10.0,
                                           static_cast<double>(rng() % (mask.height() * 10)) / 10.0,
                                           0.3 + static_cast<double>(rng() % 40) / 10.0});
        break;
      default: {
        PixelsObstacle list;
        for (int k = 0; k < 5; ++k) list.pixels.push_back(pathtest::random_point(rng, mask));
        shapes.emplace_back(list);
      }
    }
  }
  return shapes;
}

TEST(MovementRange, WithObstaclesEqualsTheRangeOnThePatchedMask) {
  std::mt19937_64 rng(1234);
  for (int round = 0; round < 100; ++round) {
    const Mask mask = pathtest::random_mask(rng, 32, 28, 0.1, 3);
    const FieldOptions options = random_options(rng);
    const auto shapes = random_obstacles(rng, mask);
    const ObstacleSet obstacles(mask.width(), mask.height(), shapes);
    const Point start = pathtest::random_point(rng, mask);
    const double budget = 2.0 + static_cast<double>(rng() % 40);
    RangeLimits limits;
    limits.blocked = &obstacles;
    const MovementRange range = compute_range(mask, start, budget, options, limits);
    const Mask patched = with_obstacles(mask, obstacles);
    ASSERT_NO_FATAL_FAILURE(expect_matches(range, patched, start, budget, options))
        << "round " << round;
    ASSERT_NO_FATAL_FAILURE(expect_paths_legal(range, patched, options));
  }
}

TEST(MovementRange, WithObstaclesAndClearanceEqualsTheUsableMaskOfThePatchedMask) {
  std::mt19937_64 rng(555);
  for (int round = 0; round < 60; ++round) {
    const Mask mask = pathtest::random_mask(rng, 30, 30, 0.05, 3);
    const FieldOptions options = random_options(rng);
    const double clearance = 0.6 + static_cast<double>(rng() % 25) / 10.0;
    const auto shapes = random_obstacles(rng, mask);
    const ObstacleSet obstacles(mask.width(), mask.height(), shapes);
    const ObstacleSet grown = obstacles.grown_by(clearance, mask.width(), mask.height());
    const UsableMask usable(mask, options.enabled, clearance);
    const UsableMask patched_usable(with_obstacles(mask, obstacles), options.enabled, clearance);
    const Point start = pathtest::random_point(rng, mask);
    const double budget = 2.0 + static_cast<double>(rng() % 40);
    RangeLimits limits;
    limits.blocked = &grown;
    const MovementRange range = compute_range(usable.mask(), start, budget, options, limits);
    ASSERT_NO_FATAL_FAILURE(expect_matches(range, patched_usable.mask(), start, budget, options))
        << "round " << round;
  }
}

TEST(ObstacleSetGrownBy, BlocksExactlyWhatThePatchedMaskMakesUnusable) {
  std::mt19937_64 rng(77);
  for (int round = 0; round < 150; ++round) {
    const auto w = static_cast<std::uint32_t>(1 + rng() % 30);
    const auto h = static_cast<std::uint32_t>(1 + rng() % 30);
    const Mask mask = pathtest::random_mask(rng, w, h, 0.05 * static_cast<double>(rng() % 4), 3);
    const double clearance = static_cast<double>(rng() % 40) / 10.0;
    const auto shapes = random_obstacles(rng, mask);
    const ObstacleSet obstacles(w, h, shapes);
    const ObstacleSet grown = obstacles.grown_by(clearance, w, h);
    const UsableMask usable(mask, kAllAreas, clearance);
    const UsableMask patched(with_obstacles(mask, obstacles), kAllAreas, clearance);
    for (std::int32_t y = -2; y < static_cast<std::int32_t>(h) + 2; ++y) {
      for (std::int32_t x = -2; x < static_cast<std::int32_t>(w) + 2; ++x) {
        if (!mask.contains({x, y})) {
          ASSERT_FALSE(grown.blocks({x, y})) << "outside at (" << x << "," << y << ")";
          continue;
        }
        if (obstacles.blocks({x, y})) {
          ASSERT_TRUE(grown.blocks({x, y}));
        }
        ASSERT_EQ(usable.usable({x, y}) && !grown.blocks({x, y}), patched.usable({x, y}))
            << "round " << round << " clearance " << clearance << " at (" << x << "," << y << ")";
      }
    }
  }
}

TEST(MovementRange, NearestToFollowsDistanceThenCostThenRowMajor) {
  std::mt19937_64 rng(31);
  for (int round = 0; round < 100; ++round) {
    const Mask mask = pathtest::random_mask(rng, 25, 25, 0.25, 3);
    const FieldOptions options = random_options(rng);
    const Point start = pathtest::random_point(rng, mask);
    const Point target = {static_cast<std::int32_t>(rng() % 40) - 8,
                          static_cast<std::int32_t>(rng() % 40) - 8};
    const MovementRange range = compute_range(mask, start, 3.0 + static_cast<double>(rng() % 20), options);
    const auto got = range.nearest_to(target);
    // The brute force: every pixel in range, the key compared as a tuple.
    std::optional<std::tuple<std::int64_t, double, std::int32_t, std::int32_t>> best;
    range.for_each([&](Point p, GridCost cost) {
      const std::int64_t dx = p.x - target.x, dy = p.y - target.y;
      const auto key = std::make_tuple(dx * dx + dy * dy, cost.value(), p.y, p.x);
      if (!best || key < *best) best = key;
    });
    ASSERT_EQ(got.has_value(), best.has_value());
    if (!got) continue;
    EXPECT_EQ(got->x, std::get<3>(*best));
    EXPECT_EQ(got->y, std::get<2>(*best));
  }
}

TEST(MovementRange, BlockedStartHasAnEmptyRange) {
  const Mask mask(3, 1, {0, 1, 1});
  const MovementRange range = compute_range(mask, {0, 0}, 10, FieldOptions{});
  EXPECT_EQ(range.pixel_count(), 0U);
  EXPECT_TRUE(range.bounds().empty());
  EXPECT_FALSE(range.budget_reached());
  EXPECT_FALSE(range.nearest_to({2, 0}).has_value());
  EXPECT_TRUE(range.path_to({1, 0}).empty());
}

TEST(MovementRange, GrowsWithTheBudgetNotWithTheMask) {
  const Mask small(64, 64, std::vector<std::uint8_t>(64 * 64, 1));
  const Mask large(2048, 2048, std::vector<std::uint8_t>(2048 * 2048, 1));
  const MovementRange a = compute_range(small, {32, 32}, 10, FieldOptions{});
  const MovementRange b = compute_range(large, {1000, 1000}, 10, FieldOptions{});
  EXPECT_EQ(a.pixel_count(), b.pixel_count());
  EXPECT_EQ(a.pixel_count(), 221U);  // the diamond |dx| + |dy| <= 10
  // The window is at most the budget's square (21 x 21), far below the mask.
  EXPECT_LT(b.memory_bytes(), std::size_t{21 * 21 * 9 + 4096});
}

TEST(MovementRange, RejectsBadArguments) {
  const Mask mask(4, 4, std::vector<std::uint8_t>(16, 1));
  EXPECT_THAT([&] { (void)compute_range(mask, {4, 0}, 5, FieldOptions{}); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("start")));
  EXPECT_THAT([&] { (void)compute_range(mask, {0, 0}, std::nan(""), FieldOptions{}); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("max_cost")));
  EXPECT_THAT([&] { (void)compute_range(mask, {0, 0}, -1, FieldOptions{}); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("max_cost")));
}

TEST(MovementRange, StopsWhenInterrupted) {
  const Mask mask(300, 300, std::vector<std::uint8_t>(300 * 300, 1));
  RangeLimits limits;
  limits.interrupt = [] { return true; };
  EXPECT_THROW((void)compute_range(mask, {150, 150}, 1000, FieldOptions{}, limits), Interrupted);
}

}  // namespace
}  // namespace pathcore
