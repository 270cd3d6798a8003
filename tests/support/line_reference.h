#pragma once

// Independent references for LineOfSight and NearestWalkable: the pixels a
// segment covers under each line rule, decided in exact rational arithmetic
// from the rule's definition (not by walking), and the nearest pixel by
// exhaustive search.

#include <functional>
#include <optional>
#include <vector>

#include "pathcore/line.h"
#include "pathcore/mask.h"

namespace pathtest {

// The pixels segment a-b covers under `rule`, in the order of
// pathcore::first_blocked_pixel's contract, from a:
//  - kNoCornerCutting: every pixel whose closed unit square (centred on the
//    pixel) the segment meets, ordered by the parameter t in [0, 1] at which
//    it first meets the square, ties in row-major order;
//  - kBresenham: one pixel per step along the longer axis (x when |dx| >=
//    |dy|), the one nearest the line there, a tie (the line exactly halfway)
//    going to the pixel farther from the lexicographically smaller endpoint
//    (x, then y); ordered by distance from a along that axis.
[[nodiscard]] std::vector<pathcore::Point> reference_segment_pixels(pathcore::Point a,
                                                                    pathcore::Point b,
                                                                    pathcore::LineRule rule);

// The first pixel of reference_segment_pixels(a, b, rule) that is not
// walkable for enabled; nullopt when all are.
[[nodiscard]] std::optional<pathcore::Point> reference_first_blocked(const pathcore::Mask& mask,
                                                                     pathcore::AreaSet enabled,
                                                                     pathcore::Point a,
                                                                     pathcore::Point b,
                                                                     pathcore::LineRule rule);

// The pixel of a width x height grid nearest to p for which qualifies(x, y)
// holds (Euclidean distance between centres, ties to the first in row-major
// order); nullopt when none does. Tries every pixel.
[[nodiscard]] std::optional<pathcore::Point> reference_nearest(
    std::uint32_t width, std::uint32_t height, pathcore::Point p,
    const std::function<bool(pathcore::Point)>& qualifies);

}  // namespace pathtest
