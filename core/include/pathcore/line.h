#pragma once

// Straight lines over a mask: the line rules, segment walkability, the
// highest area cost along a segment, Bresenham lines, polyline lengths and
// the exact cost of segments and polylines over weighted terrain.
// Below smoothing.h and path.h, which both use it (core/src/line).

#include <optional>
#include <vector>

#include "pathcore/distance_field.h"  // AreaCosts
#include "pathcore/mask.h"

namespace pathcore {

using Path = std::vector<Point>;

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

// The first pixel of segment a-b (per rule), walking from a, that is not
// walkable for `enabled`; nullopt when segment_walkable. The order: kBresenham
// walks bresenham_line(a, b) from a; kNoCornerCutting orders the supercover by
// where the segment first touches each pixel's closed square going from a,
// the three pixels first touched at once where it passes through a pixel
// corner (the two beside the corner and the one beyond it) in row-major order
// (y, then x). So a itself comes first. Throws InvalidArgument (naming "a" or
// "b") for a point outside the mask. O(|b - a|), no allocation.
[[nodiscard]] std::optional<Point> first_blocked_pixel(const Mask& mask, AreaSet enabled, Point a,
                                                       Point b, LineRule rule);

// The Bresenham pixels of segment a-b, from a to b inclusive: one pixel per
// step along the longer axis, 8-connected. They are computed from the
// lexicographically smaller endpoint (x, then y), so bresenham_line(b, a) is
// bresenham_line(a, b) reversed; where the line passes exactly halfway
// between two pixels, the one farther from that endpoint is taken.
[[nodiscard]] std::vector<Point> bresenham_line(Point a, Point b);

// The highest area cost among the pixels of segment a-b (per rule), or 0 when
// one of them is not walkable for enabled (or a or b is outside the mask).
[[nodiscard]] int segment_max_cost(const Mask& mask, AreaSet enabled, Point a, Point b,
                                   LineRule rule, const AreaCosts& costs);

// Euclidean length of the polyline.
[[nodiscard]] double polyline_length(const Path& path);

// The cost of moving along a straight segment or a polyline between pixel
// centres over weighted terrain: the sum, over the pixels whose unit squares
// (centred on the pixels) it crosses, of the length inside the square times
// the pixel's area cost (0 read as 1). The convention at borders:
//  - no segment between pixel centres runs along a pixel edge (edges lie on
//    half-integer lines, a segment between integer points meets such a line
//    in one point or stays on an integer one), so borders and corners hold
//    no length: a segment through a pixel corner charges only the two pixels
//    it passes between diagonally, none of the two beside the corner (as a
//    diagonal grid step pays for neither);
//  - a pixel not walkable for `enabled` holds length only when a
//    corner-cutting segment (LineRule::kBresenham) clips its square; it is
//    charged the cheapest cost among the enabled areas present in the mask,
//    so a clip never makes a shortcut dearer than the terrain around it, and
//    a segment over the cheapest terrain costs exactly cheapest * length.
// When every enabled area present costs the same c (unit costs: c = 1), the
// cost is c * polyline_length, computed so. Otherwise exact up to rounding
// (the per-pixel lengths sum in integers). A cardinal grid step from p to q
// costs (cost(p) + cost(q)) / 2 here, where the grid field charges cost(q):
// the field's value at the start (PathResult::grid_cost) and this cost of the
// traced path differ on weighted terrain. Throws InvalidArgument for a point
// outside the mask. O(total steps along the longer axes).
[[nodiscard]] double segment_cost(const Mask& mask, AreaSet enabled, Point a, Point b,
                                  const AreaCosts& costs);
[[nodiscard]] double polyline_cost(const Path& path, const Mask& mask, AreaSet enabled,
                                   const AreaCosts& costs);

}  // namespace pathcore
