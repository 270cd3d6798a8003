// GetField: the distance field toward a goal, streamed in chunks of rows.
//
// The call is validated and planned on gRPC's thread; a field in the cache
// (the one FindPath fills and reads) is streamed from there at once. A cold
// one is filled on the compute pool through the shared flights (one fill per
// field; a FindPath parked on it is served as usual), cached, and streamed.
// Each chunk is encoded when the previous one has been written (one write in
// flight). What a slow reader keeps in the server (the field, or a copy of a
// much smaller answer, and the chunk in flight) is charged to the
// pending-answer budget, and a reader that takes nothing for
// --stalled-stream-timeout has its stream ended (AnswerWatch).

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "pathcore/agent_clearance.h"
#include "service/cached_find_path.h"
#include "service/chunked_answer_stream.h"
#include "service/field_options_wire.h"
#include "service/field_samples.h"
#include "service/goals_wire.h"
#include "service/pathfinder_service.h"
#include "service/proto_convert.h"
#include "service/request_decoding.h"
#include "service/rpc_status.h"
#include "service/usable_entry.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

// Most row data (distances plus flow bytes) in one chunk: 1 MiB, as the proto promises.
constexpr std::size_t kFieldChunkBytes = std::size_t{1} << 20;

}  // namespace

// A GetField request, validated: what to fill and which samples to send.
struct PathfinderService::FieldPlan {
  MaskEntryPtr entry;
  pathcore::FieldOptions options;  // normalized
  double clearance = 0;            // 0 unless it excludes pixels
  pathcore::Point goal;
  std::vector<pathcore::Point> goals;  // two or more: the field to the nearest (goal = goals[0])
  FieldWindow window;
  bool include_flow = false;
};

// The field a plan streams, and the pixels it was filled on (the usable mask
// with clearance). field is null when the goal is not walkable there.
struct PathfinderService::PlannedField {
  FieldPtr field;
  std::shared_ptr<const pathcore::Mask> walked;
  bool hit = false;
};

grpc::Status PathfinderService::plan_field(const v1::GetFieldRequest& request,
                                           FieldPlan& plan) const {
  CheckedFieldOptions checked;
  if (auto status = decode_field_options(request, checked); !status.ok()) return status;
  plan.clearance = checked.clearance_key;
  if (auto status = check_goal_count(request.goals(), request.has_goal(), limits_.max_goals);
      !status.ok()) {
    return status;
  }
  if (!request.has_goal() && request.goals().empty()) return invalid("goal: is required");

  plan.entry = store_.get(request.mask());
  if (!plan.entry) return mask_missing(store_, request.mask());
  if (auto status = check_revision(request.expected_revision(), *plan.entry); !status.ok()) {
    return status;
  }
  const pathcore::Mask& mask = *plan.entry->mask;
  if (auto status = decode_goals(request.goals(), request.has_goal(), *plan.entry,
                                 limits_.max_goals, plan.goals);
      !status.ok()) {
    return status;
  }
  plan.goal = plan.goals.empty() ? to_core(request.goal()) : plan.goals[0];
  if (plan.goals.size() == 1) plan.goals.clear();  // exactly the one-goal field
  if (!mask.contains(plan.goal)) return invalid(outside("goal", plan.goal, *plan.entry));
  CropRequest crop;
  if (request.has_crop()) {
    crop = {true, request.crop().x(), request.crop().y(), request.crop().width(),
            request.crop().height()};
  }
  std::string problem;
  if (!field_window(crop, request.downsample(), mask.width(), mask.height(), plan.window,
                    problem)) {
    return invalid(problem);
  }
  plan.options = pathcore::normalized(checked.on(mask));
  plan.include_flow = request.include_flow();
  return grpc::Status::OK;
}

PathfinderService::PlannedField PathfinderService::planned_field(
    const FieldPlan& plan, FieldSource& source,
    const std::function<FieldPtr(const FieldKey&, const MaskEntry&, bool&)>& whole) {
  std::optional<UsableEntry> usable;
  if (plan.clearance != 0) {
    usable = usable_entry(usable_masks_, source, *plan.entry, plan.options.enabled, plan.clearance);
  }
  const MaskEntry& walked = usable ? usable->entry : *plan.entry;
  PlannedField planned;
  planned.walked = walked.mask;
  const auto walkable = [&](pathcore::Point g) {
    return walked.mask->walkable(g, plan.options.enabled);
  };
  if (plan.goals.empty() ? !walkable(plan.goal)
                         : std::none_of(plan.goals.begin(), plan.goals.end(), walkable)) {
    return planned;  // nothing reaches it
  }
  FieldKey key = field_key(walked, plan.options, plan.goal, plan.clearance);
  key.goals = plan.goals;
  planned.field = whole(key, walked, planned.hit);
  return planned;
}

