#pragma once

// The exact any-angle shortest path on a walk mask, an independent yardstick
// for beautified paths (it uses none of pathcore's line tests or smoothing).
//
// Definition. Pixel (x, y) is the closed unit square [x, x+1] x [y, y+1]; its
// centre is (x + 0.5, y + 0.5). The free space is the union of the closed
// squares of the pixels walkable for `enabled`; pixels outside the mask are
// blocked. A path is a curve in the free space that never passes through a
// pinch point: a square corner where two diagonally opposite pixels are
// blocked and the other two walkable (no squeezing between diagonally blocked
// pixels, as FindPath's default "no corner cutting"). Running along a blocked
// pixel's edge or touching its corner is allowed, so the answer is the
// infimum of what a path that keeps clear of blocked pixels (as
// LineRule::kNoCornerCutting asks) can reach: a smoothed path is never shorter.
//
// Method. The shortest such path is a polyline that bends only at convex
// corners of the blocked region: square corners with exactly one of the four
// pixels around them blocked (with two the boundary is straight or a pinch,
// with three or four the corner is not on any taut path). A* (Euclidean
// heuristic) over the visibility graph of start, goal and those corners, with
// an exact line-of-sight test in integer arithmetic (coordinates doubled, so
// centres and corners are integers): a segment is visible iff it never enters
// the interior of a blocked square, never runs along an edge between two
// blocked squares, and never passes through a pinch point. Only edges tangent
// to the blocked pixel at each corner end are tried (a taut path wraps around
// it). Slow by design: O(corners^2) line tests at worst.
//
// Corner cutting (allow_corner_cutting, as FieldOptions' rule of that name):
// paths may also pass through pinch points, and may bend there (a pinch
// point is a convex corner of each of its two blocked pixels), so pinch
// points join the vertices, with no tangent filter.

#include <optional>
#include <vector>

#include "pathcore/mask.h"

namespace pathtest {

// The length of the shortest path (see above) between the centres of start and
// goal; std::nullopt when either is not walkable (or outside the mask) or no
// path exists. 0 when start == goal and it is walkable.
//
// upper_bound, when given, must be the length of some path between them (e.g.
// the octile grid optimum without corner cutting, plus a little slack): corners
// that cannot lie on a path no longer than it are not considered, which keeps
// big maps tractable. A wrong (too small) bound can make the answer wrong or
// std::nullopt.
[[nodiscard]] std::optional<double> any_angle_shortest_length(
    const pathcore::Mask& mask, pathcore::AreaSet enabled, pathcore::Point start,
    pathcore::Point goal, std::optional<double> upper_bound = std::nullopt,
    bool allow_corner_cutting = false);

// The shortest path itself: its length and its points in doubled coordinates
// (see any_angle_visible), start centre first, goal centre last, the corners
// it bends at between.
struct AnyAnglePath {
  double length = 0;
  std::vector<pathcore::Point> points2;
};
[[nodiscard]] std::optional<AnyAnglePath> any_angle_shortest_path(
    const pathcore::Mask& mask, pathcore::AreaSet enabled, pathcore::Point start,
    pathcore::Point goal, std::optional<double> upper_bound = std::nullopt,
    bool allow_corner_cutting = false);

// The exact line-of-sight test of the reference, between two points given in
// doubled coordinates (the centre of pixel (x, y) is (2x + 1, 2y + 1), square
// corners are even), both inside [0, 2 width] x [0, 2 height]. Exposed for the
// reference's own tests. With allow_corner_cutting pinch points do not block.
[[nodiscard]] bool any_angle_visible(const pathcore::Mask& mask, pathcore::AreaSet enabled,
                                     pathcore::Point a2, pathcore::Point b2,
                                     bool allow_corner_cutting = false);

// The yardstick for smoothers that, like beautify, bend only at pixel centres
// and keep every segment clear of blocked pixels: the length of the shortest
// polyline from the centre of start to that of goal whose points are pixel
// centres and whose segments touch (closed squares) only walkable pixels. At
// least any_angle_shortest_length; the gap between them is what those two
// rules cost. A* over all pixel pairs, so only for small maps or with a tight
// upper_bound (same contract as above: the length of some such polyline, e.g.
// the octile optimum; corners of a shorter bound may be missed, making the
// answer std::nullopt).
[[nodiscard]] std::optional<double> pixel_polyline_shortest_length(
    const pathcore::Mask& mask, pathcore::AreaSet enabled, pathcore::Point start,
    pathcore::Point goal, std::optional<double> upper_bound = std::nullopt);

// The line test of pixel_polyline_shortest_length: true when every pixel
// whose closed square the segment between the centres of a and b touches is
// walkable (exact, integer arithmetic). Exposed for the reference's tests.
[[nodiscard]] bool pixel_segment_clear(const pathcore::Mask& mask, pathcore::AreaSet enabled,
                                       pathcore::Point a, pathcore::Point b);

}  // namespace pathtest
