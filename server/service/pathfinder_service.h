#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cache/detour_buffer_pool.h"
#include "cache/any_angle_caches.h"
#include "cache/field_cache.h"
#include "cache/field_flights.h"
#include "cache/nearest_cache.h"
#include "cache/query_caches.h"
#include "cache/usable_mask_cache.h"
#include "pathcore/codec.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "runtime/auth.h"
#include "runtime/compute_pool.h"
#include "runtime/config.h"
#include "runtime/metrics.h"
#include "service/any_angle_find_path.h"
#include "service/cached_find_path.h"
#include "service/endpoint_snapping.h"
#include "service/in_flight_calls.h"
#include "service/mask_watchers.h"
#include "service/raw_call.h"
#include "service/reachable_wire.h"
#include "service/usable_entry.h"
#include "store/mask_store.h"

namespace pathserver {

struct ServiceLimits {
  // Largest mask an upload may decode to, in pixels.
  std::uint64_t max_pixels = pathcore::kDefaultMaxPixels;
  // Most pairs one Reachable request may carry (more: RESOURCE_EXHAUSTED).
  int max_reachable_pairs = kDefaultMaxReachablePairs;
  // Most starts one BatchFindPaths request may carry (more: RESOURCE_EXHAUSTED).
  int max_batch_starts = kDefaultMaxBatchStarts;
  // Most pairs one LineOfSight request, and points one NearestWalkable
  // request, may carry (more: RESOURCE_EXHAUSTED).
  int max_line_pairs = kDefaultMaxLinePairs;
  int max_nearest_points = kDefaultMaxNearestPoints;
  // Most temporary obstacles (shapes) and goals one request may carry (more:
  // RESOURCE_EXHAUSTED).
  int max_obstacles = kDefaultMaxObstacles;
  int max_goals = kDefaultMaxGoals;
  // NearestWalkable's distance transforms, which snapping shares, kept (LRU;
  // 0 disables caching: every snapped call then builds its own).
  std::size_t nearest_entries = 64;
  // Component labellings kept for Reachable, NearestWalkable and snapping
  // (LRU; 0 disables caching).
  std::size_t component_cache_entries = 64;
  // Stitched StandardMove answers kept (LRU; 0 disables caching).
  std::size_t route_cache_entries = 4096;
  // FindPath answers kept (LRU; 0 disables): the same start and goal on an
  // unchanged mask is answered without tracing or smoothing again. Answers
  // of more than kMaxCachedPathPoints points are not kept (at most 4 KiB each).
  std::size_t path_cache_entries = 4096;
  // SMOOTHING_ANY_ANGLE's meshes (one per mask revision, areas, corner rule
  // and clearance) kept (LRU; 0 disables caching). The byte budget usually
  // binds first: a mesh takes a byte per pixel and more.
  std::size_t any_angle_mesh_entries = 64;
  // Usable masks for agent clearance (one per mask revision, areas and
  // clearance, about 2.25 bytes per pixel; LRU; 0 disables caching).
  std::size_t usable_mask_entries = 64;
  // The server's largest message, in bytes: GetMask refuses to send an area
  // grid that would not fit (RESOURCE_EXHAUSTED) rather than fail the transport.
  std::size_t max_message_bytes = 64 * 1024 * 1024;
  // Largest request of a query or DeleteMask, in bytes (uploads and patches
  // may use max_message_bytes); larger ones are refused before decoding.
  std::size_t max_query_bytes = std::size_t{4} * 1024 * 1024;
  // Answers waiting for slow clients to read them: answers of more than
  // kPendingAnswerMinBytes are charged here until their call ends, and refused
  // (RESOURCE_EXHAUSTED) beyond it.
  std::size_t pending_answer_bytes = std::size_t{256} * 1024 * 1024;
  // A stream message, or an answer charged to pending_answer_bytes, that its
  // client has not read for this long is cancelled and its memory released
  // (AnswerWatch); 0: never.
  std::chrono::milliseconds stalled_stream_timeout{30000};
  // WatchMask calls open at once; more are refused with RESOURCE_EXHAUSTED.
  std::size_t max_watchers = kDefaultMaxWatchers;
  // Threads that run heavy work (flood fills, labelling, StandardMove's
  // search, image decoding, uploads); 0: one per hardware thread.
  std::size_t compute_threads = 0;
  // Added to the compute threads' nice value, so warm calls on gRPC's threads
  // get the CPU first when the cores are busy (0: same priority).
  int compute_niceness = 10;
  // Calls that may wait for a compute thread; more are refused with
  // RESOURCE_EXHAUSTED at once (calls parked on another call's fill of the
  // same field do not count: they hold no thread and need no fill of their own).
  std::size_t compute_queue = 256;
  // Calls of one client (client_of: its address) that may wait for or run on
  // a compute thread at once; more are refused with RESOURCE_EXHAUSTED, so
  // one client cannot take the queue from the others (0: no bound).
  std::size_t max_heavy_per_client = 128;
};

// The Pathfinder gRPC service. Handlers validate the request, translate it to
// core types, call the store / cache / core and translate the answer back.
// Every failed call is logged once (RPC, status code, message). The store and
// cache must outlive the service. Every RPC first checks the caller's bearer
// token with `authorizer` (writes: Access::kWrite, the rest: kQuery). Every
// finished call is counted, with its latency, in `metrics` when not null
// (it must outlive the service).
//
// Every method is raw (raw_call.h): the service decodes the request itself,
// so a request over its size limit is refused before decoding and bytes that
// do not decode answer INVALID_ARGUMENT, logged and counted like any failure.
//
// Work whose cost grows with the mask runs on the compute pool
// (limits.compute_threads threads at a lower priority, a bounded queue), never
// on gRPC's threads: flood fills (cold FindPath), component labelling
// (Reachable on labels not cached), snapping's tables and long goal searches,
// StandardMove's stitched searches, image decoding and the store writes of
// UploadMask and PatchMask, and GetMask's area grids. A call the queue cannot
// take is refused with RESOURCE_EXHAUSTED at once; a queued call that expires
// or is cancelled is answered so without running, and a running search stops
// at its next interrupt check. Health checks, cache hits, ListMasks and
// GetMask without areas are answered on gRPC's threads and never wait behind
// heavy work. No gRPC thread waits on a shared store's database: writes
// (DeleteMask included) run on the compute pool, and a query naming a mask
// this replica does not hold (or an expected_revision above the one held) is
// looked up in the store there (store_lookup_may_help) before it answers
// NOT_FOUND or FAILED_PRECONDITION.
//
// FindPath runs in two places. On gRPC's thread: validation, the beeline
// short-cut, and paths on cached fields (the warm path). A call that needs a
// flood fill is queued on the compute pool and answered from there. So is
// every SMOOTHING_ANY_ANGLE call: its search (and the mask's mesh, on a
// miss) is per-call work of milliseconds (any_angle_find_path.h).
// Fills are shared (FieldFlights: one fill per field, the other callers
// wait without a thread); a caller that gives up waiting (deadline, cancel)
// ends DEADLINE_EXCEEDED/CANCELLED, its answer naming the build and its
// progress, while the fill goes on to the end for the cache (it stops at
// shutdown, when its mask revision is replaced or deleted, or when the
// cache could not keep it). Any-angle structures and usable masks are built
// the same way (FieldSource::build_shared).
// Snapping (snap_to_reachable) looks its ends up in tables built once per
// mask revision, areas and clearance (endpoint_snapping.h: NearestWalkable's
// transform and Reachable's labels) on the compute pool; once they are
// cached, a snapped call is answered where an unsnapped one would be.
//
// BatchFindPaths (batch_find_paths.cc) answers every start with FindPath's
// own code: up to 32 starts on a cached field on gRPC's thread; more starts,
// or a cold field, on the compute pool, which fills the field whole once
// (FillingSource::fill_whole_fields) and checks the call between starts.
//
// Reachable is served raw: its request bytes are decoded by
// decode_reachable_request (reachable_wire.h), a flat decoder several times
// cheaper than protobuf's parser for its thousands of nested points.
using RawPathfinderService = pathfinding::v1::Pathfinder::WithRawCallbackMethod_UploadMask<
    pathfinding::v1::Pathfinder::WithRawCallbackMethod_PatchMask<
        pathfinding::v1::Pathfinder::WithRawCallbackMethod_DeleteMask<
            pathfinding::v1::Pathfinder::WithRawCallbackMethod_GetMask<
                pathfinding::v1::Pathfinder::WithRawCallbackMethod_ListMasks<
                    pathfinding::v1::Pathfinder::WithRawCallbackMethod_FindPath<
                        pathfinding::v1::Pathfinder::WithRawCallbackMethod_Reachable<
                            pathfinding::v1::Pathfinder::WithRawCallbackMethod_StandardMove<
                                pathfinding::v1::Pathfinder::WithRawCallbackMethod_BatchFindPaths<
                                    pathfinding::v1::Pathfinder::WithRawCallbackMethod_GetField<
                                        pathfinding::v1::Pathfinder::WithRawCallbackMethod_LineOfSight<
                                            pathfinding::v1::Pathfinder::WithRawCallbackMethod_NearestWalkable<
                                                pathfinding::v1::Pathfinder::WithRawCallbackMethod_PrepareMask<
                                                    pathfinding::v1::Pathfinder::WithRawCallbackMethod_GetRange<
                                                        pathfinding::v1::Pathfinder::WithRawCallbackMethod_WatchMask<
                                                            pathfinding::v1::Pathfinder::CallbackService>>>>>>>>>>>>>>>;

// How long before its deadline a call gives up waiting for a shared build.
inline constexpr std::chrono::milliseconds kGiveUpMargin{20};
// A call the client cancels this close to its deadline ended by the deadline
// (the client's timer fired first): it is answered and logged DEADLINE_EXCEEDED.
inline constexpr std::chrono::milliseconds kClientDeadlineSkew{250};

// Thrown by a handler body on gRPC's thread when its call needs heavy work:
// the call is handed to the compute pool and the body run again there.
struct NeedsComputePool {};

// Queries of more bytes than this are decoded on the compute pool, with their work.
inline constexpr std::size_t kDecodeOnCallThreadBytes = 64 * 1024;

// Answers of more than this many bytes are charged to ServiceLimits::pending_answer_bytes.
inline constexpr std::size_t kPendingAnswerMinBytes = 64 * 1024;

class PathfinderService final : public RawPathfinderService {
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
  // Shutdown, once the grace is over: the calls still running stop at their
  // next check and are answered UNAVAILABLE "server shutting down" (rather
  // than cancelled by gRPC's Shutdown, which the client would see as
  // CANCELLED). wait_until_idle then says when they are answered.
  void stop_running_calls();
  // Entries of the Reachable and StandardMove caches (metrics).
  [[nodiscard]] std::size_t component_cache_entries() const {
    return query_caches_.components.size();
  }
  [[nodiscard]] std::size_t route_cache_entries() const { return query_caches_.routes.size(); }
  [[nodiscard]] std::size_t path_cache_entries() const { return query_caches_.paths.size(); }
  // Calls that reached their deadline waiting for a shared build, which went
  // on for the cache (metrics).
  [[nodiscard]] std::uint64_t build_deadline_give_ups() const {
    return flights_.deadline_give_ups();
  }
  // Any-angle structures built so far (metrics).
  [[nodiscard]] std::uint64_t any_angle_structures_built() const {
    return any_angle_caches_.structures_built.load(std::memory_order_relaxed);
  }
  // Bytes of answers waiting for slow clients (metrics, tests).
  [[nodiscard]] std::size_t pending_answer_bytes() const { return pending_answers_.held(); }

