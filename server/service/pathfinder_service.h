#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "cache/field_cache.h"
#include "cache/field_flights.h"
#include "cache/query_caches.h"
#include "pathcore/codec.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "runtime/auth.h"
#include "runtime/compute_pool.h"
#include "runtime/config.h"
#include "runtime/metrics.h"
#include "service/arena_allocator.h"
#include "service/cached_find_path.h"
#include "service/in_flight_calls.h"
#include "service/reachable_wire.h"
#include "store/mask_store.h"

namespace pathserver {

struct ServiceLimits {
  // Largest mask an upload may decode to, in pixels.
  std::uint64_t max_pixels = pathcore::kDefaultMaxPixels;
  // Most pairs one Reachable request may carry (more: RESOURCE_EXHAUSTED).
  int max_reachable_pairs = kDefaultMaxReachablePairs;
  // Component labellings kept for Reachable (LRU; 0 disables caching).
  std::size_t component_cache_entries = 64;
  // Stitched StandardMove answers kept (LRU; 0 disables caching).
  std::size_t route_cache_entries = 4096;
  // FindPath answers kept (LRU; 0 disables): the same start and goal on an
  // unchanged mask is answered without tracing or smoothing again. Answers
  // of more than kMaxCachedPathPoints points are not kept (at most 4 KiB each).
  std::size_t path_cache_entries = 4096;
  // The server's largest message, in bytes: GetMask refuses to send an area
  // grid that would not fit (RESOURCE_EXHAUSTED) rather than fail the transport.
  std::size_t max_message_bytes = 64 * 1024 * 1024;
  // Threads that run flood fills (cold FindPath); 0: one per hardware thread.
  std::size_t compute_threads = 0;
  // Added to the compute threads' nice value, so warm calls on gRPC's threads
  // get the CPU first when the cores are busy (0: same priority).
  int compute_niceness = 10;
  // Cold FindPath calls that may wait for a compute thread; more are refused
  // with RESOURCE_EXHAUSTED (calls parked on another call's fill of the same
  // field do not count: they hold no thread and need no fill of their own).
  std::size_t compute_queue = 256;
};

// The Pathfinder gRPC service. Handlers validate the request, translate it to
// core types, call the store / cache / core and translate the answer back.
// Every failed call is logged once (RPC, status code, message). The store and
// cache must outlive the service. Every RPC first checks the caller's bearer
// token with `authorizer` (writes: Access::kWrite, the rest: kQuery). Every
// finished call is counted, with its latency, in `metrics` when not null
// (it must outlive the service).
//
// FindPath runs in two places. On gRPC's thread: validation, the beeline
// short-cut, and paths on cached fields (the warm path). A call that needs a
// flood fill is queued on the compute pool (limits.compute_threads threads)
// and answered from there, so cold fills never occupy gRPC's threads and warm
// calls and Reachable keep their idle latency under a burst of cold ones.
// Fills are shared (FieldFlights: one fill per field, the other callers
// wait without a thread) and stop when no caller wants them any more
// (deadline passed, cancelled): such calls end DEADLINE_EXCEEDED/CANCELLED.
//
// Reachable is served raw: its request bytes are decoded by
// decode_reachable_request (reachable_wire.h), a flat decoder several times
// cheaper than protobuf's parser for its thousands of nested points.
class PathfinderService final : public pathfinding::v1::Pathfinder::WithRawCallbackMethod_Reachable<
                                    pathfinding::v1::Pathfinder::CallbackService> {
 public:
  PathfinderService(MaskStore& store, FieldCache& cache, ServiceLimits limits,
                    Authorizer authorizer = {}, Metrics* metrics = nullptr);
  ~PathfinderService() override;
  PathfinderService(const PathfinderService&) = delete;
  PathfinderService& operator=(const PathfinderService&) = delete;

  [[nodiscard]] std::size_t compute_threads() const { return pool_.threads(); }

  // Shutdown, first step: calls starting from now on are refused with
  // UNAVAILABLE (health checks are not Pathfinder calls and still answer).
  void stop_accepting();
  // After stop_accepting(): waits until every admitted call has finished
  // (true) or until deadline (false).
  bool wait_until_idle(std::chrono::steady_clock::time_point deadline);
  // Entries of the Reachable and StandardMove caches (metrics).
  [[nodiscard]] std::size_t component_cache_entries() const {
    return query_caches_.components.size();
  }
  [[nodiscard]] std::size_t route_cache_entries() const { return query_caches_.routes.size(); }
  [[nodiscard]] std::size_t path_cache_entries() const { return query_caches_.paths.size(); }

  grpc::ServerUnaryReactor* UploadMask(grpc::CallbackServerContext* ctx,
                                       const pathfinding::v1::UploadMaskRequest* request,
                                       pathfinding::v1::MaskInfo* response) override;
  grpc::ServerUnaryReactor* PatchMask(grpc::CallbackServerContext* ctx,
                                      const pathfinding::v1::PatchMaskRequest* request,
                                      pathfinding::v1::MaskInfo* response) override;
  grpc::ServerUnaryReactor* DeleteMask(grpc::CallbackServerContext* ctx,
                                       const pathfinding::v1::DeleteMaskRequest* request,
                                       pathfinding::v1::DeleteMaskResponse* response) override;
  grpc::ServerUnaryReactor* GetMask(grpc::CallbackServerContext* ctx,
                                    const pathfinding::v1::GetMaskRequest* request,
                                    pathfinding::v1::MaskInfo* response) override;
  grpc::ServerUnaryReactor* ListMasks(grpc::CallbackServerContext* ctx,
                                      const pathfinding::v1::ListMasksRequest* request,
                                      pathfinding::v1::ListMasksResponse* response) override;
  grpc::ServerUnaryReactor* FindPath(grpc::CallbackServerContext* ctx,
                                     const pathfinding::v1::FindPathRequest* request,
                                     pathfinding::v1::FindPathResponse* response) override;
  grpc::ServerUnaryReactor* Reachable(grpc::CallbackServerContext* ctx,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* StandardMove(grpc::CallbackServerContext* ctx,
                                         const pathfinding::v1::StandardMoveRequest* request,
                                         pathfinding::v1::StandardMoveResponse* response) override;

 private:
  // `unchanged`: the upload had the stored grid (revision kept, nothing written).
  grpc::Status upload_mask(const pathfinding::v1::UploadMaskRequest& request,
                           pathfinding::v1::MaskInfo& response, bool& unchanged);
  // `removed`: the entry deleted; null with `was_corrupt` for a corrupt mask's file.
  grpc::Status delete_mask(const pathfinding::v1::DeleteMaskRequest& request, MaskEntryPtr& removed,
                           bool& was_corrupt);
  grpc::Status get_mask(const pathfinding::v1::GetMaskRequest& request,
                        pathfinding::v1::MaskInfo& response) const;
  grpc::Status list_masks(pathfinding::v1::ListMasksResponse& response) const;
  // In query_handlers.cc.
  grpc::Status patch_mask(const pathfinding::v1::PatchMaskRequest& request,
                          pathfinding::v1::MaskInfo& response);
  grpc::Status reachable(const WireReachableRequest& request,
                         pathfinding::v1::ReachableResponse& response);
  grpc::Status standard_move(const pathfinding::v1::StandardMoveRequest& request,
                             pathfinding::v1::StandardMoveResponse& response);
  grpc::Status find_path(const pathfinding::v1::FindPathRequest& request,
                         pathfinding::v1::FindPathResponse& response, FieldSource& source);

  class FindPathCall;  // a cold FindPath on the compute pool

  // Call plumbing (pathfinder_service.cc): start time for the latency metric
  // and log line; admission (shutdown, token); the one place every call
  // finishes (`mask`: the request's mask name, for the log line; read when
  // the call finishes).
  Metrics::Clock::time_point start_call() const;
  grpc::Status admit(grpc::CallbackServerContext& ctx, Access access);
  template <typename Body>
  grpc::ServerUnaryReactor* respond(grpc::CallbackServerContext* ctx, const char* rpc,
                                    Access access, const std::string& mask, Body&& body);
  grpc::ServerUnaryReactor* finish_call(grpc::CallbackServerContext* ctx, const char* rpc,
                                        std::string_view mask, const grpc::Status& status,
                                        Metrics::Clock::time_point start,
                                        grpc::ServerUnaryReactor* reactor = nullptr);
  // The audit line of a write (info): what happened to which mask, its
  // revision, size and digest, and who asked (peer, which token).
  void audit(const grpc::CallbackServerContext& ctx, std::string_view rpc, std::string_view outcome,
             std::string_view mask, std::uint64_t revision, std::uint32_t width,
             std::uint32_t height, std::string_view sha256) const;

  MaskStore& store_;
  FieldCache& cache_;
  ServiceLimits limits_;
  Authorizer authorizer_;
  Metrics* metrics_;     // may be null
  InFlightCalls calls_;  // admitted and not finished yet
  // Component labels (Reachable), stitched routes (StandardMove) and FindPath
  // answers, charged to the field cache's budget.
  QueryCaches query_caches_{cache_.budget(), limits_.component_cache_entries,
                            limits_.route_cache_entries, limits_.path_cache_entries};
  // Fills in progress, one per field (single flight).
  FieldFlights flights_;
  // FindPath's and StandardMove's messages, each call's on one arena (their
  // answers carry tens of points, one heap allocation each otherwise).
  ArenaMessageAllocator<pathfinding::v1::FindPathRequest, pathfinding::v1::FindPathResponse>
      find_path_allocator_;
  ArenaMessageAllocator<pathfinding::v1::StandardMoveRequest, pathfinding::v1::StandardMoveResponse>
      standard_move_allocator_;
  // Runs cold FindPath calls and finishes their fields; declared last, so it
  // is stopped (its queue run, its threads joined) before the rest goes.
  ComputePool pool_;
};

// "INVALID_ARGUMENT", "NOT_FOUND", ... for logs.
[[nodiscard]] std::string status_code_name(grpc::StatusCode code);

}  // namespace pathserver
