// FindPath (and each start of BatchFindPaths) with temporary obstacles: the
// answer the same request gets on a copy of the mask with the obstacles'
// pixels blocked. When the cache holds the goal's field on the mask without
// them, that answer comes from it (pathcore::path_around_obstacles: only
// the pixels the trace reads are checked, and a start whose cost rose
// searched from), on gRPC's thread when the detour is small, in buffers
// the service keeps for the next such call (DetourBufferPool). Otherwise it
// is the request's own computation on the patched copy: everything that reads it is private
// to the call (its fields, usable pixels, any-angle mesh and snapping
// scans), run on the compute pool with the call's interrupt check
// (deadline, cancellation, shutdown). No cache keeps anything of the
// obstacles, and the path-answer cache neither serves nor keeps such answers.

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "cache/any_angle_caches.h"
#include "cache/cache_budget.h"
#include "pathcore/detour.h"
#include "pathcore/path.h"
#include "service/any_angle_find_path.h"
#include "service/cached_find_path.h"
#include "service/obstacle_entry.h"
#include "service/obstacles_wire.h"
#include "service/pathfinder_service.h"
#include "service/private_field_source.h"
#include "service/proto_convert.h"
#include "service/usable_entry.h"

namespace pathserver {

namespace v1 = pathfinding::v1;

namespace {
// The most work (pathcore::path_around_obstacles: about a pixel walked on
// a unit-cost four-connected field) a detour may do on gRPC's thread, about
// 3 ms, as long as a warm trace across a large mask; a larger one moves to
// the compute pool, which starts it again (the hop costs about as much as
// the detour past ten obstacles on a full-HD route, 41,000 pixels).
constexpr std::size_t kDetourWorkOnCallThread = 1 << 16;
// On the pool, a detour may do this fraction of the mask's pixels in work
// before the patched copy's fill answers instead: a detour that gives up
// there has cost at most about a quarter of that fill.
constexpr std::size_t kDetourWorkPerMaskPixel = 16;
// The largest mask whose blocked copy is made on gRPC's thread (a memcpy of
// about 0.4 ms into a kept buffer); a larger one is copied on the pool.
constexpr std::size_t kCopyPixelsOnCallThread = std::size_t{1} << 22;
}  // namespace

struct PathfinderService::ObstaclePlan {
  google::protobuf::RepeatedPtrField<v1::Obstacle> wire;  // the request's shapes
  pathcore::AreaSet requested = 0;  // the request's effective areas, before areas_in_use
  // Built on the first start, on the pool: the plan on the patched entry,
  // and where its fields come from.
  std::optional<FindPathPlan> patched;
  std::unique_ptr<PrivateFieldSource> fields;
  // find_path_around_obstacles's state, set up by the first start: the
  // cached field of the goal without the obstacles, the pixels they block
  // (grown by the clearance), and buffers from the service's pool holding
  // the walked mask (stored or usable) with those pixels blocked and what
  // the detours learnt so far (for the next attempt or start).
  struct Detour {
    FieldPtr field;
    pathcore::ObstacleSet blocked;
    std::shared_ptr<DetourBuffers> buffers;
  };
  bool detour_planned = false;
  std::optional<Detour> detour;
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

std::optional<grpc::Status> PathfinderService::find_path_around_obstacles(
    FindPathPlan& plan, pathcore::Point start, v1::FindPathResponse& response,
    FieldSource& source) {
  ObstaclePlan& obstacles = *plan.obstacles;
  if (!obstacles.detour_planned) {
    if (plan.any_angle || !plan.goals.empty() || !plan.goal_key) {
      obstacles.detour_planned = true;
      return std::nullopt;
    }
    FieldPtr field = source.cached(*plan.goal_key);
    if (!field) {
      obstacles.detour_planned = true;
      return std::nullopt;
    }
    const pathcore::Mask& stored = *plan.entry->mask;
    pathcore::ObstacleSet blocked;
    if (grpc::Status decoded =
            decode_obstacles(obstacles.wire, stored, limits_.max_obstacles, blocked);
        !decoded.ok()) {
      return decoded;
    }
    const pathcore::Mask* walked = &stored;
    if (plan.clearance_key != 0) {
      // Found or built like a plain request's (may move the call to the pool).
      if (!plan.usable) {
        plan.usable =
            usable_entry(usable_masks_, source, *plan.entry, plan.enabled, plan.clearance_key);
      }
      walked = plan.usable->entry.mask.get();
      blocked = blocked.grown_by(plan.clearance_key, stored.width(), stored.height());
    }
    if (walked->pixel_count() > kCopyPixelsOnCallThread) {
      (void)source.begin_scan();  // throws on gRPC's thread: the call moves to the pool
    }
    std::shared_ptr<DetourBuffers> buffers = detour_buffers_->take(walked->pixel_count());
    if (buffers->blocked) {
      pathcore::with_obstacles(*walked, blocked, *buffers->blocked);
    } else {
      buffers->blocked.emplace(pathcore::with_obstacles(*walked, blocked));
    }
    obstacles.detour.emplace(
        ObstaclePlan::Detour{std::move(field), std::move(blocked), std::move(buffers)});
    obstacles.detour_planned = true;
  }
  if (!obstacles.detour) return std::nullopt;
  const ObstaclePlan::Detour& detour = *obstacles.detour;
  const pathcore::Mask& mask = *detour.buffers->blocked;
  pathcore::DetourScratch& scratch = detour.buffers->scratch;
  const pathcore::Point goal = plan.goal;
  if (!mask.walkable(start, plan.enabled) || !mask.walkable(goal, plan.enabled)) {
    return std::nullopt;
  }
  std::optional<pathcore::PathResult> path =
      pathcore::beeline_answer(mask, start, goal, plan.options);
  if (!path) {
    path = pathcore::path_around_obstacles(mask, *detour.field, detour.blocked, start, plan.options,
                                           kDetourWorkOnCallThread, {}, nullptr, &scratch);
  }
  if (!path) {
    // Throws on gRPC's thread (the call moves to the pool), else the call's check.
    const std::function<bool()> interrupt = source.begin_scan();
    try {
      // Here on the pool: goes on from what the bounded attempt above
      // learnt (scratch). From gRPC's thread the call starts again there.
      path = pathcore::path_around_obstacles(
          mask, *detour.field, detour.blocked, start, plan.options,
          mask.pixel_count() / kDetourWorkPerMaskPixel, interrupt, nullptr, &scratch);
    } catch (const pathcore::Interrupted&) {
      throw RequestGone{};
    }
    if (!path) return std::nullopt;
  }
  if (!path->found && plan.options.snap_to_reachable) return std::nullopt;
  // Both ends are walkable here: found, or no route, as on the patched copy.
  pathcore::explain_result(mask, plan.enabled, start, goal, *path);
  to_proto(*path, &response);
  response.set_mask_revision(plan.entry->revision);
  response.set_cache_hit(true);
  return grpc::Status::OK;
}

grpc::Status PathfinderService::find_path_with_obstacles(FindPathPlan& plan, pathcore::Point start,
                                                         v1::FindPathResponse& response,
                                                         FieldSource& source) {
  ObstaclePlan& obstacles = *plan.obstacles;
  if (auto answered = find_path_around_obstacles(plan, start, response, source)) {
    return *answered;
  }
  if (!obstacles.patched) {
    // Throws on gRPC's thread (the call moves to the pool), else the call's check.
    std::function<bool()> interrupt = source.begin_scan();
    MaskEntryPtr entry;
    if (grpc::Status decoded =
            decode_patched_entry(obstacles.wire, *plan.entry, limits_.max_obstacles, entry);
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
      patched.goal_key =
          field_key(*entry, patched.options.field, patched.goal, patched.clearance_key);
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
