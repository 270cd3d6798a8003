#include "cached_find_path.h"

#include <memory>

#include "pathcore/distance_field.h"

namespace pathserver {

CachedPathResult cached_find_path(const MaskEntry& entry, FieldCache& cache, pathcore::Point start,
                                  pathcore::Point goal, const pathcore::FindPathOptions& options) {
  const pathcore::Mask& mask = *entry.mask;
  if (auto beeline = pathcore::beeline_answer(mask, start, goal, options)) {
    return {std::move(*beeline), false};
  }
  const pathcore::AreaSet enabled = options.field.enabled;
  if (!mask.walkable(start, enabled) || !mask.walkable(goal, enabled)) {
    CachedPathResult result;
    result.path.found = false;
    result.path.goal = goal;
    return result;
  }

  const bool eight = options.field.connectivity == pathcore::Connectivity::kEight;
  const FieldKey key{entry.name,
                     entry.revision,
                     enabled,
                     options.field.connectivity,
                     eight && options.field.allow_corner_cutting,
                     goal};
  FieldPtr field = cache.get(key);
  const bool hit = field != nullptr;
  if (!hit) {
    pathcore::FieldOptions field_options = options.field;
    field_options.allow_corner_cutting = key.allow_corner_cutting;
    field = std::make_shared<const pathcore::DistanceField>(
        pathcore::compute_distance_field(mask, goal, field_options));
    cache.put(key, field);
  }
  return {pathcore::path_from_field(mask, *field, start, options), hit};
}

}  // namespace pathserver
