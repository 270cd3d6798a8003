// Eight-connectivity, corner cutting, area costs and snapping: core against
// brute force (tests/support/reference), on random masks and by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_masks.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "support/invariants.h"
#include "support/random_mask.h"
#include "support/reference.h"

namespace pathcore {
namespace {

using pathtest::kNoPath;

using pathtest::text;
// The three ways to step: four neighbours, eight without and with corner cutting.
struct Variant {
  Connectivity connectivity;
  bool cutting;
  pathtest::Diagonals diagonals;
  const char* name;
};
constexpr Variant kVariants[] = {
    {Connectivity::kFour, false, pathtest::Diagonals::kNone, "four"},
    {Connectivity::kEight, false, pathtest::Diagonals::kBothSidesFree, "eight"},
    {Connectivity::kEight, true, pathtest::Diagonals::kAlways, "eight-cutting"},
};

AreaSet random_enabled(std::mt19937_64& rng, int area_count) {
  if (std::bernoulli_distribution(0.4)(rng)) return effective_areas(0);
  std::uniform_int_distribution<std::uint64_t> bits(0, (std::uint64_t{1} << (area_count + 1)) - 1);
  return effective_areas(bits(rng));
}

Point random_walkable(std::mt19937_64& rng, const Mask& mask, AreaSet enabled, double p) {
  Point q = pathtest::random_point(rng, mask);
  if (std::bernoulli_distribution(p)(rng)) {
    for (int attempt = 0; attempt < 64 && !mask.walkable(q, enabled); ++attempt) {
      q = pathtest::random_point(rng, mask);
    }
  }
  return q;
}

// Random costs 1..255 for areas 1..area_count (unit costs half of the time).
AreaCosts random_costs(std::mt19937_64& rng, int area_count) {
  AreaCosts costs = unit_area_costs();
  if (std::bernoulli_distribution(0.5)(rng)) return costs;
  std::uniform_int_distribution<int> small(1, 9);
  std::uniform_int_distribution<int> any(1, 255);
  const bool wide = std::bernoulli_distribution(0.3)(rng);
  for (int id = 1; id <= area_count; ++id) {
    costs[static_cast<std::size_t>(id)] = static_cast<std::uint8_t>(wide ? any(rng) : small(rng));
  }
  return costs;
}

pathtest::ReferenceGrid grid_for(const FieldOptions& options, const Variant& variant) {
  pathtest::ReferenceGrid grid;
  grid.enabled = options.enabled;
  grid.diagonals = variant.diagonals;
  for (int id = 1; id <= kMaxAreaId; ++id) {
    grid.area_costs[static_cast<std::uint32_t>(id)] =
        options.area_costs[static_cast<std::size_t>(id)];
  }
  return grid;
}

bool close(double got, double want) { return std::abs(got - want) <= 1e-9 * std::max(1.0, want); }

// The grid cost of a pixel path, summed step by step (-1: an illegal step).
using pathtest::walked_cost;

// A builder's field stopped part way against the brute-force distances: every
// settled pixel exact, every pixel cheaper than settled_up_to settled, and,
// once finished, exactly the unreachable pixels unreached. Returns the number
// of pixels settled.
std::size_t expect_partial_field_matches(const Mask& mask, const FieldBuilder& builder,
                                         const std::vector<double>& want, double settled_up_to) {
  std::size_t settled = 0;
  const DistanceField& field = builder.field();
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      const double expected = want[mask.index({x, y})];
      if (field.reachable({x, y})) {
        EXPECT_TRUE(close(field.cost_at({x, y}), expected)) << text(Point{x, y});
        ++settled;
      } else if (!builder.finished()) {
        EXPECT_FALSE(expected <= settled_up_to - 1e-9) << text(Point{x, y});
      } else {
        EXPECT_EQ(expected, kNoPath) << text(Point{x, y});
      }
      if (::testing::Test::HasFailure()) return settled;
    }
  }
  return settled;
}

// A finished field against the brute-force distances, pixel by pixel.
void expect_field_matches(const Mask& mask, const DistanceField& field,
                          const std::vector<double>& want) {
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      const double expected = want[mask.index({x, y})];
      if (expected == kNoPath) {
        EXPECT_FALSE(field.reachable({x, y})) << text(Point{x, y});
      } else {
        EXPECT_TRUE(close(field.cost_at({x, y}), expected)) << text(Point{x, y});
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(FieldOptions, FieldsMatchBruteForceDijkstra) {
  std::mt19937_64 rng(0x5eed0301);
  std::uniform_int_distribution<std::uint32_t> size(1, 40);
  std::uniform_real_distribution<double> obstacles(0.0, 0.5);
  std::uniform_int_distribution<int> areas(1, 4);
  int reached = 0;
  for (int round = 0; round < 1500; ++round) {
    const int area_count = areas(rng);
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), area_count);
    const Variant& variant = kVariants[round % 3];
    FieldOptions options;
    options.enabled = random_enabled(rng, area_count);
    options.connectivity = variant.connectivity;
    options.allow_corner_cutting = variant.cutting;
    options.area_costs = random_costs(rng, area_count);
    const Point goal = random_walkable(rng, mask, options.enabled, 0.9);
    const DistanceField field = compute_distance_field(mask, goal, options);
    const std::vector<double> want =
        pathtest::reference_distances(mask, goal, grid_for(options, variant));
    for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
      for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
        const double expected = want[mask.index({x, y})];
        const double got = field.cost_at({x, y});
        ASSERT_TRUE(expected == kNoPath ? !field.reachable({x, y}) : close(got, expected))
            << "round " << round << " " << variant.name << " at " << text({x, y}) << " got " << got
            << " want " << expected;
        reached += expected != kNoPath && expected > 0 ? 1 : 0;
      }
    }
    // Compact storage: 2 bytes (four) or 4 bytes (eight) per pixel at these sizes.
    EXPECT_EQ(field.bytes_per_pixel(), variant.connectivity == Connectivity::kFour ? 2U : 4U);
  }
  EXPECT_GT(reached, 100000);
}