// The call (a ChunkedAnswerStream). Deleted by gRPC (OnDone) after Finish.
class PathfinderService::FieldStream final : public ChunkedAnswerStream {
 public:
  FieldStream(PathfinderService& service, grpc::CallbackServerContext* ctx,
              Metrics::Clock::time_point started)
      : ChunkedAnswerStream(service, ctx, started, "GetField") {}

  [[nodiscard]] const v1::GetFieldRequest& request() const { return request_; }
  [[nodiscard]] const FieldPlan& plan() const { return plan_; }

  // On gRPC's thread: admits, decodes and plans the call, and streams a
  // cached field at once or hands the call to the compute pool.
  void start(const grpc::ByteBuffer* request_bytes);

  // Streams `planned` (once; the call is then the stream's own). What a
  // stalled reader would keep is charged to the pending answers: an answer
  // much smaller than its field (a crop, a downsample) is copied out whole
  // and the field let go; otherwise the field is held (charged once however
  // many streams hold it) and its chunks encoded one at a time.
  void stream(PlannedField planned) {
    planned_ = std::move(planned);
    const FieldWindow& window = plan_.window;
    chunk_rows_ = rows_per_chunk(window.width, plan_.include_flow, kFieldChunkBytes);
    const std::size_t answer_bytes =
        std::size_t{window.width} * window.height * (plan_.include_flow ? 5 : 4);
    const std::size_t field_bytes = planned_.field ? planned_.field->memory_bytes() : 0;
    if (answer_bytes < field_bytes / 2) {
      if (grpc::Status status = copy_answer(); !status.ok()) {
        end(status);
        return;
      }
    } else if (planned_.field != nullptr) {
      if (!service_.pinned_fields_.try_hold(planned_.field.get(), field_bytes)) {
        end(service_.pending_answers_.refusal(
            "this stream's field of " + std::to_string(field_bytes >> 20) +
            " MiB would have to wait for its reader too"));
        return;
      }
      pinned_ = planned_.field.get();
    }
    write_next();
  }

 private:
  ~FieldStream() override = default;

  [[nodiscard]] std::string_view logged_mask() const override { return request_.mask(); }

  [[nodiscard]] bool chunk_left() const override { return next_row_ < plan_.window.height; }

  // The chunk of the next rows from next_row_, serialized into `out`.
  grpc::Status encode_next_chunk(grpc::ByteBuffer& out) override {
    const FieldWindow& window = plan_.window;
    const std::uint32_t rows = std::min(chunk_rows_, window.height - next_row_);
    v1::FieldChunk chunk;
    chunk.set_width(window.width);
    chunk.set_height(window.height);
    chunk.set_first_row(next_row_);
    chunk.set_row_count(rows);
    chunk.set_mask_revision(plan_.entry->revision);
    chunk.set_cache_hit(planned_.hit);
    std::string distances;
    std::string flow;
    distances.reserve(std::size_t{rows} * window.width * 4);
    append_field_rows({planned_.field.get(), planned_.walked.get()}, window, next_row_, rows,
                      distances, plan_.include_flow ? &flow : nullptr);
    *chunk.mutable_distances() = std::move(distances);
    if (plan_.include_flow) *chunk.mutable_flow() = std::move(flow);
    next_row_ += rows;
    out.Clear();
    bool own = false;
    return grpc::SerializationTraits<v1::FieldChunk>::Serialize(chunk, &out, &own);
  }

  void let_go() override {
    if (pinned_ != nullptr) service_.pinned_fields_.release(pinned_);
    pinned_ = nullptr;
  }

  // Encodes every chunk now, charges them, and lets the field go.
  grpc::Status copy_answer() {
    std::deque<grpc::ByteBuffer> chunks;
    while (chunk_left()) {
      if (grpc::Status status = encode_next_chunk(chunks.emplace_back()); !status.ok()) {
        return status;
      }
    }
    if (grpc::Status status = queue_encoded(std::move(chunks), 0); !status.ok()) return status;
    planned_ = PlannedField{nullptr, nullptr, planned_.hit};
    return grpc::Status::OK;
  }

  v1::GetFieldRequest request_;
  FieldPlan plan_;
  PlannedField planned_;  // its field let go once copied
  std::uint32_t chunk_rows_ = 1;
  std::uint32_t next_row_ = 0;    // of the next chunk to encode
  const void* pinned_ = nullptr;  // the field held in pinned_fields_
};

