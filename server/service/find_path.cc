// FindPath: its entry point (validation and warm answers on gRPC's thread,
// cold calls on the compute pool), its request checked and translated into a
// plan (plan_find_path, which BatchFindPaths shares) and the plan's answer
// for one start: grid paths (cached answers, fields, several goals) and
// any-angle paths. Budgeted requests are in budget_find_path.cc, requests
// with obstacles in obstacle_find_path.cc.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/path.h"
#include "service/any_angle_find_path.h"
#include "service/cached_find_path.h"
#include "service/call_plumbing.h"
#include "service/field_options_wire.h"
#include "service/goals_wire.h"
#include "service/multi_goal_find_path.h"
#include "service/obstacles_wire.h"
#include "service/proto_convert.h"
#include "service/rpc_status.h"
#include "service/run_handler.h"
#include "service/usable_entry.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

using FindPathMessages = MessageCall<v1::FindPathRequest, v1::FindPathResponse>;

}  // namespace

// One cold FindPath call (ColdCall): its work is find_path on the fields it
// fills or waits for; while it waits, a half-built field settled at its
// start may answer it (serve_partial).
class PathfinderService::FindPathCall final : public ColdCall {
 public:
  FindPathCall(PathfinderService& service, FindPathMessages& call,
               std::optional<FieldKey> counted_miss)
      : ColdCall(service, call, std::move(counted_miss), give_up_time(call.context())),
        call_(call) {}

  std::optional<pathcore::Point> start() const override {
    if (answered() || !call_.request().has_start()) return std::nullopt;
    return to_core(call_.request().start());
  }

  bool serve_partial(const FieldKey& key, const pathcore::DistanceField& partial) override {
    if (answered()) return true;
    if (!gone().ok()) return false;  // the fill's poll answers it
    const std::optional<pathcore::Point> settled = start();
    if (!settled) return false;
    PartialSource source(key, partial, *settled);
    grpc::Status status;
    try {
      status = run_handler(
          [&] { return service_.find_path(call_.request(), call_.answer(), source); });
    } catch (const NeedsFill&) {
      call_.answer().Clear();
      return false;  // snapped, or another field: wait for the final one
    }
    answer(status);
    return true;
  }

  // The call's work after a lookup of its mask in the shared store (its
  // warm run found the mask missing or older than expected).
  void run_after_store_lookup() {
    if (grpc::Status why = gone(); !why.ok()) {
      answer(why);
      return;
    }
    if (grpc::Status why = service_.catch_up_store(call_.context(), call_.request().mask());
        !why.ok()) {
      answer(why);
      return;
    }
    run();
  }

 private:
  grpc::Status work(FillingSource& source) override {
    return run_handler([&] { return service_.find_path(call_.request(), call_.answer(), source); });
  }

  FindPathMessages& call_;  // alive until answered
};

grpc::ServerUnaryReactor* PathfinderService::FindPath(grpc::CallbackServerContext* ctx,
                                                      const grpc::ByteBuffer* request,
                                                      grpc::ByteBuffer* response) {
  auto* call = new FindPathMessages(ctx, response, "FindPath", start_call());  // gRPC deletes it
  grpc::Status status = admit_query(*ctx, *request, call->request());
  if (status.ok()) {
    call->set_logged_mask(call->request().mask());
    CacheOnlySource warm(cache_);
    try {
      status = run_handler([&] { return find_path(call->request(), call->answer(), warm); });
      if (store_lookup_may_help(status, call->request().mask(),
                                call->request().expected_revision())) {
        call->answer().Clear();
        auto looked_up = std::make_shared<FindPathCall>(*this, *call, std::nullopt);
        status = submit_heavy(*ctx, [looked_up] { looked_up->run_after_store_lookup(); });
        if (status.ok()) return call;
      }
    } catch (const NeedsFill&) {
      // Cold: a flood fill is needed. Off gRPC's thread, onto the compute pool.
      call->answer().Clear();
      auto cold = std::make_shared<FindPathCall>(*this, *call, warm.missed());
      status = submit_heavy(*ctx, [cold] { cold->run(); });
      if (status.ok()) return call;
    }
  }
  finish(*call, status);
  return call;
}

