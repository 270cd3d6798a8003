// PrepareMask: builds what queries on a mask revision will need into the
// caches those queries read, streaming each stage's progress.
//
// The call is validated on gRPC's thread and then runs on the compute pool
// (every stage may be an O(pixels) build). The usable mask and the any-angle
// structure are built through FillingSource::build_shared, exactly as
// FindPath builds them (one build per key; a call that gives up waiting is
// answered with the build's progress while the build goes on for the cache).
// Labels and the nearest-walkable transform are built on the call's thread
// and, likewise, finished for the cache when the call goes away.
//
// Progress goes out with one write in flight: a newer report of the same
// stage replaces one not written yet; a stage's start and end are always sent.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cache/build_progress.h"
#include "pathcore/components.h"
#include "pathcore/nearest_pixels.h"
#include "service/any_angle_find_path.h"
#include "service/cached_find_path.h"
#include "service/pathfinder_service.h"
#include "service/proto_convert.h"
#include "service/request_decoding.h"
#include "service/rpc_status.h"
#include "service/usable_entry.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

}  // namespace

// A PrepareMask request, validated: which structures, for which options.
struct PathfinderService::PreparePlan {
  MaskEntryPtr entry;
  pathcore::AreaSet enabled = 0;  // effective
  double clearance = 0;           // 0 unless it excludes pixels
  // Normalised as the caches key them: kEight without corner cutting is kFour.
  pathcore::Connectivity labelled = pathcore::Connectivity::kFour;
  bool label_cutting = false;
  bool any_angle_cutting = false;
  std::vector<v1::PrepareStage> stages;  // in order
};

grpc::Status PathfinderService::plan_prepare(const v1::PrepareMaskRequest& request,
                                             PreparePlan& plan) const {
  if (auto problem = mask_name_problem(request.mask())) return invalid("mask: " + *problem);
  const auto connectivity = to_core(request.connectivity());
  if (!connectivity) {
    return invalid("connectivity: unknown value " + std::to_string(request.connectivity()));
  }
  if (auto status = check_clearance(request.clearance()); !status.ok()) return status;
  plan.clearance = clearance_key(request.clearance());
  plan.enabled = pathcore::effective_areas(request.enabled_areas());
  if (plan.enabled == 0) return no_walkable_area();
  if (plan.clearance != 0) plan.stages.push_back(v1::PREPARE_STAGE_USABLE_MASK);
  if (request.any_angle()) plan.stages.push_back(v1::PREPARE_STAGE_ANY_ANGLE);
  if (request.labels()) plan.stages.push_back(v1::PREPARE_STAGE_LABELS);
  if (request.nearest()) plan.stages.push_back(v1::PREPARE_STAGE_NEAREST);
  if (plan.stages.empty()) {
    return invalid(
        "any_angle: nothing to prepare: set any_angle, labels or nearest (or a clearance above "
        "0.5)");
  }
  plan.label_cutting =
      *connectivity == pathcore::Connectivity::kEight && request.allow_corner_cutting();
  plan.labelled =
      plan.label_cutting ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour;
  plan.any_angle_cutting = request.allow_corner_cutting();

  plan.entry = store_.get(request.mask());
  if (!plan.entry) return mask_missing(store_, request.mask());
  plan.enabled = plan.entry->mask->areas_in_use(plan.enabled);
  return check_revision(request.expected_revision(), *plan.entry);
}