  // In mask_handlers.cc.
  grpc::ServerUnaryReactor* UploadMask(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* PatchMask(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* DeleteMask(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetMask(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListMasks(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  // In find_path.cc.
  grpc::ServerUnaryReactor* FindPath(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  // In batch_find_paths.cc.
  grpc::ServerUnaryReactor* BatchFindPaths(grpc::CallbackServerContext* ctx,
                                           const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) override;
  // In move_queries.cc.
  grpc::ServerUnaryReactor* Reachable(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* StandardMove(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  // In line_queries.cc.
  grpc::ServerUnaryReactor* LineOfSight(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* NearestWalkable(grpc::CallbackServerContext* ctx,
                                            const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) override;
  // In field_stream.cc: server streaming, one chunk written at a time.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* GetField(grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request) override;
  // In range_stream.cc: server streaming, the range's chunks written one at a time.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* GetRange(grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request) override;
  // In prepare_mask.cc: server streaming, progress messages as stages build.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* PrepareMask(grpc::CallbackServerContext* ctx,
                                                          const grpc::ByteBuffer* request) override;
  // In watch_stream.cc: server streaming, one message per change of the mask.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchMask(grpc::CallbackServerContext* ctx,
                                                        const grpc::ByteBuffer* request) override;
  // Open WatchMask calls (metrics, tests).
  [[nodiscard]] std::size_t open_watches() const { return watchers_.size(); }

 private:
  // Handler bodies. `interrupt` is null on gRPC's thread: a body that needs
  // heavy work then throws NeedsComputePool and is run again on the compute
  // pool with an interrupt that says when the call is gone (its searches
  // stop with pathcore::Interrupted).
  // In mask_handlers.cc.
  // `unchanged`: the upload had the stored grid (revision kept, nothing written).
  // `image`: the request's image, left in its received bytes.
  grpc::Status upload_mask(const pathfinding::v1::UploadMaskRequest& request,
                           std::span<const std::uint8_t> image, pathfinding::v1::MaskInfo& response,
                           bool& unchanged);
  // `areas`: the request's areas, left in its received bytes.
  grpc::Status patch_mask(const pathfinding::v1::PatchMaskRequest& request,
                          std::span<const std::uint8_t> areas, pathfinding::v1::MaskInfo& response);
  // `removed`: the entry deleted; null with `was_corrupt` for a corrupt mask's file.
  grpc::Status delete_mask(const pathfinding::v1::DeleteMaskRequest& request, MaskEntryPtr& removed,
                           bool& was_corrupt);
  // With include_areas, writes the answer's bytes itself (the grid is not copied).
  grpc::Status get_mask(const pathfinding::v1::GetMaskRequest& request, CallReactor& call,
                        pathfinding::v1::MaskInfo& response) const;
  grpc::Status list_masks(pathfinding::v1::ListMasksResponse& response) const;
  // In move_queries.cc.
  grpc::Status reachable(const WireReachableRequest& request,
                         pathfinding::v1::ReachableResponse& response,
                         const std::function<bool()>* interrupt);
  grpc::Status standard_move(const pathfinding::v1::StandardMoveRequest& request,
                             pathfinding::v1::StandardMoveResponse& response,
                             const std::function<bool()>* interrupt);
  // In line_queries.cc.
  grpc::Status line_of_sight(const pathfinding::v1::LineOfSightRequest& request,
                             pathfinding::v1::LineOfSightResponse& response,
                             const std::function<bool()>* interrupt);
  grpc::Status nearest_walkable(const pathfinding::v1::NearestWalkableRequest& request,
                                pathfinding::v1::NearestWalkableResponse& response,
                                const std::function<bool()>* interrupt);
  // In find_path.cc, with the plan below.
  grpc::Status find_path(const pathfinding::v1::FindPathRequest& request,
                         pathfinding::v1::FindPathResponse& response, FieldSource& source);

  // A call whose work runs on the compute pool on fields it may wait for
  // (call_plumbing.h), and its two kinds: a cold FindPath (find_path.cc)
  // and a BatchFindPaths on the pool (batch_find_paths.cc).
  class ColdCall;
  class FindPathCall;
  class BatchFindPathsCall;
  // PrepareMask (prepare_mask.cc): the request validated, the streaming
  // call, and its stages on the compute pool.
  struct PreparePlan;
  class PrepareStream;
  class PrepareJob;
  grpc::Status plan_prepare(const pathfinding::v1::PrepareMaskRequest& request,
                            PreparePlan& plan) const;
  // WatchMask (watch_stream.cc): one open watch.
  class WatchStream;
  // A streaming call whose answer is written chunk by chunk (GetField's and
  // GetRange's; chunked_answer_stream.h).
  class ChunkedAnswerStream;
  // GetField (field_stream.cc): the streaming call, the request's validated
  // plan, and its cold part on the compute pool.
  class FieldStream;
  struct FieldPlan;
  class FieldJob;
  grpc::Status plan_field(const pathfinding::v1::GetFieldRequest& request, FieldPlan& plan) const;
  // The field a plan needs (and the pixels it was filled on), from `source`.
  // Throws what the source throws; `whole` gets the whole field for a key.
  struct PlannedField;
  PlannedField planned_field(const FieldPlan& plan, FieldSource& source,
                             const std::function<FieldPtr(const FieldKey&, const MaskEntry&,
                                                          bool&)>& whole);

  // GetRange (range_stream.cc): the request validated and the streaming call.
  struct RangePlan;
  class RangeStream;
  grpc::Status plan_range(const pathfinding::v1::GetRangeRequest& request, RangePlan& plan) const;
  // FindPath with max_cost or partial (budget_find_path.cc): the budgeted
  // search from the start and its answer; nullopt when the request sets
  // neither (or snapping takes it: the plain FindPath answers).
  std::optional<grpc::Status> budget_find_path(const pathfinding::v1::FindPathRequest& request,
                                               pathfinding::v1::FindPathResponse& response,
                                               FieldSource& source);

  // A FindPath request's obstacles and, once on the compute pool, the plan
  // on its patched mask (obstacle_find_path.cc).
  struct ObstaclePlan;
  // The request's obstacles, kept for find_path_with_obstacles (a copy of
  // the shapes: decoding them costs pixels, so it waits for the pool).
  [[nodiscard]] static std::shared_ptr<ObstaclePlan> obstacle_plan(
      const pathfinding::v1::FindPathRequest& request);
  // A FindPath request checked and translated, its start aside: what every
  // start of a BatchFindPaths shares.
  struct FindPathPlan {
    MaskEntryPtr entry;
    pathcore::Point goal;
    // Two or more goals (goal is goals[0]): the nearest is taken; one goal
    // in the list is planned as `goal` alone.
    std::vector<pathcore::Point> goals;
    bool any_angle = false;             // SMOOTHING_ANY_ANGLE
    pathcore::AreaSet enabled = 0;      // effective
    double clearance_key = 0;           // normalised (0: excludes no pixel)
    pathcore::FindPathOptions options;  // grid paths
    AnyAngleOptions any_angle_options;  // any-angle paths
    std::optional<FieldKey> goal_key;   // grid paths' field
    std::optional<UsableEntry> usable;  // with clearance, once needed
    // With snap_to_reachable: the ends' lookups, shared by a batch's starts.
    std::optional<EndpointSnapper> snapper;
    // With obstacles: the request's shapes, answered on a patched copy of
    // the mask outside the caches (obstacle_find_path.cc).
    std::shared_ptr<ObstaclePlan> obstacles;

    // Fills path's reason and snapping fields for a request from start
    // toward `requested`, on the plan's mask (and usable pixels, once set).
    void explain(pathcore::Point start, pathcore::Point requested,
                 pathcore::PathResult& path) const;
  };
  // The grid answer of `plan` for start (to its goal, or the nearest of its
  // goals), explained: on `walked`, the plan's mask or usable pixels, with
  // fields from `source` under `key`.
  static CachedPathResult grid_find_path(const FindPathPlan& plan, const MaskEntry& walked,
                                         FieldSource& source, pathcore::Point start,
                                         const FieldKey& key, EndpointSnapper* snapper);
  // Validates request's options, goal and (when not null) start, finds the
  // mask and checks expected_revision: the errors FindPath answers.
  grpc::Status plan_find_path(const pathfinding::v1::FindPathRequest& request,
                              const pathcore::Point* start, FindPathPlan& plan);
  // FindPath's answer for `start` (inside the mask) under `plan`.
  grpc::Status find_path_planned(FindPathPlan& plan, pathcore::Point start,
                                 pathfinding::v1::FindPathResponse& response, FieldSource& source);
  // In obstacle_find_path.cc: find_path_planned for a plan with obstacles,
  // on its patched mask with fields, usable pixels, meshes and snapping
  // scans of its own (no cache read or written). The first call builds them
  // where source.begin_scan() allows (it throws on gRPC's thread).
  grpc::Status find_path_with_obstacles(FindPathPlan& plan, pathcore::Point start,
                                        pathfinding::v1::FindPathResponse& response,
                                        FieldSource& source);
  // Its first choice: when the cache holds the field of the request's goal
  // on the mask without the obstacles, the path around them from that field
  // (pathcore::path_around_obstacles), the same answer at the cost of the
  // detour. nullopt where the patched copy must answer: no such field, any-
  // angle, several goals, an end the obstacles block (snapping and its
  // explanations), a start they cut off under snapping, or a detour too
  // large (more than kDetourPixelsOnCallThread on gRPC's thread, where
  // source.begin_scan() then moves the call to the pool; a quarter of the
  // mask there).
  std::optional<grpc::Status> find_path_around_obstacles(
      FindPathPlan& plan, pathcore::Point start, pathfinding::v1::FindPathResponse& response,
      FieldSource& source);
  // In batch_find_paths.cc. `interrupt`: null on gRPC's thread. Leaves each
  // start's answer as it goes on the wire (its field tag, length and
  // message) in `answer`, serialized by the thread that answered it and
  // charged to pending_answers_ as it grows.
  struct BatchAnswer;
  grpc::Status batch_find_paths(const pathfinding::v1::BatchFindPathsRequest& request,
                                BatchAnswer& answer, FieldSource& source,
                                const std::function<bool()>* interrupt);

  // Drops what was derived from revisions of `mask` below
  // `first_live_revision` (and the smaller per-mask caches whole): after a
  // write here or, through the store's change listener, on another replica.
  void drop_stale_caches(const std::string& mask, std::uint64_t first_live_revision);
  // A change made here or, through the store's change listener, on another
  // replica: its stale caches dropped, its watchers told.
  void changed(const StoreChange& change);

  // Read-your-writes across replicas (call_plumbing.cc): true when
  // `status` answers a mask not held (NOT_FOUND, or FAILED_PRECONDITION for
  // an expected_revision above the one held) that a shared store may know
  // newer; the call then looks the mask up (catch_up_store) on the compute
  // pool and runs again.
  [[nodiscard]] bool store_lookup_may_help(const grpc::Status& status, std::string_view mask,
                                           std::uint64_t expected_revision) const;
  // On the compute pool: MaskStore::catch_up for `mask`, within the call's
  // deadline; OK, or the UNAVAILABLE answer when the database could not be asked.
  [[nodiscard]] grpc::Status catch_up_store(const grpc::CallbackServerContext& ctx,
                                            std::string_view mask);

  // Call plumbing (call_plumbing.cc, respond<> in call_plumbing.h): start time for the latency metric
  // and log line; admission (shutdown, token); decoding, running the body on
  // gRPC's thread or the pool; the one place every call finishes.
  Metrics::Clock::time_point start_call() const;
  grpc::Status admit(grpc::CallbackServerContext& ctx, Access access);
  // The start of a query served outside respond<> (FindPath, BatchFindPaths):
  // admit() for Access::kQuery, then its request decoded within the query limit.
  grpc::Status admit_query(grpc::CallbackServerContext& ctx, const grpc::ByteBuffer& request_bytes,
                           google::protobuf::MessageLite& request);
  template <typename Request, typename Answer, typename Body>
  grpc::ServerUnaryReactor* respond(grpc::CallbackServerContext* ctx, const char* rpc,
                                    Access access, const grpc::ByteBuffer* request_bytes,
                                    grpc::ByteBuffer* answer_bytes, Body body);
  // Runs work(interrupt) for `call` on the compute pool and answers the call
  // from there. RESOURCE_EXHAUSTED (nothing queued) when the pool's queue or
  // the caller's share of it is full (submit_heavy).
  [[nodiscard]] grpc::Status offload(CallReactor& call,
                                     std::function<grpc::Status(const std::function<bool()>&)> work);
  // Queues a heavy task for the caller of `ctx` (client_of): OK, or
  // RESOURCE_EXHAUSTED saying which bound refused it (nothing queued).
  [[nodiscard]] grpc::Status submit_heavy(const grpc::CallbackServerContext& ctx,
                                          std::function<void()> task);
  // Who a call is for the compute pool's shares: its peer's address without
  // the port (a client's connections share one share; behind a balancer,
  // the balancer is one client).
  [[nodiscard]] static std::string client_of(const grpc::CallbackServerContext& ctx);
  // A build an offloaded call runs for the caches (component labels, a
  // nearest-walkable transform: no single flight), on the pool thread running
  // that call's work (offload). Once the call gives up (its give-up time, as
  // for a flight's waiters, or the build's interrupt check seeing it), it is
  // answered at once, naming the build, and the build goes on for the cache;
  // it stops (Interrupted) only at shutdown or when `entry`'s revision is
  // replaced or deleted. Off the pool (no offloaded call on this thread) it
  // is just `call_interrupt`.
  class OffloadedCall;
  class CacheBuild {
   public:
    CacheBuild(const CacheBuild&) = delete;
    CacheBuild& operator=(const CacheBuild&) = delete;
    ~CacheBuild();
    [[nodiscard]] const std::function<bool()>& interrupt() const { return interrupt_; }
    // The core builder's progress report (the answer of a call that gives up tells it).
    [[nodiscard]] const pathcore::ProgressReport& progress() const { return progress_; }
    // The build is done (and cached): throws pathcore::Interrupted when the
    // call was answered meanwhile (its answer must not be touched).
    void end();

   private:
    friend class PathfinderService;
    CacheBuild(std::shared_ptr<OffloadedCall> call, std::shared_ptr<Flight> flight,
               std::function<bool()> interrupt);
    std::shared_ptr<OffloadedCall> call_;  // null off the pool
    std::shared_ptr<Flight> flight_;
    std::function<bool()> interrupt_;
    pathcore::ProgressReport progress_;
  };
  [[nodiscard]] CacheBuild begin_cache_build(std::string what, const MaskEntry& entry,
                                             const std::function<bool()>& call_interrupt);
  // The offloaded call whose work runs on this pool thread, for begin_cache_build.
  static thread_local OffloadedCall* current_offloaded_call_;

  // Why a call's work should stop (deadline passed, cancelled, server
  // stopping), or OK while it is still wanted.
  [[nodiscard]] grpc::Status call_gone(grpc::CallbackServerContext& ctx) const;
  // call_gone for a call that may wait for a shared build: its deadline counts
  // kGiveUpMargin early, so that its answer (naming the build and its
  // progress) reaches the client before the client's own deadline, which
  // reports a bare DEADLINE_EXCEEDED whatever the server answers later.
  [[nodiscard]] grpc::Status waiting_call_gone(grpc::CallbackServerContext& ctx) const;
  // When such a call gives up (FieldRequest::give_up_at): its deadline less
  // kGiveUpMargin; nullopt for a call without a deadline.
  [[nodiscard]] static std::optional<std::chrono::system_clock::time_point> give_up_time(
      const grpc::CallbackServerContext& ctx);
  // RESOURCE_EXHAUSTED: the compute pool's queue, or the caller's share of
  // it (kClientShareFull), is full.
  [[nodiscard]] grpc::Status busy(
      ComputePool::Admission refused = ComputePool::Admission::kQueueFull) const;
  // Writes the answer (when `status` is OK), charges a large one to
  // pending_answers_ (or refuses it), logs, counts and finishes the call.
  void finish(CallReactor& call, grpc::Status status);
  void finish_call(CallReactor& call, const grpc::Status& status);
  // finish_call's log line and metrics, for calls that are no CallReactor (streams).
  void log_and_count(const char* rpc_name, std::string_view mask,
                     const grpc::CallbackServerContext& ctx, Metrics::Clock::time_point started,
                     const grpc::Status& status);
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
  std::atomic<bool> stopping_calls_{false};  // stop_running_calls() was called
  // Component labels (Reachable), stitched routes (StandardMove) and FindPath
  // answers, charged to the field cache's budget.
  QueryCaches query_caches_{cache_.budget(), limits_.component_cache_entries,
                            limits_.route_cache_entries, limits_.path_cache_entries};
  // SMOOTHING_ANY_ANGLE's meshes, charged to the same budget.
  AnyAngleCaches any_angle_caches_{cache_.budget(), limits_.any_angle_mesh_entries};
  // The usable pixels of requests with agent clearance, charged to the same budget.
  UsableMaskCache usable_masks_{cache_.budget(), "usable_masks", limits_.usable_mask_entries};
  // NearestWalkable's and snapping's distance transforms, charged to the same budget.
  NearestCache nearest_{cache_.budget(), "nearest", limits_.nearest_entries};
  // The blocked masks and scratch of FindPath calls answered around temporary
  // obstacles, kept for the next such call (a share of the cache's size).
  std::shared_ptr<DetourBufferPool> detour_buffers_ = std::make_shared<DetourBufferPool>(
      cache_.budget().total_bytes() / FieldCache::kStoragePoolShare);
  // Fills in progress, one per field (single flight), and usable-mask builds.
  FieldFlights flights_;
  // Large answers not yet read by their clients.
  PendingAnswers pending_answers_{limits_.pending_answer_bytes};
  // Fields that GetField streams keep for their readers, charged to pending_answers_.
  SharedCharges pinned_fields_{pending_answers_};
  // Ends calls whose readers stall; returns freed answers' memory to the system.
  AnswerWatch answer_watch_{pending_answers_, limits_.stalled_stream_timeout};
  // The open WatchMask calls, by mask.
  MaskWatchers watchers_{limits_.max_watchers};
  // Runs cold FindPath calls and finishes their fields; declared last, so it
  // is stopped (its queue run, its threads joined) before the rest goes.
  ComputePool pool_;
};

// "INVALID_ARGUMENT", "NOT_FOUND", ... for logs.
[[nodiscard]] std::string status_code_name(grpc::StatusCode code);

}  // namespace pathserver
