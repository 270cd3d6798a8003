#pragma once

// Straight lines over a mask: the line rules, segment walkability and the
// highest area cost along a segment, Bresenham lines, and polyline lengths.
// Below smoothing.h and path.h, which both use it (core/src/line).

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

}  // namespace pathcore
