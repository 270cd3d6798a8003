#include "service/any_angle_find_path.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "service/endpoint_snapping.h"

namespace pathserver {
namespace {

// Runs work(interrupt) where heavy work may run: source.begin_scan() throws
// NeedsFill on gRPC's thread, and gives the call's interrupt check elsewhere.
// For per-call work only (a search, a snap): shared builds go through
// source.build_once.
template <typename Work>
auto run_heavy(FieldSource& source, Work work) {
  const std::function<bool()> interrupt = source.begin_scan();
  try {
    return work(interrupt);
  } catch (const pathcore::Interrupted&) {
    throw RequestGone{};  // the call is gone, and the work was its own
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
  if (start == goal) {  // no mesh needed for a path of one point
    result.path.found = true;
    result.path.points = {start};
    result.precise = {{start.x + 0.5, start.y + 0.5}};
    return result;
  }

  const AnyAngleMeshKey key{entry.name, entry.revision, options.enabled,
                            options.allow_corner_cutting, options.clearance};
  bool built = false;
  const std::shared_ptr<const pathcore::AnyAngleMesh> mesh =
      any_angle_structure(entry, caches, source, key, built);
  const bool hit = !built;
  std::optional<pathcore::AnyAnglePath> path =
      run_heavy(source, [&](const std::function<bool()>& interrupt) {
        return pathcore::find_any_angle_path(*mesh, start, goal, interrupt);
      });
  result.cache_hit = hit;
  if (path) {
    result.path.found = true;
    result.path.points = std::move(path->pixels);
    // Two vertices on one pixel's square give that pixel twice in a row: a
    // zero-length step for a client walking the pixels. precise stays exact.
    result.path.points.erase(std::unique(result.path.points.begin(), result.path.points.end()),
                             result.path.points.end());
    result.path.length = path->length;
    result.path.cost = path->length;  // area costs are refused in this mode
    result.precise = std::move(path->points);
  }
  return result;
}

}  // namespace

std::shared_ptr<const pathcore::AnyAngleMesh> any_angle_structure(const MaskEntry& entry,
                                                                  AnyAngleCaches& caches,
                                                                  FieldSource& source,
                                                                  const AnyAngleMeshKey& key,
                                                                  bool& built) {
  built = false;
  std::shared_ptr<const pathcore::AnyAngleMesh> mesh = caches.meshes.get(key);
  if (mesh) return mesh;
  source.build_shared(
      any_angle_structure_flight_key(key), any_angle_structure_name(key),
      [&](const std::function<bool()>& interrupt, const pathcore::ProgressReport& progress) {
        mesh = caches.meshes.get(key);  // another request may have built it since the miss
        if (mesh) return;
        mesh = std::make_shared<const pathcore::AnyAngleMesh>(pathcore::AnyAngleMesh::build(
            *entry.mask, key.enabled, key.allow_corner_cutting, interrupt, progress));
        caches.meshes.put(key, mesh);
        caches.structures_built.fetch_add(1, std::memory_order_relaxed);
        built = true;
      });
  if (!mesh) mesh = caches.meshes.get(key);  // a parked call's rerun never gets here
  return mesh;
}

AnyAnglePathResult any_angle_find_path(const MaskEntry& entry, AnyAngleCaches& caches,
                                       FieldSource& source, pathcore::Point start,
                                       pathcore::Point goal, const AnyAngleOptions& options,
                                       EndpointSnapper* snapper) {
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
      snapper != nullptr
          ? snapper->snap(entry, source, reach, options.clearance, start, goal)
          : run_heavy(source, [&](const std::function<bool()>& interrupt) {
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
