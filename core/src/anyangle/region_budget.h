#pragma once

#include <cstddef>

#include "pathcore/any_angle.h"

namespace pathcore {

// How many pixels a visible-region scan from a goal or start may keep before
// testing every corner directly is the cheaper way (about two corners' line
// tests per pixel scanned).
[[nodiscard]] std::size_t region_budget(const AnyAngleGraph& graph);

}  // namespace pathcore
