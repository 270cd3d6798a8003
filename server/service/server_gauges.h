#pragma once

#include "cache/field_cache.h"
#include "runtime/metrics.h"
#include "service/pathfinder_service.h"
#include "store/mask_store.h"

namespace pathserver {

// The gauges of the metrics endpoint, read at scrape time from the store, the
// field cache and the service's query caches.
[[nodiscard]] ServerGauges read_gauges(const MaskStore& store, const FieldCache& cache,
                                       const PathfinderService& service);

}  // namespace pathserver