// A cold GetField on the compute pool: fills (or waits for another call's
// fill of) the field, then hands the call to its stream. Answered exactly
// once: streamed, or failed by whichever thread gets there first.
class PathfinderService::FieldJob final
    : public FieldRequest,
      public std::enable_shared_from_this<PathfinderService::FieldJob> {
 public:
  FieldJob(PathfinderService& service, FieldStream& stream, std::optional<FieldKey> counted_miss)
      : service_(service),
        stream_(stream),
        counted_miss_(std::move(counted_miss)),
        give_up_at_(give_up_time(stream.context())) {}

  grpc::Status gone() const override {
    // The lock: a give-up answered on another thread must not end the call
    // while it is read here.
    const std::lock_guard lock(answer_mutex_);
    if (answered_.load(std::memory_order_acquire)) {
      return {grpc::StatusCode::CANCELLED, "already answered"};
    }
    return service_.waiting_call_gone(stream_.context());
  }

  std::optional<std::chrono::system_clock::time_point> give_up_at() const override {
    return give_up_at_;
  }

  void abandon(const grpc::Status& status) override {
    if (claim_answer()) stream_.end(status);
  }

  void resume(const FieldKey& key, FieldPtr field) override {
    auto self = shared_from_this();
    service_.pool_.submit(
        [self, key, field = std::move(field)]() mutable { self->run(&key, std::move(field)); });
  }

  // given: the field for *given_key of a fill this job waited for.
  void run(const FieldKey* given_key = nullptr, FieldPtr given = nullptr) {
    if (answered_.load(std::memory_order_acquire)) return;
    if (grpc::Status why = gone(); !why.ok()) {
      abandon(why);
      return;
    }
    FillingSource source(service_.cache_, service_.flights_, shared_from_this());
    source.set_counted_miss(counted_miss_);
    if (given != nullptr) source.give(*given_key, std::move(given));
    PlannedField planned;
    grpc::Status status;
    try {
      status = run_handler_status([&] {
        planned = service_.planned_field(
            stream_.plan(), source, [&](const FieldKey& key, const MaskEntry& entry, bool& hit) {
              return source.whole_field(key, entry, hit);
            });
      });
    } catch (const Parked&) {
      return;  // resumed by the fill or build it waits for
    } catch (const RequestGone&) {
      grpc::Status why = gone();
      abandon(why.ok() ? grpc::Status(grpc::StatusCode::CANCELLED, "no longer wanted") : why);
      return;
    }
    if (!claim_answer()) return;
    if (status.ok()) {
      stream_.stream(std::move(planned));
    } else {
      stream_.end(status);
    }
  }

 private:
  // Turns what the planning throws, other than the source's signals, into a status.
  template <typename Work>
  static grpc::Status run_handler_status(Work&& work) {
    try {
      work();
    } catch (const Parked&) {
      throw;
    } catch (const RequestGone&) {
      throw;
    } catch (const pathcore::Interrupted&) {
      throw RequestGone{};
    } catch (const std::bad_alloc&) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory"};
    } catch (const std::exception& e) {
      return {grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()};
    }
    return grpc::Status::OK;
  }

  // True for the one caller that answers the call.
  bool claim_answer() {
    const std::lock_guard lock(answer_mutex_);
    return !answered_.exchange(true, std::memory_order_acq_rel);
  }

  PathfinderService& service_;
  FieldStream& stream_;  // alive until answered
  const std::optional<FieldKey> counted_miss_;
  const std::optional<std::chrono::system_clock::time_point> give_up_at_;
  mutable std::mutex answer_mutex_;
  std::atomic<bool> answered_{false};
};

void PathfinderService::FieldStream::start(const grpc::ByteBuffer* request_bytes) {
  // admit_query enters calls_: end() leaves.
  grpc::Status status = service_.admit_query(*ctx_, *request_bytes, request_);
  if (status.ok()) {
    status = service_.plan_field(request_, plan_);
    // A mask not held (or older than expected): looked up in the shared
    // store on the pool, then planned and answered from there.
    if (service_.store_lookup_may_help(status, request_.mask(), request_.expected_revision())) {
      const auto look_up = [this] {
        grpc::Status status = service_.catch_up_store(*ctx_, request_.mask());
        if (status.ok()) status = service_.plan_field(request_, plan_);
        if (!status.ok()) {
          end(status);
          return;
        }
        std::make_shared<FieldJob>(service_, *this, std::nullopt)->run();
      };
      if (grpc::Status refused = service_.submit_heavy(*ctx_, look_up); !refused.ok()) {
        end(refused);
      }
      return;
    }
  }
  if (!status.ok()) {
    end(status);
    return;
  }
  // Warm: the cached field (and usable mask), streamed from this thread.
  CacheOnlySource warm(service_.cache_);
  try {
    PlannedField planned = service_.planned_field(
        plan_, warm, [&](const FieldKey& key, const MaskEntry& entry, bool& hit) {
          FieldLease lease = warm.field(key, entry, key.goal);
          hit = true;
          return lease.owner;
        });
    stream(std::move(planned));
    return;
  } catch (const NeedsFill&) {
    // Cold: filled (or a usable mask built) on the compute pool.
  } catch (const std::exception& e) {
    end({grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()});
    return;
  }
  auto job = std::make_shared<FieldJob>(service_, *this, warm.missed());
  if (grpc::Status status = service_.submit_heavy(*ctx_, [job] { job->run(); }); !status.ok()) {
    end(status);
  }
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* PathfinderService::GetField(
    grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request) {
  auto* call = new FieldStream(*this, ctx, start_call());  // deleted by gRPC (OnDone)
  call->start(request);
  return call;
}

}  // namespace pathserver
