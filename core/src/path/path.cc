// find_path and its parts: the beeline shortcut and a path from a cached
// field with the chosen smoothing (pathcore/path.h).
#include "pathcore/path.h"

#include <optional>
#include <string>
#include <utility>

#include "field/cost_range.h"
#include "mask/point_checks.h"
#include "path/trace.h"
#include "pathcore/agent_clearance.h"
#include "pathcore/clearance.h"
#include "smoothing/beautify_traced.h"

namespace pathcore {

LineRule line_rule_for(const FieldOptions& options) {
  // Four-connected agents never move diagonally, so they never cut corners.
  if (options.connectivity == Connectivity::kEight && options.allow_corner_cutting) {
    return LineRule::kBresenham;
  }
  return LineRule::kNoCornerCutting;
}

std::optional<PathResult> beeline_answer(const Mask& mask, Point start, Point goal,
                                         const FindPathOptions& options,
                                         const ClearanceMap* clearance) {
  require_inside(mask, start, "start");
  require_inside(mask, goal, "goal");
  const FieldOptions field_options = normalized(options.field);
  const AreaSet enabled = field_options.enabled;
  if (!mask.walkable(start, enabled) || !mask.walkable(goal, enabled)) {
    return std::nullopt;  // path_from_field answers found = false
  }
  PathResult result;
  result.found = true;
  result.goal = goal;
  if (start == goal) {
    result.points = {start};
    return result;
  }
  if (options.smoothing == Smoothing::kNone) {
    return std::nullopt;
  }
  // With area costs, only a beeline over the cheapest terrain is surely no
  // dearer than the grid path (which crosses at least as much length).
  const LineRule rule = line_rule_for(field_options);
  const CostRange costs = area_cost_range(mask, enabled, field_options.area_costs);
  const int cheapest = costs.cheapest;
  if (clearance != nullptr && clearance->serves(mask, enabled) && costs.dearest == cheapest) {
    // Unweighted: every walkable beeline costs the cheapest.
    if (!segment_walkable(*clearance, start, goal, rule)) {
      return std::nullopt;
    }
  } else {
    const int highest =
        segment_max_cost(mask, enabled, start, goal, rule, field_options.area_costs);
    if (highest == 0 || highest > cheapest) {
      return std::nullopt;
    }
  }
  result.points = {start, goal};
  result.length = polyline_length(result.points);
  return result;
}

PathResult path_from_field(const Mask& mask, const DistanceField& field, Point start,
                           const FindPathOptions& options, const ClearanceMap* clearance,
                           SmoothingScratch* scratch) {
  if (field.width() != mask.width() || field.height() != mask.height()) {
    throw InvalidArgument("distance field of " + std::to_string(field.width()) + "x" +
                          std::to_string(field.height()) + " does not fit the " +
                          std::to_string(mask.width()) + "x" + std::to_string(mask.height()) +
                          " mask");
  }
  const FieldOptions wanted = normalized(options.field);
  const FieldOptions& got = field.options();
  if (got.enabled != wanted.enabled || got.connectivity != wanted.connectivity ||
      got.allow_corner_cutting != wanted.allow_corner_cutting ||
      got.area_costs != wanted.area_costs) {
    throw InvalidArgument(
        "distance field was computed for other areas, connectivity, corner rule or costs");
  }
  require_inside(mask, start, "start");

  PathResult result;
  result.goal = field.goal();
  if (!field.reachable(start)) {
    return result;
  }
  result.found = true;
  switch (options.smoothing) {
    case Smoothing::kNone:
      result.points = trace(mask, field, start, false);
      result.cost = field.exact(start).value();
      break;
    case Smoothing::kSimplify:
      // simplify(trace_for_smoothing(...)), without the inner points.
      result.points = smoothing_trace(mask, field, start, /*corners_only=*/true);
      break;
    case Smoothing::kBeautify:
      result.points =
          beautify_traced(smoothing_trace(mask, field, start, /*corners_only=*/true), mask,
                          wanted.enabled, line_rule_for(wanted), wanted.area_costs, clearance,
                          scratch);
      break;
  }
  result.length = polyline_length(result.points);
  return result;
}

namespace {

// find_path without explain_result (it recurses with the snapped ends).
PathResult find_path_between(const Mask& mask, Point start, Point goal,
                             const FindPathOptions& options) {
  if (auto beeline = beeline_answer(mask, start, goal, options)) {
    return *std::move(beeline);
  }
  const AreaSet enabled = options.field.enabled & kAllAreas;
  std::optional<bool> goal_reachable;
  if (mask.walkable(start, enabled) && mask.walkable(goal, enabled)) {
    const DistanceField field = compute_distance_field(mask, goal, options.field);
    if (field.reachable(start) || !options.snap_to_reachable) {
      return path_from_field(mask, field, start, options);
    }
    goal_reachable = false;
  }
  if (!options.snap_to_reachable) {
    PathResult result;
    result.goal = goal;
    return result;
  }
  const auto ends = snap_endpoints(mask, options.field, start, goal, goal_reachable);
  if (!ends) {
    PathResult result;
    result.goal = goal;
    return result;
  }
  FindPathOptions plain = options;
  plain.snap_to_reachable = false;
  return find_path_between(mask, ends->start, ends->goal, plain);
}

}  // namespace

PathResult find_path(const Mask& mask, Point start, Point goal, const FindPathOptions& options) {
  require_valid_clearance(options.clearance);
  if (options.clearance == 0) {
    PathResult result = find_path_between(mask, start, goal, options);
    explain_result(mask, options.field.enabled & kAllAreas, start, goal, result);
    return result;
  }
  require_inside(mask, start, "start");
  require_inside(mask, goal, "goal");
  const UsableMask usable(mask, options.field.enabled & kAllAreas, options.clearance);
  PathResult result = find_path_between(usable.mask(), start, goal, options);
  explain_result(mask, usable, start, goal, result);
  return result;
}

}  // namespace pathcore
