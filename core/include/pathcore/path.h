#pragma once

#include <optional>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathcore {

using Path = std::vector<Point>;

enum class Smoothing { kBeautify, kSimplify, kNone };

// Which pixels a straight segment must find walkable.
enum class LineRule {
  // The segment's Bresenham pixels (corner cutting allowed).
  kBresenham,
  // Every pixel the segment touches, so it never squeezes diagonally
  // between two blocked pixels (corner cutting forbidden).
  kNoCornerCutting,
};

// True when every pixel of the segment a-b (per rule) is walkable.
[[nodiscard]] bool segment_walkable(const Mask& mask, AreaSet enabled, Point a, Point b,
                                    LineRule rule);

// The Bresenham pixels of segment a-b, from a to b inclusive.
[[nodiscard]] std::vector<Point> bresenham_line(Point a, Point b);

// Follows the field downhill from start to its goal. With diagonal shortcuts,
// two cardinal steps around a corner become one diagonal step when both
// pixels beside it are walkable. Empty when start is unreachable.
[[nodiscard]] Path trace(const DistanceField& field, Point start, bool diagonal_shortcuts);

// Drops the interior points of straight runs (horizontal, vertical, diagonal).
[[nodiscard]] Path simplify(const Path& path);

// Line-of-sight smoothing: forward, then on the reversed path. Never makes
// the path longer; every new segment satisfies segment_walkable(rule).
[[nodiscard]] Path beautify(const Path& path, const Mask& mask, AreaSet enabled, LineRule rule);

// Euclidean length of the polyline.
[[nodiscard]] double polyline_length(const Path& path);

struct FindPathOptions {
  FieldOptions field;
  Smoothing smoothing = Smoothing::kBeautify;
};

struct PathResult {
  bool found = false;
  Path points;        // first = start, last = goal
  double length = 0;  // Euclidean length of points
  double cost = 0;    // grid cost with Smoothing::kNone, else 0
  Point goal;         // where the path ends
};

// The line rule a request implies: no corner cutting unless it is allowed.
[[nodiscard]] LineRule line_rule_for(const FieldOptions& options);

// The answer without a flood fill, when there is one: start == goal, or (with
// smoothing) the beeline start->goal is walkable. std::nullopt otherwise.
// start and goal must be inside the mask.
[[nodiscard]] std::optional<PathResult> beeline_answer(const Mask& mask, Point start, Point goal,
                                                       const FindPathOptions& options);

// Traces and smooths a path from start on a field computed for options.field.
// found = false when start cannot reach the field's goal.
[[nodiscard]] PathResult path_from_field(const Mask& mask, const DistanceField& field, Point start,
                                         const FindPathOptions& options);

// beeline_answer, else compute the field and path_from_field. For tests,
// benchmarks and local tools; the server caches fields itself.
[[nodiscard]] PathResult find_path(const Mask& mask, Point start, Point goal,
                                   const FindPathOptions& options);

}  // namespace pathcore
