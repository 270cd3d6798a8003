#include "pathcore/path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pathcore/clearance.h"
#include "pathcore/distance_field.h"
#include "support/invariants.h"
#include "support/random_mask.h"
#include "support/reference.h"
#include "support/text_mask.h"

namespace pathcore {
namespace {

using pathtest::kNoPath;

constexpr std::array<Smoothing, 3> kAllSmoothing = {Smoothing::kNone, Smoothing::kSimplify,
                                                    Smoothing::kBeautify};

const char* name_of(Smoothing smoothing) {
  switch (smoothing) {
    case Smoothing::kNone:
      return "none";
    case Smoothing::kSimplify:
      return "simplify";
    case Smoothing::kBeautify:
      return "beautify";
  }
  return "?";
}

FindPathOptions options_for(Smoothing smoothing, AreaSet enabled = kAllAreas) {
  FindPathOptions options;
  options.field.enabled = enabled;
  options.field.connectivity = Connectivity::kFour;
  options.smoothing = smoothing;
  return options;
}

Mask open_mask(std::uint32_t width, std::uint32_t height) {
  return Mask(width, height, std::vector<std::uint8_t>(std::size_t{width} * height, 1));
}

// Blocks the pixels of [x0, x1] x [y0, y1] (inclusive).
Mask with_block(const Mask& mask, std::int32_t x0, std::int32_t y0, std::int32_t x1,
                std::int32_t y1) {
  std::vector<std::uint8_t> areas = mask.areas();
  for (std::int32_t y = y0; y <= y1; ++y) {
    for (std::int32_t x = x0; x <= x1; ++x) {
      areas[mask.index({x, y})] = 0;
    }
  }
  return Mask(mask.width(), mask.height(), std::move(areas));
}

using pathtest::euclidean_length;
using pathtest::text;

AreaSet random_enabled(std::mt19937_64& rng, int area_count) {
  if (std::bernoulli_distribution(0.3)(rng)) {
    return effective_areas(0);
  }
  std::uniform_int_distribution<std::uint64_t> bits(0, (std::uint64_t{1} << (area_count + 1)) - 1);
  return effective_areas(bits(rng));
}

// A walkable pixel most of the time, so most requests have an answer.
Point random_endpoint(std::mt19937_64& rng, const Mask& mask, AreaSet enabled) {
  Point p = pathtest::random_point(rng, mask);
  if (std::bernoulli_distribution(0.9)(rng)) {
    for (int attempt = 0; attempt < 64 && !mask.walkable(p, enabled); ++attempt) {
      p = pathtest::random_point(rng, mask);
    }
  }
  return p;
}

// Each segment walkable per the reference Bresenham, and per the reference
// supercover when corners may not be cut (always with four-connectivity).
void expect_segments_walkable(const Mask& mask, AreaSet enabled, const Path& path, LineRule rule) {
  for (std::size_t i = 1; i < path.size(); ++i) {
    EXPECT_TRUE(pathtest::reference_bresenham_walkable(mask, enabled, path[i - 1], path[i]))
        << "segment " << text(path[i - 1]) << "-" << text(path[i]) << " of " << text(path);
    if (rule == LineRule::kNoCornerCutting) {
      EXPECT_TRUE(pathtest::reference_supercover_walkable(mask, enabled, path[i - 1], path[i]))
          << "segment " << text(path[i - 1]) << "-" << text(path[i]) << " squeezes, in "
          << text(path);
    }
  }
}

// b lies on a straight run a -> c in the same direction.
bool same_direction(Point a, Point b, Point c) {
  const std::int64_t ux = b.x - a.x;
  const std::int64_t uy = b.y - a.y;
  const std::int64_t vx = c.x - b.x;
  const std::int64_t vy = c.y - b.y;
  return ux * vy == uy * vx && ux * vx + uy * vy > 0;
}

// All the invariants of one answer, against the reference distances to goal
// (pathtest::path_answer_problem), plus what unit costs and four-connectivity add.
void check_answer(const Mask& mask, Point start, Point goal, const FindPathOptions& options,
                  const std::vector<double>& reference, const PathResult& result) {
  ASSERT_EQ(pathtest::path_answer_problem(mask, start, goal, options, reference, result), "");
  if (!result.found) {
    return;
  }
  const Path& points = result.points;
  const double grid_distance = reference[mask.index(start)];
  if (options.smoothing == Smoothing::kNone) {
    EXPECT_EQ(static_cast<double>(points.size() - 1), grid_distance);
    return;
  }
  // The raw grid path's Euclidean length is the grid distance (unit steps).
  EXPECT_LE(result.length, grid_distance + 1e-9) << text(points);
  if (options.smoothing == Smoothing::kSimplify) {
    for (std::size_t i = 2; i < points.size(); ++i) {
      EXPECT_FALSE(same_direction(points[i - 2], points[i - 1], points[i]))
          << "straight run kept at " << i - 1 << " of " << text(points);
    }
  }
}

// ---------------------------------------------------------------- segments

TEST(Segment, BresenhamLineFollowsTheDocumentedRounding) {
  // By hand: the minor coordinate is the rounded line; an exact half rounds
  // away from the lexicographically smaller endpoint.
  EXPECT_EQ(bresenham_line({0, 0}, {0, 0}), (Path{{0, 0}}));
  EXPECT_EQ(bresenham_line({0, 0}, {3, 0}), (Path{{0, 0}, {1, 0}, {2, 0}, {3, 0}}));
  EXPECT_EQ(bresenham_line({2, 5}, {2, 3}), (Path{{2, 5}, {2, 4}, {2, 3}}));
  EXPECT_EQ(bresenham_line({0, 0}, {2, 2}), (Path{{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_EQ(bresenham_line({0, 0}, {2, 1}), (Path{{0, 0}, {1, 1}, {2, 1}}));
  EXPECT_EQ(bresenham_line({2, 1}, {0, 0}), (Path{{2, 1}, {1, 1}, {0, 0}}));
  EXPECT_EQ(bresenham_line({0, 0}, {3, 1}), (Path{{0, 0}, {1, 0}, {2, 1}, {3, 1}}));
  EXPECT_EQ(bresenham_line({0, 0}, {2, -1}), (Path{{0, 0}, {1, -1}, {2, -1}}));
}

TEST(Segment, BresenhamLineMatchesTheReferenceBothWays) {
  std::mt19937_64 rng(0x5eed0002);
  std::uniform_int_distribution<std::int32_t> near(-40, 40);
  std::uniform_int_distribution<std::int32_t> far(-5000, 5000);
  for (int round = 0; round < 20000; ++round) {
    auto& coordinate = round % 10 == 0 ? far : near;
    const Point a{coordinate(rng), coordinate(rng)};
    const Point b{coordinate(rng), coordinate(rng)};
    const Path forward = bresenham_line(a, b);
    ASSERT_EQ(forward, pathtest::reference_bresenham(a, b)) << text(a) << "-" << text(b);
    Path backward = bresenham_line(b, a);
    std::reverse(backward.begin(), backward.end());
    ASSERT_EQ(forward, backward) << text(a) << "-" << text(b);
  }
}

TEST(Segment, DiagonalSqueezeNeedsCornerCutting) {
  const Mask mask = pathtest::mask_from_rows({
      ".#",
      "#.",
  });
  EXPECT_TRUE(segment_walkable(mask, kAllAreas, {0, 0}, {1, 1}, LineRule::kBresenham));
  EXPECT_FALSE(segment_walkable(mask, kAllAreas, {0, 0}, {1, 1}, LineRule::kNoCornerCutting));
  EXPECT_FALSE(segment_walkable(mask, kAllAreas, {1, 1}, {0, 0}, LineRule::kNoCornerCutting));
}

TEST(Segment, TouchingOneBlockedCornerIsCuttingIt) {
  // (0,0)-(2,2) passes exactly through the corner shared with (1,0).
  const Mask mask = pathtest::mask_from_rows({
      ".#.",
      "...",
      "...",
  });
  EXPECT_TRUE(segment_walkable(mask, kAllAreas, {0, 0}, {2, 2}, LineRule::kBresenham));
  EXPECT_FALSE(segment_walkable(mask, kAllAreas, {0, 0}, {2, 2}, LineRule::kNoCornerCutting));
  // (0,1)-(2,2) passes below that pixel's square without touching it.
  EXPECT_TRUE(segment_walkable(mask, kAllAreas, {0, 1}, {2, 2}, LineRule::kNoCornerCutting));
}

TEST(Segment, CrossingBetweenTwoRowsTouchesBoth) {
  // (0,0)-(4,1) crosses the border between rows 0 and 1 at x = 2, between
  // the squares of (2,0) and (2,1): both are touched; (3,0) and (1,1) are not.
  const Mask blocked_below = pathtest::mask_from_rows({
      ".....",
      "..#..",
  });
  EXPECT_FALSE(
      segment_walkable(blocked_below, kAllAreas, {0, 0}, {4, 1}, LineRule::kNoCornerCutting));
  const Mask blocked_beside = pathtest::mask_from_rows({
      "...#.",
      ".#...",
  });
  EXPECT_TRUE(
      segment_walkable(blocked_beside, kAllAreas, {0, 0}, {4, 1}, LineRule::kNoCornerCutting));
}

TEST(Segment, EndpointsMustBeWalkableAndInside) {
  const Mask mask = pathtest::mask_from_rows({
      "..#",
      "..2",
  });
  for (const LineRule rule : {LineRule::kBresenham, LineRule::kNoCornerCutting}) {
    EXPECT_TRUE(segment_walkable(mask, kAllAreas, {0, 0}, {0, 0}, rule));
    EXPECT_FALSE(segment_walkable(mask, kAllAreas, {0, 0}, {2, 0}, rule));
    EXPECT_FALSE(segment_walkable(mask, kAllAreas, {0, 0}, {3, 0}, rule));
    EXPECT_FALSE(segment_walkable(mask, kAllAreas, {-1, 0}, {0, 0}, rule));
    EXPECT_TRUE(segment_walkable(mask, kAllAreas, {0, 1}, {2, 1}, rule));
    EXPECT_FALSE(segment_walkable(mask, AreaSet{1} << 1, {0, 1}, {2, 1}, rule));
  }
}

TEST(Segment, MatchesTheReferenceAndIsSymmetricOnRandomMasks) {
  std::mt19937_64 rng(0x5eed0003);
  std::uniform_int_distribution<std::uint32_t> size(1, 40);
  std::uniform_real_distribution<double> obstacles(0.0, 0.3);
  int walkable_squeeze_free = 0;
  int walkable_bresenham = 0;
  for (int round = 0; round < 400; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 2);
    const AreaSet enabled = random_enabled(rng, 2);
    for (int pair = 0; pair < 25; ++pair) {
      const Point a = random_endpoint(rng, mask, enabled);
      const Point b = random_endpoint(rng, mask, enabled);
      const bool bresenham = segment_walkable(mask, enabled, a, b, LineRule::kBresenham);
      const bool no_squeeze = segment_walkable(mask, enabled, a, b, LineRule::kNoCornerCutting);
      ASSERT_EQ(bresenham, pathtest::reference_bresenham_walkable(mask, enabled, a, b))
          << text(a) << "-" << text(b);
      ASSERT_EQ(no_squeeze, pathtest::reference_supercover_walkable(mask, enabled, a, b))
          << text(a) << "-" << text(b);
      ASSERT_EQ(bresenham, segment_walkable(mask, enabled, b, a, LineRule::kBresenham));
      ASSERT_EQ(no_squeeze, segment_walkable(mask, enabled, b, a, LineRule::kNoCornerCutting));
      // The Bresenham pixels are among the touched ones.
      ASSERT_TRUE(!no_squeeze || bresenham) << text(a) << "-" << text(b);
      walkable_bresenham += bresenham ? 1 : 0;
      walkable_squeeze_free += no_squeeze ? 1 : 0;
    }
  }
  // Both outcomes must be well represented.
  EXPECT_GT(walkable_squeeze_free, 1000);
  EXPECT_LT(walkable_bresenham, 9000);
  EXPECT_GT(walkable_bresenham, walkable_squeeze_free);
}

// ------------------------------------------------------------------- trace

TEST(Trace, IsEmptyWhenTheStartCannotReachTheGoal) {
  const Mask mask = pathtest::mask_from_rows({
      "..#..",
      "..#..",
  });
  const DistanceField field = compute_distance_field(mask, {0, 0}, FieldOptions{});
  EXPECT_TRUE(trace(mask, field, {4, 1}, false).empty());
  EXPECT_TRUE(trace(mask, field, {2, 0}, true).empty());
  EXPECT_EQ(trace(mask, field, {0, 0}, true), (Path{{0, 0}}));
}

TEST(Trace, TakesDiagonalShortcutsOnlyWithBothSidesWalkable) {
  const Mask open = pathtest::mask_from_rows({
      "..",
      "..",
  });
  const DistanceField open_field = compute_distance_field(open, {1, 1}, FieldOptions{});
  EXPECT_EQ(trace(open, open_field, {0, 0}, true), (Path{{0, 0}, {1, 1}}));
  const Path cardinal = trace(open, open_field, {0, 0}, false);
  ASSERT_EQ(cardinal.size(), 3U);

  const Mask corner = pathtest::mask_from_rows({
      ".#",
      "..",
  });
  const DistanceField corner_field = compute_distance_field(corner, {1, 1}, FieldOptions{});
  EXPECT_EQ(trace(corner, corner_field, {0, 0}, true), (Path{{0, 0}, {0, 1}, {1, 1}}));
}

TEST(Trace, RunsStraightInAnOpenRoom) {
  // Any mix of steps is a shortest path here; the trace should look natural:
  // one straight run, one turn, one straight run.
  const Mask room = open_mask(20, 10);
  const DistanceField field = compute_distance_field(room, {15, 4}, FieldOptions{});
  for (const bool shortcuts : {false, true}) {
    for (const Point start : {Point{0, 0}, Point{19, 9}, Point{2, 8}}) {
      const Path path = simplify(trace(room, field, start, shortcuts));
      EXPECT_LE(path.size(), 3U) << text(path);
    }
  }
}

TEST(Trace, FollowsTheFieldDownhillOnRandomMasks) {
  std::mt19937_64 rng(0x5eed0004);
  std::uniform_int_distribution<std::uint32_t> size(1, 48);
  std::uniform_real_distribution<double> obstacles(0.0, 0.5);
  int diagonal_steps = 0;
  for (int round = 0; round < 400; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 1);
    const Point goal = random_endpoint(rng, mask, kAllAreas);
    const DistanceField field = compute_distance_field(mask, goal, FieldOptions{});
    const Point start = random_endpoint(rng, mask, kAllAreas);
    for (const bool shortcuts : {false, true}) {
      const Path path = trace(mask, field, start, shortcuts);
      if (!field.reachable(start)) {
        EXPECT_TRUE(path.empty());
        continue;
      }
      ASSERT_FALSE(path.empty());
      EXPECT_EQ(path.front(), start);
      EXPECT_EQ(path.back(), goal);
      EXPECT_EQ(trace(mask, field, start, shortcuts), path);  // deterministic
      for (std::size_t i = 1; i < path.size(); ++i) {
        const Point a = path[i - 1];
        const Point b = path[i];
        const int dx = b.x - a.x;
        const int dy = b.y - a.y;
        if (std::abs(dx) + std::abs(dy) == 1) {
          EXPECT_EQ(field.at(b) + 1, field.at(a)) << text(path);
        } else {
          ASSERT_TRUE(shortcuts) << text(path);
          ASSERT_TRUE(std::abs(dx) == 1 && std::abs(dy) == 1) << text(path);
          EXPECT_EQ(field.at(b) + 2, field.at(a)) << text(path);
          EXPECT_TRUE(mask.walkable({b.x, a.y}, kAllAreas)) << text(path);
          EXPECT_TRUE(mask.walkable({a.x, b.y}, kAllAreas)) << text(path);
          ++diagonal_steps;
        }
      }
    }
  }
  EXPECT_GT(diagonal_steps, 100);
}

// trace reads unit-cost kFour fields' stored integers directly, others
// through decoded GridCosts. A field with a cost on an area the mask lacks has
// the same costs but is read the general way: both must walk the same steps,
// on finished fields, on fields still being built, and on 4-byte (widened)
// storage.
TEST(Trace, UnitCostFastLoopMatchesTheGeneralLoop) {
  std::mt19937_64 rng(0x5eed0011);
  std::uniform_int_distribution<std::uint32_t> size(1, 60);
  std::uniform_real_distribution<double> obstacles(0.0, 0.45);
  FieldOptions general;
  general.area_costs[5] = 3;  // area 5 never occurs: the same costs
  int compared = 0;
  for (int round = 0; round < 300; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 1);
    const Point goal = random_endpoint(rng, mask, kAllAreas);
    const Point start = random_endpoint(rng, mask, kAllAreas);
    const DistanceField fast = compute_distance_field(mask, goal, FieldOptions{});
    const DistanceField slow = compute_distance_field(mask, goal, general);
    // The same costs in 4 bytes per pixel (the direct reader's other width).
    std::vector<DistanceField::Distance> distances(mask.pixel_count());
    for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
      for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
        distances[mask.index({x, y})] = fast.at({x, y});
      }
    }
    const DistanceField wide(mask.width(), mask.height(), goal, FieldOptions{}, distances);
    FieldBuilder partial(mask, goal, FieldOptions{});
    const bool settled = partial.run_until_settled(start);
    for (const bool shortcuts : {false, true}) {
      const Path expected = trace(mask, slow, start, shortcuts);
      ASSERT_EQ(trace(mask, fast, start, shortcuts), expected) << "round " << round;
      ASSERT_EQ(trace(mask, wide, start, shortcuts), expected) << "round " << round;
      if (settled) {
        ASSERT_EQ(trace(mask, partial.field(), start, shortcuts), expected) << "round " << round;
      }
      compared += expected.empty() ? 0 : 1;
    }
  }
  EXPECT_GT(compared, 300);
}

// ---------------------------------------------------------------- simplify

TEST(Simplify, DropsTheInsideOfStraightRuns) {
  EXPECT_EQ(simplify({}), Path{});
  EXPECT_EQ(simplify({{1, 1}}), (Path{{1, 1}}));
  EXPECT_EQ(simplify({{0, 0}, {1, 0}}), (Path{{0, 0}, {1, 0}}));
  EXPECT_EQ(simplify({{0, 0}, {1, 0}, {2, 0}, {3, 0}}), (Path{{0, 0}, {3, 0}}));
  EXPECT_EQ(simplify({{0, 0}, {1, 1}, {2, 2}, {2, 3}, {2, 4}, {1, 4}}),
            (Path{{0, 0}, {2, 2}, {2, 4}, {1, 4}}));
  // A staircase has no straight run of points.
  const Path stairs = {{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}};
  EXPECT_EQ(simplify(stairs), stairs);
  // Going back on itself is a turn, not a run.
  EXPECT_EQ(simplify({{0, 0}, {2, 0}, {1, 0}}), (Path{{0, 0}, {2, 0}, {1, 0}}));
  // Repeated points go.
  EXPECT_EQ(simplify({{0, 0}, {0, 0}, {1, 0}, {1, 0}, {1, 1}}), (Path{{0, 0}, {1, 0}, {1, 1}}));
}

TEST(Simplify, KeepsTheTracedPathExactly) {
  // Expanding every simplified segment back into unit steps gives the trace.
  std::mt19937_64 rng(0x5eed0005);
  std::uniform_int_distribution<std::uint32_t> size(1, 48);
  for (int round = 0; round < 300; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), 0.3, 1);
    const Point goal = random_endpoint(rng, mask, kAllAreas);
    const DistanceField field = compute_distance_field(mask, goal, FieldOptions{});
    const Path traced = trace(mask, field, random_endpoint(rng, mask, kAllAreas), round % 2 == 0);
    const Path simple = simplify(traced);
    Path expanded;
    for (std::size_t i = 0; i < simple.size(); ++i) {
      if (i == 0) {
        expanded.push_back(simple[0]);
        continue;
      }
      const int dx = simple[i].x - simple[i - 1].x;
      const int dy = simple[i].y - simple[i - 1].y;
      const int steps = std::max(std::abs(dx), std::abs(dy));
      ASSERT_TRUE(dx == 0 || dy == 0 || std::abs(dx) == std::abs(dy)) << text(simple);
      for (int k = 1; k <= steps; ++k) {
        expanded.push_back({simple[i - 1].x + dx / steps * k, simple[i - 1].y + dy / steps * k});
      }
    }
    ASSERT_EQ(expanded, traced);
    for (std::size_t i = 2; i < simple.size(); ++i) {
      EXPECT_FALSE(same_direction(simple[i - 2], simple[i - 1], simple[i])) << text(simple);
    }
  }
}

