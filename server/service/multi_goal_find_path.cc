#include "service/multi_goal_find_path.h"

#include <optional>
#include <utility>

#include "service/endpoint_snapping.h"

namespace pathserver {

MultiGoalPathResult multi_goal_find_path(const MaskEntry& entry, FieldSource& source,
                                         pathcore::Point start, const FieldKey& key,
                                         const pathcore::FindPathOptions& options,
                                         EndpointSnapper* snapper) {
  const pathcore::Mask& mask = *entry.mask;
  const pathcore::AreaSet enabled = options.field.enabled & pathcore::kAllAreas;
  const std::vector<pathcore::Point>& goals = key.goals;
  bool hit = false;
  // The path from `from` on the field to the nearest goal, when it reaches one.
  const auto on_field = [&](pathcore::Point from) -> std::optional<MultiGoalPathResult> {
    const FieldLease lease = source.field(key, entry, from);
    hit = hit || lease.hit;
    if (!lease.field->reachable(from)) return std::nullopt;
    MultiGoalPathResult answer;
    answer.result.path =
        pathcore::path_from_field(mask, *lease.field, from, options, entry.clearance.get());
    answer.result.cache_hit = hit;
    answer.explained_goal = answer.result.path.goal;
    return answer;
  };
  if (mask.walkable(start, enabled)) {
    if (auto answer = on_field(start)) return *std::move(answer);
  }
  MultiGoalPathResult answer;
  answer.explained_goal = goals[0];
  answer.result.path.goal = goals[0];
  if (!options.snap_to_reachable) {
    for (const pathcore::Point g : goals) {
      if (mask.walkable(g, enabled)) {
        answer.explained_goal = g;
        break;
      }
    }
    answer.result.cache_hit = hit;
    return answer;
  }
  std::optional<pathcore::SnappedEndpoints> ends;
  if (snapper != nullptr) {
    ends = snapper->snap(entry, source, options.field, options.clearance, start, goals[0]);
  } else {
    const std::function<bool()> interrupt = source.begin_scan();
    try {
      ends = pathcore::snap_endpoints(mask, options.field, start, goals[0], std::nullopt,
                                      interrupt);
    } catch (const pathcore::Interrupted&) {
      throw RequestGone{};
    }
  }
  if (!ends) {
    answer.result.cache_hit = hit;
    return answer;
  }
  if (!(ends->start == start)) {
    // The moved start may reach a goal the blocked one could not.
    if (auto moved = on_field(ends->start)) {
      moved->explained_goal = moved->result.path.goal;
      return *std::move(moved);
    }
  }
  // No goal reachable: toward goals[0], snapped as one goal is.
  pathcore::FindPathOptions plain = options;
  plain.snap_to_reachable = false;
  answer.result = cached_find_path(entry, source, ends->start, ends->goal, plain);
  answer.result.cache_hit = answer.result.cache_hit || hit;
  answer.result.path.goal_index = 0;
  return answer;
}

}  // namespace pathserver
