#pragma once

#include "field_cache.h"
#include "mask_store.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"

namespace pathserver {

struct CachedPathResult {
  pathcore::PathResult path;
  bool cache_hit = false;  // the distance field came from the cache
};

// FindPath on a stored mask, sharing distance fields through `cache`:
// pathcore::beeline_answer when it answers; else found = false at once when
// start or goal is not walkable (no field is computed or cached for it); else
// the field for (mask, revision, options.field, goal) from the cache, computed
// with pathcore::compute_distance_field and cached on a miss, then
// pathcore::path_from_field. start and goal must be inside the mask and
// options.field.enabled an effective set. Throws pathcore::InvalidArgument.
[[nodiscard]] CachedPathResult cached_find_path(const MaskEntry& entry, FieldCache& cache,
                                                pathcore::Point start, pathcore::Point goal,
                                                const pathcore::FindPathOptions& options);

}  // namespace pathserver