TEST(FieldOptions, RawPathsAreOptimalAndTheirStepsAddUp) {
  std::mt19937_64 rng(0x5eed0302);
  std::uniform_int_distribution<std::uint32_t> size(1, 40);
  std::uniform_real_distribution<double> obstacles(0.0, 0.45);
  std::uniform_int_distribution<int> areas(1, 4);
  int found = 0;
  for (int round = 0; round < 1500; ++round) {
    const int area_count = areas(rng);
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), area_count);
    const Variant& variant = kVariants[round % 3];
    FindPathOptions options;
    options.field.enabled = random_enabled(rng, area_count);
    options.field.connectivity = variant.connectivity;
    options.field.allow_corner_cutting = variant.cutting;
    options.field.area_costs = random_costs(rng, area_count);
    options.smoothing = Smoothing::kNone;
    const Point start = random_walkable(rng, mask, options.field.enabled, 0.9);
    const Point goal = random_walkable(rng, mask, options.field.enabled, 0.9);
    const std::vector<double> want =
        pathtest::reference_distances(mask, goal, grid_for(options.field, variant));
    SCOPED_TRACE("round " + std::to_string(round) + " " + variant.name + " " + text(start) + "->" +
                 text(goal));
    const PathResult result = find_path(mask, start, goal, options);
    const bool reachable = mask.walkable(start, options.field.enabled) &&
                           mask.walkable(goal, options.field.enabled) &&
                           want[mask.index(start)] != kNoPath;
    ASSERT_EQ(result.found, reachable);
    if (!reachable) continue;
    ++found;
    ASSERT_EQ(result.points.front(), start);
    ASSERT_EQ(result.points.back(), goal);
    // grid_cost: the optimum by the field's step model; cost: the path's own
    // (polyline_cost, which charges a step half to each end: path_cost_test).
    ASSERT_TRUE(result.grid_cost.has_value());
    EXPECT_TRUE(close(*result.grid_cost, want[mask.index(start)])) << *result.grid_cost;
    const double walked = walked_cost(mask, options.field, result.points);
    EXPECT_TRUE(close(walked, *result.grid_cost))
        << walked << " vs " << *result.grid_cost << " " << text(result.points);

    // Cold (field filled only until start is settled) and warm give the same answer.
    FieldBuilder builder(mask, goal, options.field);
    ASSERT_TRUE(builder.run_until_settled(start));
    for (const Smoothing smoothing :
         {Smoothing::kNone, Smoothing::kSimplify, Smoothing::kBeautify}) {
      FindPathOptions with = options;
      with.smoothing = smoothing;
      const PathResult cold = path_from_field(mask, builder.field(), start, with);
      const DistanceField full = compute_distance_field(mask, goal, options.field);
      const PathResult warm = path_from_field(mask, full, start, with);
      EXPECT_EQ(cold.points, warm.points);
      EXPECT_EQ(cold.cost, warm.cost);
    }
  }
  EXPECT_GT(found, 700);
}

TEST(FieldOptions, SmoothedPathsKeepTheirGuarantees) {
  std::mt19937_64 rng(0x5eed0303);
  std::uniform_int_distribution<std::uint32_t> size(2, 48);
  std::uniform_real_distribution<double> obstacles(0.0, 0.4);
  std::uniform_int_distribution<int> areas(1, 3);
  int shortened = 0;
  for (int round = 0; round < 1200; ++round) {
    const int area_count = areas(rng);
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), area_count);
    const Variant& variant = kVariants[round % 3];
    FindPathOptions options;
    options.field.enabled = random_enabled(rng, area_count);
    options.field.connectivity = variant.connectivity;
    options.field.allow_corner_cutting = variant.cutting;
    options.field.area_costs = random_costs(rng, area_count);
    const Point start = random_walkable(rng, mask, options.field.enabled, 0.95);
    const Point goal = random_walkable(rng, mask, options.field.enabled, 0.95);
    SCOPED_TRACE("round " + std::to_string(round) + " " + variant.name + " " + text(start) + "->" +
                 text(goal));
    FindPathOptions raw_options = options;
    raw_options.smoothing = Smoothing::kNone;
    const PathResult raw = find_path(mask, start, goal, raw_options);
    const LineRule rule = line_rule_for(options.field);
    // The highest cost on the traced path that smoothing starts from.
    int raw_highest = 0;
    if (raw.found) {
      const DistanceField field = compute_distance_field(mask, raw.goal, options.field);
      for (const Point p : trace_for_smoothing(mask, field, start)) {
        raw_highest = std::max<int>(raw_highest, options.field.area_costs[mask.area(p)]);
      }
    }
    for (const Smoothing smoothing : {Smoothing::kSimplify, Smoothing::kBeautify}) {
      options.smoothing = smoothing;
      const PathResult result = find_path(mask, start, goal, options);
      ASSERT_EQ(result.found, raw.found);
      if (!result.found) continue;
      EXPECT_EQ(result.points.front(), start);
      EXPECT_EQ(result.points.back(), goal);
      EXPECT_LE(result.cost, raw.cost * (1 + 1e-9)) << text(result.points);  // never dearer
      EXPECT_LE(result.length, polyline_length(raw.points) + 1e-9) << text(result.points);
      for (std::size_t i = 1; i < result.points.size(); ++i) {
        const Point a = result.points[i - 1];
        const Point b = result.points[i];
        ASSERT_TRUE(pathtest::reference_bresenham_walkable(mask, options.field.enabled, a, b));
        if (rule == LineRule::kNoCornerCutting) {
          ASSERT_TRUE(pathtest::reference_supercover_walkable(mask, options.field.enabled, a, b))
              << text(a) << "-" << text(b) << " squeezes";
        }
        // Never through terrain dearer than the traced path runs through (the
        // beeline answer only crosses the cheapest terrain).
        for (const Point p : pathtest::reference_bresenham(a, b)) {
          ASSERT_LE(options.field.area_costs[mask.area(p)], std::max(raw_highest, 1))
              << text(p) << " on " << text(a) << "-" << text(b) << " of " << text(result.points)
              << " raw " << text(raw.points);
        }
      }
      shortened += result.length < polyline_length(raw.points) - 1e-6 ? 1 : 0;
    }
  }
  EXPECT_GT(shortened, 500);
}

