#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cache/cache_budget.h"
#include "cache/field_cache.h"
#include "cache/lru_cache.h"
#include "pathcore/agent_clearance.h"
#include "pathcore/clearance.h"
#include "pathcore/mask.h"

namespace pathserver {

// Everything the pixels usable with an agent clearance depend on.
struct UsableMaskKey {
  std::string mask;               // mask name
  std::uint64_t revision = 0;     // a patched or replaced mask never matches
  pathcore::AreaSet enabled = 0;  // effective enabled areas
  double clearance = 0;           // pixels; only ones that exclude pixels are cached

  friend bool operator==(const UsableMaskKey&, const UsableMaskKey&) = default;
};

struct UsableMaskKeyHash {
  [[nodiscard]] std::size_t operator()(const UsableMaskKey& key) const;
};

// What a FindPath with clearance walks on: the usable pixels, and the
// ClearanceMap of those pixels (beautify's and the beeline's segment walks
// skip across open ground with it; the stored mask's own map describes the
// walkable pixels, not these, and would not be used).
struct UsableGrid {
  // O(pixels) each.
  UsableGrid(const pathcore::Mask& mask, pathcore::AreaSet enabled, double clearance)
      : usable(mask, enabled, clearance), segment_map(usable.mask(), enabled) {}

  pathcore::UsableMask usable;
  pathcore::ClearanceMap segment_map;  // built from usable.mask()
};

struct UsableGridBytes {
  [[nodiscard]] std::size_t operator()(const UsableGrid& grid) const {
    return grid.usable.memory_bytes() + grid.segment_map.memory_bytes();
  }
};

// Usable grids per (mask revision, areas, clearance), a member of the one
// cache budget ("usable_masks" in metrics): about 2.25 bytes per pixel each.
using UsableMaskCache = LruCache<UsableMaskKey, UsableGrid, UsableMaskKeyHash, UsableGridBytes>;

// The FieldFlights key under which the grid for `key` is built, so that
// concurrent requests build it once: goal (-1, -1), which no field has (a
// field's goal lies inside its mask).
[[nodiscard]] FieldKey usable_grid_flight_key(const UsableMaskKey& key);

}  // namespace pathserver
