#pragma once

#include <cstddef>

#include "pathcore/any_angle.h"

namespace pathcore {

// How many pixels a visible-region scan from a corner, goal or start may keep
// before testing every corner directly is the cheaper way: a kept pixel costs
// about as much as two corners' filters and line tests (measured on the
// Moving AI maps, bench/any_angle_bench).
[[nodiscard]] std::size_t region_budget(const AnyAngleGraph& graph);

}  // namespace pathcore
