// find_path and its parts: the beeline shortcut and a path from a cached
// field with the chosen smoothing (pathcore/path.h).
#include "pathcore/path.h"

#include <optional>
#include <string>
#include <utility>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "field/cost_range.h"
#include "line/segment_cost.h"
#include "mask/point_checks.h"
#include "path/field_answer.h"
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

namespace {

// The optimal grid cost between the ends of a beeline whose pixels (per the
// request's line rule) are all walkable and of the cheapest cost. Four
// connected: the supercover holds a monotone four-connected path, so
// cheapest * Manhattan distance (the least any path can cost). Eight
// connected: cheapest * octile distance when an octile path along the
// beeline may take its diagonal steps: always with corner cutting, else when
// both pixels beside each are walkable; std::nullopt when one is not (the
// optimum may be longer). The path checked takes, at each step i along the
// longer axis, the pixel nearest the beeline there (halves rounded up), which
// the beeline's square touches, so it is walkable and of the cheapest cost.
// clearance (serving the mask and enabled, or null) skips ahead where a
// pixel's clearance says its neighbourhood is open.
std::optional<double> beeline_grid_cost(const Mask& mask, AreaSet enabled, Point start, Point goal,
                                        const FieldOptions& options, int cheapest,
                                        const ClearanceMap* clearance) {
  const std::int64_t dx = std::llabs(std::int64_t{goal.x} - start.x);
  const std::int64_t dy = std::llabs(std::int64_t{goal.y} - start.y);
  const auto unit = static_cast<std::uint32_t>(cheapest);
  if (options.connectivity == Connectivity::kFour) {
    return GridCost{static_cast<std::uint32_t>(dx + dy) * unit, 0}.value();
  }
  const std::int64_t major = std::max(dx, dy);
  const std::int64_t minor = std::min(dx, dy);
  const GridCost octile{static_cast<std::uint32_t>(major - minor) * unit,
                        static_cast<std::uint32_t>(minor) * unit};
  if (options.allow_corner_cutting || minor == 0 || minor == major) {
    // Straight runs: the beeline's supercover holds the pixels beside every
    // diagonal step.
    return octile.value();
  }
  const bool x_major = dx >= dy;
  const std::int64_t sx = start.x < goal.x ? 1 : -1;
  const std::int64_t sy = start.y < goal.y ? 1 : -1;
  // Below 2^15 pixels the rounding fits a 32-bit division, several times
  // cheaper than a 64-bit one (one per skip).
  const bool narrow = major < (std::int64_t{1} << 15);
  const auto pixel = [&](std::int64_t i) {
    const std::int64_t m =
        narrow ? static_cast<std::int64_t>(static_cast<std::uint32_t>(2 * i * minor + major) /
                                           static_cast<std::uint32_t>(2 * major))
               : (2 * i * minor + major) / (2 * major);
    const std::int64_t along_x = x_major ? i : m;
    const std::int64_t along_y = x_major ? m : i;
    return Point{static_cast<std::int32_t>(start.x + sx * along_x),
                 static_cast<std::int32_t>(start.y + sy * along_y)};
  };
  for (std::int64_t i = 0; i < major;) {
    const Point p = pixel(i);
    if (clearance != nullptr) {
      // Every pixel within Chebyshev distance c - 1 of p is walkable: the
      // next c - 1 steps and the pixels beside them lie there.
      const int c = clearance->at(p);
      if (c >= 2) {
        i += c - 1;
        continue;
      }
    }
    const Point q = pixel(i + 1);
    if (q.x != p.x && q.y != p.y &&
        (!mask.walkable({q.x, p.y}, enabled) || !mask.walkable({p.x, q.y}, enabled))) {
      return std::nullopt;
    }
    ++i;
  }
  return octile.value();
}

// The cost of a path from path_from_field (polyline_cost, points all inside):
// on unweighted terrain the charge times the length, for the grid path (kNone)
// times the field's exact step sum, which is that length without its rounding.
double path_cost(const PathResult& result, const Mask& mask, const FieldOptions& options,
                 bool grid_path, GridCost grid) {
  const SegmentCoster coster(mask, options.enabled, options.area_costs);
  if (coster.uniform_charge() != 0) {
    if (grid_path) {
      // The field's steps cost the charge each (times sqrt 2 when diagonal).
      return grid.value();
    }
    return coster.uniform_charge() * result.length;
  }
  double cost = 0;
  for (std::size_t i = 1; i < result.points.size(); ++i) {
    cost += coster.cost(result.points[i - 1], result.points[i]);
  }
  return cost;
}

}  // namespace

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
    result.grid_cost = 0.0;
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
  if (clearance != nullptr && !clearance->serves(mask, enabled)) {
    clearance = nullptr;
  }
  if (clearance != nullptr && costs.dearest == cheapest) {
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
    // A corner-cutting beeline also crosses pixels beside its Bresenham ones;
    // they must be as cheap. (The cost sums in integers: exactly cheapest *
    // length when every pixel crossed costs the cheapest, clearly more else.)
    if (costs.dearest != cheapest &&
        SegmentCoster(mask, enabled, field_options.area_costs).cost(start, goal) >
            cheapest * polyline_length({start, goal})) {
      return std::nullopt;
    }
  }
  result.points = {start, goal};
  result.length = polyline_length(result.points);
  // Every pixel the beeline crosses costs the cheapest (a clipped blocked one
  // is charged so too: see polyline_cost).
  result.cost = cheapest * result.length;
  result.grid_cost =
      beeline_grid_cost(mask, enabled, start, goal, field_options, cheapest, clearance);
  return result;
}

