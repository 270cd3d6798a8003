// FindPath with a cost budget (max_cost) or a partial answer (partial): a
// search forward from the start that stops at the budget, and the path to
// the pixel it reached nearest to the goal when the goal is out of reach.
//
// A goal within the budget gets exactly the plain FindPath answer (the
// cached field is asked first when it is there: one lookup). Otherwise the
// answer is an optimal grid path from the start to the chosen pixel, traced
// back on the search and smoothed with the request's mode over the window
// the search covered, found = false, reason PATH_REASON_BUDGET_REACHED or
// PATH_REASON_PARTIAL.

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/movement_range.h"
#include "pathcore/obstacles.h"
#include "pathcore/path.h"
#include "service/obstacles_wire.h"
#include "service/pathfinder_service.h"
#include "service/proto_convert.h"
#include "service/rpc_status.h"
#include "service/usable_entry.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

// The pixels of `walked` inside `bounds`, those `blocked` blocks set to 0: a
// small mask the path to a pixel of the range is smoothed on (the range
// lies inside it, so smoothing never needs more of the mask).
pathcore::Mask crop(const pathcore::Mask& walked, const pathcore::PixelRect& bounds,
                    const pathcore::ObstacleSet* blocked) {
  std::vector<std::uint8_t> areas(std::size_t{bounds.width} * bounds.height);
  for (std::uint32_t r = 0; r < bounds.height; ++r) {
    for (std::uint32_t c = 0; c < bounds.width; ++c) {
      const pathcore::Point p{bounds.x + static_cast<std::int32_t>(c),
                              bounds.y + static_cast<std::int32_t>(r)};
      const bool off = blocked != nullptr && blocked->blocks(p);
      areas[std::size_t{r} * bounds.width + c] = off ? 0 : walked.area(p);
    }
  }
  return {bounds.width, bounds.height, std::move(areas)};
}

// The path from the start to `target` (in range), smoothed as options say.
pathcore::PathResult path_in_range(const pathcore::MovementRange& range, pathcore::Point target,
                                   const pathcore::Mask& walked,
                                   const pathcore::ObstacleSet* blocked,
                                   const pathcore::FindPathOptions& options) {
  pathcore::PathResult result;
  pathcore::Path grid = range.path_to(target);
  const pathcore::AreaSet enabled = options.field.enabled;
  if (options.smoothing == pathcore::Smoothing::kSimplify) {
    grid = pathcore::simplify(grid);
  } else if (options.smoothing == pathcore::Smoothing::kBeautify && grid.size() > 2) {
    const pathcore::PixelRect& bounds = range.bounds();
    const pathcore::Mask local = crop(walked, bounds, blocked);
    for (pathcore::Point& p : grid) p = {p.x - bounds.x, p.y - bounds.y};
    grid = pathcore::beautify(pathcore::simplify(grid), local, enabled,
                              pathcore::line_rule_for(options.field), options.field.area_costs);
    for (pathcore::Point& p : grid) p = {p.x + bounds.x, p.y + bounds.y};
  }
  result.found = false;
  result.points = std::move(grid);
  result.length = pathcore::polyline_length(result.points);
  result.cost = pathcore::polyline_cost(result.points, walked, enabled, options.field.area_costs);
  result.grid_cost = range.cost_at(target)->value();
  result.goal = target;
  return result;
}

}  // namespace

