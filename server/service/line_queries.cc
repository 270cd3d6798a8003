// The line RPCs, LineOfSight and NearestWalkable: their entry points and
// their bodies, which validate the request, find the pixels it walks on (the
// mask, or with clearance its usable pixels, cached as FindPath's), and
// answer each pair or point.

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cache/build_progress.h"
#include "pathcore/agent_clearance.h"
#include "pathcore/clearance.h"
#include "pathcore/components.h"
#include "pathcore/line.h"
#include "pathcore/nearest_pixels.h"
#include "service/endpoint_snapping.h"
#include "service/obstacle_entry.h"
#include "service/obstacles_wire.h"
#include "service/call_plumbing.h"
#include "service/proto_convert.h"
#include "service/rpc_status.h"
#include "service/usable_entry.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

// A call's work in pixel steps: its segments' lengths (pixels along their
// longer axes) plus, for each pair or point, what answering it costs beside
// (kStepsPerItem). Work beyond kStepsOnCallThread (a fraction of a
// millisecond) runs on the compute pool, with interrupt checks: what counts
// is the whole request, so no client can stay under it with many small items.
constexpr std::int64_t kStepsOnCallThread = std::int64_t{1} << 16;
constexpr std::int64_t kStepsPerItem = 16;
// How often (in steps) work on the pool checks whether its call is gone.
constexpr std::int64_t kStepsPerInterruptCheck = std::int64_t{1} << 16;

// Builds a usable mask, a transform or labels where it may: on the compute
// pool (interrupt set) directly; on gRPC's thread it moves the call to the
// pool first.
class PoolBuildSource final : public FieldSource {
 public:
  // run_build: runs a shared build for the caches (the service's
  // begin_cache_build: it outlives a call that gives up waiting); null runs
  // it unchecked.
  using BuildRunner = std::function<void(const std::string& what, const SharedBuild& build)>;
  explicit PoolBuildSource(const std::function<bool()>* interrupt, BuildRunner run_build = {})
      : interrupt_(interrupt), run_build_(std::move(run_build)) {}
  [[nodiscard]] FieldLease field(const FieldKey& /*key*/, const MaskEntry& /*entry*/,
                                 pathcore::Point /*start*/) override {
    throw std::logic_error("line queries use no distance field");
  }
  [[nodiscard]] std::function<bool()> begin_scan() override {
    if (interrupt_ == nullptr) throw NeedsComputePool{};
    return *interrupt_;
  }
  void build_shared(const FieldKey& /*flight_key*/, const std::string& what,
                    const SharedBuild& build) override {
    if (interrupt_ == nullptr) throw NeedsComputePool{};
    if (run_build_ && !what.empty()) {
      run_build_(what, build);
    } else {
      build({}, {});
    }
  }

 private:
  const std::function<bool()>* interrupt_;
  BuildRunner run_build_;
};

grpc::Status too_many(const char* field, std::size_t count, int limit, const char* flag) {
  return {grpc::StatusCode::RESOURCE_EXHAUSTED,
          std::string(field) + ": " + std::to_string(count) + " " + field + "; the limit is " +
              std::to_string(limit) + " per request (" + flag + ")"};
}

}  // namespace