grpc::Status PathfinderService::find_path(const v1::FindPathRequest& request,
                                          v1::FindPathResponse& response, FieldSource& source) {
  if (auto budgeted = budget_find_path(request, response, source)) return *budgeted;
  FindPathPlan plan;
  const pathcore::Point start = to_core(request.start());
  if (auto status = plan_find_path(request, &start, plan); !status.ok()) return status;
  return find_path_planned(plan, start, response, source);
}

grpc::Status PathfinderService::plan_find_path(const v1::FindPathRequest& request,
                                               const pathcore::Point* start, FindPathPlan& plan) {
  CheckedFieldOptions checked;
  if (auto status = decode_field_options(request, checked); !status.ok()) return status;
  // Any-angle paths are no smoothing of a grid path: core's Smoothing has no
  // such value, and the request takes its own way below.
  const bool any_angle = request.smoothing() == v1::SMOOTHING_ANY_ANGLE;
  const auto smoothing = any_angle ? pathcore::Smoothing::kBeautify : to_core(request.smoothing());
  if (!smoothing) return invalid("smoothing: unknown value " + std::to_string(request.smoothing()));
  if (any_angle && !request.area_costs().empty()) {
    return invalid(
        "area_costs: must be empty with SMOOTHING_ANY_ANGLE (its paths are the shortest in "
        "Euclidean length, whatever the terrain costs)");
  }
  const double clearance_key = checked.clearance_key;
  if (start != nullptr && !request.has_start()) return invalid("start: is required");
  if (auto status = check_goal_count(request.goals(), request.has_goal(), limits_.max_goals);
      !status.ok()) {
    return status;
  }
  if (!request.has_goal() && request.goals().empty()) return invalid("goal: is required");
  if (any_angle && request.goals_size() > 1) {
    return invalid(
        "goals: several goals are not supported with SMOOTHING_ANY_ANGLE (its exact search "
        "runs toward one goal); ask per goal, or use a grid smoothing");
  }

  const MaskEntryPtr entry = store_.get(request.mask());
  if (!entry) return mask_missing(store_, request.mask());
  if (auto status = check_revision(request.expected_revision(), *entry); !status.ok()) {
    return status;
  }
  const pathcore::Mask& mask = *entry->mask;
  const pathcore::FieldOptions field = checked.on(mask);
  const pathcore::AreaSet enabled = field.enabled;
  std::vector<pathcore::Point> goals;
  if (auto status =
          decode_goals(request.goals(), request.has_goal(), *entry, limits_.max_goals, goals);
      !status.ok()) {
    return status;
  }
  const pathcore::Point goal = goals.empty() ? to_core(request.goal()) : goals[0];
  if (start != nullptr && !mask.contains(*start)) return invalid(outside("start", *start, *entry));
  if (!mask.contains(goal)) return invalid(outside("goal", goal, *entry));
  if (goals.size() == 1) goals.clear();  // exactly the one-goal request

  plan.entry = entry;
  plan.goal = goal;
  plan.goals = std::move(goals);
  plan.any_angle = any_angle;
  plan.enabled = enabled;
  plan.clearance_key = clearance_key;
  // Connectivity plays no part in any-angle paths; the corner rule does, whatever the connectivity.
  plan.any_angle_options = {enabled, request.allow_corner_cutting(), request.snap_to_reachable(),
                            clearance_key};
  pathcore::FindPathOptions& options = plan.options;
  options.field = field;
  options.smoothing = *smoothing;
  options.snap_to_reachable = request.snap_to_reachable();
  options.clearance = clearance_key;
  if (!any_angle) {
    plan.goal_key = field_key(*entry, options.field, goal, clearance_key);
    plan.goal_key->goals = plan.goals;
  }
  if (options.snap_to_reachable) plan.snapper.emplace(nearest_, query_caches_.components);
  if (!request.obstacles().empty()) {
    if (auto status = check_obstacle_count(request.obstacles_size(), limits_.max_obstacles);
        !status.ok()) {
      return status;
    }
    plan.obstacles = obstacle_plan(request);
  }
  return grpc::Status::OK;
}