TEST(FieldOptions, WeightedSmoothingIsNeverLongerThanTheGridPath) {
  // Found by fuzz_find_path. Four-connected, area 3 costs 5: the grid path
  // (0,19) -> (1,5) up the left columns crosses two area-3 pixels (cost 23,
  // 15 steps); the detour east over area 1 and 2 costs 23 too, in 23 steps.
  // The shortcut trace's tie-breaks took the detour, so smoothed answers were
  // longer (18.9) than the SMOOTHING_NONE one (15).
  const std::vector<std::string> rows = {"213222", "232133", "231333", "123132", "212222",
                                         "311222", "333331", "233322", "321213", "222311",
                                         "212133", "221110", "012131", "213213", "121121",
                                         "111111", "111111", "111111", "111111", "111111"};
  std::vector<std::uint8_t> areas;
  for (const std::string& row : rows) {
    for (const char c : row) areas.push_back(static_cast<std::uint8_t>(c - '0'));
  }
  const Mask mask(6, 20, std::move(areas));
  FindPathOptions options;
  options.field.area_costs[3] = 5;
  const Point start{0, 19};
  const Point goal{1, 5};
  options.smoothing = Smoothing::kNone;
  const PathResult raw = find_path(mask, start, goal, options);
  ASSERT_TRUE(raw.found);
  EXPECT_EQ(raw.cost, 23.0);
  EXPECT_EQ(raw.length, 15.0);
  for (const Smoothing smoothing : {Smoothing::kSimplify, Smoothing::kBeautify}) {
    options.smoothing = smoothing;
    const PathResult result = find_path(mask, start, goal, options);
    ASSERT_TRUE(result.found);
    EXPECT_LE(result.length, raw.length + 1e-9) << text(result.points);
  }
}

TEST(FieldOptions, WeightedBeautifyStaysOnTheRoad) {
  // A road (area 2, cost 1) around a swamp (area 3, cost 20): smoothing must
  // not cut across the swamp, and the beeline is refused.
  std::vector<std::uint8_t> areas(30 * 20, 3);
  for (std::int32_t y = 0; y < 20; ++y) {
    for (std::int32_t x = 0; x < 30; ++x) {
      if (y <= 1 || x <= 1 || x >= 28) areas[static_cast<std::size_t>(y) * 30 + x] = 2;
    }
  }
  const Mask mask(30, 20, std::move(areas));
  for (const Variant& variant : kVariants) {
    FindPathOptions options;
    options.field.connectivity = variant.connectivity;
    options.field.allow_corner_cutting = variant.cutting;
    options.field.area_costs[3] = 20;
    const PathResult result = find_path(mask, {0, 19}, {29, 19}, options);
    ASSERT_TRUE(result.found);
    for (std::size_t i = 1; i < result.points.size(); ++i) {
      const Point a = result.points[i - 1];
      const Point b = result.points[i];
      for (const Point p : pathtest::reference_bresenham(a, b)) {
        EXPECT_EQ(mask.area(p), 2) << variant.name << " " << text(result.points);
      }
    }
    EXPECT_GT(result.length, 60.0);
    // Without costs the beeline along the bottom row is taken.
    options.field.area_costs[3] = 1;
    EXPECT_EQ(find_path(mask, {0, 19}, {29, 19}, options).points, (Path{{0, 19}, {29, 19}}));
  }
}

// Brute force: the walkable pixel nearest to p, ties to the first in row-major order.
Point brute_nearest(const Mask& mask, Point p, const std::vector<bool>& allowed) {
  Point best{-1, -1};
  std::int64_t best_d = -1;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      if (!allowed[mask.index({x, y})]) continue;
      const std::int64_t d = std::int64_t{x - p.x} * (x - p.x) + std::int64_t{y - p.y} * (y - p.y);
      if (best_d < 0 || d < best_d) {
        best = {x, y};
        best_d = d;
      }
    }
  }
  return best;
}