std::optional<grpc::Status> PathfinderService::budget_find_path(
    const v1::FindPathRequest& request, v1::FindPathResponse& response, FieldSource& source) {
  const double max_cost = request.max_cost();
  if (max_cost == 0 && !request.partial()) return std::nullopt;
  if (!std::isfinite(max_cost) || max_cost < 0) {
    return invalid("max_cost: must be 0 (no budget) or a finite number > 0 (got " +
                   std::to_string(max_cost) + ")");
  }
  const bool budget = max_cost > 0;
  const std::string field = budget ? "max_cost" : "partial";
  if (request.goals_size() > 0) {
    return invalid(field + ": cannot be combined with goals (set goal instead)");
  }
  if (request.smoothing() == v1::SMOOTHING_ANY_ANGLE) {
    return invalid(field +
                   ": not available with SMOOTHING_ANY_ANGLE (budgets and partial paths are "
                   "grid costs; use SMOOTHING_BEAUTIFY)");
  }
  // snap_to_reachable answers an unreachable goal itself (found = true).
  if (!budget && request.snap_to_reachable()) return std::nullopt;

  FindPathPlan plan;
  const pathcore::Point start = to_core(request.start());
  if (auto status = plan_find_path(request, &start, plan); !status.ok()) return status;
  const MaskEntry& entry = *plan.entry;
  const pathcore::Mask& mask = *entry.mask;
  const pathcore::Point goal = plan.goal;
  const pathcore::FindPathOptions& options = plan.options;

  pathcore::ObstacleSet obstacles;
  if (auto status = decode_obstacles(request.obstacles(), mask, limits_.max_obstacles, obstacles);
      !status.ok()) {
    return status;
  }

  // The plain FindPath answer: for a goal within the budget, and for what a
  // budget does not change.
  // With obstacles, find_path_planned answers on the patched mask.
  const auto plain_answer = [&]() -> grpc::Status {
    return find_path_planned(plan, start, response, source);
  };

  if (budget && options.snap_to_reachable) {
    // Snapping needs the whole field: the snapped path, cut to the budget
    // afterwards when it costs more.
    if (grpc::Status status = plain_answer(); !status.ok() || !response.found() ||
                                              response.grid_cost() <= max_cost ||
                                              response.points_size() == 0) {
      return status;
    }
  } else if (budget && obstacles.empty() && plan.goal_key) {
    // The goal's field is cached: its cost at the start decides at once.
    if (const FieldPtr cached = cache_.peek(*plan.goal_key);
        cached != nullptr && cached->reachable(start) && cached->cost_at(start) <= max_cost) {
      return plain_answer();
    }
  }
  if (!budget) {
    // partial: the plain answer when it finds a path or cannot start.
    grpc::Status status = plain_answer();
    if (!status.ok() || response.found()) return status;
    const v1::PathReason reason = response.reason();
    if (reason == v1::PATH_REASON_START_NOT_WALKABLE ||
        reason == v1::PATH_REASON_START_LACKS_CLEARANCE) {
      return status;
    }
    response.Clear();
  }

  // Snapped ends (budget with snapping): the search runs between them.
  pathcore::Point from = start;
  pathcore::Point toward = goal;
  if (response.points_size() > 0) {
    from = to_core(response.points(0));
    toward = to_core(response.goal());
    response.Clear();
  }

  const std::function<bool()> interrupt = source.begin_scan();  // on the compute pool
  const pathcore::Mask* walked = &mask;
  std::optional<UsableEntry> usable;
  if (plan.clearance_key != 0) {
    usable = usable_entry(usable_masks_, source, entry, plan.enabled, plan.clearance_key);
    walked = usable->entry.mask.get();
  }
  std::optional<pathcore::ObstacleSet> grown;
  const pathcore::ObstacleSet* blocked = nullptr;
  if (!obstacles.empty()) {
    if (plan.clearance_key != 0) {
      grown = obstacles.grown_by(plan.clearance_key, mask.width(), mask.height());
      blocked = &*grown;
    } else {
      blocked = &obstacles;
    }
  }
  const auto passable = [&](pathcore::Point p) {
    return walked->walkable(p, plan.enabled) && (blocked == nullptr || !blocked->blocks(p));
  };
  // Why an end cannot be used: blocked, or only short of clearance.
  const auto not_usable = [&](pathcore::Point p, bool is_start) {
    const bool blocked_there =
        !mask.walkable(p, plan.enabled) || obstacles.blocks(p);
    if (is_start) {
      return blocked_there ? v1::PATH_REASON_START_NOT_WALKABLE
                           : v1::PATH_REASON_START_LACKS_CLEARANCE;
    }
    return blocked_there ? v1::PATH_REASON_GOAL_NOT_WALKABLE : v1::PATH_REASON_GOAL_LACKS_CLEARANCE;
  };
  const auto no_path = [&](v1::PathReason reason) {
    response.Clear();
    response.set_found(false);
    to_proto(goal, response.mutable_goal());
    response.set_reason(reason);
    response.set_mask_revision(entry.revision);
    return grpc::Status::OK;
  };
  if (!passable(from)) return no_path(not_usable(from, true));
  const bool goal_usable = passable(toward);
  if (!goal_usable && !request.partial()) return no_path(not_usable(toward, false));

  pathcore::RangeLimits limits;
  limits.blocked = blocked;
  limits.interrupt = interrupt;
  const pathcore::MovementRange range = pathcore::compute_range(
      *walked, from, budget ? max_cost : std::numeric_limits<double>::infinity(), options.field,
      limits);
  if (range.in_range(toward) && from == start && toward == goal) return plain_answer();
  v1::PathReason reason = v1::PATH_REASON_BUDGET_REACHED;
  if (!range.budget_reached()) {
    // The range holds everything the start reaches: the goal is cut off.
    if (!request.partial()) {
      return no_path(goal_usable ? v1::PATH_REASON_NO_ROUTE : not_usable(toward, false));
    }
    reason = v1::PATH_REASON_PARTIAL;
  }
  const pathcore::Point target = *range.nearest_to(toward);
  pathcore::PathResult result = path_in_range(range, target, *walked, blocked, options);
  to_proto(result, &response);
  response.set_reason(reason);
  response.set_mask_revision(entry.revision);
  return grpc::Status::OK;
}

}  // namespace pathserver
