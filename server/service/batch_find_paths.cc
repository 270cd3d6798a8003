// BatchFindPaths: many starts, one goal, FindPath's options once. Every start
// is answered by FindPath's own code (plan_find_path once, find_path_planned
// per start), on one field (or one any-angle mesh, one usable mask)
// looked up or computed once for the whole batch. The paths share their
// traces' ends and beautify's corner outcomes (SharedPathsScope), and on the
// compute pool a second thread, when one is free, answers starts too once
// the field is leased.

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "service/cached_find_path.h"
#include "service/call_plumbing.h"
#include "service/proto_convert.h"
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
// What a batch's paths may remember of one another (traces and corner
// outcomes, about 3 MB per 1,000 paths across a full-HD mask) before it
// starts over: bounded whatever --max-batch-starts allows.
constexpr std::size_t kMaxSharedBytes = std::size_t{64} << 20;
// BatchFindPathsResponse.paths' tag on the wire.
constexpr std::uint32_t kPathTag = google::protobuf::internal::WireFormatLite::MakeTag(
    v1::BatchFindPathsResponse::kPathsFieldNumber,
    google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED);

// FindPath's request for the batch's goal and options, without a start.
v1::FindPathRequest single_request(const v1::BatchFindPathsRequest& batch) {
  v1::FindPathRequest single;
  single.set_mask(batch.mask());
  if (batch.has_goal()) *single.mutable_goal() = batch.goal();
  *single.mutable_goals() = batch.goals();
  single.set_enabled_areas(batch.enabled_areas());
  single.set_connectivity(batch.connectivity());
  single.set_allow_corner_cutting(batch.allow_corner_cutting());
  single.set_smoothing(batch.smoothing());
  single.set_snap_to_reachable(batch.snap_to_reachable());
  *single.mutable_area_costs() = batch.area_costs();
  single.set_expected_revision(batch.expected_revision());
  single.set_clearance(batch.clearance());
  *single.mutable_obstacles() = batch.obstacles();
  return single;
}

using Leases = std::vector<std::pair<FieldKey, FieldLease>>;

// The lease kept for key, or null.
const FieldLease* find_lease(const Leases& leases, const FieldKey& key) {
  for (const auto& [kept_key, lease] : leases) {
    if (kept_key == key) return &lease;
  }
  return nullptr;
}

// The field of the lease kept for key, or null.
const pathcore::DistanceField* held_field(const Leases& leases, const FieldKey& key) {
  const FieldLease* kept = find_lease(leases, key);
  return kept != nullptr ? kept->field : nullptr;
}

// Lends each field once per batch: the first lease of a key (final, as
// whole fills and the cache give them) serves every later start, without a
// cache lookup (or a hit counted) per start.
class BatchFieldSource final : public FieldSource {
 public:
  explicit BatchFieldSource(FieldSource& inner) : inner_(inner) {}

  [[nodiscard]] FieldLease field(const FieldKey& key, const MaskEntry& entry,
                                 pathcore::Point start) override {
    if (const FieldLease* kept = find_lease(leases_, key)) return *kept;
    FieldLease lease = inner_.field(key, entry, start);
    if (lease.owner != nullptr) leases_.emplace_back(key, lease);
    return lease;
  }
  [[nodiscard]] const pathcore::DistanceField* held(const FieldKey& key) const override {
    return held_field(leases_, key);
  }
  [[nodiscard]] std::function<bool()> begin_scan() override { return inner_.begin_scan(); }
  void build_shared(const FieldKey& flight_key, const std::string& what,
                    const SharedBuild& build) override {
    inner_.build_shared(flight_key, what, build);
  }
  // The fields lent so far (to lend to a helper thread).
  [[nodiscard]] const Leases& leases() const { return leases_; }

 private:
  FieldSource& inner_;
  Leases leases_;
};

// A helper thread's fields: those the batch's own thread leased already.
// Anything else (another key, a snapping scan, a build, work for later)
// throws NeedsFill, and that start is left to the batch's own thread.
class LentFieldSource final : public FieldSource {
 public:
  explicit LentFieldSource(Leases leases) : leases_(std::move(leases)) {}

