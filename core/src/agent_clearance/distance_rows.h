#pragma once

// The distance transform behind ObstacleDistances and UsableMask, one row at a
// time, so UsableMask needs no per-pixel distance buffer of its own.

#include <cstdint>
#include <functional>

#include "pathcore/mask.h"

namespace pathcore {

// Calls row(y, values) for y = 0 .. height - 1 in order, values holding the
// width squared_half_pixels distances of row y (see ObstacleDistances). The
// values are valid during the call only.
void for_each_distance_row(const Mask& mask, AreaSet enabled,
                           const std::function<void(std::uint32_t, const std::uint32_t*)>& row);

}  // namespace pathcore