TEST(Simplify, SmoothingTracesOnlyTheCornersSimplifyKeeps) {
  // path_from_field traces only the points simplify would keep; the answer
  // must be simplify(trace_for_smoothing(...)) in every mode: four and eight
  // connected, corner cutting, area costs, partial fields.
  std::mt19937_64 rng(0x5eed0012);
  std::uniform_int_distribution<std::uint32_t> size(1, 60);
  std::uniform_real_distribution<double> obstacles(0.0, 0.45);
  int compared = 0;
  for (int round = 0; round < 400; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 3);
    const Point goal = random_endpoint(rng, mask, kAllAreas);
    const Point start = random_endpoint(rng, mask, kAllAreas);
    FindPathOptions options;
    options.smoothing = Smoothing::kSimplify;
    options.field.connectivity = round % 2 == 0 ? Connectivity::kFour : Connectivity::kEight;
    options.field.allow_corner_cutting = round % 4 == 3;
    if (round % 3 == 0) {
      options.field.area_costs[2] = 4;
      options.field.area_costs[3] = 9;
    }
    const DistanceField field = compute_distance_field(mask, goal, options.field);
    const Path expected = simplify(trace_for_smoothing(mask, field, start));
    ASSERT_EQ(path_from_field(mask, field, start, options).points, expected) << "round " << round;
    FieldBuilder partial(mask, goal, options.field);
    if (partial.run_until_settled(start)) {
      ASSERT_EQ(path_from_field(mask, partial.field(), start, options).points, expected)
          << "round " << round;
    }
    compared += expected.size() > 2 ? 1 : 0;
  }
  EXPECT_GT(compared, 150);
}