  [[nodiscard]] FieldLease field(const FieldKey& key, const MaskEntry& /*entry*/,
                                 pathcore::Point /*start*/) override {
    if (const FieldLease* kept = find_lease(leases_, key)) return *kept;
    throw NeedsFill{};
  }
  [[nodiscard]] const pathcore::DistanceField* held(const FieldKey& key) const override {
    return held_field(leases_, key);
  }
  [[nodiscard]] std::function<bool()> begin_scan() override { throw NeedsFill{}; }
  void build_shared(const FieldKey& /*flight_key*/, const std::string& /*what*/,
                    const SharedBuild& /*build*/) override {
    throw NeedsFill{};
  }
  void after_answer(LaterWork /*work*/) override { throw NeedsFill{}; }

 private:
  Leases leases_;
};

// The starts of one batch, shared by its own thread and a helper: each
// takes the next kStartsPerInterruptCheck starts until none are left. The
// batch's thread never leaves before a helper that began has ended (the
// helper uses the call's request, answer and plan), and a helper that had
// not begun by then does nothing.
struct SharedStarts {
  explicit SharedStarts(int count) : count(count) {}

  std::atomic<int> next{0};
  const int count;
  std::atomic<bool> stop{false};             // the batch's thread left early
  std::atomic<std::size_t> answer_bytes{0};  // of the paths answered so far
  std::mutex mutex;
  std::condition_variable helper_ended;
  bool closed = false;  // no helper may begin now
  int helpers_running = 0;
  std::vector<int> left;            // starts a helper could not answer
  std::exception_ptr helper_error;  // the first a helper threw
};

// Closes the shared starts and waits for a helper that began, however the
// batch's thread leaves (answered, parked, gone, or an exception).
class HelperJoin {
 public:
  explicit HelperJoin(SharedStarts& shared) : shared_(shared) {}
  ~HelperJoin() {
    shared_.stop.store(true, std::memory_order_relaxed);
    join();
  }
  HelperJoin(const HelperJoin&) = delete;
  HelperJoin& operator=(const HelperJoin&) = delete;

  void join() {
    std::unique_lock lock(shared_.mutex);
    shared_.closed = true;
    shared_.helper_ended.wait(lock, [&] { return shared_.helpers_running == 0; });
  }

 private:
  SharedStarts& shared_;
};

// The size in bytes of `path` as one element of BatchFindPathsResponse.paths
// on the wire (its field tag, length and message); caches the message's sizes
// for write_path.
std::size_t wire_size(const v1::FindPathResponse& path) {
  namespace io = google::protobuf::io;
  const std::size_t size = path.ByteSizeLong();
  return io::CodedOutputStream::VarintSize32(kPathTag) + io::CodedOutputStream::VarintSize64(size) +
         size;
}

// `path` as wire_size (called last on it) measured it, into `out`.
void write_path(const v1::FindPathResponse& path, std::size_t wire_bytes, std::string& out) {
  namespace io = google::protobuf::io;
  out.resize(wire_bytes);
  auto* at = reinterpret_cast<std::uint8_t*>(out.data());
  at = io::CodedOutputStream::WriteTagToArray(kPathTag, at);
  at = io::CodedOutputStream::WriteVarint64ToArray(path.GetCachedSize(), at);
  path.SerializeWithCachedSizesToArray(at);
}

// One thread's message for the start being answered, on an arena emptied
// before each start: a long path's points are tens of bytes each as
// messages (a few on the wire), so only the wire bytes are kept, and the
// arena packs the messages tighter than the heap would.
class PathScratch {
 public:
  v1::FindPathResponse& next() {
    arena_.Reset();
    return *google::protobuf::Arena::CreateMessage<v1::FindPathResponse>(&arena_);
  }

 private:
  google::protobuf::Arena arena_;
};

}  // namespace

// A batch's answer as it is built: each start's path on the wire, and their
// bytes charged to the pending answers (a batch refused at the message limit
// or the budget gives them back when it goes).
struct PathfinderService::BatchAnswer {
  explicit BatchAnswer(PendingAnswers& pending) : pending(pending) {}
  BatchAnswer(const BatchAnswer&) = delete;
  BatchAnswer& operator=(const BatchAnswer&) = delete;
  ~BatchAnswer() {
    wire_paths = {};  // freed before the release, which may start a trim
    pending.release(charged.load());
  }

  // Charges `bytes` more; false (nothing charged) beyond the budget.
  [[nodiscard]] bool try_charge(std::size_t bytes) {
    if (!pending.try_charge(bytes)) return false;
    charged.fetch_add(bytes);
    return true;
  }

