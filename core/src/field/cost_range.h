#pragma once

// The step costs a path can meet on a mask (not installed).

#include <algorithm>
#include <bit>
#include <cstddef>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathcore {

// The cheapest and dearest area cost (0 entries read as 1) among the enabled
// areas present in the mask; {256, 0} when none is.
struct CostRange {
  int cheapest = 256;
  int dearest = 0;
};

inline CostRange area_cost_range(const Mask& mask, AreaSet enabled, const AreaCosts& costs) {
  CostRange range;
  // Only the areas present and enabled (bit 0, area 0, never is): a mask
  // holds a few, and every path request asks.
  for (AreaSet used = enabled & mask.areas_present() & ~AreaSet{1}; used != 0; used &= used - 1) {
    const auto id = static_cast<std::size_t>(std::countr_zero(used));
    const int cost = costs[id] == 0 ? 1 : costs[id];
    range.cheapest = std::min(range.cheapest, cost);
    range.dearest = std::max(range.dearest, cost);
  }
  return range;
}

}  // namespace pathcore