grpc::Status PathfinderService::line_of_sight(const v1::LineOfSightRequest& request,
                                              v1::LineOfSightResponse& response,
                                              const std::function<bool()>* interrupt) {
  if (auto problem = mask_name_problem(request.mask())) return invalid("mask: " + *problem);
  pathcore::AreaSet enabled = pathcore::effective_areas(request.enabled_areas());
  if (enabled == 0) return no_walkable_area();
  if (auto status = check_clearance(request.clearance()); !status.ok()) return status;
  const double clearance_key = pathserver::clearance_key(request.clearance());
  const auto pair_count = static_cast<std::size_t>(request.pairs_size());
  if (pair_count > static_cast<std::size_t>(limits_.max_line_pairs)) {
    return too_many("pairs", pair_count, limits_.max_line_pairs, "--max-line-pairs");
  }
  const MaskEntryPtr entry = store_.get(request.mask());
  if (!entry) return mask_missing(store_, request.mask());
  if (auto status = check_revision(request.expected_revision(), *entry); !status.ok()) {
    return status;
  }
  enabled = entry->mask->areas_in_use(enabled);
  std::int64_t steps = kStepsPerItem * request.pairs_size();
  if (interrupt == nullptr && steps > kStepsOnCallThread) throw NeedsComputePool{};
  for (int i = 0; i < request.pairs_size(); ++i) {
    const v1::PointPair& pair = request.pairs(i);
    const std::string field = "pairs[" + std::to_string(i) + "]";
    if (!pair.has_a()) return invalid(field + ".a: is required");
    if (!pair.has_b()) return invalid(field + ".b: is required");
    const pathcore::Point a = to_core(pair.a());
    const pathcore::Point b = to_core(pair.b());
    if (!entry->mask->contains(a)) return invalid(outside(field + ".a", a, *entry));
    if (!entry->mask->contains(b)) return invalid(outside(field + ".b", b, *entry));
    steps += std::max(std::llabs(std::int64_t{b.x} - a.x), std::llabs(std::int64_t{b.y} - a.y)) + 1;
  }
  if (interrupt == nullptr && steps > kStepsOnCallThread) throw NeedsComputePool{};

  // With obstacles, everything below reads the mask patched with them (a
  // copy of the call's own: O(pixels), on the pool), as the same request on
  // that mask would.
  MaskEntryPtr patched;
  if (!request.obstacles().empty()) {
    if (auto status = check_obstacle_count(request.obstacles_size(), limits_.max_obstacles);
        !status.ok()) {
      return status;
    }
    if (interrupt == nullptr) throw NeedsComputePool{};
    if (auto status =
            decode_patched_entry(request.obstacles(), *entry, limits_.max_obstacles, patched);
        !status.ok()) {
      return status;
    }
    enabled = patched->mask->areas_in_use(pathcore::effective_areas(request.enabled_areas()));
  }

  // With clearance the segments walk the usable pixels (built or found as
  // FindPath's are; with obstacles built for this call alone), whose
  // ClearanceMap is built for exactly these areas.
  std::optional<UsableEntry> usable;
  if (clearance_key != 0) {
    if (patched) {
      usable = private_usable_entry(*patched, enabled, clearance_key);
    } else {
      PoolBuildSource source(interrupt);
      usable = usable_entry(usable_masks_, source, *entry, enabled, clearance_key);
    }
  }
  const MaskEntry& before_clearance = patched ? *patched : *entry;
  const MaskEntry& walked = usable ? usable->entry : before_clearance;
  const pathcore::Mask& mask = *walked.mask;
  // The stored map describes every area; it answers only requests it serves.
  const pathcore::ClearanceMap* map =
      walked.clearance && walked.clearance->serves(mask, enabled) ? walked.clearance.get() : nullptr;
  // Without connectivity in the request, the corner rule alone picks the
  // line rule (as for SMOOTHING_ANY_ANGLE).
  const pathcore::LineRule rule = request.allow_corner_cutting()
                                      ? pathcore::LineRule::kBresenham
                                      : pathcore::LineRule::kNoCornerCutting;
  auto* results = response.mutable_results();
  results->Reserve(request.pairs_size());
  std::int64_t since_check = 0;
  for (const v1::PointPair& pair : request.pairs()) {
    const pathcore::Point a = to_core(pair.a());
    const pathcore::Point b = to_core(pair.b());
    v1::LineOfSightResult* result = results->Add();
    const bool clear = map != nullptr ? pathcore::segment_walkable(*map, a, b, rule)
                                      : pathcore::segment_walkable(mask, enabled, a, b, rule);
    result->set_clear(clear);
    if (!clear) {
      if (const auto blocked = pathcore::first_blocked_pixel(mask, enabled, a, b, rule)) {
        to_proto(*blocked, result->mutable_first_blocked());
        // The usable pixels leave out walkable ones too close to a wall.
        result->set_first_blocked_lacks_clearance(
            usable.has_value() && before_clearance.mask->walkable(*blocked, enabled));
      }
    }
    if (interrupt != nullptr) {
      since_check += std::max(std::llabs(std::int64_t{b.x} - a.x),
                              std::llabs(std::int64_t{b.y} - a.y)) + 1 + kStepsPerItem;
      if (since_check > kStepsPerInterruptCheck) {
        since_check = 0;
        if ((*interrupt)()) throw pathcore::Interrupted();
      }
    }
  }
  response.set_mask_revision(entry->revision);
  return grpc::Status::OK;
}