TEST(Snap, EndsAtTheNearestReachablePixel) {
  std::mt19937_64 rng(0x5eed0304);
  std::uniform_int_distribution<std::uint32_t> size(1, 36);
  std::uniform_real_distribution<double> obstacles(0.0, 0.7);
  std::uniform_int_distribution<int> areas(1, 3);
  int moved_goal = 0;
  int moved_start = 0;
  for (int round = 0; round < 1500; ++round) {
    const int area_count = areas(rng);
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), area_count);
    const Variant& variant = kVariants[round % 3];
    FindPathOptions options;
    options.field.enabled = random_enabled(rng, area_count);
    options.field.connectivity = variant.connectivity;
    options.field.allow_corner_cutting = variant.cutting;
    options.field.area_costs = random_costs(rng, area_count);
    options.smoothing = round % 2 == 0 ? Smoothing::kNone : Smoothing::kBeautify;
    options.snap_to_reachable = true;
    const Point start = random_walkable(rng, mask, options.field.enabled, 0.7);
    const Point goal = pathtest::random_point(rng, mask);
    SCOPED_TRACE("round " + std::to_string(round) + " " + variant.name + " " + text(start) + "->" +
                 text(goal));
    const PathResult result = find_path(mask, start, goal, options);

    std::vector<bool> walkable(mask.pixel_count());
    for (std::size_t i = 0; i < walkable.size(); ++i) {
      walkable[i] = ((options.field.enabled >> mask.areas()[i]) & 1U) != 0;
    }
    if (std::none_of(walkable.begin(), walkable.end(), [](bool b) { return b; })) {
      EXPECT_FALSE(result.found);
      continue;
    }
    const Point from = brute_nearest(mask, start, walkable);
    // Reachable from `from`: finite reference distance to from (symmetric steps).
    const std::vector<double> to_from =
        pathtest::reference_distances(mask, from, grid_for(options.field, variant));
    std::vector<bool> reachable(mask.pixel_count());
    for (std::size_t i = 0; i < reachable.size(); ++i) reachable[i] = to_from[i] != kNoPath;
    const Point to = brute_nearest(mask, goal, reachable);
    ASSERT_TRUE(result.found);
    EXPECT_EQ(result.goal, to);
    ASSERT_FALSE(result.points.empty());
    EXPECT_EQ(result.points.front(), from);
    EXPECT_EQ(result.points.back(), to);
    if (options.smoothing == Smoothing::kNone) {
      EXPECT_TRUE(close(walked_cost(mask, options.field, result.points), *result.grid_cost));
    }
    moved_goal += to != goal ? 1 : 0;
    moved_start += from != start ? 1 : 0;
  }
  EXPECT_GT(moved_goal, 300);
  EXPECT_GT(moved_start, 100);
}

// The scans behind snapping call the caller's interrupt check as fills do
// (about every 16,384 pixels): a check that says stop ends them with
// Interrupted; one that never does changes nothing.
TEST(Snap, ScansStopWhenTheInterruptCheckSaysSo) {
  // 600x400: a walled-off left part (x < 300) and the right part; start on
  // the wall, goal on the right: nearest_walkable, then a fill of the left part.
  std::vector<std::uint8_t> areas(600 * 400, 1);
  for (std::uint32_t y = 0; y < 400; ++y) areas[y * 600 + 300] = 0;
  const Mask mask(600, 400, std::move(areas));
  const FieldOptions options;
  const Point start{300, 200};
  const Point goal{550, 10};
  const auto plain = snap_endpoints(mask, options, start, goal, std::nullopt);
  ASSERT_TRUE(plain.has_value());

  int calls = 0;
  const std::function<bool()> never = [&] {
    ++calls;
    return false;
  };
  const auto checked = snap_endpoints(mask, options, start, goal, std::nullopt, never);
  ASSERT_TRUE(checked.has_value());
  EXPECT_EQ(checked->start, plain->start);
  EXPECT_EQ(checked->goal, plain->goal);
  EXPECT_GE(calls, 5);  // 240,000 pixels filled and scanned at least once each

  int until_stop = 0;
  const std::function<bool()> stop_at_third = [&] { return ++until_stop == 3; };
  EXPECT_THROW((void)snap_endpoints(mask, options, start, goal, std::nullopt, stop_at_third),
               Interrupted);
  EXPECT_EQ(until_stop, 3);
  const std::function<bool()> stop = [] { return true; };
  EXPECT_THROW((void)nearest_walkable(Mask(300, 300, std::vector<std::uint8_t>(90000, 0)),
                                      kAllAreas, {5, 5}, stop),
               Interrupted);
}

TEST(Snap, WithoutTheFlagSuchRequestsAreNotFound) {
  const Mask mask(5, 1, {1, 1, 0, 1, 1});
  FindPathOptions options;
  options.smoothing = Smoothing::kNone;
  EXPECT_FALSE(find_path(mask, {0, 0}, {4, 0}, options).found);
  EXPECT_FALSE(find_path(mask, {0, 0}, {2, 0}, options).found);
  EXPECT_FALSE(find_path(mask, {2, 0}, {0, 0}, options).found);
  options.snap_to_reachable = true;
  const PathResult across = find_path(mask, {0, 0}, {4, 0}, options);
  ASSERT_TRUE(across.found);
  EXPECT_EQ(across.goal, (Point{1, 0}));
  EXPECT_EQ(across.points, (Path{{0, 0}, {1, 0}}));
  EXPECT_EQ(across.cost, 1.0);
  // A wall click: ties between (1,0) and (3,0) go to the first in row-major order.
  EXPECT_EQ(find_path(mask, {0, 0}, {2, 0}, options).goal, (Point{1, 0}));
  // An unwalkable start moves to its nearest walkable pixel first.
  const PathResult from_wall = find_path(mask, {2, 0}, {4, 0}, options);
  ASSERT_TRUE(from_wall.found);
  EXPECT_EQ(from_wall.points.front(), (Point{1, 0}));
  EXPECT_EQ(from_wall.goal, (Point{1, 0}));
  // Nothing walkable at all: not found.
  EXPECT_FALSE(find_path(Mask(2, 1, {0, 0}), {0, 0}, {1, 0}, options).found);
}

