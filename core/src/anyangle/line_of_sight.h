#pragma once

#include <cmath>
#include <cstdint>

#include "anyangle/blocked_grid.h"
#include "pathcore/mask.h"

namespace pathcore {

// The exact any-angle line test, in doubled coordinates (pixel (x, y) is
// [2x, 2x+2] x [2y, 2y+2]: centres odd, square corners even), integer
// arithmetic only. The segment a2-b2 is free iff it never enters a blocked
// pixel's interior, never runs along an edge between two blocked pixels, and
// (unless corner_cutting) never passes through a pinch point. Both points
// must lie within [0, 2 width] x [0, 2 height]. Symmetric in a2 and b2.
[[nodiscard]] bool segment_free(const BlockedGrid& grid, Point a2, Point b2, bool corner_cutting);

// The Euclidean distance in pixels between two doubled points (exact
// squares, one correctly rounded sqrt, then halved). Inline: the goal
// table's search calls it for every edge it relaxes.
[[nodiscard]] inline double pixel_distance(Point a2, Point b2) {
  const auto dx = static_cast<double>(std::int64_t{a2.x} - b2.x);
  const auto dy = static_cast<double>(std::int64_t{a2.y} - b2.y);
  return std::sqrt(dx * dx + dy * dy) / 2;
}

// A taut path bending at a convex corner whose blocked pixel lies in
// direction (blocked_dx, blocked_dy) runs along lines that do not cut into
// that pixel's quadrant: dx, dy (either direction along the line) must not
// point into it nor straight away from it. Pinch points (0, 0) take any line.
[[nodiscard]] inline bool taut_at(int blocked_dx, int blocked_dy, std::int64_t dx,
                                  std::int64_t dy) {
  return dx * dy * blocked_dx * blocked_dy <= 0;
}

// A path ... -> from -> corner -> to ... bending at a convex corner is taut
// (cannot be shortened near the corner) iff it turns round the corner's
// blocked pixel: straight on, or turning toward the side the pixel is on.
// in = corner - from, out = to - corner, both tangent (taut_at). Pinch
// points (0, 0) take any bend.
[[nodiscard]] inline bool taut_bend(int blocked_dx, int blocked_dy, std::int64_t in_x,
                                    std::int64_t in_y, std::int64_t out_x, std::int64_t out_y) {
  const std::int64_t turn = in_x * out_y - in_y * out_x;
  if (turn == 0 || (blocked_dx == 0 && blocked_dy == 0)) return true;
  const std::int64_t side = in_x * blocked_dy - in_y * blocked_dx;
  return (turn > 0) == (side > 0);
}

}  // namespace pathcore