// ---------------------------------------------------------------- beautify

TEST(Beautify, NeverLongerNorThroughWallsOnRandomMasks) {
  std::mt19937_64 rng(0x5eed0006);
  std::uniform_int_distribution<std::uint32_t> size(2, 48);
  std::uniform_real_distribution<double> obstacles(0.0, 0.45);
  int shortened = 0;
  for (int round = 0; round < 600; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 1);
    const Point goal = random_endpoint(rng, mask, kAllAreas);
    const DistanceField field = compute_distance_field(mask, goal, FieldOptions{});
    const Path input = simplify(trace(mask, field, random_endpoint(rng, mask, kAllAreas), true));
    for (const LineRule rule : {LineRule::kNoCornerCutting, LineRule::kBresenham}) {
      const Path output = beautify(input, mask, kAllAreas, rule);
      if (input.empty()) {
        EXPECT_TRUE(output.empty());
        continue;
      }
      ASSERT_FALSE(output.empty());
      EXPECT_EQ(output.front(), input.front());
      EXPECT_EQ(output.back(), input.back());
      EXPECT_LE(euclidean_length(output), euclidean_length(input) + 1e-9);
      expect_segments_walkable(mask, kAllAreas, output, rule);
      EXPECT_EQ(beautify(input, mask, kAllAreas, rule), output);  // deterministic
      shortened += euclidean_length(output) < euclidean_length(input) - 1e-6 ? 1 : 0;
    }
  }
  EXPECT_GT(shortened, 300);
}

