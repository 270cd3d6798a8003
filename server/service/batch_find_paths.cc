// BatchFindPaths: many starts, one goal, FindPath's options once. Every start
// is answered by FindPath's own code (plan_find_path once, find_path_planned
// per start), on one field (or one any-angle goal table, one usable mask)
// looked up or computed once for the whole batch.

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "service/cached_find_path.h"
#include "service/pathfinder_service.h"
#include "service/proto_convert.h"
#include "service/request_decoding.h"
#include "service/rpc_status.h"
#include "service/run_handler.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

using BatchMessages = MessageCall<v1::BatchFindPathsRequest, v1::BatchFindPathsResponse>;

// Batches of more starts than this are traced on the compute pool, where the
// call's deadline is checked between starts: gRPC's threads stay free for
// health checks and warm single calls.
constexpr int kStartsOnGrpcThread = 32;
// Starts traced between two checks of the call's deadline and cancellation.
constexpr int kStartsPerInterruptCheck = 16;
// What a batch's paths may remember of one another's smoothing (corner
// outcomes, about 2.5 MB per 1,000 paths across a full-HD mask) before it
// starts over: bounded whatever --max-batch-starts allows.
constexpr std::size_t kMaxSharedSmoothingBytes = std::size_t{64} << 20;

// FindPath's request for the batch's goal and options, without a start.
v1::FindPathRequest single_request(const v1::BatchFindPathsRequest& batch) {
  v1::FindPathRequest single;
  single.set_mask(batch.mask());
  if (batch.has_goal()) *single.mutable_goal() = batch.goal();
  single.set_enabled_areas(batch.enabled_areas());
  single.set_connectivity(batch.connectivity());
  single.set_allow_corner_cutting(batch.allow_corner_cutting());
  single.set_smoothing(batch.smoothing());
  single.set_snap_to_reachable(batch.snap_to_reachable());
  *single.mutable_area_costs() = batch.area_costs();
  single.set_expected_revision(batch.expected_revision());
  single.set_clearance(batch.clearance());
  return single;
}

// Lends each field once per batch: the first lease of a key (final, as
// whole fills and the cache give them) serves every later start, without a
// cache lookup (or a hit counted) per start.
class BatchFieldSource final : public FieldSource {
 public:
  explicit BatchFieldSource(FieldSource& inner) : inner_(inner) {}

  [[nodiscard]] FieldLease field(const FieldKey& key, const MaskEntry& entry,
                                 pathcore::Point start) override {
    for (const auto& [kept_key, lease] : leases_) {
      if (kept_key == key) return lease;
    }
    FieldLease lease = inner_.field(key, entry, start);
    if (lease.owner != nullptr) leases_.emplace_back(key, lease);
    return lease;
  }
  [[nodiscard]] std::function<bool()> begin_scan() override { return inner_.begin_scan(); }
  void build_once(const FieldKey& flight_key, const std::function<void()>& build) override {
    inner_.build_once(flight_key, build);
  }

 private:
  FieldSource& inner_;
  std::vector<std::pair<FieldKey, FieldLease>> leases_;
};

}  // namespace

grpc::Status PathfinderService::batch_find_paths(const v1::BatchFindPathsRequest& request,
                                                 v1::BatchFindPathsResponse& response,
                                                 FieldSource& source,
                                                 const std::function<bool()>* interrupt) {
  const int start_count = request.starts_size();
  if (start_count == 0) return invalid("starts: at least one start is required");
  if (const int limit = limits_.max_batch_starts; start_count > limit) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "starts: " + std::to_string(start_count) + " starts; the limit is " +
                std::to_string(limit) + " per request (--max-batch-starts)"};
  }
  FindPathPlan plan;
  if (auto status = plan_find_path(single_request(request), nullptr, plan); !status.ok()) {
    return status;
  }
  for (int i = 0; i < start_count; ++i) {
    const pathcore::Point start = to_core(request.starts(i));
    if (!plan.entry->mask->contains(start)) {
      return invalid(outside("starts[" + std::to_string(i) + "]", start, *plan.entry));
    }
  }
  if (interrupt == nullptr && start_count > kStartsOnGrpcThread) throw NeedsComputePool{};

  BatchFieldSource batch_source(source);
  // One mask and options for every start: beautify's corners are shared.
  SharedSmoothingScope shared_smoothing;
  response.mutable_paths()->Reserve(start_count);
  std::size_t answer_bytes = 0;
  for (int i = 0; i < start_count; ++i) {
    if (interrupt != nullptr && i % kStartsPerInterruptCheck == 0 && (*interrupt)()) {
      throw RequestGone{};
    }
    shared_smoothing.bound(kMaxSharedSmoothingBytes);
    v1::FindPathResponse& path = *response.add_paths();
    grpc::Status status = find_path_planned(plan, to_core(request.starts(i)), path, batch_source);
    if (!status.ok()) return status;
    // Its tag and length take at most 6 bytes more.
    answer_bytes += path.ByteSizeLong() + 6;
    if (answer_bytes > limits_.max_message_bytes) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "starts: the paths of the first " + std::to_string(i + 1) + " starts take " +
                  std::to_string(answer_bytes) +
                  " bytes, more than the server's message limit of " +
                  std::to_string(limits_.max_message_bytes) +
                  " bytes (--max-message-mb): send fewer starts per request"};
    }
  }
  return grpc::Status::OK;
}

