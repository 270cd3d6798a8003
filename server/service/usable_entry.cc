#include "service/usable_entry.h"

#include <string>
#include <utility>

namespace pathserver {

UsableEntry usable_entry(UsableMaskCache& cache, FieldSource& source, const MaskEntry& entry,
                         pathcore::AreaSet enabled, double clearance) {
  const UsableMaskKey key{entry.name, entry.revision, enabled, clearance};
  std::shared_ptr<const UsableGrid> grid = cache.get(key);
  if (!grid) {
    const std::string what = "usable mask (clearance " + std::to_string(clearance) +
                             ") for mask '" + entry.name + "' rev " +
                             std::to_string(entry.revision);
    source.build_shared(
        usable_grid_flight_key(key), what,
        [&](const auto& /*interrupt*/, const auto& /*progress*/) {
          // O(pixels) and quick beside what it serves: neither interrupted nor reported.
          grid = cache.get(key);  // another request may have built it since the miss
          if (grid) return;
          grid = std::make_shared<const UsableGrid>(*entry.mask, enabled, clearance);
          cache.put(key, grid);
        });
  }
  // Aliasing pointers: the entry's mask and map live as long as the grid.
  MaskEntry usable{entry.name, entry.revision,
                   std::shared_ptr<const pathcore::Mask>(grid, &grid->usable.mask()), entry.sha256,
                   std::shared_ptr<const pathcore::ClearanceMap>(grid, &grid->segment_map)};
  return {std::move(grid), std::move(usable)};
}

}  // namespace pathserver