void PathfinderService::FindPathPlan::explain(pathcore::Point start, pathcore::Point requested,
                                             pathcore::PathResult& path) const {
  if (usable) {
    pathcore::explain_result(*entry->mask, usable->grid->usable, start, requested, path);
  } else {
    pathcore::explain_result(*entry->mask, enabled, start, requested, path);
  }
}

CachedPathResult PathfinderService::grid_find_path(const FindPathPlan& plan,
                                                   const MaskEntry& walked, FieldSource& source,
                                                   pathcore::Point start, const FieldKey& key,
                                                   EndpointSnapper* snapper) {
  if (plan.goals.empty()) {
    CachedPathResult result =
        cached_find_path(walked, source, start, plan.goal, plan.options, &key, snapper);
    plan.explain(start, plan.goal, result.path);
    return result;
  }
  MultiGoalPathResult nearest =
      multi_goal_find_path(walked, source, start, key, plan.options, snapper);
  plan.explain(start, nearest.explained_goal, nearest.result.path);
  return std::move(nearest.result);
}

grpc::Status PathfinderService::find_path_planned(FindPathPlan& plan, pathcore::Point start,
                                                  v1::FindPathResponse& response,
                                                  FieldSource& source) {
  if (plan.obstacles) return find_path_with_obstacles(plan, start, response, source);
  const MaskEntry& entry = *plan.entry;
  const pathcore::Point goal = plan.goal;
  // With clearance, everything below runs on the usable pixels (built or
  // found on first need) in place of the stored mask.
  const auto walked_entry = [&]() -> const MaskEntry& {
    if (plan.clearance_key == 0) return entry;
    if (!plan.usable) {
      plan.usable = usable_entry(usable_masks_, source, entry, plan.enabled, plan.clearance_key);
    }
    return plan.usable->entry;
  };

  if (plan.any_angle) {
    AnyAnglePathResult result =
        any_angle_find_path(walked_entry(), any_angle_caches_, source, start, goal,
                            plan.any_angle_options, plan.snapper ? &*plan.snapper : nullptr);
    plan.explain(start, goal, result.path);
    to_proto(result.path, &response);
    response.clear_precise_points();
    for (const pathcore::PointD p : result.precise) to_proto(p, response.add_precise_points());
    response.set_mask_revision(entry.revision);
    response.set_cache_hit(result.cache_hit);
    return grpc::Status::OK;
  }

  PathKey key{*plan.goal_key, start, plan.options.smoothing, plan.options.snap_to_reachable};
  if (const auto answer = query_caches_.paths.get(key)) {
    to_proto(*answer, &response);
    response.set_mask_revision(entry.revision);
    response.set_cache_hit(true);
    return grpc::Status::OK;
  }
  CachedPathResult result = grid_find_path(plan, walked_entry(), source, start, key.field,
                                           plan.snapper ? &*plan.snapper : nullptr);
  to_proto(result.path, &response);
  response.set_mask_revision(entry.revision);
  response.set_cache_hit(result.cache_hit);
  if (result.path.points.size() <= kMaxCachedPathPoints &&
      query_caches_.path_admission.missed_before(PathKeyHash{}(key))) {
    query_caches_.paths.put(key,
                            std::make_shared<const pathcore::PathResult>(std::move(result.path)));
  }
  return grpc::Status::OK;
}

}  // namespace pathserver
