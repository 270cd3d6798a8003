// Why a FindPath answer is what it is (pathcore/path.h): found, snapped, or
// which end is not walkable.
#include <cmath>

#include "pathcore/agent_clearance.h"
#include "pathcore/path.h"

namespace pathcore {

void explain_result(const Mask& mask, AreaSet enabled, Point start, Point goal,
                    PathResult& result) {
  result.lacks_clearance = false;
  if (!result.found) {
    result.start_snapped = result.goal_snapped = false;
    result.goal_snap_distance = 0;
    if (!mask.walkable(start, enabled)) {
      result.reason = PathReason::kStartNotWalkable;
    } else if (!mask.walkable(goal, enabled)) {
      result.reason = PathReason::kGoalNotWalkable;
    } else {
      result.reason = PathReason::kNoRoute;
    }
    return;
  }
  result.start_snapped = !result.points.empty() && result.points.front() != start;
  result.goal_snapped = result.goal != goal;
  result.goal_snap_distance = std::hypot(static_cast<double>(result.goal.x - goal.x),
                                         static_cast<double>(result.goal.y - goal.y));
  result.reason = result.goal_snapped    ? PathReason::kGoalSnapped
                  : result.start_snapped ? PathReason::kStartSnapped
                                         : PathReason::kFound;
}

void explain_result(const Mask& mask, const UsableMask& usable, Point start, Point goal,
                    PathResult& result) {
  explain_result(usable.mask(), usable.enabled(), start, goal, result);
  if (result.reason == PathReason::kStartNotWalkable) {
    result.lacks_clearance = mask.walkable(start, usable.enabled());
  } else if (result.reason == PathReason::kGoalNotWalkable) {
    result.lacks_clearance = mask.walkable(goal, usable.enabled());
  }
}

}  // namespace pathcore