// Long paths through dense scattered clutter (simplified legs averaging under
// 3 steps) get beautify's lighter search; its guarantees stay: endpoints
// kept, never longer, every segment walkable per the rule, the same answer
// with the clearance map.
TEST(Beautify, DenseClutterKeepsTheGuarantees) {
  std::mt19937_64 rng(0x5eed0026);
  int cluttered = 0;
  for (int round = 0; round < 40; ++round) {
    const Mask mask = pathtest::random_mask(rng, 160, 120, round % 2 == 0 ? 0.3 : 0.25, 1);
    const ClearanceMap map(mask, kAllAreas);
    const Point goal = random_endpoint(rng, mask, kAllAreas);
    FieldOptions options;
    options.connectivity = round % 4 < 2 ? Connectivity::kFour : Connectivity::kEight;
    const DistanceField field = compute_distance_field(mask, goal, options);
    const Path input = simplify(trace(mask, field, random_endpoint(rng, mask, kAllAreas), true));
    if (input.size() < 18) {
      continue;
    }
    double steps = 0;
    for (std::size_t i = 1; i < input.size(); ++i) {
      steps +=
          std::max(std::abs(input[i].x - input[i - 1].x), std::abs(input[i].y - input[i - 1].y));
    }
    cluttered += steps < 3.0 * static_cast<double>(input.size() - 1) ? 1 : 0;
    for (const LineRule rule : {LineRule::kNoCornerCutting, LineRule::kBresenham}) {
      const Path output = beautify(input, mask, kAllAreas, rule);
      ASSERT_FALSE(output.empty());
      EXPECT_EQ(output.front(), input.front());
      EXPECT_EQ(output.back(), input.back());
      EXPECT_LE(euclidean_length(output), euclidean_length(input) + 1e-9);
      expect_segments_walkable(mask, kAllAreas, output, rule);
      EXPECT_EQ(beautify(input, mask, kAllAreas, rule, unit_area_costs(), &map), output) << round;
    }
  }
  EXPECT_GT(cluttered, 20);  // the lighter search ran
}

