#include "service/server_gauges.h"

#include <cstdint>

namespace pathserver {

ServerGauges read_gauges(const MaskStore& store, const FieldCache& cache,
                         const PathfinderService& service) {
  ServerGauges gauges;
  gauges.field_cache = cache.stats();
  gauges.cache_budget_bytes = cache.budget().total_bytes();
  gauges.caches = cache.budget().usage();
  const auto entries = store.list();
  gauges.masks_stored = entries.size();
  gauges.masks_corrupt = store.corrupt_count();
  for (const auto& entry : entries) {
    gauges.mask_bytes += static_cast<std::uint64_t>(entry->mask->width()) * entry->mask->height();
  }
  gauges.component_cache_entries = service.component_cache_entries();
  gauges.build_deadline_give_ups = service.build_deadline_give_ups();
  gauges.any_angle_structures_built = service.any_angle_structures_built();
  gauges.route_cache_entries = service.route_cache_entries();
  gauges.path_cache_entries = service.path_cache_entries();
  return gauges;
}

}  // namespace pathserver
