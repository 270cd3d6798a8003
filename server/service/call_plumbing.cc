// The shared call plumbing of PathfinderService: admission, the one place
// every call finishes (its log line, metrics and the pending answers'
// budget), running work on the compute pool (offload, submit_heavy, the
// builds an offloaded call waits for), the cold calls on fields (ColdCall),
// audit lines and the shared store's lookups. respond<> is in call_plumbing.h.

#include "service/call_plumbing.h"

#include <absl/status/status.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/call_origin.h"
#include "runtime/logging.h"
#include "service/rpc_status.h"
#include "service/run_handler.h"

namespace pathserver {
namespace {

// A call refused or stopped because the server is stopping: the client may
// retry it elsewhere or later.
grpc::Status shutting_down() { return {grpc::StatusCode::UNAVAILABLE, "server shutting down"}; }

// Codes a client caused by what it sent; logged at info, the rest at warn/error.
bool client_error(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::CANCELLED:
      return true;
    default:
      return false;
  }
}

// The level of a call's log line: failures at info (client errors) or
// warn/error, successes at debug.
spdlog::level::level_enum call_log_level(grpc::StatusCode code) {
  if (code == grpc::StatusCode::OK) return spdlog::level::debug;
  if (client_error(code)) return spdlog::level::info;
  return code == grpc::StatusCode::INTERNAL || code == grpc::StatusCode::UNKNOWN ||
                 code == grpc::StatusCode::DATA_LOSS
             ? spdlog::level::err
             : spdlog::level::warn;
}

}  // namespace

std::string status_code_name(grpc::StatusCode code) {
  // grpc::StatusCode and absl::StatusCode share their numbering.
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

// Every call ends here, on whichever thread answered it: logs a failure,
// counts the call and its latency since the handler's start in metrics_ (when
// not null), finishes the call and leaves calls_. The call may be deleted by
// gRPC as soon as it is finished: nothing touches it after Finish.
void PathfinderService::finish_call(CallReactor& call, const grpc::Status& status) {
  log_and_count(call.rpc(), call.logged_mask(), call.context(), call.started(), status);
  call.Finish(status);
  calls_.leave();
}

void PathfinderService::log_and_count(const char* rpc_name, std::string_view mask,
                                      const grpc::CallbackServerContext& ctx,
                                      Metrics::Clock::time_point started,
                                      const grpc::Status& status) {
  const grpc::StatusCode code = status.error_code();
  const spdlog::level::level_enum level = call_log_level(code);
  const bool logged = spdlog::should_log(level);
  const auto latency = logged || metrics_ != nullptr ? Metrics::Clock::now() - started
                                                     : Metrics::Clock::duration{};
  // Over HTTP the gateway's call names its client (runtime/call_origin.h);
  // the peer's address is only copied for a line that is logged.
  CallOrigin origin;
  if (logged) {
    origin = call_origin(ctx);
  } else if (metrics_ != nullptr) {
    origin.transport = call_transport(ctx);
  }
  if (metrics_ != nullptr) metrics_->record_call(rpc_name, code, latency, origin.transport);
  if (logged) {
    const std::string rpc(rpc_name);
    const std::string code_name = status_code_name(code);
    const std::string message =
        status.ok() ? rpc + " ok" : rpc + " failed: " + code_name + ": " + status.error_message();
    const double latency_ms = std::chrono::duration<double, std::milli>(latency).count();
    log_with_fields(level, message,
                    {{"rpc", rpc},
                     {"code", code_name},
                     {"mask", mask},
                     {"latency_ms", latency_ms},
                     {"peer", origin.peer},
                     {"transport", transport_name(origin.transport)}});
  }
}

void PathfinderService::finish(CallReactor& call, grpc::Status status) {
  if (status.ok()) {
    const bool written_by_reference = call.answer_by_reference();
    status = call.write_answer();
    const std::size_t bytes = call.answer_bytes().Length();
    // An answer that points into a stored mask (GetMask's areas) costs no
    // memory of its own; one serialized here does until the client reads it.
    // A BatchFindPaths answer was charged while it was built (holds_charge).
    if (status.ok() && !written_by_reference && bytes > kPendingAnswerMinBytes &&
        !call.holds_charge()) {
      if (pending_answers_.try_charge(bytes)) {
        call.hold(pending_answers_, bytes);
      } else {
        call.answer_bytes().Clear();
        status = {grpc::StatusCode::RESOURCE_EXHAUSTED,
                  "server busy: " + std::to_string(pending_answers_.held() >> 20) +
                      " MiB of answers already wait for clients to read them (--pending-answers-mb " +
                      std::to_string(pending_answers_.budget_bytes() >> 20) +
                      "); this answer of " + std::to_string(bytes) + " bytes was dropped, retry later"};
      }
    }
    if (status.ok() && call.holds_charge()) call.watch_write(answer_watch_);
  }
  finish_call(call, status);
}

grpc::Status PathfinderService::call_gone(grpc::CallbackServerContext& ctx) const {
  // First: at shutdown gRPC cancels the calls it still has, which would
  // otherwise read as the client's doing.
  if (stopping_calls_.load(std::memory_order_relaxed) || flights_.stopping() ||
      pool_.stopping()) {
    return shutting_down();
  }
  if (std::chrono::system_clock::now() >= ctx.deadline()) {
    return {grpc::StatusCode::DEADLINE_EXCEEDED, "deadline exceeded before the answer was ready"};
  }
  if (ctx.IsCancelled()) {
    // A client whose deadline passes cancels the call itself, and that
    // reaches us up to a network delay before our copy of the deadline does.
    if (std::chrono::system_clock::now() + kClientDeadlineSkew >= ctx.deadline()) {
      return {grpc::StatusCode::DEADLINE_EXCEEDED,
              "deadline exceeded before the answer was ready (the client gave up)"};
    }
    return {grpc::StatusCode::CANCELLED, "cancelled by the client"};
  }
  return grpc::Status::OK;
}

grpc::Status PathfinderService::waiting_call_gone(grpc::CallbackServerContext& ctx) const {
  if (std::chrono::system_clock::now() + kGiveUpMargin >= ctx.deadline()) {
    return {grpc::StatusCode::DEADLINE_EXCEEDED, "deadline exceeded before the answer was ready"};
  }
  return call_gone(ctx);
}

std::optional<std::chrono::system_clock::time_point> PathfinderService::give_up_time(
    const grpc::CallbackServerContext& ctx) {
  const auto deadline = ctx.deadline();
  // gRPC reports "no deadline" as the far future.
  if (deadline > std::chrono::system_clock::now() + std::chrono::hours(24 * 365)) {
    return std::nullopt;
  }
  return deadline - kGiveUpMargin;
}

grpc::Status PathfinderService::busy(ComputePool::Admission refused) const {
  if (refused == ComputePool::Admission::kClientShareFull) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "server busy: this client already has " + std::to_string(pool_.max_per_client()) +
                " calls waiting for or running on compute threads (--max-heavy-per-client); "
                "retry when some are answered"};
  }
  return {grpc::StatusCode::RESOURCE_EXHAUSTED,
          "server busy: " + std::to_string(pool_.max_queued()) +
              " calls already wait for a compute thread (--compute-queue); retry later"};
}

