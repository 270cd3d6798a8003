#pragma once

#include <vector>

#include "cache/field_cache.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"
#include "service/cached_find_path.h"
#include "store/mask_store.h"

namespace pathserver {

class EndpointSnapper;  // endpoint_snapping.h

struct MultiGoalPathResult {
  CachedPathResult result;  // path.goal_index: which goal the path leads to
  // The goal the answer is explained against (pathcore::explain_result):
  // goals[goal_index] when found, goals[0] when snapped toward it, and when
  // not found the first goal the walked mask lets the request stand on
  // (else goals[0]), so a reason says GOAL_NOT_WALKABLE only when no goal is.
  pathcore::Point explained_goal;
};

// FindPath toward the nearest of several goals (key.goals, two or more) on
// entry's mask, with fields from `source`: the field to the nearest goal
// (one multi-source fill, cached per goals and options like a one-goal
// field) and pathcore::path_from_field on it, which leads to goals[i] with
// i the lowest index among the cheapest. No beeline shortcut (another goal
// may be nearer). With options.snap_to_reachable: an unwalkable start moves
// to its nearest walkable pixel (snap_endpoints' rule), and when it reaches
// no goal the path goes to the pixel nearest to goals[0] that it reaches
// (as a one-goal request toward goals[0]; goal_index 0). Without: found =
// false when the start is not walkable or reaches no goal. entry: as for
// cached_find_path (the usable entry with clearance). Throws what
// cached_find_path throws.
[[nodiscard]] MultiGoalPathResult multi_goal_find_path(const MaskEntry& entry, FieldSource& source,
                                                       pathcore::Point start, const FieldKey& key,
                                                       const pathcore::FindPathOptions& options,
                                                       EndpointSnapper* snapper = nullptr);

}  // namespace pathserver