// A random mask of two areas (sides min_side..max_side, up to max_obstacles
// blocked), area 2 dearer (cost 2..9) every third round, four- or
// eight-connected by turns, and the field toward a random goal: what the
// scratch tests below smooth traced paths on.
struct SmoothingCase {
  Mask mask;
  AreaCosts costs;
  DistanceField field;
};
SmoothingCase random_smoothing_case(std::mt19937_64& rng, int round, std::uint32_t min_side,
                                    std::uint32_t max_side, double max_obstacles) {
  std::uniform_int_distribution<std::uint32_t> size(min_side, max_side);
  std::uniform_real_distribution<double> obstacles(0.0, max_obstacles);
  std::uniform_int_distribution<int> cost(2, 9);
  Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 2);
  const Point goal = random_endpoint(rng, mask, kAllAreas);
  AreaCosts costs = unit_area_costs();
  if (round % 3 == 0) costs[2] = static_cast<std::uint8_t>(cost(rng));
  FieldOptions options;
  options.connectivity = round % 2 == 0 ? Connectivity::kFour : Connectivity::kEight;
  options.area_costs = costs;
  DistanceField field = compute_distance_field(mask, goal, options);
  return {std::move(mask), costs, std::move(field)};
}

// One SmoothingScratch reused across masks, sizes, rules, weights and the
// clearance map gives exactly the answers of calls without one: nothing a
// call leaves in it changes a later answer.
TEST(Beautify, AReusedScratchChangesNoAnswer) {
  std::mt19937_64 rng(0x5eed0016);
  SmoothingScratch scratch;
  for (int round = 0; round < 300; ++round) {
    const auto [mask, costs, field] = random_smoothing_case(rng, round, 2, 160, 0.4);
    const Path input = simplify(trace(mask, field, random_endpoint(rng, mask, kAllAreas), true));
    const ClearanceMap map(mask, kAllAreas);
    for (const LineRule rule : {LineRule::kNoCornerCutting, LineRule::kBresenham}) {
      const Path alone = beautify(input, mask, kAllAreas, rule, costs);
      EXPECT_EQ(beautify(input, mask, kAllAreas, rule, costs, nullptr, &scratch), alone) << round;
      EXPECT_EQ(beautify(input, mask, kAllAreas, rule, costs, &map, &scratch), alone) << round;
    }
  }
}

// A scratch that remembers corners across calls (as BatchFindPaths does for
// the paths of one batch: one mask and options, many starts to one goal,
// whose paths merge and so share corners) gives exactly the answers of calls
// without it, on every mask, rule, weighting and with or without the
// clearance map; forget_corners() empties it for the next mask.
TEST(Beautify, RememberingCornersAcrossCallsChangesNoAnswer) {
  std::mt19937_64 rng(0x5eed0023);
  SmoothingScratch scratch;
  int remembered = 0;
  for (int round = 0; round < 120; ++round) {
    const auto [mask, costs, field] = random_smoothing_case(rng, round, 8, 120, 0.35);
    const ClearanceMap map(mask, kAllAreas);
    const LineRule rule = round % 4 < 2 ? LineRule::kNoCornerCutting : LineRule::kBresenham;
    const ClearanceMap* clearance = round % 5 < 3 ? &map : nullptr;
    scratch.remember_corners();
    for (int start = 0; start < 30; ++start) {
      const Path input = simplify(trace(mask, field, random_endpoint(rng, mask, kAllAreas), true));
      EXPECT_EQ(beautify(input, mask, kAllAreas, rule, costs, clearance, &scratch),
                beautify(input, mask, kAllAreas, rule, costs, clearance))
          << round << " start " << start;
    }
    remembered += scratch.remembered_bytes() > 0 ? 1 : 0;
    scratch.forget_corners();
    EXPECT_EQ(scratch.remembered_bytes(), 0U);
  }
  EXPECT_GT(remembered, 60);  // most rounds had corners to remember
}

TEST(Beautify, LeavesShortPathsAlone) {
  const Mask mask = open_mask(5, 5);
  EXPECT_EQ(beautify({}, mask, kAllAreas, LineRule::kNoCornerCutting), Path{});
  EXPECT_EQ(beautify({{1, 1}}, mask, kAllAreas, LineRule::kNoCornerCutting), (Path{{1, 1}}));
  EXPECT_EQ(beautify({{0, 0}, {4, 3}}, mask, kAllAreas, LineRule::kNoCornerCutting),
            (Path{{0, 0}, {4, 3}}));
  EXPECT_EQ(beautify({{0, 0}, {4, 0}, {4, 3}}, mask, kAllAreas, LineRule::kNoCornerCutting),
            (Path{{0, 0}, {4, 3}}));
}

// Shortest path from s to g around one axis-aligned blocked rectangle of
// pixel squares [x0 - 1/2, x1 + 1/2] x [y0 - 1/2, y1 + 1/2], by hand: when the
// beeline is blocked it wraps over the top or the bottom, touching the two
// corners on that side (s and g face the rectangle's left and right sides).
double around_pillar(Point s, Point g, double x0, double y0, double x1, double y1) {
  if (s.x > g.x) {
    std::swap(s, g);  // s on the left
  }
  const double left = x0 - 0.5;
  const double right = x1 + 0.5;
  const auto via = [&](double y) {
    return std::hypot(left - s.x, y - s.y) + (right - left) + std::hypot(g.x - right, g.y - y);
  };
  return std::min(via(y0 - 0.5), via(y1 + 0.5));
}

