#pragma once

#include <memory>

#include "cache/usable_mask_cache.h"
#include "pathcore/mask.h"
#include "service/cached_find_path.h"
#include "store/mask_store.h"

namespace pathserver {

// A stored mask as an agent with clearance sees it (FindPathRequest.clearance).
struct UsableEntry {
  std::shared_ptr<const UsableGrid> grid;
  // The stored entry's name and revision, its mask the usable pixels and its
  // ClearanceMap theirs (both owned by grid): cached_find_path and
  // any_angle_find_path run on it unchanged.
  MaskEntry entry;
};

// The usable entry of `entry` for effective areas `enabled` and a valid
// clearance that excludes pixels (pathcore::clearance_excludes_pixels). The
// grid comes from `cache`, else is built through source.build_once (so on
// the compute pool, once for concurrent requests: O(pixels)) and cached.
// Throws what source.build_once throws (NeedsFill on gRPC's thread, Parked).
[[nodiscard]] UsableEntry usable_entry(UsableMaskCache& cache, FieldSource& source,
                                       const MaskEntry& entry, pathcore::AreaSet enabled,
                                       double clearance);

}  // namespace pathserver