grpc::Status PathfinderService::nearest_walkable(const v1::NearestWalkableRequest& request,
                                                 v1::NearestWalkableResponse& response,
                                                 const std::function<bool()>* interrupt) {
  if (auto problem = mask_name_problem(request.mask())) return invalid("mask: " + *problem);
  const auto connectivity = to_core(request.connectivity());
  if (!connectivity) {
    return invalid("connectivity: unknown value " + std::to_string(request.connectivity()));
  }
  pathcore::AreaSet enabled = pathcore::effective_areas(request.enabled_areas());
  if (enabled == 0) return no_walkable_area();
  if (auto status = check_clearance(request.clearance()); !status.ok()) return status;
  const double clearance_key = pathserver::clearance_key(request.clearance());
  const auto point_count = static_cast<std::size_t>(request.points_size());
  if (point_count > static_cast<std::size_t>(limits_.max_nearest_points)) {
    return too_many("points", point_count, limits_.max_nearest_points, "--max-nearest-points");
  }
  if (interrupt == nullptr && kStepsPerItem * request.points_size() > kStepsOnCallThread) {
    throw NeedsComputePool{};
  }
  const MaskEntryPtr entry = store_.get(request.mask());
  if (!entry) return mask_missing(store_, request.mask());
  if (auto status = check_revision(request.expected_revision(), *entry); !status.ok()) {
    return status;
  }
  enabled = entry->mask->areas_in_use(enabled);
  for (int i = 0; i < request.points_size(); ++i) {
    const pathcore::Point p = to_core(request.points(i));
    if (!entry->mask->contains(p)) {
      return invalid(outside("points[" + std::to_string(i) + "]", p, *entry));
    }
  }
  std::optional<pathcore::Point> reachable_from;
  if (request.has_reachable_from()) {
    reachable_from = to_core(request.reachable_from());
    if (!entry->mask->contains(*reachable_from)) {
      return invalid(outside("reachable_from", *reachable_from, *entry));
    }
  }

  // Builds for the caches are finished even when this call gives up waiting.
  PoolBuildSource source(interrupt, [&](const std::string& what,
                                        const FieldSource::SharedBuild& build) {
    CacheBuild cache_build = begin_cache_build(what, *entry, *interrupt);
    build(cache_build.interrupt(), cache_build.progress());
    cache_build.end();
  });
  std::optional<UsableEntry> usable;
  if (clearance_key != 0) {
    usable = usable_entry(usable_masks_, source, *entry, enabled, clearance_key);
  }
  const MaskEntry& walked = usable ? usable->entry : *entry;
  const pathcore::Mask& mask = *walked.mask;

  // Which pixels qualify, and the transform to them (found or built only
  // when some point does not qualify itself): every usable pixel, FindPath's
  // snapping shares that transform; with reachable_from, one component's.
  std::function<bool(pathcore::Point)> qualifies = [&](pathcore::Point p) {
    return mask.walkable(p, enabled);
  };
  std::shared_ptr<const pathcore::Components> components;
  NearestKey component_key;
  bool nothing_qualifies = false;
  if (reachable_from) {
    // As snapping does: an unusable reachable_from first moves to its nearest usable pixel.
    std::optional<pathcore::Point> from = *reachable_from;
    if (!mask.walkable(*from, enabled)) {
      from = walkable_transform(nearest_, source, walked, enabled, clearance_key)->nearest(*from);
    }
    if (!from) {
      nothing_qualifies = true;
    } else {
      components = component_labels(query_caches_.components, source, walked, enabled,
                                    *connectivity, request.allow_corner_cutting(), clearance_key);
      // Keyed as the labels are: eight neighbours without corner cutting label as four.
      const bool cutting =
          *connectivity == pathcore::Connectivity::kEight && request.allow_corner_cutting();
      component_key = {entry->name,
                       entry->revision,
                       enabled,
                       clearance_key,
                       cutting ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour,
                       cutting,
                       components->label(*from)};
      qualifies = [&components, label = component_key.component](pathcore::Point p) {
        return components->label(p) == label;
      };
    }
  }
  // The transform to the one component's pixels, from the cache or built
  // (O(pixels), on the pool).
  const auto component_transform = [&]() {
    auto nearest = nearest_.get(component_key);
    if (nearest) return nearest;
    if (interrupt == nullptr) throw NeedsComputePool{};
    // Finished for the cache even when this call gives up waiting.
    CacheBuild build = begin_cache_build(
        build_name("nearest-walkable transform", entry->name, entry->revision), *entry, *interrupt);
    const auto labels = components->labels();
    std::vector<std::uint8_t> targets(mask.pixel_count());
    for (std::size_t i = 0; i < targets.size(); ++i) {
      targets[i] = labels[i] == component_key.component ? 1 : 0;
    }
    nearest = std::make_shared<const pathcore::NearestPixels>(
        mask.width(), mask.height(), std::move(targets), build.interrupt(), build.progress());
    nearest_.put(component_key, nearest);
    build.end();
    return nearest;
  };
  std::shared_ptr<const pathcore::NearestPixels> nearest;
  auto* results = response.mutable_results();
  results->Reserve(request.points_size());
  std::int64_t since_check = 0;
  for (const v1::Point& wire : request.points()) {
    if (interrupt != nullptr && (since_check += kStepsPerItem) > kStepsPerInterruptCheck) {
      since_check = 0;
      if ((*interrupt)()) throw pathcore::Interrupted();
    }
    const pathcore::Point p = to_core(wire);
    v1::NearestWalkableResult* result = results->Add();
    if (nothing_qualifies) continue;
    std::optional<pathcore::Point> found;
    if (qualifies(p)) {
      found = p;
    } else {
      if (!nearest) {
        nearest = components ? component_transform()
                             : walkable_transform(nearest_, source, walked, enabled, clearance_key);
      }
      found = nearest->nearest(p);
    }
    if (!found) continue;
    result->set_found(true);
    to_proto(*found, result->mutable_point());
    const double dx = static_cast<double>(found->x) - p.x;
    const double dy = static_cast<double>(found->y) - p.y;
    result->set_distance(std::sqrt(dx * dx + dy * dy));
  }
  response.set_mask_revision(entry->revision);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* PathfinderService::LineOfSight(grpc::CallbackServerContext* ctx,
                                                         const grpc::ByteBuffer* request,
                                                         grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::LineOfSightRequest, v1::LineOfSightResponse>;
  return respond<v1::LineOfSightRequest, v1::LineOfSightResponse>(
      ctx, "LineOfSight", Access::kQuery, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        return line_of_sight(call.request(), call.answer(), interrupt);
      });
}

grpc::ServerUnaryReactor* PathfinderService::NearestWalkable(grpc::CallbackServerContext* ctx,
                                                             const grpc::ByteBuffer* request,
                                                             grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::NearestWalkableRequest, v1::NearestWalkableResponse>;
  return respond<v1::NearestWalkableRequest, v1::NearestWalkableResponse>(
      ctx, "NearestWalkable", Access::kQuery, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        return nearest_walkable(call.request(), call.answer(), interrupt);
      });
}

}  // namespace pathserver
