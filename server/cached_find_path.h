#pragma once

#include "field_cache.h"
#include "field_finisher.h"
#include "mask_store.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"

namespace pathserver {

struct CachedPathResult {
  pathcore::PathResult path;
  bool cache_hit = false;  // the distance field came from the cache (or a fill under way)
};

// The cache key of the field a request needs toward goal.
[[nodiscard]] FieldKey field_key(const MaskEntry& entry, const pathcore::FieldOptions& options,
                                 pathcore::Point goal);

// FindPath on a stored mask, sharing distance fields through `cache`:
// pathcore::beeline_answer when it answers; else the field for (mask,
// revision, normalized options.field, goal) from the cache, or from
// `finisher` when it is finishing that field, or built on a miss. A built
// field is filled only until start is settled; the path is traced on it at
// once and `finisher` completes and caches the rest off this call's critical
// path (without a finisher it is completed and cached here). Then
// pathcore::path_from_field. Unwalkable start or goal, or a start that cannot
// reach the goal: found = false, or with options.snap_to_reachable the
// endpoints move per pathcore::snap_endpoints and the path is found between
// them (its field cached under the snapped goal). start and goal must be
// inside the mask. Throws pathcore::InvalidArgument.
[[nodiscard]] CachedPathResult cached_find_path(const MaskEntry& entry, FieldCache& cache,
                                                FieldFinisher* finisher, pathcore::Point start,
                                                pathcore::Point goal,
                                                const pathcore::FindPathOptions& options);

}  // namespace pathserver