TEST(FieldOptions, SpiralDistancesOverflowSixteenBits) {
  const Mask mask = pathbench::spiral_mask(401, 401);  // about 80,000 corridor pixels
  const std::vector<double> want =
      pathtest::reference_distances(mask, {0, 0}, pathtest::ReferenceGrid{});
  double longest = 0;
  for (const double d : want) {
    if (d != kNoPath) longest = std::max(longest, d);
  }
  ASSERT_GT(longest, 70000);
  for (const Variant& variant : kVariants) {
    FieldOptions options;
    options.connectivity = variant.connectivity;
    options.allow_corner_cutting = variant.cutting;
    const DistanceField field = compute_distance_field(mask, {0, 0}, options);
    EXPECT_EQ(field.bytes_per_pixel(), variant.connectivity == Connectivity::kFour ? 4U : 8U);
    for (std::int32_t y = 0; y < 401; ++y) {
      for (std::int32_t x = 0; x < 401; ++x) {
        const double expected = want[mask.index({x, y})];
        if (expected == kNoPath) {
          ASSERT_FALSE(field.reachable({x, y})) << variant.name;
        } else {
          // In a one-pixel corridor diagonals never help (corner cutting
          // would cut through the one-pixel walls only at the corners).
          ASSERT_LE(field.cost_at({x, y}), expected + 1e-9) << variant.name;
          if (!variant.cutting) {
            ASSERT_EQ(field.cost_at({x, y}), expected) << variant.name;
          }
        }
      }
    }
    // The whole spiral, traced cold from its far end.
    FindPathOptions path_options;
    path_options.field = options;
    path_options.smoothing = Smoothing::kNone;
    Point far{0, 0};
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (want[i] == longest)
        far = {static_cast<std::int32_t>(i % 401), static_cast<std::int32_t>(i / 401)};
    }
    const PathResult result = find_path(mask, far, {0, 0}, path_options);
    ASSERT_TRUE(result.found);
    EXPECT_EQ(result.points.front(), far);
    EXPECT_TRUE(close(walked_cost(mask, options, result.points), result.cost));
  }
}

// Eight-connected fills stopped part way (run_until_settled) and resumed:
// the unit-cost octile fill settles pixels in its working grid in place, so
// field() must read every settled pixel exactly and no other as reachable,
// and the finished field is the brute-force one.
TEST(FieldOptions, PartialEightConnectedFillsMatchBruteForce) {
  std::mt19937_64 rng(0x5eed0404);
  std::uniform_int_distribution<std::uint32_t> size(2, 48);
  std::uniform_real_distribution<double> obstacles(0.0, 0.55);
  int stops_checked = 0;
  for (int round = 0; round < 600; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 1);
    const Variant& variant = kVariants[1 + round % 2];
    FieldOptions options;
    options.connectivity = variant.connectivity;
    options.allow_corner_cutting = variant.cutting;
    const Point goal = random_walkable(rng, mask, kAllAreas, 0.9);
    const std::vector<double> want =
        pathtest::reference_distances(mask, goal, grid_for(options, variant));
    SCOPED_TRACE("round " + std::to_string(round) + " " + variant.name + " goal " + text(goal));
    FieldBuilder builder(mask, goal, options);
    double settled_up_to = 0;
    for (int stop = 0; stop < 4; ++stop) {
      const Point p = pathtest::random_point(rng, mask);
      const bool reaches = want[mask.index(p)] != kNoPath;
      ASSERT_EQ(builder.run_until_settled(p), reaches);
      if (reaches) {
        settled_up_to = std::max(settled_up_to, want[mask.index(p)]);
        ++stops_checked;
      }
      expect_partial_field_matches(mask, builder, want, settled_up_to);
      ASSERT_FALSE(HasFailure());
    }
    builder.finish();
    expect_field_matches(mask, builder.take(), want);
    ASSERT_FALSE(HasFailure());
  }
  EXPECT_GT(stops_checked, 500);
}

// The octile fill moves from 32-bit to 64-bit order keys once costs pass
// about 33,000: waiting for pixels on both sides of that, and interrupted
// throughout, it still ends with the one-call field.
TEST(FieldOptions, SpiralPartialAndInterruptedEightConnectedFills) {
  const Mask mask = pathbench::spiral_mask(401, 401);
  for (const bool cutting : {false, true}) {
    FieldOptions options;
    options.connectivity = Connectivity::kEight;
    options.allow_corner_cutting = cutting;
    const DistanceField want = compute_distance_field(mask, {0, 0}, options);
    std::vector<Point> near;
    std::vector<Point> far;
    for (std::int32_t y = 0; y < 401; ++y) {
      for (std::int32_t x = 0; x < 401; ++x) {
        if (!want.reachable({x, y})) continue;
        const double cost = want.cost_at({x, y});
        if (near.empty() && cost > 20000 && cost < 30000) near.push_back({x, y});
        if (far.empty() && cost > 60000) far.push_back({x, y});
      }
    }
    ASSERT_FALSE(near.empty());
    ASSERT_FALSE(far.empty());
    FieldBuilder builder(mask, {0, 0}, options);
    int checks = 0;
    builder.set_interrupt([&] { return ++checks % 2 == 1; });  // every other check stops
    const auto run = [&](auto step) {
      for (int attempt = 0; attempt < 10000; ++attempt) {
        try {
          step();
          return;
        } catch (const Interrupted&) {
        }
      }
      FAIL() << "never finished";
    };
    for (const Point p : {near[0], far[0]}) {
      bool settled = false;
      run([&] { settled = builder.run_until_settled(p); });
      ASSERT_TRUE(settled);
      const DistanceField& field = builder.field();
      const double limit = want.cost_at(p);
      for (std::int32_t y = 0; y < 401; ++y) {
        for (std::int32_t x = 0; x < 401; ++x) {
          if (field.reachable({x, y})) {
            ASSERT_EQ(field.exact({x, y}), want.exact({x, y})) << text(Point{x, y});
          } else {
            ASSERT_FALSE(want.reachable({x, y}) && want.cost_at({x, y}) < limit)
                << text(Point{x, y});
          }
        }
      }
    }
    run([&] { builder.finish(); });
    EXPECT_GT(checks, 2);
    const DistanceField field = builder.take();
    EXPECT_EQ(field.bytes_per_pixel(), want.bytes_per_pixel());
    for (std::int32_t y = 0; y < 401; ++y) {
      for (std::int32_t x = 0; x < 401; ++x) {
        ASSERT_EQ(field.reachable({x, y}), want.reachable({x, y})) << text(Point{x, y});
        if (want.reachable({x, y})) {
          ASSERT_EQ(field.exact({x, y}), want.exact({x, y}));
        }
      }
    }
  }
}