  // The answer's bytes: the serialized paths in order, the whole
  // BatchFindPathsResponse (its only field), written by the threads that
  // answered them and handed over without a copy. The call keeps the charge
  // of a large answer until it is read (as finish() charges others).
  void write_to(CallReactor& call) {
    std::vector<grpc::Slice> slices;
    slices.reserve(wire_paths.size());
    for (std::string& path : wire_paths) {
      auto* owned = new std::string(std::move(path));
      slices.emplace_back(owned->data(), owned->size(),
                          [](void* bytes) { delete static_cast<std::string*>(bytes); }, owned);
    }
    wire_paths.clear();
    call.answer_bytes() = grpc::ByteBuffer(slices.data(), slices.size());
    call.set_answer_written(/*by_reference=*/false);
    if (const std::size_t bytes = charged.load(); bytes > kPendingAnswerMinBytes) {
      call.hold(pending, charged.exchange(0));
    }
  }

  PendingAnswers& pending;
  std::vector<std::string> wire_paths;
  std::atomic<std::size_t> charged{0};
  std::atomic<bool> over_budget{false};  // a path could not be charged
};

grpc::Status PathfinderService::batch_find_paths(const v1::BatchFindPathsRequest& request,
                                                 BatchAnswer& answer, FieldSource& source,
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
  std::vector<std::string>& wire_paths = answer.wire_paths;
  wire_paths.assign(static_cast<std::size_t>(start_count), std::string());
  std::vector<grpc::Status> statuses(start_count);
  auto shared = std::make_shared<SharedStarts>(start_count);
  // Answers start k in its place, through the thread's `scratch`; false once the batch must stop
  // (an error, the answer over the message limit or the pending answers' budget).
  const auto answer_start = [&](int k, FieldSource& from, SharedPathsScope& sharing,
                                PathScratch& scratch) {
    sharing.bound(kMaxSharedBytes);
    v1::FindPathResponse& path = scratch.next();
    statuses[k] = find_path_planned(plan, to_core(request.starts(k)), path, from);
    // Measured, checked and charged before its bytes are written.
    const std::size_t path_bytes = wire_size(path);
    const std::size_t bytes = shared->answer_bytes.fetch_add(path_bytes) + path_bytes;
    if (!statuses[k].ok() || bytes > limits_.max_message_bytes) {
      shared->stop.store(true);
      return false;
    }
    if (!answer.try_charge(path_bytes)) {
      answer.over_budget.store(true);
      shared->stop.store(true);
      return false;
    }
    write_path(path, path_bytes, wire_paths[k]);
    return true;
  };
  // Takes the next starts until none are left. A helper gives back (to
  // `left`) a start its lent fields cannot answer.
  const auto answer_starts = [&](FieldSource& from, SharedPathsScope& sharing, bool helper) {
    PathScratch scratch;
    for (;;) {
      const int first = shared->next.fetch_add(kStartsPerInterruptCheck);
      if (first >= start_count) return;
      if (interrupt != nullptr && (*interrupt)()) throw RequestGone{};
      for (int k = first; k < std::min(first + kStartsPerInterruptCheck, start_count); ++k) {
        if (shared->stop.load()) return;
        try {
          if (!answer_start(k, from, sharing, scratch)) return;
        } catch (const NeedsFill&) {
          if (!helper) throw;
          const std::lock_guard lock(shared->mutex);
          shared->left.push_back(k);
        }
      }
    }
  };

  HelperJoin join(*shared);
  // One mask and options for every start: traces and beautify's corners are
  // shared (per thread).
  SharedPathsScope sharing;
  PathScratch scratch;  // this thread's, outside answer_starts
  // Grid paths on the compute pool: once the batch's field is leased, another
  // pool thread may help trace (any-angle answers use caches of their own).
  // (Nor with obstacles: their fields are the batch thread's own.)
  bool helper_asked =
      interrupt == nullptr || plan.any_angle || plan.obstacles || pool_.threads() < 2;
  for (;;) {
    if (!helper_asked && !batch_source.leases().empty()) {
      helper_asked = true;
      (void)pool_.try_submit([shared, leases = batch_source.leases(), &answer_starts]() mutable {
        {
          const std::lock_guard lock(shared->mutex);
          if (shared->closed) return;  // the batch is over
          ++shared->helpers_running;
        }
        try {
          LentFieldSource lent(std::move(leases));
          SharedPathsScope helper_sharing;
          answer_starts(lent, helper_sharing, /*helper=*/true);
        } catch (...) {
          const std::lock_guard lock(shared->mutex);
          if (!shared->helper_error) shared->helper_error = std::current_exception();
          shared->stop.store(true);
        }
        {
          const std::lock_guard lock(shared->mutex);
          --shared->helpers_running;
        }
        shared->helper_ended.notify_all();
      });
    }
    if (helper_asked) {
      answer_starts(batch_source, sharing, /*helper=*/false);
      break;
    }
    // Until the field is leased: one start at a time (the first usually leases it).
    const int k = shared->next.fetch_add(1);
    if (k >= start_count) break;
    if (interrupt != nullptr && k % kStartsPerInterruptCheck == 0 && (*interrupt)()) {
      throw RequestGone{};
    }
    if (!answer_start(k, batch_source, sharing, scratch)) break;
  }
  join.join();
  if (shared->helper_error) std::rethrow_exception(shared->helper_error);
  for (const int k : shared->left) {
    if (shared->stop.load()) break;
    if (interrupt != nullptr && (*interrupt)()) throw RequestGone{};
    if (!answer_start(k, batch_source, sharing, scratch)) break;
  }
  if (const std::size_t bytes = shared->answer_bytes.load(); bytes > limits_.max_message_bytes) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "starts: the paths of the starts answered so far take " + std::to_string(bytes) +
                " bytes, more than the server's message limit of " +
                std::to_string(limits_.max_message_bytes) +
                " bytes (--max-message-mb): send fewer starts per request"};
  }
  if (answer.over_budget.load()) {
    return pending_answers_.refusal("this batch's answer (" +
                                    std::to_string(shared->answer_bytes.load()) +
                                    " bytes so far) would have to wait for its reader too");
  }
  for (const grpc::Status& status : statuses) {
    if (!status.ok()) return status;
  }
  return grpc::Status::OK;
}