std::string PathfinderService::client_of(const grpc::CallbackServerContext& ctx) {
  // "ipv4:10.0.0.7:51234", "ipv6:[::1]:51234": the port goes. Over HTTP,
  // the gateway's client (call_origin), not the in-process channel.
  std::string peer = call_origin(ctx).peer;
  if (peer.starts_with("ipv4:") || peer.starts_with("ipv6:")) {
    if (const std::size_t colon = peer.rfind(':'); colon > 4) peer.resize(colon);
  }
  return peer;
}

grpc::Status PathfinderService::submit_heavy(const grpc::CallbackServerContext& ctx,
                                             std::function<void()> task) {
  const ComputePool::Admission admission = pool_.try_submit(std::move(task), client_of(ctx));
  if (admission == ComputePool::Admission::kAdmitted) return grpc::Status::OK;
  return busy(admission);
}

// An offloaded call (offload), as a build it waits for sees it: answered
// once, by its work's end or, when it gives up waiting for a build for the
// caches (CacheBuild), by that build's check or FieldFlights' give-up thread.
// Its call is read and answered under one lock, so neither happens while the
// other thread ends it.
class PathfinderService::OffloadedCall final
    : public FieldRequest,
      public std::enable_shared_from_this<PathfinderService::OffloadedCall> {
 public:
  OffloadedCall(PathfinderService& service, CallReactor& call)
      : service_(service), call_(call), give_up_at_(give_up_time(call.context())) {}

  grpc::Status gone() const override {
    const std::lock_guard lock(mutex_);
    if (answered_) return {grpc::StatusCode::CANCELLED, "already answered"};
    return service_.waiting_call_gone(call_.context());
  }
  // Gives up: answered only while it waits for a build.
  void abandon(const grpc::Status& status) override {
    {
      const std::lock_guard lock(mutex_);
      if (answered_ || !waiting_) return;
      answered_ = true;
    }
    service_.finish(call_, status);
  }
  void resume(const FieldKey& /*key*/, FieldPtr /*field*/) override {}  // never parked
  std::optional<std::chrono::system_clock::time_point> give_up_at() const override {
    return give_up_at_;
  }

  // The work's interrupt check: the call is gone (or answered).
  [[nodiscard]] bool stopped() const {
    const std::lock_guard lock(mutex_);
    return answered_ || !service_.call_gone(call_.context()).ok();
  }
  // The work's end: answers with status unless the call was answered already.
  void answer(const grpc::Status& status) {
    {
      const std::lock_guard lock(mutex_);
      if (answered_) return;
      answered_ = true;
    }
    service_.finish(call_, status);
  }
  void begin_wait() {
    const std::lock_guard lock(mutex_);
    waiting_ = true;
  }
  // Ends a wait; true when the call was answered meanwhile.
  bool end_wait() {
    const std::lock_guard lock(mutex_);
    waiting_ = false;
    return answered_;
  }

 private:
  PathfinderService& service_;
  CallReactor& call_;  // alive until answered
  const std::optional<std::chrono::system_clock::time_point> give_up_at_;
  mutable std::mutex mutex_;
  bool answered_ = false;  // guarded by mutex_, as waiting_
  bool waiting_ = false;   // for a build for the caches (CacheBuild)
};