// The octile fill relaxes only the neighbours a pixel can be the last step
// to on grids up to 4 MB, and all eight beyond (where that measured faster),
// with branches, or without on cluttered masks: a mask past that size with
// sparse obstacles (0.1 row boundaries per walkable pixel) and a cluttered
// one (0.6), whole and stopped part way, against brute force, with and
// without corner cutting.
TEST(FieldOptions, LargeEightConnectedFillsMatchBruteForce) {
  std::mt19937_64 rng(0x5eed0505);
  for (const double obstacles : {0.3, 0.05}) {
    const Mask mask =
        pathtest::random_mask(rng, 1100, 1000, obstacles, 1);  // 4.4 MB of 32-bit words
    // Well clear of the 0.3 row boundaries per walkable pixel at which the
    // fills change loops (cluttered() in distance_field.cc).
    const double boundaries =
        static_cast<double>(mask.row_boundaries()) / static_cast<double>(mask.walkable_pixels());
    const bool cluttered = obstacles > 0.1;
    ASSERT_TRUE(cluttered ? boundaries > 0.5 : boundaries < 0.15) << boundaries;
    const Point goal = random_walkable(rng, mask, kAllAreas, 1.0);
    for (const Variant& variant : {kVariants[1], kVariants[2]}) {
      SCOPED_TRACE(std::string(variant.name) + (cluttered ? ", cluttered" : ", sparse"));
      FieldOptions options;
      options.connectivity = variant.connectivity;
      options.allow_corner_cutting = variant.cutting;
      const std::vector<double> want =
          pathtest::reference_distances(mask, goal, grid_for(options, variant));
      // Stopped at a pixel of about the median cost, then finished.
      std::vector<double> costs;
      for (const double d : want) {
        if (d != kNoPath) costs.push_back(d);
      }
      ASSERT_GT(costs.size(), 500000U);
      std::nth_element(costs.begin(), costs.begin() + costs.size() / 2, costs.end());
      const double median = costs[costs.size() / 2];
      Point stop = goal;
      for (std::size_t i = 0; i < want.size(); ++i) {
        if (want[i] == median) {
          stop = {static_cast<std::int32_t>(i % 1100), static_cast<std::int32_t>(i / 1100)};
        }
      }
      FieldBuilder builder(mask, goal, options);
      ASSERT_TRUE(builder.run_until_settled(stop));
      const std::size_t settled = expect_partial_field_matches(mask, builder, want, median);
      ASSERT_FALSE(HasFailure());
      EXPECT_GE(settled, costs.size() / 2);
      expect_field_matches(mask, builder.take(), want);
    }
  }
}

// Costs past 16 bits on a mask that is not cluttered (the branching loops;
// the spiral above takes the branch-free ones): a serpentine of full-width
// corridors joined by one-pixel gaps at alternate ends, about 66,000 steps
// long. Four-connected distances widen to 32 bits, octile keys to 64.
TEST(FieldOptions, LongSerpentineOverflowsSixteenBits) {
  constexpr std::uint32_t kWidth = 600;
  constexpr std::uint32_t kHeight = 221;
  std::vector<std::uint8_t> areas(kWidth * kHeight, 1);
  for (std::uint32_t y = 1; y < kHeight; y += 2) {
    const std::uint32_t gap = (y / 2) % 2 == 0 ? kWidth - 1 : 0;
    for (std::uint32_t x = 0; x < kWidth; ++x) areas[y * kWidth + x] = x == gap ? 1 : 0;
  }
  const Mask mask(kWidth, kHeight, std::move(areas));
  ASSERT_LT(mask.row_boundaries(), 200U);  // not cluttered: 110 among 66,710 walkable pixels
  const Point goal{0, 0};
  for (const Variant& variant : kVariants) {
    SCOPED_TRACE(variant.name);
    FieldOptions options;
    options.connectivity = variant.connectivity;
    options.allow_corner_cutting = variant.cutting;
    const std::vector<double> want =
        pathtest::reference_distances(mask, goal, grid_for(options, variant));
    ASSERT_GT(*std::max_element(want.begin(), want.end(),
                                [](double a, double b) {
                                  return (a == kNoPath ? -1 : a) < (b == kNoPath ? -1 : b);
                                }),
              65535);
    const DistanceField field = compute_distance_field(mask, goal, options);
    EXPECT_EQ(field.bytes_per_pixel(), variant.connectivity == Connectivity::kFour ? 4U : 8U);
    expect_field_matches(mask, field, want);
  }
}

// An open mask with the given rectangles [x0, x1) x [y0, y1) blocked.
Mask with_rectangles(std::uint32_t width, std::uint32_t height,
                     const std::vector<std::array<std::uint32_t, 4>>& blocked) {
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 1);
  for (const auto& [x0, y0, x1, y1] : blocked) {
    for (std::uint32_t y = y0; y < std::min(y1, height); ++y) {
      for (std::uint32_t x = x0; x < std::min(x1, width); ++x) areas[y * width + x] = 0;
    }
  }
  return Mask(width, height, std::move(areas));
}