// The call: its stream of progress messages. Deleted by gRPC (OnDone) after Finish.
class PathfinderService::PrepareStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  PrepareStream(PathfinderService& service, grpc::CallbackServerContext* ctx,
                Metrics::Clock::time_point started)
      : service_(service), ctx_(ctx), started_(started) {}

  [[nodiscard]] grpc::CallbackServerContext& context() const { return *ctx_; }
  [[nodiscard]] const PreparePlan& plan() const { return plan_; }

  // On gRPC's thread: admits, decodes and validates the call, then hands it
  // to the compute pool.
  void start(const grpc::ByteBuffer* request_bytes);

  // Queues a progress message. `replaceable`: a report within a stage, which
  // the next one may replace before it is written.
  void send(const v1::PrepareProgress& progress, bool replaceable) {
    {
      const std::lock_guard lock(mutex_);
      if (finishing_) return;
      if (replaceable && !queue_.empty() && queue_.back().replaceable) {
        queue_.back().message = progress;
      } else {
        queue_.push_back({progress, replaceable});
      }
      if (writing_ || !next_write_locked()) return;
    }
    start_write();
  }

  // Ends the call with `status` (once), after the messages queued so far
  // when it is OK, after the write in flight otherwise.
  void end(const grpc::Status& status) {
    std::unique_lock lock(mutex_);
    if (finishing_) return;
    finishing_ = true;
    status_ = status;
    if (!status.ok()) queue_.clear();
    if (!writing_ && queue_.empty()) {
      lock.unlock();
      finish();
    }
  }

  // True once the client went away during the stream (a write failed).
  [[nodiscard]] bool broken() const { return broken_.load(std::memory_order_acquire); }
  // Why: the watch ended the stream as stalled, or the client went away.
  [[nodiscard]] grpc::Status broken_status() const {
    return stalled_.load(std::memory_order_acquire)
               ? service_.answer_watch_.stalled_status()
               : grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
  }

  void OnWriteDone(bool ok) override {
    const bool stalled = service_.answer_watch_.write_done(this);
    std::unique_lock lock(mutex_);
    writing_ = false;
    if (!ok) {
      // The job sees broken() (its gone()) and ends the call: never here, as
      // the job still reads the call until it has answered.
      stalled_.store(stalled, std::memory_order_release);
      broken_.store(true, std::memory_order_release);
      queue_.clear();
      if (stalled && finishing_) status_ = broken_status();  // the job had answered
    }
    if (!queue_.empty() && next_write_locked()) {
      lock.unlock();
      start_write();
      return;
    }
    if (finishing_ && !writing_) {
      lock.unlock();
      finish();
    }
  }

  void OnDone() override {
    (void)service_.answer_watch_.write_done(this);
    delete this;
  }
  void OnCancel() override {}  // the next write fails, or call_gone says so

 private:
  // Writes buffer_ (outside the lock: gRPC may react on this thread),
  // watched for a reader that takes nothing.
  void start_write() {
    grpc::CallbackServerContext* ctx = ctx_;
    service_.answer_watch_.write_started(this, buffer_.Length(), [ctx] { ctx->TryCancel(); });
    StartWrite(&buffer_);
  }

  struct Queued {
    v1::PrepareProgress message;
    bool replaceable = false;
  };

  ~PrepareStream() override = default;

  // Takes the next queued message into buffer_ and marks a write in flight
  // (the caller starts it, unlocked); false when there is none to write.
  bool next_write_locked() {
    while (!queue_.empty()) {
      const v1::PrepareProgress message = std::move(queue_.front().message);
      queue_.pop_front();
      buffer_.Clear();
      bool own = false;
      // A message of a few dozen bytes: serializing cannot fail in practice.
      if (grpc::SerializationTraits<v1::PrepareProgress>::Serialize(message, &buffer_, &own).ok()) {
        writing_ = true;
        return true;
      }
    }
    return false;
  }

  void finish() {
    service_.log_and_count("PrepareMask", request_.mask(), *ctx_, started_, status_);
    // gRPC may delete this call as soon as it is finished: nothing of it is
    // touched after Finish. calls_ is left last, so shutdown waits for it.
    PathfinderService& service = service_;
    Finish(status_);
    service.calls_.leave();
  }

  PathfinderService& service_;
  grpc::CallbackServerContext* const ctx_;
  const Metrics::Clock::time_point started_;
  v1::PrepareMaskRequest request_;
  PreparePlan plan_;
  std::mutex mutex_;
  std::deque<Queued> queue_;  // guarded by mutex_, as the flags below
  bool writing_ = false;
  bool finishing_ = false;
  grpc::Status status_;
  std::atomic<bool> broken_{false};
  std::atomic<bool> stalled_{false};  // broken_ by the answer watch
  grpc::ByteBuffer buffer_;  // the message being written
};