thread_local PathfinderService::OffloadedCall* PathfinderService::current_offloaded_call_ = nullptr;

grpc::Status PathfinderService::offload(
    CallReactor& call, std::function<grpc::Status(const std::function<bool()>&)> work) {
  return submit_heavy(call.context(), [this, &call, work = std::move(work)] {
    const auto offloaded = std::make_shared<OffloadedCall>(*this, call);
    grpc::Status status = call_gone(call.context());  // nothing else answers it yet
    if (status.ok()) {
      const std::function<bool()> interrupt = [&offloaded] { return offloaded->stopped(); };
      current_offloaded_call_ = offloaded.get();
      try {
        status = run_handler([&] { return work(interrupt); });
      } catch (const pathcore::Interrupted&) {
        status = offloaded->gone();
        if (status.ok()) status = {grpc::StatusCode::CANCELLED, "stopped"};
      }
      current_offloaded_call_ = nullptr;
    }
    offloaded->answer(status);  // unless it gave up waiting for a build
  });
}

PathfinderService::CacheBuild::CacheBuild(std::shared_ptr<OffloadedCall> call,
                                          std::shared_ptr<Flight> flight,
                                          std::function<bool()> interrupt)
    : call_(std::move(call)), flight_(std::move(flight)), interrupt_(std::move(interrupt)) {
  if (flight_ != nullptr) progress_ = flight_->progress.reporter();
}

PathfinderService::CacheBuild::~CacheBuild() {
  if (call_ == nullptr) return;
  flight_->ended.store(true, std::memory_order_relaxed);
  (void)call_->end_wait();
}

void PathfinderService::CacheBuild::end() {
  if (call_ == nullptr) return;
  flight_->ended.store(true, std::memory_order_relaxed);
  const bool answered = call_->end_wait();
  call_.reset();
  if (answered) throw pathcore::Interrupted();
}

PathfinderService::CacheBuild PathfinderService::begin_cache_build(
    std::string what, const MaskEntry& entry, const std::function<bool()>& call_interrupt) {
  OffloadedCall* const current = current_offloaded_call_;
  if (current == nullptr) return CacheBuild(nullptr, nullptr, call_interrupt);
  std::shared_ptr<OffloadedCall> call = current->shared_from_this();
  auto flight = std::make_shared<Flight>();
  flight->key.mask = entry.name;
  flight->key.revision = entry.revision;
  flight->progress.set_what(std::move(what));
  call->begin_wait();
  flights_.watch_build(call, flight);
  std::function<bool()> interrupt = [this, waiting = call.get(), described = flight.get(),
                                     name = entry.name, revision = entry.revision] {
    const grpc::Status why = waiting->gone();
    if (!why.ok()) {
      // Counted first: whoever sees the answer sees the count.
      if (why.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
        flights_.count_deadline_give_up();
      }
      waiting->abandon(gave_up_waiting(why, *described));
    }
    const MaskEntryPtr now = store_.get(name);
    return flights_.stopping() || pool_.stopping() || now == nullptr || now->revision != revision;
  };
  return CacheBuild(std::move(call), std::move(flight), std::move(interrupt));
}

Metrics::Clock::time_point PathfinderService::start_call() const {
  // Reading the clock costs ~0.1 us on some VMs: only when the latency is
  // recorded (metrics) or may be logged (every failure is, unless logs are off).
  return metrics_ != nullptr || spdlog::should_log(spdlog::level::err)
             ? Metrics::Clock::now()
             : Metrics::Clock::time_point{};
}