// An unstarted unit-cost eight-connected fill takes raster sweeps on
// obstacle-free ground: open masks of awkward sizes (rows shorter and longer
// than the kernels' eight lanes) and bands split by blocked rows (the other
// bands unreachable). Any row boundary keeps the bucket fill: a few
// rectangles, a few single blocked pixels, long walls. Every field against
// brute force.
TEST(Sweeps, SweptFieldsMatchBruteForce) {
  std::mt19937_64 rng(0x5eed5eed);
  std::vector<std::pair<std::string, Mask>> masks;
  for (const auto& [w, h] : std::vector<std::array<std::uint32_t, 2>>{
           {1, 1}, {1, 9}, {9, 1}, {7, 3}, {8, 8}, {9, 17}, {33, 5}, {64, 40}, {301, 203}}) {
    masks.emplace_back("open " + std::to_string(w) + "x" + std::to_string(h),
                       with_rectangles(w, h, {}));
  }
  masks.emplace_back(
      "rectangles",
      with_rectangles(
          600, 400,
          {{100, 50, 180, 140}, {300, 200, 320, 390}, {420, 30, 560, 60}, {50, 300, 250, 310}}));
  std::vector<std::array<std::uint32_t, 4>> dots;
  for (int i = 0; i < 12; ++i) {
    const auto x = static_cast<std::uint32_t>(rng() % 500);
    const auto y = static_cast<std::uint32_t>(rng() % 300);
    dots.push_back({x, y, x + 1, y + 1});
  }
  masks.emplace_back("dots", with_rectangles(500, 300, dots));
  // Horizontal walls from alternate sides, with a gap at the other end.
  std::vector<std::array<std::uint32_t, 4>> walls;
  for (std::uint32_t y = 40; y < 400; y += 40) {
    walls.push_back(y % 80 == 0 ? std::array<std::uint32_t, 4>{0, y, 380, y + 1}
                                : std::array<std::uint32_t, 4>{20, y, 400, y + 1});
  }
  masks.emplace_back("walls", with_rectangles(400, 400, walls));
  masks.emplace_back("bands", with_rectangles(300, 90, {{0, 20, 300, 21}, {0, 50, 300, 53}}));
  int swept = 0;
  for (const auto& [name, mask] : masks) {
    for (int goal_pick = 0; goal_pick < 2; ++goal_pick) {
      const Point goal = goal_pick == 0 ? random_walkable(rng, mask, kAllAreas, 1.0)
                                        : Point{static_cast<std::int32_t>(mask.width() - 1), 0};
      for (const Variant& variant : {kVariants[1], kVariants[2]}) {
        SCOPED_TRACE(name + ", " + variant.name + ", goal " + text(goal));
        FieldOptions options;
        options.connectivity = variant.connectivity;
        options.allow_corner_cutting = variant.cutting;
        const std::vector<double> want =
            pathtest::reference_distances(mask, goal, grid_for(options, variant));
        FieldBuilder builder(mask, goal, options);
        builder.finish();
        EXPECT_EQ(builder.swept(), mask.row_boundaries() == 0);
        swept += builder.swept() ? 1 : 0;
        expect_field_matches(mask, builder.take(), want);
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_EQ(swept, 40);
}

// Sweeps fill everything at once, so a fill asked for a pixel near the goal
// keeps the bucket queue (and stops early), and one asked for a far pixel
// sweeps; a fill that has started never sweeps. Also: interrupted sweeps
// start over, and costs past the 32-bit words fall back.
TEST(Sweeps, OnlyUnstartedFillsToFarPixelsSweep) {
  const Mask mask = with_rectangles(400, 300, {{0, 200, 400, 202}});
  FieldOptions options;
  options.connectivity = Connectivity::kEight;
  const Point goal{200, 150};
  const std::vector<double> want =
      pathtest::reference_distances(mask, goal, grid_for(options, kVariants[1]));
  {
    FieldBuilder builder(mask, goal, options);
    ASSERT_TRUE(builder.run_until_settled({210, 155}));
    EXPECT_FALSE(builder.swept());
    EXPECT_FALSE(builder.finished());
    ASSERT_TRUE(builder.run_until_settled({0, 0}));
    builder.finish();
    EXPECT_FALSE(builder.swept());
    expect_field_matches(mask, builder.take(), want);
  }
  {
    FieldBuilder builder(mask, goal, options);
    ASSERT_TRUE(builder.run_until_settled({0, 0}));
    EXPECT_TRUE(builder.swept());
    EXPECT_TRUE(builder.field().reachable({399, 199}));
    EXPECT_FALSE(builder.field().reachable({399, 299}));
    expect_field_matches(mask, builder.take(), want);
  }
  {
    FieldBuilder builder(mask, goal, options);
    int checks = 0;
    builder.set_interrupt([&] { return ++checks == 3; });
    EXPECT_THROW(builder.finish(), Interrupted);
    EXPECT_FALSE(builder.finished());
    builder.finish();
    EXPECT_TRUE(builder.swept());
    EXPECT_GT(checks, 3);
    expect_field_matches(mask, builder.take(), want);
  }
  {
    // Straight parts past 0x7FFF: no 32-bit words, so the bucket fill, which widens.
    const Mask long_mask = with_rectangles(40000, 2, {});
    const std::vector<double> long_want =
        pathtest::reference_distances(long_mask, {0, 0}, grid_for(options, kVariants[1]));
    FieldBuilder builder(long_mask, {0, 0}, options);
    builder.finish();
    EXPECT_FALSE(builder.swept());
    expect_field_matches(long_mask, builder.take(), long_want);
  }
}

TEST(FieldOptions, OpenFieldsAreOctileAndCompact) {
  const Mask mask(300, 200, std::vector<std::uint8_t>(300 * 200, 1));
  FieldOptions options;
  options.connectivity = Connectivity::kEight;
  const Point goal{123, 45};
  const DistanceField field = compute_distance_field(mask, goal, options);
  EXPECT_EQ(field.bytes_per_pixel(), 4U);
  EXPECT_LE(field.memory_bytes(), 302 * 202 * 4 + 1024);  // with its one-pixel border
  for (std::int32_t y = 0; y < 200; ++y) {
    for (std::int32_t x = 0; x < 300; ++x) {
      const std::uint32_t dx = static_cast<std::uint32_t>(std::abs(x - goal.x));
      const std::uint32_t dy = static_cast<std::uint32_t>(std::abs(y - goal.y));
      const GridCost want{std::max(dx, dy) - std::min(dx, dy), std::min(dx, dy)};
      ASSERT_EQ(field.exact({x, y}), want) << x << "," << y;
    }
  }
  const DistanceField four = compute_distance_field(mask, goal, FieldOptions{});
  EXPECT_EQ(four.bytes_per_pixel(), 2U);
  // The one-pixel border of the working grid is kept: 2 bytes per pixel plus 0.7%.
  EXPECT_LE(four.memory_bytes(), 302 * 202 * 2 + 1024);
}

TEST(FieldOptions, SmallCases) {
  for (const Variant& variant : kVariants) {
    FindPathOptions options;
    options.field.connectivity = variant.connectivity;
    options.field.allow_corner_cutting = variant.cutting;
    options.field.area_costs[1] = 7;
    for (const Smoothing smoothing :
         {Smoothing::kNone, Smoothing::kSimplify, Smoothing::kBeautify}) {
      options.smoothing = smoothing;
      // 1x1 masks: start = goal.
      const PathResult one = find_path(Mask(1, 1, {1}), {0, 0}, {0, 0}, options);
      EXPECT_TRUE(one.found);
      EXPECT_EQ(one.points, (Path{{0, 0}}));
      EXPECT_EQ(one.cost, 0.0);
      EXPECT_FALSE(find_path(Mask(1, 1, {0}), {0, 0}, {0, 0}, options).found);
      // Goal on the border and in the corner.
      const Mask room(6, 4, std::vector<std::uint8_t>(24, 1));
      const PathResult corner = find_path(room, {2, 1}, {5, 3}, options);
      ASSERT_TRUE(corner.found);
      EXPECT_EQ(corner.points.back(), (Point{5, 3}));
      if (smoothing == Smoothing::kNone) {
        EXPECT_DOUBLE_EQ(corner.cost, variant.connectivity == Connectivity::kFour
                                          ? 7.0 * 5
                                          : 7.0 * (1 + 2 * std::sqrt(2.0)));
      }
    }
  }
}

TEST(FieldOptions, AreasSwitchedOnAndOffWithCosts) {
  // Two rooms of area 1 joined by a cheap door (area 2, top) and a dear one
  // (area 3, bottom).
  const Mask mask(7, 4, {1, 1, 1, 2, 1, 1, 1,  //
                         1, 1, 1, 0, 1, 1, 1,  //
                         1, 1, 1, 0, 1, 1, 1,  //
                         1, 1, 1, 3, 1, 1, 1});
  const AreaSet one = AreaSet{1} << 1;
  const AreaSet two = AreaSet{1} << 2;
  const AreaSet three = AreaSet{1} << 3;
  for (const Variant& variant : kVariants) {
    FindPathOptions options;
    options.field.connectivity = variant.connectivity;
    options.field.allow_corner_cutting = variant.cutting;
    options.field.area_costs[2] = 3;
    options.field.area_costs[3] = 50;
    options.smoothing = Smoothing::kNone;
    const Point start{0, 2};
    const Point goal{6, 2};
    options.field.enabled = one;
    EXPECT_FALSE(find_path(mask, start, goal, options).found) << variant.name;
    options.field.enabled = one | three;
    const PathResult dear = find_path(mask, start, goal, options);
    ASSERT_TRUE(dear.found);
    EXPECT_NE(std::find(dear.points.begin(), dear.points.end(), Point{3, 3}), dear.points.end());
    options.field.enabled = one | two | three;
    const PathResult cheap = find_path(mask, start, goal, options);
    ASSERT_TRUE(cheap.found);
    EXPECT_NE(std::find(cheap.points.begin(), cheap.points.end(), Point{3, 0}), cheap.points.end());
    EXPECT_LT(cheap.cost, dear.cost);
    pathtest::ReferenceGrid grid = grid_for(normalized(options.field), variant);
    EXPECT_TRUE(
        close(cheap.cost, pathtest::reference_distances(mask, goal, grid)[mask.index(start)]));
  }
}

TEST(FieldOptions, NormalizedOptionsIgnoreCostsOfAreasNotEnabled) {
  FieldOptions options;
  options.enabled = (AreaSet{1} << 1) | (AreaSet{1} << 2);
  options.area_costs[2] = 5;
  options.area_costs[7] = 9;   // area 7 is not enabled: its cost never counts
  options.area_costs[1] = 0;   // 0 reads as 1
  const FieldOptions normal = normalized(options);
  EXPECT_EQ(normal.area_costs[1], 1U);
  EXPECT_EQ(normal.area_costs[2], 5U);
  EXPECT_EQ(normal.area_costs[7], 1U);
  FieldOptions without_seven = options;
  without_seven.area_costs[7] = 1;
  EXPECT_EQ(normalized(without_seven).area_costs, normal.area_costs);
}

}  // namespace
}  // namespace pathcore