// The call's work on the compute pool: the stages in order. Parked on
// another call's build, it is resumed and carries on from the same stage
// (finding the build cached). Answered exactly once.
class PathfinderService::PrepareJob final
    : public FieldRequest,
      public std::enable_shared_from_this<PathfinderService::PrepareJob> {
 public:
  PrepareJob(PathfinderService& service, PrepareStream& stream)
      : service_(service),
        stream_(stream),
        plan_(stream.plan()),
        give_up_at_(give_up_time(stream.context())) {}

  grpc::Status gone() const override {
    // The lock: a give-up answered on another thread must not end the call
    // while it is read here.
    const std::lock_guard lock(answer_mutex_);
    if (answered_.load(std::memory_order_acquire)) {
      return {grpc::StatusCode::CANCELLED, "already answered"};
    }
    if (stream_.broken()) return stream_.broken_status();
    return service_.waiting_call_gone(stream_.context());
  }

  std::optional<std::chrono::system_clock::time_point> give_up_at() const override {
    return give_up_at_;
  }

  void abandon(const grpc::Status& status) override {
    if (claim_answer()) stream_.end(status);
  }

  void resume(const FieldKey& /*key*/, FieldPtr /*field*/) override {
    auto self = shared_from_this();
    service_.pool_.submit([self] { self->run(); });
  }

  void run() {
    if (answered_.load(std::memory_order_acquire)) return;
    if (grpc::Status why = gone(); !why.ok()) {
      abandon(why);
      return;
    }
    const PreparePlan& plan = plan_;
    FillingSource source(service_.cache_, service_.flights_, shared_from_this());
    try {
      for (; next_stage_ < plan.stages.size(); ++next_stage_) {
        const v1::PrepareStage stage = plan.stages[next_stage_];
        if (!stage_started_) {
          send(stage, 0, false, {}, false);
          stage_started_ = true;
        }
        std::string what;
        const bool hit = build(stage, source, what);
        if (grpc::Status why = gone(); !why.ok()) {
          abandon(why);  // built all the same: it is cached
          return;
        }
        send(stage, 1, hit, what + ": ready", false);
        stage_started_ = false;
      }
    } catch (const Parked&) {
      return;  // resumed when the build it waits for ends
    } catch (const RequestGone&) {
      grpc::Status why = gone();
      abandon(why.ok() ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "server is stopping") : why);
      return;
    } catch (const pathcore::Interrupted&) {
      grpc::Status why = gone();
      if (why.ok()) {
        const MaskEntryPtr now = service_.store_.get(plan_.entry->name);
        why = now != nullptr && now->revision == plan_.entry->revision
                  ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "server is stopping")
                  : grpc::Status(grpc::StatusCode::ABORTED,
                                 "mask '" + plan_.entry->name + "' changed while revision " +
                                     std::to_string(plan_.entry->revision) +
                                     " was being prepared; prepare it again");
      }
      abandon(why);
      return;
    } catch (const std::bad_alloc&) {
      abandon({grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory"});
      return;
    } catch (const std::exception& e) {
      abandon({grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()});
      return;
    }
    v1::PrepareProgress last = progress(plan.stages.back(), 1);
    last.set_stages_done(static_cast<std::uint32_t>(plan.stages.size()));
    last.set_done(true);
    last.set_detail("mask '" + plan.entry->name + "' rev " + std::to_string(plan.entry->revision) +
                    ": prepared");
    if (!claim_answer()) return;
    stream_.send(last, false);
    stream_.end(grpc::Status::OK);
  }

 private:
  [[nodiscard]] v1::PrepareProgress progress(v1::PrepareStage stage, double fraction) const {
    v1::PrepareProgress message;
    message.set_stage(stage);
    message.set_fraction_done(fraction);
    message.set_stages_done(static_cast<std::uint32_t>(next_stage_));
    message.set_stage_count(static_cast<std::uint32_t>(plan_.stages.size()));
    message.set_mask_revision(plan_.entry->revision);
    return message;
  }

  void send(v1::PrepareStage stage, double fraction, bool hit, std::string detail,
            bool replaceable) {
    v1::PrepareProgress message = progress(stage, fraction);
    message.set_cache_hit(hit);
    message.set_detail(std::move(detail));
    // Under the lock: an answer from another thread must not end the call meanwhile.
    const std::lock_guard lock(answer_mutex_);
    if (answered_.load(std::memory_order_acquire)) return;
    stream_.send(message, replaceable);
  }

  // Builds (or finds cached) one stage's structure; true when it was cached.
  // `what` names it.
  bool build(v1::PrepareStage stage, FieldSource& source, std::string& what) {
    const PreparePlan& plan = plan_;
    const MaskEntry& entry = *plan.entry;
    // Within a stage, the builder's reports go out as they come.
    ReportingSource reporting(source, *this, stage);
    if (stage == v1::PREPARE_STAGE_USABLE_MASK) {
      what = "usable mask (clearance " + std::to_string(plan.clearance) + ") for mask '" +
             entry.name + "' rev " + std::to_string(entry.revision);
      const bool hit = service_.usable_masks_.get(
                           {entry.name, entry.revision, plan.enabled, plan.clearance}) != nullptr;
      usable(reporting);
      return hit;
    }
    const MaskEntry& walked = plan.clearance != 0 ? usable(reporting).entry : entry;
    if (stage == v1::PREPARE_STAGE_ANY_ANGLE) {
      const AnyAngleMeshKey key{entry.name, entry.revision, plan.enabled, plan.any_angle_cutting,
                                plan.clearance};
      what = any_angle_structure_name(key);
      bool built = false;
      (void)any_angle_structure(walked, service_.any_angle_caches_, reporting, key, built);
      return !built;
    }
    if (stage == v1::PREPARE_STAGE_LABELS) {
      const ComponentKey key{entry.name,    entry.revision,     plan.enabled,
                             plan.labelled, plan.label_cutting, plan.clearance};
      what = build_name("component labels", entry.name, entry.revision);
      if (service_.query_caches_.components.get(key)) return true;
      pathcore::ComponentOptions options;
      options.enabled = plan.enabled;
      options.connectivity = plan.labelled;
      options.allow_corner_cutting = plan.label_cutting;
      const OwnBuild build(*this, stage, what);
      service_.query_caches_.components.put(
          key, std::make_shared<const pathcore::Components>(pathcore::label_components(
                   *walked.mask, options, build.interrupt(), build.progress())));
      return false;
    }
    // PREPARE_STAGE_NEAREST: NearestWalkable's transform to every usable pixel.
    const NearestKey key{entry.name,
                         entry.revision,
                         plan.enabled,
                         plan.clearance,
                         pathcore::Connectivity::kFour,
                         false,
                         0};
    what = build_name("nearest-walkable transform", entry.name, entry.revision);
    if (service_.nearest_.get(key)) return true;
    const pathcore::Mask& mask = *walked.mask;
    std::vector<std::uint8_t> targets(mask.pixel_count());
    const std::uint8_t* areas = mask.areas().data();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      targets[i] = static_cast<std::uint8_t>((plan.enabled >> areas[i]) & 1U);
    }
    const OwnBuild build(*this, stage, what);
    service_.nearest_.put(key, std::make_shared<const pathcore::NearestPixels>(
                                   mask.width(), mask.height(), std::move(targets),
                                   build.interrupt(), build.progress()));
    return false;
  }

  const UsableEntry& usable(FieldSource& source) {
    const PreparePlan& plan = plan_;
    if (!usable_) {
      usable_ =
          usable_entry(service_.usable_masks_, source, *plan.entry, plan.enabled, plan.clearance);
    }
    return *usable_;
  }

  // A build this call runs alone (labels, the nearest transform: no single
  // flight), for the caches: its progress is streamed; once the call gives
  // up (the build's check sees it, or FieldFlights' give-up thread at its
  // time), it is answered naming the build and how far it is, and the build
  // goes on; it stops only when the server does or the revision is gone.
  class OwnBuild {
   public:
    OwnBuild(PrepareJob& job, v1::PrepareStage stage, const std::string& what)
        : job_(job), flight_(std::make_shared<Flight>()) {
      flight_->key.mask = job.plan_.entry->name;
      flight_->key.revision = job.plan_.entry->revision;
      flight_->progress.set_what(what);
      job.service_.flights_.watch_build(job.shared_from_this(), flight_);
      interrupt_ = [this] {
        PathfinderService& service = job_.service_;
        const grpc::Status why = job_.gone();
        if (!why.ok()) {
          // Counted first: whoever sees the answer sees the count.
          if (why.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
            service.flights_.count_deadline_give_up();
          }
          job_.abandon(gave_up_waiting(why, *flight_));
        }
        const MaskEntryPtr now = service.store_.get(job_.plan_.entry->name);
        const bool stale = now == nullptr || now->revision != job_.plan_.entry->revision;
        return service.flights_.stopping() || service.pool_.stopping() || stale;
      };
      progress_ = [this, stage, what](double fraction) {
        flight_->progress.report(fraction);
        job_.report(stage, fraction, what);
      };
    }
    ~OwnBuild() { flight_->ended.store(true, std::memory_order_relaxed); }
    OwnBuild(const OwnBuild&) = delete;
    OwnBuild& operator=(const OwnBuild&) = delete;

    [[nodiscard]] const std::function<bool()>& interrupt() const { return interrupt_; }
    [[nodiscard]] const pathcore::ProgressReport& progress() const { return progress_; }

   private:
    PrepareJob& job_;
    std::shared_ptr<Flight> flight_;
    std::function<bool()> interrupt_;
    pathcore::ProgressReport progress_;
  };

  // The call's source, with each build's progress also streamed.
  class ReportingSource final : public FieldSource {
   public:
    ReportingSource(FieldSource& inner, PrepareJob& job, v1::PrepareStage stage)
        : inner_(inner), job_(job), stage_(stage) {}
    [[nodiscard]] FieldLease field(const FieldKey& key, const MaskEntry& entry,
                                   pathcore::Point start) override {
      return inner_.field(key, entry, start);
    }
    void build_shared(const FieldKey& flight_key, const std::string& what,
                      const SharedBuild& build) override {
      inner_.build_shared(
          flight_key, what,
          [&](const std::function<bool()>& interrupt, const pathcore::ProgressReport& progress) {
            const pathcore::ProgressReport both = [&](double fraction) {
              if (progress) progress(fraction);
              job_.report(stage_, fraction, what);
            };
            build(interrupt, both);
          });
    }

   private:
    FieldSource& inner_;
    PrepareJob& job_;
    v1::PrepareStage stage_;
  };

  // A builder's report, sent as a replaceable message (at most one per percent).
  void report(v1::PrepareStage stage, double fraction, const std::string& what) {
    const int percent = static_cast<int>(fraction * 100);
    if (percent == last_percent_) return;
    last_percent_ = percent;
    send(stage, fraction, false, what + ": " + std::to_string(percent) + "% built", true);
  }

  // True for the one caller that answers the call.
  bool claim_answer() {
    const std::lock_guard lock(answer_mutex_);
    return !answered_.exchange(true, std::memory_order_acq_rel);
  }

  PathfinderService& service_;
  PrepareStream& stream_;   // alive until answered
  const PreparePlan plan_;  // the job's own: builds go on after the call has ended
  const std::optional<std::chrono::system_clock::time_point> give_up_at_;
  mutable std::mutex answer_mutex_;
  std::atomic<bool> answered_{false};
  // The job's place (one thread at a time runs it: resumed only after it parked).
  std::size_t next_stage_ = 0;
  bool stage_started_ = false;
  int last_percent_ = -1;
  std::optional<UsableEntry> usable_;
};