void PathfinderService::audit(const grpc::CallbackServerContext& ctx, std::string_view rpc,
                              std::string_view outcome, std::string_view mask,
                              std::uint64_t revision, std::uint32_t width, std::uint32_t height,
                              std::string_view sha256) const {
  if (!spdlog::should_log(spdlog::level::info)) return;
  const CallOrigin origin = call_origin(ctx);
  const std::string_view token = authorizer_.token_used(ctx);
  const std::string message = "audit: " + std::string(rpc) + " '" + std::string(mask) + "' " +
                              std::string(outcome) + ", revision " + std::to_string(revision) +
                              ", " + std::to_string(width) + "x" + std::to_string(height);
  log_with_fields(spdlog::level::info, message,
                  {{"audit", outcome},
                   {"rpc", rpc},
                   {"mask", mask},
                   {"revision", revision},
                   {"width", std::uint64_t{width}},
                   {"height", std::uint64_t{height}},
                   {"sha256", sha256},
                   {"peer", origin.peer},
                   {"transport", transport_name(origin.transport)},
                   {"token", token}});
}

bool PathfinderService::store_lookup_may_help(const grpc::Status& status, std::string_view mask,
                                              std::uint64_t expected_revision) const {
  const grpc::StatusCode code = status.error_code();
  if (code != grpc::StatusCode::NOT_FOUND && code != grpc::StatusCode::FAILED_PRECONDITION) {
    return false;
  }
  if (mask_name_problem(mask)) return false;
  // The store is asked first, what it holds second: what it holds only moves
  // forward, so a listener that takes the write between the two questions is
  // seen by the second (asked the other way round, that write fell between
  // them and the call answered NOT_FOUND for a mask this server then held).
  if (store_.may_know_more(mask, expected_revision)) return true;
  // The store's listener may have taken the write since the call looked:
  // running the call again answers it.
  const MaskEntryPtr now = store_.get(mask);
  return now != nullptr && (expected_revision == 0 || now->revision == expected_revision);
}

grpc::Status PathfinderService::catch_up_store(const grpc::CallbackServerContext& ctx,
                                               std::string_view mask) {
  // The call's deadline on the steady clock (gRPC's "none" is far away).
  const auto left = ctx.deadline() - std::chrono::system_clock::now();
  const auto deadline = std::chrono::steady_clock::now() +
                        std::min<std::chrono::system_clock::duration>(left, std::chrono::hours(1));
  if (store_.catch_up(mask, deadline)) return grpc::Status::OK;
  return {grpc::StatusCode::UNAVAILABLE,
          "mask '" + std::string(mask) +
              "' is not held by this server (or not at the revision asked for) and the mask "
              "store's database could not be asked in time; retry later"};
}

grpc::Status PathfinderService::admit(grpc::CallbackServerContext& ctx, Access access) {
  if (!calls_.enter()) return shutting_down();
  return authorizer_.check(ctx, access);
}

grpc::Status PathfinderService::admit_query(grpc::CallbackServerContext& ctx,
                                            const grpc::ByteBuffer& request_bytes,
                                            google::protobuf::MessageLite& request) {
  grpc::Status status = admit(ctx, Access::kQuery);
  if (!status.ok()) return status;
  // gRPC hands the request as const but never reads it again.
  return decode_request(const_cast<grpc::ByteBuffer&>(request_bytes), limits_.max_query_bytes,
                        kQueryLimitFlag, request);
}

grpc::Status PathfinderService::ColdCall::gone() const {
  // Once answered, the call may be gone: never touch it again. The lock
  // keeps an answer from another thread (a give-up) from ending the call
  // while it is read here.
  const std::lock_guard lock(answer_mutex_);
  if (answered()) return {grpc::StatusCode::CANCELLED, "already answered"};
  return service_.waiting_call_gone(call_.context());
}

void PathfinderService::ColdCall::resume(const FieldKey& key, FieldPtr field) {
  auto self = shared_from_this();
  service_.pool_.submit(
      [self, key, field = std::move(field)]() mutable { self->run(&key, std::move(field)); });
}

void PathfinderService::ColdCall::run(const FieldKey* given_key, FieldPtr given) {
  if (answered()) return;
  if (grpc::Status why = gone(); !why.ok()) {
    answer(why);  // expired or cancelled while queued
    return;
  }
  FillingSource source(service_.cache_, service_.flights_, shared_from_this());
  source.set_counted_miss(counted_miss_);
  if (given != nullptr) source.give(*given_key, std::move(given));
  grpc::Status status;
  try {
    status = work(source);
  } catch (const Parked&) {
    return;  // resumed by the fill it waits for (source finishes its own fills first)
  } catch (const RequestGone&) {
    grpc::Status why = gone();
    answer(why.ok() ? grpc::Status(grpc::StatusCode::CANCELLED, "no longer wanted") : why);
    return;
  }
  answer(status);
  // ~source finishes the fields answered from half-built, after the answer.
}

void PathfinderService::ColdCall::answer(const grpc::Status& status) {
  {
    const std::lock_guard lock(answer_mutex_);
    if (answered_.exchange(true, std::memory_order_acq_rel)) return;
  }
  service_.finish(call_, status);
}

}  // namespace pathserver