// One BatchFindPaths call on the compute pool (ColdCall): it fills its field
// whole (every start traces on it) and checks the call between starts. It
// has no give-up time: only the fills' polls answer it while it waits.
class PathfinderService::BatchFindPathsCall final : public ColdCall {
 public:
  BatchFindPathsCall(PathfinderService& service, BatchMessages& call,
                     std::optional<FieldKey> counted_miss)
      : ColdCall(service, call, std::move(counted_miss), std::nullopt), call_(call) {}

 private:
  grpc::Status work(FillingSource& source) override {
    source.fill_whole_fields();
    const std::function<bool()> interrupt = [this] { return !gone().ok(); };
    BatchAnswer batch_answer(service_.pending_answers_);
    grpc::Status status = run_handler([&] {
      return service_.batch_find_paths(call_.request(), batch_answer, source, &interrupt);
    });
    if (status.ok()) batch_answer.write_to(call_);
    return status;
  }

  BatchMessages& call_;  // alive until answered
};

grpc::ServerUnaryReactor* PathfinderService::BatchFindPaths(grpc::CallbackServerContext* ctx,
                                                            const grpc::ByteBuffer* request,
                                                            grpc::ByteBuffer* response) {
  auto* call = new BatchMessages(ctx, response, "BatchFindPaths", start_call());  // gRPC deletes it
  grpc::Status status = admit_query(*ctx, *request, call->request());
  if (status.ok()) {
    call->set_logged_mask(call->request().mask());
    CacheOnlySource warm(cache_);
    bool cold = false;  // a fill, scan or build is needed, or many starts
    BatchAnswer batch_answer(pending_answers_);
    try {
      status = run_handler(
          [&] { return batch_find_paths(call->request(), batch_answer, warm, nullptr); });
    } catch (const NeedsFill&) {
      cold = true;
    } catch (const NeedsComputePool&) {
      cold = true;
    }
    // A mask not held (or older than expected): looked up in the shared
    // store on the pool first (a failed lookup answers as the store stands).
    const bool look_up = !cold && store_lookup_may_help(status, call->request().mask(),
                                                        call->request().expected_revision());
    if (cold || look_up) {
      call->answer().Clear();
      auto work = std::make_shared<BatchFindPathsCall>(*this, *call, warm.missed());
      status = submit_heavy(*ctx, [this, work, call, look_up] {
        if (look_up) (void)catch_up_store(call->context(), call->request().mask());
        work->run();
      });
      if (status.ok()) return call;
    } else if (status.ok()) {
      batch_answer.write_to(*call);
    }
  }
  finish(*call, status);
  return call;
}

}  // namespace pathserver