void PathfinderService::PrepareStream::start(const grpc::ByteBuffer* request_bytes) {
  grpc::Status status = service_.admit(*ctx_, Access::kQuery);  // entered calls_: finish() leaves
  if (status.ok()) {
    status = decode_request(const_cast<grpc::ByteBuffer&>(*request_bytes),
                            service_.limits_.max_query_bytes, kQueryLimitFlag, request_);
  }
  bool look_up = false;
  if (status.ok()) {
    status = service_.plan_prepare(request_, plan_);
    // A mask not held (or older than expected): looked up in the shared store on the pool.
    look_up = service_.store_lookup_may_help(status, request_.mask(), request_.expected_revision());
  }
  if (!status.ok() && !look_up) {
    end(status);
    return;
  }
  const auto run = [this, look_up] {
    if (look_up) {
      grpc::Status status = service_.catch_up_store(*ctx_, request_.mask());
      if (status.ok()) status = service_.plan_prepare(request_, plan_);
      if (!status.ok()) {
        end(status);
        return;
      }
    }
    std::make_shared<PrepareJob>(service_, *this)->run();
  };
  if (grpc::Status status = service_.submit_heavy(*ctx_, run); !status.ok()) end(status);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* PathfinderService::PrepareMask(
    grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request) {
  auto* call = new PrepareStream(*this, ctx, start_call());  // deleted by gRPC (OnDone)
  call->start(request);
  return call;
}

}  // namespace pathserver
