// The move RPCs: Reachable (served raw, its request decoded by
// decode_reachable_request) and StandardMove: their entry points and their
// bodies, which validate the request, translate it to core types, use the
// store / caches / core, and translate the answer back.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "cache/build_progress.h"
#include "pathcore/components.h"
#include "pathcore/standard_move.h"
#include "service/call_plumbing.h"
#include "service/obstacle_entry.h"
#include "service/obstacles_wire.h"
#include "service/proto_convert.h"
#include "service/reachable_wire.h"
#include "service/request_decoding.h"
#include "service/rpc_status.h"
#include "service/run_handler.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

// request(): holds only the mask name (for the log line); the request itself
// is decoded by decode_reachable_request.
using ReachableMessages = MessageCall<v1::ReachableRequest, v1::ReachableResponse>;

// Pairs of decoding scratch a gRPC thread keeps between Reachable calls.
constexpr std::size_t kKeptScratchPairs = 16384;

}  // namespace

grpc::ServerUnaryReactor* PathfinderService::Reachable(grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) {
  auto* call = new ReachableMessages(ctx, response, "Reachable", start_call());  // gRPC deletes it
  grpc::Status status = admit(*ctx, Access::kQuery);
  if (status.ok() && request->Length() > limits_.max_query_bytes) {
    status = request_too_large(request->Length(), limits_.max_query_bytes, kQueryLimitFlag);
  }
  // The request's bytes in one piece (a copy only when gRPC split them).
  grpc::Slice bytes;
  if (status.ok() && !request->TrySingleSlice(&bytes).ok() &&
      !request->DumpToSingleSlice(&bytes).ok()) {
    status = {grpc::StatusCode::INTERNAL, "could not read the request"};
  }
  if (status.ok()) {
    // Decoded into this thread's scratch request, whose pair storage is reused
    // up to the usual size: an oversized request (refused or not) must not pin
    // its memory to the thread. Pairs beyond the limit are counted, not kept.
    thread_local WireReachableRequest decoded;
    const auto max_pairs = static_cast<std::size_t>(std::max(limits_.max_reachable_pairs, 0));
    if (!decode_reachable_request(std::span(bytes.begin(), bytes.size()), decoded, max_pairs)) {
      status = request_malformed("pathfinding.v1.ReachableRequest");
    } else {
      call->request().set_mask(decoded.mask);
      call->set_logged_mask(call->request().mask());
      bool on_pool = false;
      try {
        status = run_handler([&] { return reachable(decoded, call->answer(), nullptr); });
        // Not held (or older than expected): looked up in the store on the pool.
        on_pool = store_lookup_may_help(status, decoded.mask, decoded.expected_revision);
      } catch (const NeedsComputePool&) {
        on_pool = true;
      }
      if (on_pool) {
        // Labels not cached: labelling runs on the pool, with its own copy
        // of the request (the scratch belongs to this thread).
        call->answer().Clear();
        auto owned = std::make_shared<const WireReachableRequest>(decoded);
        status = offload(*call, [this, call, owned](const std::function<bool()>& interrupt) {
          grpc::Status answered = reachable(*owned, call->answer(), &interrupt);
          if (store_lookup_may_help(answered, owned->mask, owned->expected_revision)) {
            call->answer().Clear();
            if (grpc::Status why = catch_up_store(call->context(), owned->mask); !why.ok()) {
              return why;
            }
            answered = reachable(*owned, call->answer(), &interrupt);
          }
          return answered;
        });
        if (status.ok()) {
          if (decoded.pairs.capacity() > kKeptScratchPairs) decoded = WireReachableRequest{};
          return call;
        }
      }
    }
    if (decoded.pairs.capacity() > kKeptScratchPairs) decoded = WireReachableRequest{};
  }
  finish(*call, status);
  return call;
}

grpc::ServerUnaryReactor* PathfinderService::StandardMove(grpc::CallbackServerContext* ctx,
                                                          const grpc::ByteBuffer* request,
                                                          grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::StandardMoveRequest, v1::StandardMoveResponse>;
  return respond<v1::StandardMoveRequest, v1::StandardMoveResponse>(
      ctx, "StandardMove", Access::kQuery, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        return standard_move(call.request(), call.answer(), interrupt);
      });
}

