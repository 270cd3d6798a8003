// FindPath (and each start of BatchFindPaths) with temporary obstacles: the
// request's own computation, run on a copy of the mask with the obstacles'
// pixels blocked, so its answer is by construction the one the same request
// gets on that patched mask. Everything that reads the patched mask is
// private to the call (its fields, usable pixels, any-angle mesh and
// snapping scans): no cache is read or written with it, and the path-answer
// cache neither serves nor keeps such answers. The work runs on the compute
// pool with the call's interrupt check (deadline, cancellation, shutdown).

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "cache/any_angle_caches.h"
#include "cache/cache_budget.h"
#include "pathcore/path.h"
#include "service/any_angle_find_path.h"
#include "service/cached_find_path.h"
#include "service/obstacle_entry.h"
#include "service/pathfinder_service.h"
#include "service/private_field_source.h"
#include "service/proto_convert.h"

namespace pathserver {

namespace v1 = pathfinding::v1;

struct PathfinderService::ObstaclePlan {
  google::protobuf::RepeatedPtrField<v1::Obstacle> wire;  // the request's shapes
  pathcore::AreaSet requested = 0;  // the request's effective areas, before areas_in_use
  // Built on the first start, on the pool: the plan on the patched entry,
  // and where its fields come from.
  std::optional<FindPathPlan> patched;
  std::unique_ptr<PrivateFieldSource> fields;
  // SMOOTHING_ANY_ANGLE: the patched mask's mesh, in caches of the call's own.
  CacheBudget mesh_budget{std::numeric_limits<std::size_t>::max()};
  AnyAngleCaches meshes{mesh_budget, 1};
};

std::shared_ptr<PathfinderService::ObstaclePlan> PathfinderService::obstacle_plan(
    const v1::FindPathRequest& request) {
  auto plan = std::make_shared<ObstaclePlan>();
  plan->wire = request.obstacles();
  plan->requested = pathcore::effective_areas(request.enabled_areas());
  return plan;
}

grpc::Status PathfinderService::find_path_with_obstacles(FindPathPlan& plan, pathcore::Point start,
                                                         v1::FindPathResponse& response,
                                                         FieldSource& source) {
  ObstaclePlan& obstacles = *plan.obstacles;
  if (!obstacles.patched) {
    // Throws on gRPC's thread (the call moves to the pool), else the call's check.
    std::function<bool()> interrupt = source.begin_scan();
    MaskEntryPtr entry;
    if (grpc::Status decoded = decode_patched_entry(obstacles.wire, *plan.entry,
                                                    limits_.max_obstacles, entry);
        !decoded.ok()) {
      return decoded;
    }
    // The plan as the same request plans it on the patched mask: areas in
    // use there (an area the obstacles cover whole is gone from it, which
    // changes beelines' cheapest cost), the field key of that mask.
    FindPathPlan& patched = obstacles.patched.emplace();
    patched.entry = entry;
    patched.goal = plan.goal;
    patched.goals = plan.goals;
    patched.any_angle = plan.any_angle;
    patched.enabled = entry->mask->areas_in_use(obstacles.requested);
    patched.clearance_key = plan.clearance_key;
    patched.options = plan.options;
    patched.options.field.enabled = patched.enabled;
    patched.any_angle_options = plan.any_angle_options;
    patched.any_angle_options.enabled = patched.enabled;
    if (!patched.any_angle) {
      patched.goal_key = field_key(*entry, patched.options.field, patched.goal,
                                   patched.clearance_key);
      patched.goal_key->goals = patched.goals;
    }
    if (patched.clearance_key != 0) {
      patched.usable = private_usable_entry(*entry, patched.enabled, patched.clearance_key);
    }
    obstacles.fields = std::make_unique<PrivateFieldSource>(std::move(interrupt));
  }
  FindPathPlan& patched = *obstacles.patched;
  PrivateFieldSource& fields = *obstacles.fields;
  const MaskEntry& walked = patched.usable ? patched.usable->entry : *patched.entry;
  const pathcore::Point goal = patched.goal;

  if (patched.any_angle) {
    AnyAnglePathResult result = any_angle_find_path(walked, obstacles.meshes, fields, start, goal,
                                                    patched.any_angle_options, nullptr);
    patched.explain(start, goal, result.path);
    to_proto(result.path, &response);
    response.clear_precise_points();
    for (const pathcore::PointD p : result.precise) to_proto(p, response.add_precise_points());
    response.set_mask_revision(plan.entry->revision);
    response.set_cache_hit(false);
    return grpc::Status::OK;
  }

  CachedPathResult result =
      grid_find_path(patched, walked, fields, start, *patched.goal_key, nullptr);
  to_proto(result.path, &response);
  response.set_mask_revision(plan.entry->revision);
  response.set_cache_hit(false);
  return grpc::Status::OK;
}

}  // namespace pathserver
