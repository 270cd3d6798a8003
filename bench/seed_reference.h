#pragma once

#include <cstdint>
#include <vector>

#include "pathcore/mask.h"

namespace pathbench {

// The flood fill of the seed article ("It's Flot") as written: two stacks of
// points, a 32-bit signed buffer, a bounds check on every neighbour. The
// baseline our distance field is measured against; not used by the product.
// Returns per-pixel distance to goal, -1 where unreachable or blocked.
[[nodiscard]] std::vector<std::int32_t> seed_reference_field(const pathcore::Mask& mask,
                                                             pathcore::Point goal,
                                                             pathcore::AreaSet enabled);

}  // namespace pathbench