TEST(Beautify, WrapsTightlyAroundAPillar) {
  const Mask room = with_block(open_mask(61, 31), 27, 12, 33, 18);  // 7x7 pillar
  for (const auto& [start, goal] : std::vector<std::pair<Point, Point>>{
           {{2, 15}, {58, 15}}, {{3, 13}, {57, 17}}, {{1, 16}, {50, 12}}, {{58, 15}, {2, 15}}}) {
    const PathResult result = find_path(room, start, goal, options_for(Smoothing::kBeautify));
    ASSERT_TRUE(result.found);
    const double shortest = around_pillar(start, goal, 27, 12, 33, 18);
    // The geometric optimum touches the pillar; pixel paths keep off it.
    EXPECT_GT(result.length, shortest);
    EXPECT_LT(result.length, shortest * 1.01) << text(result.points);
    expect_segments_walkable(room, kAllAreas, result.points, LineRule::kNoCornerCutting);
  }
}

TEST(Beautify, CutsTheInnerCornerOfAnLCorridor) {
  // An L of walkable pixels: the top arm is rows 0..9, the right arm
  // columns 30..39. The inner corner of the L is the pixel corner (29.5, 9.5).
  std::vector<std::uint8_t> areas(40 * 40, 0);
  for (std::int32_t y = 0; y < 40; ++y) {
    for (std::int32_t x = 0; x < 40; ++x) {
      areas[static_cast<std::size_t>(y) * 40 + static_cast<std::size_t>(x)] =
          y <= 9 || x >= 30 ? 1 : 0;
    }
  }
  const Mask corridor(40, 40, std::move(areas));
  const auto via_corner = [](Point s, Point g) {
    return std::hypot(29.5 - s.x, 9.5 - s.y) + std::hypot(g.x - 29.5, g.y - 9.5);
  };
  for (const auto& [start, goal] : std::vector<std::pair<Point, Point>>{
           {{2, 5}, {35, 37}}, {{35, 37}, {2, 5}}, {{0, 9}, {30, 39}}, {{5, 1}, {38, 30}}}) {
    const PathResult result = find_path(corridor, start, goal, options_for(Smoothing::kBeautify));
    ASSERT_TRUE(result.found);
    const double shortest = via_corner(start, goal);
    EXPECT_GT(result.length, shortest);
    EXPECT_LT(result.length, shortest * 1.02) << text(result.points);
    expect_segments_walkable(corridor, kAllAreas, result.points, LineRule::kNoCornerCutting);
  }
}

// ---------------------------------------------------------------- find_path

TEST(PathInvariants, HoldOnRandomMasksForEverySmoothing) {
  std::mt19937_64 rng(0x5eed0007);
  std::uniform_int_distribution<std::uint32_t> size(1, 48);
  std::uniform_real_distribution<double> obstacles(0.0, 0.6);
  std::uniform_int_distribution<int> areas(1, 4);
  int found = 0;
  int not_found = 0;
  for (int round = 0; round < 3000; ++round) {
    const int area_count = areas(rng);
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), area_count);
    const AreaSet enabled = random_enabled(rng, area_count);
    const Point start = random_endpoint(rng, mask, enabled);
    const Point goal = random_endpoint(rng, mask, enabled);
    pathtest::ReferenceGrid grid;
    grid.enabled = enabled;
    const std::vector<double> reference = pathtest::reference_distances(mask, goal, grid);
    for (const Smoothing smoothing : kAllSmoothing) {
      SCOPED_TRACE("round " + std::to_string(round) + " " + name_of(smoothing) + " " + text(start) +
                   "->" + text(goal));
      const FindPathOptions options = options_for(smoothing, enabled);
      const PathResult result = find_path(mask, start, goal, options);
      check_answer(mask, start, goal, options, reference, result);
      const PathResult again = find_path(mask, start, goal, options);
      EXPECT_EQ(again.points, result.points);
      EXPECT_EQ(again.length, result.length);
      EXPECT_EQ(again.cost, result.cost);
      if (HasFailure()) {
        return;
      }
      (result.found ? found : not_found) += 1;
    }
  }
  EXPECT_GT(found, 3000);
  EXPECT_GT(not_found, 1000);
}

TEST(PathInvariants, GoalsOnTheBorder) {
  std::mt19937_64 rng(0x5eed0008);
  std::uniform_int_distribution<std::uint32_t> size(1, 30);
  for (int round = 0; round < 300; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), 0.25, 1);
    const auto w = static_cast<std::int32_t>(mask.width());
    const auto h = static_cast<std::int32_t>(mask.height());
    std::uniform_int_distribution<std::int32_t> along_x(0, w - 1);
    std::uniform_int_distribution<std::int32_t> along_y(0, h - 1);
    const Point goals[] = {
        {0, along_y(rng)}, {w - 1, along_y(rng)}, {along_x(rng), 0}, {along_x(rng), h - 1}, {0, 0},
        {w - 1, h - 1}};
    const Point goal = goals[round % 6];
    const Point start = random_endpoint(rng, mask, kAllAreas);
    const std::vector<double> reference =
        pathtest::reference_distances(mask, goal, pathtest::ReferenceGrid{});
    for (const Smoothing smoothing : kAllSmoothing) {
      SCOPED_TRACE("round " + std::to_string(round) + " " + name_of(smoothing));
      const FindPathOptions options = options_for(smoothing);
      check_answer(mask, start, goal, options, reference, find_path(mask, start, goal, options));
    }
  }
}

TEST(FindPath, StartEqualsGoal) {
  const Mask mask = pathtest::mask_from_rows({
      ".#.",
      "...",
  });
  for (const Smoothing smoothing : kAllSmoothing) {
    const PathResult result = find_path(mask, {2, 0}, {2, 0}, options_for(smoothing));
    EXPECT_TRUE(result.found) << name_of(smoothing);
    EXPECT_EQ(result.points, (Path{{2, 0}}));
    EXPECT_EQ(result.length, 0.0);
    EXPECT_EQ(result.cost, 0.0);
    EXPECT_EQ(result.goal, (Point{2, 0}));
    // Standing on a wall is not a path.
    EXPECT_FALSE(find_path(mask, {1, 0}, {1, 0}, options_for(smoothing)).found);
  }
}

