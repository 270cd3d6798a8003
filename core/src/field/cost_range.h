#pragma once

// The step costs a path can meet on a mask (not installed).

#include <algorithm>
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
  const AreaSet used = enabled & mask.areas_present();
  for (int id = 1; id <= kMaxAreaId; ++id) {
    if (((used >> id) & 1U) != 0) {
      const int cost =
          costs[static_cast<std::size_t>(id)] == 0 ? 1 : costs[static_cast<std::size_t>(id)];
      range.cheapest = std::min(range.cheapest, cost);
      range.dearest = std::max(range.dearest, cost);
    }
  }
  return range;
}

}  // namespace pathcore
