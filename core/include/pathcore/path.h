#pragma once

#include <optional>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathcore {

using Path = std::vector<Point>;

enum class Smoothing { kBeautify, kSimplify, kNone };

// Which pixels a straight segment between two pixel centres must find walkable.
enum class LineRule {
  // The segment's Bresenham pixels (see bresenham_line); corner cutting allowed.
  kBresenham,
  // Every pixel whose closed unit square (centred on the pixel) the segment
  // touches, a "supercover". Through a pixel corner that is all four pixels
  // around it, so it never squeezes diagonally between two blocked pixels nor
  // grazes a blocked corner (corner cutting forbidden). Includes the
  // kBresenham pixels.
  kNoCornerCutting,
};

// True when every pixel of the segment a-b (per rule) is walkable for the
// enabled areas (bit 0 is ignored); false when a or b is outside the mask.
// Symmetric: a-b and b-a always give the same answer. O(|b - a|), no allocation.
[[nodiscard]] bool segment_walkable(const Mask& mask, AreaSet enabled, Point a, Point b,
                                    LineRule rule);

// The Bresenham pixels of segment a-b, from a to b inclusive: one pixel per
// step along the longer axis, 8-connected. They are computed from the
// lexicographically smaller endpoint (x, then y), so bresenham_line(b, a) is
// bresenham_line(a, b) reversed; where the line passes exactly halfway
// between two pixels, the one farther from that endpoint is taken.
[[nodiscard]] std::vector<Point> bresenham_line(Point a, Point b);

// Follows a four-connected field downhill from start to its goal, one pixel
// per step to a neighbour exactly one closer. With diagonal shortcuts, a
// diagonal neighbour two closer whose two cardinal pixels beside the step
// are reachable (so walkable) is taken instead, when there is one. Among
// equal choices: the previous direction (long straight runs), else the one
// pointing most toward the goal, else E, S, W, N (SE, SW, NW, NE).
// Deterministic. Empty when start is unreachable. Throws InvalidArgument if a
// pixel has no neighbour one closer (a field not made by compute_distance_field).
[[nodiscard]] Path trace(const DistanceField& field, Point start, bool diagonal_shortcuts);

// Drops the interior points of straight runs (horizontal, vertical, diagonal,
// or any direction: b goes when a->b and b->c point the same way) and repeated
// points. Keeps the first and last points.
[[nodiscard]] Path simplify(const Path& path);

// Line-of-sight smoothing ("string pulling"), forward, then on the reversed
// path. Rounds of two moves, each kept only when it makes the path strictly
// shorter: a point is dropped when its neighbours see each other; a corner
// A-B-C is cut to A-P-Q-C with P and Q pixels at fractions of the legs B->A
// and B->C (P = A or Q = C slides the corner along a leg toward where the
// string touches the obstacle). Never makes the path longer; every new
// segment satisfies segment_walkable(rule); all points stay integer pixels
// and the endpoints stay. O(points * log^2(leg length)) segment checks.
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
// smoothing) the beeline start->goal is walkable. std::nullopt otherwise,
// including when start or goal is not walkable (even when they are equal):
// path_from_field then answers found = false. Throws InvalidArgument, the
// message starting "start" or "goal", for a point outside the mask.
[[nodiscard]] std::optional<PathResult> beeline_answer(const Mask& mask, Point start, Point goal,
                                                       const FindPathOptions& options);

// Traces and smooths a path from start on a field computed for options.field.
// found = false when start cannot reach the field's goal (or is not walkable).
// kNone: the pixel-by-pixel grid path, cost = its grid cost; kSimplify:
// simplify(trace with diagonal shortcuts); kBeautify: beautify of that.
// Throws InvalidArgument when start is outside the mask, or the field does not
// fit the mask or was computed for other enabled areas or connectivity.
[[nodiscard]] PathResult path_from_field(const Mask& mask, const DistanceField& field, Point start,
                                         const FindPathOptions& options);

// beeline_answer, else compute the field and path_from_field. For tests,
// benchmarks and local tools; the server caches fields itself. Throws
// InvalidArgument as those do (points outside the mask, kEight for now).
[[nodiscard]] PathResult find_path(const Mask& mask, Point start, Point goal,
                                   const FindPathOptions& options);

}  // namespace pathcore
