// trace and path_from_field's simplified answer against a plain per-step walk
// written here from path.h's rule, on textbook Dijkstra distances
// (support/reference.h): random masks, sparse ones with long straight runs,
// spirals long enough for 32-bit fields, enabled area subsets and fields
// still being built. The engine follows straight runs in one go and keeps
// only corners; the walk below takes one step at a time and keeps every pixel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "bench_masks.h"
#include "pathcore/clearance.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "support/random_mask.h"
#include "support/reference.h"

namespace {

using pathcore::AreaSet;
using pathcore::DistanceField;
using pathcore::FieldBuilder;
using pathcore::FieldOptions;
using pathcore::FindPathOptions;
using pathcore::Mask;
using pathcore::Path;
using pathcore::Point;

struct Direction {
  int dx;
  int dy;
  bool operator==(const Direction&) const = default;
};

// path.h's tie order: E, S, W, N and SE, SW, NW, NE.
constexpr Direction kCardinals[] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
constexpr Direction kDiagonals[] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};

// One step at a time down the reference distances: with shortcuts, a
// diagonal reached by two downhill cardinal steps with both pixels beside it
// walkable is preferred; among equal choices the previous direction, else
// the one pointing most toward the goal, else the first in order.
Path reference_trace(const Mask& mask, AreaSet enabled, const std::vector<double>& distance,
                     Point goal, Point start, bool shortcuts) {
  const auto cost = [&](Point p) {
    return mask.walkable(p, enabled) ? distance[mask.index(p)] : pathtest::kNoPath;
  };
  if (cost(start) == pathtest::kNoPath) {
    return {};
  }
  Path path = {start};
  Point at = start;
  Direction previous{0, 0};
  while (at != goal) {
    const double here = cost(at);
    std::vector<Direction> choices;
    if (shortcuts) {
      for (const Direction d : kDiagonals) {
        const Point side_a{at.x + d.dx, at.y};
        const Point side_b{at.x, at.y + d.dy};
        if (!mask.walkable(side_a, enabled) || !mask.walkable(side_b, enabled)) continue;
        const bool via_side = cost(side_a) == here - 1 || cost(side_b) == here - 1;
        if (via_side && cost({at.x + d.dx, at.y + d.dy}) == here - 2) choices.push_back(d);
      }
    }
    if (choices.empty()) {
      for (const Direction d : kCardinals) {
        if (cost({at.x + d.dx, at.y + d.dy}) == here - 1) choices.push_back(d);
      }
    }
    if (choices.empty()) {
      ADD_FAILURE() << "no downhill step at " << at.x << "," << at.y;
      return path;
    }
    Direction chosen = choices.front();
    bool keep_previous = false;
    for (const Direction d : choices) keep_previous = keep_previous || d == previous;
    if (keep_previous) {
      chosen = previous;
    } else {
      long best = 0;
      bool first = true;
      for (const Direction d : choices) {
        const long score = long{d.dx} * (goal.x - at.x) + long{d.dy} * (goal.y - at.y);
        if (first || score > best) {
          best = score;
          chosen = d;
          first = false;
        }
      }
    }
    previous = chosen;
    at = {at.x + chosen.dx, at.y + chosen.dy};
    path.push_back(at);
  }
  return path;
}

// The start, every pixel where the direction changes, and the end.
Path reference_corners(const Path& path) {
  if (path.size() <= 1) return path;
  Path corners = {path.front()};
  for (std::size_t i = 1; i + 1 < path.size(); ++i) {
    const int in_x = path[i].x - path[i - 1].x;
    const int in_y = path[i].y - path[i - 1].y;
    if (in_x != path[i + 1].x - path[i].x || in_y != path[i + 1].y - path[i].y) {
      corners.push_back(path[i]);
    }
  }
  corners.push_back(path.back());
  return corners;
}

// The Euclidean length of a path, a square root per segment, summed in order.
double reference_length(const Path& path) {
  double length = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const double dx = static_cast<double>(path[i].x) - path[i - 1].x;
    const double dy = static_cast<double>(path[i].y) - path[i - 1].y;
    length += std::sqrt(dx * dx + dy * dy);
  }
  return length;
}

// Compares trace (both ways) and path_from_field's kNone and kSimplify
// answers (points and length), on the finished field and on one settled just up to the start.
void expect_reference_walk(const Mask& mask, AreaSet enabled, Point goal, Point start) {
  FieldOptions options;
  options.enabled = enabled;
  const DistanceField field = pathcore::compute_distance_field(mask, goal, options);
  pathtest::ReferenceGrid grid;
  grid.enabled = enabled;
  const std::vector<double> distance = pathtest::reference_distances(mask, goal, grid);
  FieldBuilder partial(mask, goal, options);
  const bool settled = partial.run_until_settled(start);
  for (const bool shortcuts : {false, true}) {
    const Path expected = reference_trace(mask, enabled, distance, goal, start, shortcuts);
    ASSERT_EQ(pathcore::trace(mask, field, start, shortcuts), expected);
    if (settled) {
      ASSERT_EQ(pathcore::trace(mask, partial.field(), start, shortcuts), expected);
    }
    FindPathOptions request;
    request.field = options;
    request.smoothing = shortcuts ? pathcore::Smoothing::kSimplify : pathcore::Smoothing::kNone;
    const Path answer = shortcuts ? reference_corners(expected) : expected;
    const pathcore::PathResult result = pathcore::path_from_field(mask, field, start, request);
    ASSERT_EQ(result.points, answer);
    ASSERT_EQ(result.length, reference_length(answer));  // exactly
    if (settled) {
      ASSERT_EQ(pathcore::path_from_field(mask, partial.field(), start, request).points, answer);
    }
  }
}