TEST(FindPath, OneByOneMask) {
  const Mask mask(1, 1, {1});
  for (const Smoothing smoothing : kAllSmoothing) {
    const PathResult result = find_path(mask, {0, 0}, {0, 0}, options_for(smoothing));
    EXPECT_TRUE(result.found);
    EXPECT_EQ(result.points, (Path{{0, 0}}));
  }
  EXPECT_FALSE(find_path(Mask(1, 1, {0}), {0, 0}, {0, 0}, options_for(Smoothing::kNone)).found);
}

TEST(FindPath, TakesTheBeelineWhenItIsClear) {
  const Mask room = open_mask(10, 8);
  for (const Smoothing smoothing : {Smoothing::kSimplify, Smoothing::kBeautify}) {
    const auto beeline = beeline_answer(room, {1, 1}, {8, 5}, options_for(smoothing));
    ASSERT_TRUE(beeline.has_value());
    EXPECT_TRUE(beeline->found);
    EXPECT_EQ(beeline->points, (Path{{1, 1}, {8, 5}}));
    EXPECT_DOUBLE_EQ(beeline->length, std::sqrt(7.0 * 7 + 4 * 4));
    EXPECT_EQ(beeline->cost, beeline->length);  // unit costs
    EXPECT_EQ(beeline->grid_cost, 7.0 + 4.0);   // four-connected: Manhattan
    EXPECT_EQ(beeline->goal, (Point{8, 5}));
    const PathResult found = find_path(room, {1, 1}, {8, 5}, options_for(smoothing));
    EXPECT_EQ(found.points, beeline->points);
  }
  // Without smoothing the answer is a grid path, so there is no beeline.
  EXPECT_FALSE(beeline_answer(room, {1, 1}, {8, 5}, options_for(Smoothing::kNone)));
  const PathResult raw = find_path(room, {1, 1}, {8, 5}, options_for(Smoothing::kNone));
  EXPECT_EQ(raw.cost, 11.0);
  EXPECT_EQ(raw.points.size(), 12U);
}

TEST(FindPath, NoBeelineThroughWallsOrFromWalls) {
  const Mask mask = pathtest::mask_from_rows({
      "....",
      ".#..",
      "....",
  });
  const FindPathOptions options = options_for(Smoothing::kBeautify);
  EXPECT_FALSE(beeline_answer(mask, {0, 0}, {2, 2}, options));  // through the wall
  EXPECT_FALSE(beeline_answer(mask, {1, 0}, {2, 1}, options));  // past a corner of the wall
  EXPECT_FALSE(beeline_answer(mask, {1, 1}, {3, 2}, options));  // from a wall
  EXPECT_FALSE(beeline_answer(mask, {3, 2}, {1, 1}, options));  // to a wall
  // Corner cutting is never allowed for four-connected agents.
  FindPathOptions cutting = options;
  cutting.field.allow_corner_cutting = true;
  EXPECT_FALSE(beeline_answer(mask, {1, 0}, {2, 1}, cutting));
  EXPECT_TRUE(beeline_answer(mask, {0, 0}, {3, 0}, cutting));
}

// beeline_ruled_out never rules out a beeline beeline_answer would give
// (a walkable four-connected beeline costs its Manhattan distance), and
// rules most out on cluttered masks; on other fields it rules nothing out.
TEST(FindPath, ABeelineRuledOutByTheFieldIsNeverThere) {
  std::mt19937_64 rng(0x5eed0025);
  int ruled_out = 0;
  int beelines = 0;
  for (int round = 0; round < 200; ++round) {
    const auto [mask, costs, field] = random_smoothing_case(rng, round, 2, 60, 0.4);
    FindPathOptions options;
    options.field = field.options();
    options.smoothing = round % 2 == 0 ? Smoothing::kBeautify : Smoothing::kSimplify;
    const bool unit_four = field.options().connectivity == Connectivity::kFour &&
                           field.options().area_costs == unit_area_costs();
    for (int k = 0; k < 30; ++k) {
      const Point start = pathtest::random_point(rng, mask);
      const bool out = beeline_ruled_out(field, start);
      const bool given = beeline_answer(mask, start, field.goal(), options).has_value();
      if (out) {
        ASSERT_TRUE(unit_four) << "round " << round;
        ASSERT_FALSE(given) << "round " << round << " start " << start.x << "," << start.y;
      }
      ruled_out += out ? 1 : 0;
      beelines += given && unit_four ? 1 : 0;
    }
  }
  EXPECT_GT(ruled_out, 500);
  EXPECT_GT(beelines, 100);  // and beelines there were kept
}

TEST(FindPath, UnreachableGoalIsNotFound) {
  const Mask mask = pathtest::mask_from_rows({
      "..#..",
      "..#..",
  });
  for (const Smoothing smoothing : kAllSmoothing) {
    const PathResult result = find_path(mask, {0, 0}, {4, 1}, options_for(smoothing));
    EXPECT_FALSE(result.found);
    EXPECT_TRUE(result.points.empty());
    EXPECT_EQ(result.length, 0.0);
    EXPECT_EQ(result.goal, (Point{4, 1}));
  }
}

TEST(FindPath, AreasSwitchDoorsOnAndOff) {
  // Two rooms of area 1; the only doors are area 2 (top) and area 3 (bottom).
  const Mask mask = pathtest::mask_from_rows({
      "...2...",
      "...#...",
      "...#...",
      "...3...",
  });
  const Point start{0, 1};
  const Point goal{6, 2};
  const AreaSet one = AreaSet{1} << 1;
  const AreaSet two = AreaSet{1} << 2;
  const AreaSet three = AreaSet{1} << 3;
  for (const Smoothing smoothing : kAllSmoothing) {
    EXPECT_FALSE(find_path(mask, start, goal, options_for(smoothing, one)).found);
    EXPECT_FALSE(find_path(mask, start, goal, options_for(smoothing, two | three)).found);
    for (const AreaSet door : {two, three}) {
      const PathResult result = find_path(mask, start, goal, options_for(smoothing, one | door));
      ASSERT_TRUE(result.found);
      const Point door_pixel{3, door == two ? 0 : 3};
      bool through_door = false;
      for (std::size_t i = 1; i < result.points.size(); ++i) {
        const Path touched = pathtest::reference_supercover(result.points[i - 1], result.points[i]);
        through_door |= std::find(touched.begin(), touched.end(), door_pixel) != touched.end();
      }
      EXPECT_TRUE(through_door) << text(result.points);
      if (smoothing == Smoothing::kNone) {
        EXPECT_EQ(result.cost, 9.0);  // 3 + 1 to the door, 3 + 2 on (either door)
      }
    }
  }
}

