#include "service/any_angle_find_path.h"

#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace pathserver {
namespace {

// Runs build(interrupt) where heavy work may run: source.begin_scan() throws
// NeedsFill on gRPC's thread, and gives the call's interrupt check elsewhere.
template <typename Build>
auto run_heavy(FieldSource& source, Build build) {
  const std::function<bool()> interrupt = source.begin_scan();
  try {
    return build(interrupt);
  } catch (const pathcore::Interrupted&) {
    throw RequestGone{};  // the call is gone: nothing half-built is kept
  }
}

// The path between two ends, no snapping. `reached` says whether start and
// goal were both walkable (so found = false means no route).
AnyAnglePathResult between(const MaskEntry& entry, AnyAngleCaches& caches, FieldSource& source,
                           pathcore::Point start, pathcore::Point goal,
                           const AnyAngleOptions& options) {
  const pathcore::Mask& mask = *entry.mask;
  AnyAnglePathResult result;
  result.path.goal = goal;
  if (!mask.walkable(start, options.enabled) || !mask.walkable(goal, options.enabled)) {
    return result;
  }
  if (start == goal) {  // no graph needed for a path of one point
    result.path.found = true;
    result.path.points = {start};
    result.precise = {{start.x + 0.5, start.y + 0.5}};
    return result;
  }

  AnyAngleGoalKey key{{entry.name, entry.revision, options.enabled, options.allow_corner_cutting,
                       options.clearance},
                      goal};
  bool built = false;
  std::shared_ptr<const pathcore::AnyAngleGraph> graph =
      any_angle_structure(entry, caches, source, key.graph, built);
  bool hit = !built;
  std::shared_ptr<const pathcore::AnyAngleGoalTable> table = caches.goals.get(key);
  // A table cached against an evicted and rebuilt graph still fits it: the
  // graph is a function of its key, so its corners are the same.
  if (!table) {
    // The goal's first call: a search toward this start only (a fraction of
    // the complete table's cost on large maps), whose answer is the one the
    // complete table gives (pathcore::find_any_angle_path), then the
    // complete table after answering, once at a time per goal. A search that
    // had to settle everything is complete already.
    hit = false;
    table = run_heavy(source, [&](const std::function<bool()>& interrupt) {
      return std::make_shared<const pathcore::AnyAngleGoalTable>(
          pathcore::AnyAngleGoalTable::build_toward(*graph, goal, start, interrupt));
    });
    if (table->complete()) {
      caches.goals.put(key, table);
    } else if (caches.start_table(key)) {
      source.after_answer([&caches, graph, key](const std::function<bool()>& interrupt) {
        try {
          if (!caches.goals.get(key)) {
            caches.goals.put(key, std::make_shared<const pathcore::AnyAngleGoalTable>(
                                      pathcore::AnyAngleGoalTable::build(*graph, key.goal,
                                                                         interrupt)));
          }
        } catch (...) {
          caches.table_built(key);
          throw;
        }
        caches.table_built(key);
      });
    }
  }
  result.cache_hit = hit;
  std::optional<pathcore::AnyAnglePath> path = pathcore::find_any_angle_path(*graph, *table, start);
  if (path) {
    result.path.found = true;
    result.path.points = std::move(path->pixels);
    result.path.length = path->length;
    result.path.cost = path->length;  // area costs are refused in this mode
    result.precise = std::move(path->points);
  }
  return result;
}

}  // namespace

std::shared_ptr<const pathcore::AnyAngleGraph> any_angle_structure(const MaskEntry& entry,
                                                                   AnyAngleCaches& caches,
                                                                   FieldSource& source,
                                                                   const AnyAngleGraphKey& key,
                                                                   bool& built) {
  built = false;
  std::shared_ptr<const pathcore::AnyAngleGraph> graph = caches.graphs.get(key);
  if (graph) return graph;
  source.build_shared(
      any_angle_structure_flight_key(key), any_angle_structure_name(key),
      [&](const std::function<bool()>& interrupt, const pathcore::ProgressReport& progress) {
        graph = caches.graphs.get(key);  // another request may have built it since the miss
        if (graph) return;
        graph = std::make_shared<const pathcore::AnyAngleGraph>(pathcore::AnyAngleGraph::build(
            *entry.mask, key.enabled, key.allow_corner_cutting, interrupt, progress));
        caches.graphs.put(key, graph);
        caches.structures_built.fetch_add(1, std::memory_order_relaxed);
        built = true;
      });
  if (!graph) graph = caches.graphs.get(key);  // a parked call's rerun never gets here
  return graph;
}

AnyAnglePathResult any_angle_find_path(const MaskEntry& entry, AnyAngleCaches& caches,
                                       FieldSource& source, pathcore::Point start,
                                       pathcore::Point goal, const AnyAngleOptions& options) {
  const pathcore::Mask& mask = *entry.mask;
  std::optional<bool> goal_reachable;
  bool hit = false;
  if (mask.walkable(start, options.enabled) && mask.walkable(goal, options.enabled)) {
    AnyAnglePathResult result = between(entry, caches, source, start, goal, options);
    if (result.path.found || !options.snap_to_reachable) return result;
    goal_reachable = false;
    hit = result.cache_hit;
  }
  if (!options.snap_to_reachable) {
    AnyAnglePathResult result;
    result.path.goal = goal;
    return result;
  }
  // Any-angle paths join what four neighbours join (a pinch point blocks
  // them), or eight with corner cutting: snap by that reachability.
  pathcore::FieldOptions reach;
  reach.enabled = options.enabled;
  reach.connectivity = options.allow_corner_cutting ? pathcore::Connectivity::kEight
                                                    : pathcore::Connectivity::kFour;
  reach.allow_corner_cutting = options.allow_corner_cutting;
  const std::optional<pathcore::SnappedEndpoints> ends =
      run_heavy(source, [&](const std::function<bool()>& interrupt) {
        return pathcore::snap_endpoints(mask, reach, start, goal, goal_reachable, interrupt);
      });
  if (!ends) {
    AnyAnglePathResult result;
    result.path.goal = goal;
    return result;
  }
  AnyAnglePathResult result = between(entry, caches, source, ends->start, ends->goal, options);
  result.cache_hit = result.cache_hit || hit;
  return result;
}

}  // namespace pathserver