// One BatchFindPaths call on the compute pool: fills its field whole (every
// start traces on it), parks on another call's fill of the same field, and
// is answered exactly once, by the pool thread or by a fill's poll when the
// call's deadline passed or it was cancelled.
class PathfinderService::BatchFindPathsCall final
    : public FieldRequest,
      public std::enable_shared_from_this<PathfinderService::BatchFindPathsCall> {
 public:
  BatchFindPathsCall(PathfinderService& service, BatchMessages& call,
                     std::optional<FieldKey> counted_miss)
      : service_(service), call_(call), counted_miss_(std::move(counted_miss)) {}

  grpc::Status gone() const override {
    // Once answered, the call may be gone: never touch it again.
    if (answered_.load(std::memory_order_acquire)) {
      return {grpc::StatusCode::CANCELLED, "already answered"};
    }
    return service_.call_gone(call_.context());
  }

  void abandon(const grpc::Status& status) override { answer(status); }

  void resume(const FieldKey& key, FieldPtr field) override {
    auto self = shared_from_this();
    service_.pool_.submit(
        [self, key, field = std::move(field)]() mutable { self->run(&key, std::move(field)); });
  }

  // `given`: the field for *given_key of the fill it waited for.
  void run(const FieldKey* given_key = nullptr, FieldPtr given = nullptr) {
    if (answered_.load(std::memory_order_acquire)) return;
    if (grpc::Status why = gone(); !why.ok()) {
      answer(why);  // expired or cancelled while queued
      return;
    }
    FillingSource source(service_.cache_, service_.flights_, shared_from_this());
    source.fill_whole_fields();
    source.set_counted_miss(counted_miss_);
    if (given != nullptr) source.give(*given_key, std::move(given));
    const std::function<bool()> interrupt = [this] { return !gone().ok(); };
    call_.answer().Clear();  // a run before parking may have answered some starts
    grpc::Status status;
    try {
      status = run_handler([&] {
        return service_.batch_find_paths(call_.request(), call_.answer(), source, &interrupt);
      });
    } catch (const Parked&) {
      return;  // resumed by the fill it waits for
    } catch (const RequestGone&) {
      grpc::Status why = gone();
      answer(why.ok() ? grpc::Status(grpc::StatusCode::CANCELLED, "no longer wanted") : why);
      return;
    }
    answer(status);
  }

 private:
  void answer(const grpc::Status& status) {
    if (answered_.exchange(true, std::memory_order_acq_rel)) return;
    service_.finish(call_, status);
  }

  PathfinderService& service_;
  BatchMessages& call_;                         // alive until answered
  const std::optional<FieldKey> counted_miss_;  // the miss that sent the call here
  std::atomic<bool> answered_{false};
};

grpc::ServerUnaryReactor* PathfinderService::BatchFindPaths(grpc::CallbackServerContext* ctx,
                                                            const grpc::ByteBuffer* request,
                                                            grpc::ByteBuffer* response) {
  auto* call = new BatchMessages(ctx, response, "BatchFindPaths", start_call());  // gRPC deletes it
  grpc::Status status = admit(*ctx, Access::kQuery);
  if (status.ok()) {
    status = decode_request(const_cast<grpc::ByteBuffer&>(*request), limits_.max_query_bytes,
                            "--max-query-kb", call->request());
  }
  if (status.ok()) {
    call->set_logged_mask(call->request().mask());
    CacheOnlySource warm(cache_);
    bool cold = false;  // a fill, scan or build is needed, or many starts
    try {
      status = run_handler(
          [&] { return batch_find_paths(call->request(), call->answer(), warm, nullptr); });
    } catch (const NeedsFill&) {
      cold = true;
    } catch (const NeedsComputePool&) {
      cold = true;
    }
    if (cold) {
      call->answer().Clear();
      auto work = std::make_shared<BatchFindPathsCall>(*this, *call, warm.missed());
      if (pool_.try_submit([work] { work->run(); })) return call;
      status = busy();
    }
  }
  finish(*call, status);
  return call;
}

}  // namespace pathserver