grpc::Status PathfinderService::reachable(const WireReachableRequest& request,
                                          v1::ReachableResponse& response,
                                          const std::function<bool()>* interrupt) {
  if (auto problem = mask_name_problem(request.mask)) return invalid("mask: " + *problem);
  const auto connectivity = to_core(static_cast<v1::Connectivity>(request.connectivity));
  if (!connectivity) {
    return invalid("connectivity: unknown value " + std::to_string(request.connectivity));
  }
  pathcore::AreaSet enabled = pathcore::effective_areas(request.enabled_areas);
  if (enabled == 0) return no_walkable_area();
  const std::size_t pair_count = request.pair_count;
  if (const int limit = limits_.max_reachable_pairs; pair_count > static_cast<std::size_t>(limit)) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "pairs: " + std::to_string(pair_count) + " pairs; the limit is " +
                std::to_string(limit) + " per request (--max-reachable-pairs)"};
  }
  const MaskEntryPtr entry = store_.get(request.mask);
  if (!entry) return mask_missing(store_, request.mask);
  if (auto status = check_revision(request.expected_revision, *entry); !status.ok()) {
    return status;
  }
  const pathcore::Mask& mask = *entry->mask;
  enabled = mask.areas_in_use(enabled);
  for (std::size_t i = 0; i < request.pairs.size(); ++i) {
    const WirePointPair& pair = request.pairs[i];
    if (pair.has_a && pair.has_b && mask.contains(pair.a) && mask.contains(pair.b)) {
      continue;
    }
    const std::string field = "pairs[" + std::to_string(i) + "]";
    if (!pair.has_a) return invalid(field + ".a: is required");
    if (!pair.has_b) return invalid(field + ".b: is required");
    if (!mask.contains(pair.a)) return invalid(outside(field + ".a", pair.a, *entry));
    return invalid(outside(field + ".b", pair.b, *entry));
  }

  if (!request.obstacles.empty()) {
    if (auto status = check_obstacle_count(request.obstacles.size(), limits_.max_obstacles);
        !status.ok()) {
      return status;
    }
  }
  // Eight neighbours without corner cutting connect exactly what four do.
  const ComponentKey key{entry->name, entry->revision, enabled, pathcore::Connectivity::kFour,
                         false};
  std::shared_ptr<const pathcore::Components> components;
  if (!request.obstacles.empty()) {
    // Labels of the mask patched with the request's obstacles: this call's own, cached nowhere.
    if (interrupt == nullptr) throw NeedsComputePool{};
    MaskEntryPtr patched;
    if (auto status =
            decode_patched_entry(request.obstacles, *entry, limits_.max_obstacles, patched);
        !status.ok()) {
      return status;
    }
    pathcore::ComponentOptions options;
    options.enabled = patched->mask->areas_in_use(pathcore::effective_areas(request.enabled_areas));
    options.connectivity = pathcore::Connectivity::kFour;
    components = std::make_shared<const pathcore::Components>(
        pathcore::label_components(*patched->mask, options, *interrupt));
  } else {
    components = query_caches_.components.get(key);
  }
  if (!components) {
    if (interrupt == nullptr) throw NeedsComputePool{};  // labelling reads the whole mask
    pathcore::ComponentOptions options;
    options.enabled = enabled;
    options.connectivity = pathcore::Connectivity::kFour;
    // Finished for the cache even when this call gives up waiting.
    CacheBuild build = begin_cache_build(
        build_name("component labels", entry->name, entry->revision), *entry, *interrupt);
    components = std::make_shared<const pathcore::Components>(
        pathcore::label_components(mask, options, build.interrupt(), build.progress()));
    query_caches_.components.put(key, components);
    build.end();
  }
  auto* answers = response.mutable_reachable();
  answers->Reserve(static_cast<int>(request.pairs.size()));
  for (const WirePointPair& pair : request.pairs) {
    answers->Add(components->connected(pair.a, pair.b));
  }
  response.set_mask_revision(entry->revision);
  return grpc::Status::OK;
}

grpc::Status PathfinderService::standard_move(const v1::StandardMoveRequest& request,
                                              v1::StandardMoveResponse& response,
                                              const std::function<bool()>* interrupt) {
  if (auto problem = mask_name_problem(request.mask())) return invalid("mask: " + *problem);
  const std::uint32_t max_moves = request.max_moves() == 0 ? 2 : request.max_moves();
  if (max_moves > 3) {
    return invalid("max_moves: " + std::to_string(request.max_moves()) +
                   " is outside 1..3 (0 means 2)");
  }
  pathcore::AreaSet enabled = pathcore::effective_areas(request.enabled_areas());
  if (enabled == 0) return no_walkable_area();
  if (!request.has_start()) return invalid("start: is required");
  if (!request.has_goal()) return invalid("goal: is required");
  const MaskEntryPtr entry = store_.get(request.mask());
  if (!entry) return mask_missing(store_, request.mask());
  if (auto status = check_revision(request.expected_revision(), *entry); !status.ok()) {
    return status;
  }
  enabled = entry->mask->areas_in_use(enabled);
  const pathcore::Point start = to_core(request.start());
  const pathcore::Point goal = to_core(request.goal());
  if (!entry->mask->contains(start)) return invalid(outside("start", start, *entry));
  if (!entry->mask->contains(goal)) return invalid(outside("goal", goal, *entry));

  const RouteKey key{entry->name,
                     entry->revision,
                     enabled,
                     start,
                     goal,
                     request.forbid_corner_cutting(),
                     static_cast<int>(max_moves)};
  auto route = query_caches_.routes.get(key);
  const bool cache_hit = route != nullptr;
  if (!route) {
    // One move is a line walk; two and three search the mask.
    if (max_moves >= 2 && interrupt == nullptr) throw NeedsComputePool{};
    pathcore::StandardMoveOptions options;
    options.enabled = enabled;
    options.forbid_corner_cutting = request.forbid_corner_cutting();
    options.max_moves = static_cast<int>(max_moves);
    route = std::make_shared<const pathcore::StandardMoveResult>(
        interrupt != nullptr
            ? pathcore::find_standard_move(*entry->mask, start, goal, options, *interrupt)
            : pathcore::find_standard_move(*entry->mask, start, goal, options));
    // Cache what took the stitched search: routes of two or three moves, and
    // "not found" after it (single moves are cheaper to recompute).
    const bool stitched = route->move_count >= 2 || (!route->found && max_moves >= 2 &&
                                                     entry->mask->walkable(start, enabled) &&
                                                     entry->mask->walkable(goal, enabled));
    if (stitched) query_caches_.routes.put(key, route);
  }
  to_proto(*route, &response);
  response.set_cache_hit(cache_hit);
  response.set_mask_revision(entry->revision);
  return grpc::Status::OK;
}

}  // namespace pathserver
