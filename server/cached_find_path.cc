#include "cached_find_path.h"

#include <memory>
#include <optional>
#include <utility>

#include "pathcore/distance_field.h"

namespace pathserver {

FieldKey field_key(const MaskEntry& entry, const pathcore::FieldOptions& options,
                   pathcore::Point goal) {
  const pathcore::FieldOptions normal = pathcore::normalized(options);
  return FieldKey{entry.name,
                  entry.revision,
                  normal.enabled,
                  normal.connectivity,
                  normal.allow_corner_cutting,
                  normal.area_costs,
                  goal};
}

CachedPathResult cached_find_path(const MaskEntry& entry, FieldCache& cache,
                                  FieldFinisher* finisher, pathcore::Point start,
                                  pathcore::Point goal, const pathcore::FindPathOptions& options) {
  const pathcore::Mask& mask = *entry.mask;
  if (auto beeline = pathcore::beeline_answer(mask, start, goal, options)) {
    return {std::move(*beeline), false};
  }
  const pathcore::AreaSet enabled = options.field.enabled & pathcore::kAllAreas;
  std::optional<bool> goal_reachable;
  bool hit = false;
  if (mask.walkable(start, enabled) && mask.walkable(goal, enabled)) {
    const FieldKey key = field_key(entry, options.field, goal);
    FieldPtr field = cache.get(key);
    if (!field && finisher != nullptr) field = finisher->wait_for(key);
    hit = field != nullptr;
    if (!field) {
      pathcore::FieldBuilder builder(mask, goal, options.field);
      if (builder.run_until_settled(start)) {
        // Answer from the partial field; the rest is finished off this path.
        CachedPathResult result{pathcore::path_from_field(mask, builder.field(), start, options),
                                false};
        if (finisher != nullptr) {
          finisher->submit(key, entry.mask, std::move(builder));
        } else {
          cache.put(key, std::make_shared<const pathcore::DistanceField>(builder.take()));
        }
        return result;
      }
      // The fill ran to the end without reaching start: cache it as it is.
      field = std::make_shared<const pathcore::DistanceField>(builder.take());
      cache.put(key, field);
    }
    if (field->reachable(start) || !options.snap_to_reachable) {
      return {pathcore::path_from_field(mask, *field, start, options), hit};
    }
    goal_reachable = false;
  }
  if (!options.snap_to_reachable) {
    CachedPathResult result;
    result.path.goal = goal;
    return result;
  }
  const auto ends = pathcore::snap_endpoints(mask, options.field, start, goal, goal_reachable);
  if (!ends) {
    CachedPathResult result;
    result.path.goal = goal;
    return result;
  }
  pathcore::FindPathOptions plain = options;
  plain.snap_to_reachable = false;
  CachedPathResult result =
      cached_find_path(entry, cache, finisher, ends->start, ends->goal, plain);
  result.cache_hit = result.cache_hit || hit;
  return result;
}

}  // namespace pathserver