bool beeline_ruled_out(const DistanceField& field, Point start) {
  const FieldOptions& options = field.options();
  if (options.connectivity != Connectivity::kFour || options.area_costs != unit_area_costs()) {
    return false;
  }
  if (!field.reachable(start)) {
    return true;  // a walkable beeline would be a way to the goal
  }
  const Point goal = field.goal();
  const std::int64_t manhattan =
      std::llabs(std::int64_t{goal.x} - start.x) + std::llabs(std::int64_t{goal.y} - start.y);
  return static_cast<std::int64_t>(field.at(start)) > manhattan;
}

namespace {

// The corners smoothing starts from (smoothing_trace, corners only).
Path corner_trace(const Mask& mask, const DistanceField& field, Point start, TraceMemo* traces) {
  return smoothing_trace(mask, field, start, /*corners_only=*/true, traces);
}
Path corner_trace(const Mask& mask, const RepairedField& field, Point start,
                  TraceMemo* /*traces*/) {
  return smoothing_trace(mask, field, start, /*corners_only=*/true);
}

// path_from_field on a DistanceField or a RepairedField (which takes no
// trace memo).
template <typename Field>
PathResult answer_from_field(const Mask& mask, const Field& field, Point start,
                             const FindPathOptions& options, const ClearanceMap* clearance,
                             SmoothingScratch* scratch, TraceMemo* traces) {
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
  result.goal_index = field.goal_index(start);
  result.goal = field.goal(result.goal_index);
  switch (options.smoothing) {
    case Smoothing::kNone:
      result.points = trace(mask, field, start, false);
      break;
    case Smoothing::kSimplify:
      // simplify(trace_for_smoothing(...)), without the inner points.
      result.points = corner_trace(mask, field, start, traces);
      break;
    case Smoothing::kBeautify:
      result.points =
          beautify_traced(corner_trace(mask, field, start, traces), mask, wanted.enabled,
                          line_rule_for(wanted), wanted.area_costs, clearance, scratch);
      break;
  }
  result.length = polyline_length(result.points);
  const GridCost grid = field.exact(start);
  result.grid_cost = grid.value();
  result.cost = path_cost(result, mask, wanted, options.smoothing == Smoothing::kNone, grid);
  return result;
}

}  // namespace

PathResult path_from_field(const Mask& mask, const DistanceField& field, Point start,
                           const FindPathOptions& options, const ClearanceMap* clearance,
                           SmoothingScratch* scratch, TraceMemo* traces) {
  return answer_from_field(mask, field, start, options, clearance, scratch, traces);
}

PathResult path_from_repaired_field(const Mask& mask, const RepairedField& field, Point start,
                                    const FindPathOptions& options) {
  return answer_from_field(mask, field, start, options, nullptr, nullptr, nullptr);
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