Point random_walkable(std::mt19937_64& rng, const Mask& mask, AreaSet enabled) {
  Point p = pathtest::random_point(rng, mask);
  for (int attempt = 0; attempt < 200 && !mask.walkable(p, enabled); ++attempt) {
    p = pathtest::random_point(rng, mask);
  }
  return p;
}

TEST(TraceReference, RandomMasksOfEveryDensity) {
  std::mt19937_64 rng(0x5eed0020);
  std::uniform_int_distribution<std::uint32_t> size(1, 90);
  std::uniform_real_distribution<double> obstacles(0.0, 0.45);
  for (int round = 0; round < 300; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 3);
    // All areas, or areas 1 and 2 (area 3 walls off more of the mask).
    const AreaSet enabled = round % 3 == 0 ? AreaSet{0b0110} : pathcore::kAllAreas;
    SCOPED_TRACE(round);
    expect_reference_walk(mask, enabled, random_walkable(rng, mask, enabled),
                          random_walkable(rng, mask, enabled));
  }
}

TEST(TraceReference, SparseMasksWithLongRuns) {
  std::mt19937_64 rng(0x5eed0021);
  std::uniform_int_distribution<std::uint32_t> size(40, 200);
  std::uniform_real_distribution<double> obstacles(0.0, 0.03);
  for (int round = 0; round < 60; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 1);
    SCOPED_TRACE(round);
    expect_reference_walk(mask, pathcore::kAllAreas, random_walkable(rng, mask, pathcore::kAllAreas),
                          random_walkable(rng, mask, pathcore::kAllAreas));
  }
}

TEST(TraceReference, SpiralsEndToEnd) {
  // One-pixel corridors; the 400x400 spiral is over 65,535 steps long, so its
  // field is stored in 32 bits.
  for (const auto& [width, height] :
       {std::pair{7U, 5U}, std::pair{61U, 37U}, std::pair{400U, 400U}}) {
    const Mask mask = pathbench::spiral_mask(width, height);
    const pathcore::DistanceField field =
        pathcore::compute_distance_field(mask, {0, 0}, FieldOptions{});
    Point inner{0, 0};
    for (std::int32_t y = 0; y < static_cast<std::int32_t>(height); ++y) {
      for (std::int32_t x = 0; x < static_cast<std::int32_t>(width); ++x) {
        if (field.reachable({x, y}) && field.at({x, y}) > field.at(inner)) inner = {x, y};
      }
    }
    SCOPED_TRACE(width);
    expect_reference_walk(mask, pathcore::kAllAreas, {0, 0}, inner);
    expect_reference_walk(mask, pathcore::kAllAreas, inner, {0, 0});
    if (width == 400U) {
      EXPECT_GT(field.at(inner), 65535U);
    }
  }
}

TEST(TraceReference, BeautifiedAnswerIsBeautifyOfTheSimplifiedTrace) {
  // path_from_field hands its traced corners to beautify without the checks
  // beautify makes on an arbitrary path (a trace is walkable): the answer
  // must be the public beautify's, in every mode, with and without the
  // clearance map.
  std::mt19937_64 rng(0x5eed0022);
  std::uniform_int_distribution<std::uint32_t> size(1, 70);
  std::uniform_real_distribution<double> obstacles(0.0, 0.4);
  int smoothed = 0;
  for (int round = 0; round < 300; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 3);
    FindPathOptions request;  // kBeautify
    request.field.connectivity =
        round % 2 == 0 ? pathcore::Connectivity::kFour : pathcore::Connectivity::kEight;
    request.field.allow_corner_cutting = round % 4 == 3;
    if (round % 3 == 0) {
      request.field.area_costs[2] = 5;
    }
    const Point goal = random_walkable(rng, mask, pathcore::kAllAreas);
    const Point start = random_walkable(rng, mask, pathcore::kAllAreas);
    const DistanceField field = pathcore::compute_distance_field(mask, goal, request.field);
    const pathcore::ClearanceMap map(mask, pathcore::kAllAreas);
    const pathcore::LineRule rule = pathcore::line_rule_for(request.field);
    const Path corners = pathcore::simplify(pathcore::trace_for_smoothing(mask, field, start));
    const Path expected =
        pathcore::beautify(corners, mask, pathcore::kAllAreas, rule, request.field.area_costs);
    SCOPED_TRACE(round);
    ASSERT_EQ(pathcore::path_from_field(mask, field, start, request).points, expected);
    ASSERT_EQ(pathcore::path_from_field(mask, field, start, request, &map).points, expected);
    smoothed += expected != corners ? 1 : 0;
  }
  EXPECT_GT(smoothed, 50);
}

}  // namespace