TEST(FindPath, RejectsPointsOutsideTheMask) {
  const Mask mask = open_mask(4, 3);
  const FindPathOptions options = options_for(Smoothing::kBeautify);
  const auto message = [&](Point start, Point goal) -> std::string {
    try {
      (void)find_path(mask, start, goal, options);
    } catch (const InvalidArgument& error) {
      return error.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message({4, 0}, {0, 0}).rfind("start", 0), 0U) << message({4, 0}, {0, 0});
  EXPECT_EQ(message({0, -1}, {0, 0}).rfind("start", 0), 0U);
  EXPECT_EQ(message({0, 0}, {0, 3}).rfind("goal", 0), 0U) << message({0, 0}, {0, 3});
  EXPECT_EQ(message({0, 0}, {-5, 1}).rfind("goal", 0), 0U);
  EXPECT_THROW((void)beeline_answer(mask, {0, 0}, {9, 9}, options), InvalidArgument);
}

TEST(FindPath, PathFromFieldMatchesFindPath) {
  const Mask mask = pathtest::mask_from_rows({
      "..........",
      ".####.###.",
      "....#...#.",
      "###.#.#.#.",
      "....#.#...",
  });
  const Point goal{9, 4};
  const DistanceField field = compute_distance_field(mask, goal, FieldOptions{});
  for (const Smoothing smoothing : kAllSmoothing) {
    for (const Point start : {Point{0, 4}, Point{0, 2}, Point{5, 4}}) {
      const FindPathOptions options = options_for(smoothing);
      const PathResult direct = path_from_field(mask, field, start, options);
      const PathResult found = find_path(mask, start, goal, options);
      EXPECT_EQ(direct.points, found.points);
      EXPECT_EQ(direct.cost, found.cost);
      EXPECT_TRUE(direct.found);
    }
  }
}

// One TraceMemo across many starts per field (the paths of a batch) and
// across fields (it starts over on each) gives exactly the answers of
// path_from_field without it, for every smoothing, connectivity and
// weighting (it serves only unit-cost four-connected corner traces, and
// others must ignore it), and with fields still being built.
TEST(FindPath, ATraceMemoChangesNoAnswer) {
  std::mt19937_64 rng(0x5eed0024);
  TraceMemo memo;
  int remembered = 0;
  for (int round = 0; round < 150; ++round) {
    const auto [mask, costs, field] = random_smoothing_case(rng, round, 8, 120, 0.35);
    FindPathOptions options;
    options.field = field.options();
    for (int start = 0; start < 40; ++start) {
      const Point from = random_endpoint(rng, mask, kAllAreas);
      for (const Smoothing smoothing :
           {Smoothing::kSimplify, Smoothing::kBeautify, Smoothing::kNone}) {
        options.smoothing = smoothing;
        const PathResult alone = path_from_field(mask, field, from, options);
        const PathResult shared =
            path_from_field(mask, field, from, options, nullptr, nullptr, &memo);
        ASSERT_EQ(shared.found, alone.found) << round << " start " << start;
        ASSERT_EQ(shared.points, alone.points) << round << " start " << start;
        EXPECT_EQ(shared.length, alone.length);
        EXPECT_EQ(shared.cost, alone.cost);
      }
    }
    remembered += memo.memory_bytes() > 0 ? 1 : 0;
    if (round % 10 == 9) {
      memo.clear();
      EXPECT_EQ(memo.memory_bytes(), 0U);
    }
  }
  EXPECT_GT(remembered, 30);  // the unit-cost four-connected rounds used it

  // A field being built: traces from settled starts, the memo kept while the
  // fill goes on (every pixel a trace crosses is settled, its cost final).
  const Mask mask = pathtest::random_mask(rng, 90, 70, 0.25, 1);
  const Point goal = random_endpoint(rng, mask, kAllAreas);
  FieldBuilder builder(mask, goal, FieldOptions{});
  const DistanceField whole = compute_distance_field(mask, goal, FieldOptions{});
  FindPathOptions options;
  options.smoothing = Smoothing::kSimplify;
  memo.clear();
  for (int start = 0; start < 200; ++start) {
    const Point from = random_endpoint(rng, mask, kAllAreas);
    if (!builder.run_until_settled(from)) continue;
    EXPECT_EQ(path_from_field(mask, builder.field(), from, options, nullptr, nullptr, &memo).points,
              path_from_field(mask, whole, from, options).points)
        << "start " << start;
  }
}

TEST(FindPath, PathFromFieldRejectsAFieldForAnotherRequest) {
  const Mask mask = open_mask(4, 3);
  const DistanceField field = compute_distance_field(mask, {0, 0}, FieldOptions{});
  EXPECT_THROW((void)path_from_field(open_mask(4, 4), field, {1, 1}, options_for(Smoothing::kNone)),
               InvalidArgument);
  EXPECT_THROW((void)path_from_field(mask, field, {1, 1}, options_for(Smoothing::kNone, 0b10)),
               InvalidArgument);
  EXPECT_THROW((void)path_from_field(mask, field, {4, 1}, options_for(Smoothing::kNone)),
               InvalidArgument);
}

TEST(PathLength, IsEuclidean) {
  EXPECT_EQ(polyline_length({}), 0.0);
  EXPECT_EQ(polyline_length({{3, 3}}), 0.0);
  EXPECT_DOUBLE_EQ(polyline_length({{0, 0}, {3, 4}, {3, 0}}), 9.0);
  EXPECT_DOUBLE_EQ(polyline_length({{0, 0}, {1, 1}}), std::sqrt(2.0));
}

TEST(PathLineRule, NoCornerCuttingUnlessEightConnectedAgentsMay) {
  FieldOptions options;
  options.connectivity = Connectivity::kFour;
  options.allow_corner_cutting = true;
  EXPECT_EQ(line_rule_for(options), LineRule::kNoCornerCutting);
  options.connectivity = Connectivity::kEight;
  EXPECT_EQ(line_rule_for(options), LineRule::kBresenham);
  options.allow_corner_cutting = false;
  EXPECT_EQ(line_rule_for(options), LineRule::kNoCornerCutting);
}

}  // namespace
}  // namespace pathcore
