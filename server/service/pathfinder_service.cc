#include "service/pathfinder_service.h"

#include <absl/status/status.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "pathcore/agent_clearance.h"
#include "pathcore/codec.h"
#include "pathcore/path.h"
#include "runtime/call_origin.h"
#include "runtime/logging.h"
#include "service/any_angle_find_path.h"
#include "service/cached_find_path.h"
#include "service/goals_wire.h"
#include "service/mask_areas_wire.h"
#include "service/multi_goal_find_path.h"
#include "service/obstacles_wire.h"
#include "service/proto_convert.h"
#include "service/request_decoding.h"
#include "service/rpc_status.h"
#include "service/run_handler.h"
#include "service/usable_entry.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

std::string hex(std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value & 0xF]);
    value >>= 4;
  } while (value != 0);
  return "0x" + out;
}

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

// The mask a request names, for its call's log line.
std::string_view logged_mask(const v1::UploadMaskRequest& request) { return request.name(); }
std::string_view logged_mask(const v1::PatchMaskRequest& request) { return request.name(); }
std::string_view logged_mask(const v1::DeleteMaskRequest& request) { return request.name(); }
std::string_view logged_mask(const v1::GetMaskRequest& request) { return request.name(); }
std::string_view logged_mask(const v1::ListMasksRequest& /*request*/) { return {}; }
std::string_view logged_mask(const v1::StandardMoveRequest& request) { return request.mask(); }
std::string_view logged_mask(const v1::LineOfSightRequest& request) { return request.mask(); }
std::string_view logged_mask(const v1::NearestWalkableRequest& request) { return request.mask(); }

constexpr std::string_view kQueryLimitFlag = "--max-query-kb";
constexpr std::string_view kMessageLimitFlag = "--max-message-mb";

// Writes carry mask images and area grids (up to the message limit, left in
// the received bytes: field numbers below); everything else is a query.
template <typename Request>
constexpr int kept_field_number() {
  if constexpr (std::is_same_v<Request, v1::UploadMaskRequest>) {
    return v1::UploadMaskRequest::kImageFieldNumber;
  } else if constexpr (std::is_same_v<Request, v1::PatchMaskRequest>) {
    return v1::PatchMaskRequest::kAreasFieldNumber;
  } else {
    return 0;
  }
}

// The mask a query names and the revision it expects (0: any), for a lookup
// in a shared store; std::nullopt for requests naming none.
template <typename Request>
std::optional<std::pair<std::string_view, std::uint64_t>> looked_up_mask(const Request& request) {
  if constexpr (std::is_same_v<Request, v1::GetMaskRequest>) {
    return std::pair<std::string_view, std::uint64_t>(request.name(), 0);
  } else if constexpr (requires {
                         request.mask();
                         request.expected_revision();
                       }) {
    return std::pair<std::string_view, std::uint64_t>(request.mask(), request.expected_revision());
  } else {
    return std::nullopt;
  }
}

using FindPathMessages = MessageCall<v1::FindPathRequest, v1::FindPathResponse>;
// request(): holds only the mask name (for the log line); the request itself
// is decoded by decode_reachable_request.
using ReachableMessages = MessageCall<v1::ReachableRequest, v1::ReachableResponse>;

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
  // The store's listener may have taken the write since the call looked:
  // running the call again answers it.
  if (const MaskEntryPtr now = store_.get(mask);
      now != nullptr && (expected_revision == 0 || now->revision == expected_revision)) {
    return true;
  }
  return store_.may_know_more(mask, expected_revision);
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

// Admits the call (shutdown, then the caller's token for `access`), decodes
// its request (within the query or the message limit), runs
// body(call, nullptr) on gRPC's thread, or body(call, &interrupt) on the
// compute pool when it throws NeedsComputePool, and finishes the call.
template <typename Request, typename Answer, typename Body>
grpc::ServerUnaryReactor* PathfinderService::respond(grpc::CallbackServerContext* ctx,
                                                     const char* rpc, Access access,
                                                     const grpc::ByteBuffer* request_bytes,
                                                     grpc::ByteBuffer* answer_bytes, Body body) {
  using Call = MessageCall<Request, Answer>;
  auto* call = new Call(ctx, answer_bytes, rpc, start_call());  // deleted by gRPC (OnDone)
  grpc::Status status = admit(*ctx, access);
  // A query on a mask not held (or older than it expects) first looks the
  // mask up in a shared store, which may wait on its database: on the pool.
  const auto lookup_may_help = [this, call, access](const grpc::Status& answered) {
    if (access != Access::kQuery) return false;
    const auto named = looked_up_mask(call->request());
    return named && store_lookup_may_help(answered, named->first, named->second);
  };
  // The body on the pool, run again once the store was looked up when that may help.
  const auto on_pool = [this, call, body, lookup_may_help](const std::function<bool()>& interrupt) {
    grpc::Status answered = body(*call, &interrupt);
    if (lookup_may_help(answered)) {
      call->answer().Clear();
      if (grpc::Status why = catch_up_store(call->context(), looked_up_mask(call->request())->first);
          !why.ok()) {
        return why;
      }
      answered = body(*call, &interrupt);
    }
    return answered;
  };
  // gRPC hands the request as const but never reads it again; decoding may
  // free its bytes early (a large upload's).
  auto& bytes = const_cast<grpc::ByteBuffer&>(*request_bytes);
  if constexpr (kept_field_number<Request>() == 0) {
    // Decoding a query costs what its bytes do (thousands of pairs or
    // points): a large one is decoded where its work runs, on the pool.
    if (status.ok() && bytes.Length() > kDecodeOnCallThreadBytes &&
        bytes.Length() <= limits_.max_query_bytes) {
      status = offload(*call, [this, call, &bytes, on_pool](const std::function<bool()>& interrupt) {
        grpc::Status decoded =
            decode_request(bytes, limits_.max_query_bytes, kQueryLimitFlag, call->request());
        if (!decoded.ok()) return decoded;
        call->set_logged_mask(logged_mask(call->request()));
        return on_pool(interrupt);
      });
      if (status.ok()) return call;
      finish(*call, status);
      return call;
    }
  }
  if (status.ok()) {
    if constexpr (kept_field_number<Request>() != 0) {
      status = decode_request_keeping_field(bytes, limits_.max_message_bytes, kMessageLimitFlag,
                                            call->request(), kept_field_number<Request>(),
                                            call->kept_field());
    } else {
      status = decode_request(bytes, limits_.max_query_bytes, kQueryLimitFlag, call->request());
    }
  }
  if (status.ok()) {
    call->set_logged_mask(logged_mask(call->request()));
    bool needs_pool = false;
    try {
      status = run_handler([&] { return body(*call, nullptr); });
      needs_pool = lookup_may_help(status);
    } catch (const NeedsComputePool&) {
      needs_pool = true;
    }
    if (needs_pool) {
      call->answer().Clear();
      status = offload(*call, on_pool);
      if (status.ok()) return call;
    }
  }
  finish(*call, status);
  return call;
}

void PathfinderService::stop_accepting() { calls_.close(); }

void PathfinderService::stop_running_calls() {
  stopping_calls_.store(true, std::memory_order_relaxed);
}

bool PathfinderService::wait_until_idle(std::chrono::steady_clock::time_point deadline) {
  return calls_.wait_idle(deadline);
}

PathfinderService::PathfinderService(MaskStore& store, FieldCache& cache, ServiceLimits limits,
                                     Authorizer authorizer, Metrics* metrics)
    : store_(store),
      cache_(cache),
      limits_(limits),
      authorizer_(std::move(authorizer)),
      metrics_(metrics),
      pool_(limits_.compute_threads, limits_.compute_queue, limits_.compute_niceness,
            limits_.max_heavy_per_client) {
  // Writes by other replicas (a shared store) free their old revisions'
  // fields here too, rather than leaving them to age out of the LRU.
  store_.set_change_listener([this](const std::string& mask, std::uint64_t first_live_revision) {
    drop_stale_caches(mask, first_live_revision);
  });
}

PathfinderService::~PathfinderService() {
  store_.set_change_listener({});  // the store outlives the service
  // Fills still running (finishing fields for the cache) stop at their next
  // check; then pool_ runs what is queued and joins.
  flights_.stop();
}

void PathfinderService::drop_stale_caches(const std::string& mask,
                                          std::uint64_t first_live_revision) {
  // Builds for the old revisions stop once nobody waits for them.
  flights_.mark_stale(mask, first_live_revision);
  cache_.erase_mask(mask, first_live_revision);
  query_caches_.erase_mask(mask);
  any_angle_caches_.erase_mask(mask);
  usable_masks_.erase_if([&mask](const UsableMaskKey& key) { return key.mask == mask; });
  nearest_.erase_if([&mask](const NearestKey& key) { return key.mask == mask; });
}

// One cold FindPath call: runs on the compute pool, parks on another call's
// fill of the same field, and is answered exactly once (finish) by whichever
// thread gets there first: the pool thread with the path, or a fill's poll
// when the call's deadline passed or it was cancelled.
class PathfinderService::FindPathCall final
    : public FieldRequest,
      public std::enable_shared_from_this<PathfinderService::FindPathCall> {
 public:
  FindPathCall(PathfinderService& service, FindPathMessages& call,
               std::optional<FieldKey> counted_miss)
      : service_(service),
        call_(call),
        counted_miss_(std::move(counted_miss)),
        give_up_at_(give_up_time(call.context())) {}

  grpc::Status gone() const override {
    // Once answered, the call may be gone: never touch it again. The lock
    // keeps an answer from another thread (a give-up) from ending the call
    // while it is read here.
    const std::lock_guard lock(answer_mutex_);
    if (answered_.load(std::memory_order_acquire)) {
      return {grpc::StatusCode::CANCELLED, "already answered"};
    }
    return service_.waiting_call_gone(call_.context());
  }

  std::optional<std::chrono::system_clock::time_point> give_up_at() const override {
    return give_up_at_;
  }

  void abandon(const grpc::Status& status) override { answer(status); }

  void resume(const FieldKey& key, FieldPtr field) override {
    auto self = shared_from_this();
    service_.pool_.submit(
        [self, key, field = std::move(field)]() mutable { self->run(&key, std::move(field)); });
  }

  std::optional<pathcore::Point> start() const override {
    if (answered_.load(std::memory_order_acquire) || !call_.request().has_start()) {
      return std::nullopt;
    }
    return to_core(call_.request().start());
  }

  bool serve_partial(const FieldKey& key, const pathcore::DistanceField& partial) override {
    if (answered_.load(std::memory_order_acquire)) return true;
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

  // The call's work; `given`: the field for *given_key of the fill it waited for.
  void run(const FieldKey* given_key = nullptr, FieldPtr given = nullptr) {
    if (answered_.load(std::memory_order_acquire)) return;
    if (grpc::Status why = gone(); !why.ok()) {
      answer(why);  // expired or cancelled while queued
      return;
    }
    FillingSource source(service_.cache_, service_.flights_, shared_from_this());
    source.set_counted_miss(counted_miss_);
    if (given != nullptr) source.give(*given_key, std::move(given));
    grpc::Status status;
    try {
      status = run_handler(
          [&] { return service_.find_path(call_.request(), call_.answer(), source); });
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

 private:
  void answer(const grpc::Status& status) {
    {
      const std::lock_guard lock(answer_mutex_);
      if (answered_.exchange(true, std::memory_order_acq_rel)) return;
    }
    service_.finish(call_, status);
  }

  PathfinderService& service_;
  FindPathMessages& call_;  // alive until answered
  // The field key whose cache miss sent the call here (usually what it fills).
  const std::optional<FieldKey> counted_miss_;
  const std::optional<std::chrono::system_clock::time_point> give_up_at_;
  mutable std::mutex answer_mutex_;
  std::atomic<bool> answered_{false};
};

grpc::ServerUnaryReactor* PathfinderService::UploadMask(grpc::CallbackServerContext* ctx,
                                                        const grpc::ByteBuffer* request,
                                                        grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::UploadMaskRequest, v1::MaskInfo>;
  return respond<v1::UploadMaskRequest, v1::MaskInfo>(
      ctx, "UploadMask", Access::kWrite, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        // Decoding the image, hashing the grid and writing the file.
        if (interrupt == nullptr) throw NeedsComputePool{};
        bool unchanged = false;
        const v1::MaskInfo& info = call.answer();
        const grpc::Status status =
            upload_mask(call.request(), call.kept_field().field, call.answer(), unchanged);
        if (status.ok()) {
          audit(call.context(), "UploadMask", unchanged ? "unchanged" : "stored", info.name(),
                info.revision(), info.width(), info.height(), info.sha256());
        }
        return status;
      });
}

grpc::ServerUnaryReactor* PathfinderService::PatchMask(grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::PatchMaskRequest, v1::MaskInfo>;
  return respond<v1::PatchMaskRequest, v1::MaskInfo>(
      ctx, "PatchMask", Access::kWrite, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        // Copying the grid, hashing it, its clearance map and writing the file.
        if (interrupt == nullptr) throw NeedsComputePool{};
        const v1::MaskInfo& info = call.answer();
        const grpc::Status status =
            patch_mask(call.request(), call.kept_field().field, call.answer());
        if (status.ok()) {
          audit(call.context(), "PatchMask", "patched", info.name(), info.revision(),
                info.width(), info.height(), info.sha256());
        }
        return status;
      });
}

grpc::ServerUnaryReactor* PathfinderService::DeleteMask(grpc::CallbackServerContext* ctx,
                                                        const grpc::ByteBuffer* request,
                                                        grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::DeleteMaskRequest, v1::DeleteMaskResponse>;
  return respond<v1::DeleteMaskRequest, v1::DeleteMaskResponse>(
      ctx, "DeleteMask", Access::kWrite, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        // A shared store's delete waits on its database: never on gRPC's threads.
        if (interrupt == nullptr) throw NeedsComputePool{};
        MaskEntryPtr removed;
        bool was_corrupt = false;
        const grpc::Status status = delete_mask(call.request(), removed, was_corrupt);
        if (status.ok() && removed) {
          audit(call.context(), "DeleteMask", "deleted", removed->name, removed->revision,
                removed->mask->width(), removed->mask->height(), removed->sha256);
        } else if (status.ok()) {  // a corrupt mask: nothing of it could be read
          audit(call.context(), "DeleteMask", "deleted corrupt file", call.request().name(), 0, 0,
                0, "");
        }
        return status;
      });
}

grpc::ServerUnaryReactor* PathfinderService::GetMask(grpc::CallbackServerContext* ctx,
                                                     const grpc::ByteBuffer* request,
                                                     grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::GetMaskRequest, v1::MaskInfo>;
  return respond<v1::GetMaskRequest, v1::MaskInfo>(
      ctx, "GetMask", Access::kQuery, request, response,
      [this](Call& call, const std::function<bool()>* /*interrupt*/) {
        return get_mask(call.request(), call, call.answer());
      });
}

grpc::ServerUnaryReactor* PathfinderService::ListMasks(grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::ListMasksRequest, v1::ListMasksResponse>;
  return respond<v1::ListMasksRequest, v1::ListMasksResponse>(
      ctx, "ListMasks", Access::kQuery, request, response,
      [this](Call& call, const std::function<bool()>* /*interrupt*/) {
        return list_masks(call.answer());
      });
}

grpc::ServerUnaryReactor* PathfinderService::FindPath(grpc::CallbackServerContext* ctx,
                                                      const grpc::ByteBuffer* request,
                                                      grpc::ByteBuffer* response) {
  auto* call = new FindPathMessages(ctx, response, "FindPath", start_call());  // gRPC deletes it
  grpc::Status status = admit(*ctx, Access::kQuery);
  if (status.ok()) {
    status = decode_request(const_cast<grpc::ByteBuffer&>(*request), limits_.max_query_bytes,
                            kQueryLimitFlag, call->request());
  }
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

// Pairs of decoding scratch a gRPC thread keeps between Reachable calls.
constexpr std::size_t kKeptScratchPairs = 16384;

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

grpc::Status PathfinderService::upload_mask(const v1::UploadMaskRequest& request,
                                            std::span<const std::uint8_t> image,
                                            v1::MaskInfo& response, bool& unchanged) {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  if (image.empty()) return invalid("image: is empty");

  pathcore::DecodeOptions options;
  const auto format = to_core(request.format());
  if (!format) return invalid("format: unknown value " + std::to_string(request.format()));
  const auto rule = to_core(request.rule());
  if (!rule) return invalid("rule: unknown value " + std::to_string(request.rule()));
  options.format = *format;
  options.rule = *rule;

  if (*rule == pathcore::PixelRule::kPalette) {
    if (request.palette().empty()) return invalid("palette: PIXEL_RULE_PALETTE needs a palette");
    for (const auto& [colour, area] : request.palette()) {
      if (colour > 0xFFFFFF) {
        return invalid("palette: colour " + hex(colour) + " is not a 0xRRGGBB value");
      }
      if (area > static_cast<std::uint32_t>(pathcore::kMaxAreaId)) {
        return invalid("palette: area id " + std::to_string(area) + " for colour " + hex(colour) +
                       " is out of range 0.." + std::to_string(pathcore::kMaxAreaId));
      }
      options.palette.emplace(colour, area);
    }
    options.block_unmapped = request.block_unmapped();
  } else if (!request.palette().empty()) {
    return invalid("palette: is only used with PIXEL_RULE_PALETTE");
  } else if (request.block_unmapped()) {
    return invalid("block_unmapped: is only used with PIXEL_RULE_PALETTE");
  }

  if (*format == pathcore::MaskFormat::kRaw) {
    if (request.width() == 0 || request.height() == 0) {
      return invalid("width: MASK_FORMAT_RAW needs width and height (got " +
                     std::to_string(request.width()) + "x" + std::to_string(request.height()) +
                     ")");
    }
    options.raw_width = request.width();
    options.raw_height = request.height();
  } else if (request.width() != 0 || request.height() != 0) {
    return invalid("width: width and height are only used with MASK_FORMAT_RAW");
  }
  options.max_pixels = limits_.max_pixels;

  std::optional<pathcore::Mask> mask;
  try {
    mask.emplace(pathcore::decode_mask(image, options));
  } catch (const pathcore::DecodeError& e) {
    const auto code = e.kind() == pathcore::DecodeError::Kind::kTooLarge
                          ? grpc::StatusCode::RESOURCE_EXHAUSTED
                          : grpc::StatusCode::INVALID_ARGUMENT;
    return {code, std::string("image: ") + e.what()};
  } catch (const pathcore::InvalidArgument& e) {
    return invalid(std::string("image: ") + e.what());
  }

  const MaskEntryPtr entry = store_.put(request.name(), std::move(*mask), &unchanged);
  if (!unchanged) {  // the same grid keeps its revision, and so its cached answers
    drop_stale_caches(entry->name, entry->revision);
  }
  to_proto(*entry, &response);
  return grpc::Status::OK;
}

grpc::Status PathfinderService::delete_mask(const v1::DeleteMaskRequest& request,
                                            MaskEntryPtr& removed, bool& was_corrupt) {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  removed = store_.remove(request.name(), &was_corrupt);
  if (was_corrupt) return grpc::Status::OK;  // nothing of it was ever served or cached
  if (!removed) return mask_not_found(request.name());
  drop_stale_caches(request.name(), removed->revision + 1);
  return grpc::Status::OK;
}

grpc::Status PathfinderService::get_mask(const v1::GetMaskRequest& request, CallReactor& call,
                                         v1::MaskInfo& response) const {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  const MaskEntryPtr entry = store_.get(request.name());
  if (!entry) return mask_missing(store_, request.name());
  to_proto(*entry, &response);
  if (request.include_areas()) {
    // The grid plus its tag and length (at most 11 bytes) must fit one message.
    const std::size_t grid_bytes = entry->mask->pixel_count();
    const std::size_t total = response.ByteSizeLong() + grid_bytes + 11;
    if (total > limits_.max_message_bytes) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "include_areas: the area grid of '" + request.name() + "' is " +
                  std::to_string(grid_bytes) + " bytes (" + std::to_string(entry->mask->width()) +
                  "x" + std::to_string(entry->mask->height()) +
                  "), more than the server's message limit of " +
                  std::to_string(limits_.max_message_bytes) + " bytes allows"};
    }
    grpc::Status written = write_mask_with_areas(response, entry, call.answer_bytes());
    if (written.ok()) call.set_answer_written(/*by_reference=*/true);
    return written;
  }
  return grpc::Status::OK;
}

grpc::Status PathfinderService::list_masks(v1::ListMasksResponse& response) const {
  for (const MaskEntryPtr& entry : store_.list()) to_proto(*entry, response.add_masks());
  return grpc::Status::OK;
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
  if (auto problem = mask_name_problem(request.mask())) return invalid("mask: " + *problem);
  const auto connectivity = to_core(request.connectivity());
  if (!connectivity) {
    return invalid("connectivity: unknown value " + std::to_string(request.connectivity()));
  }
  // Any-angle paths are no smoothing of a grid path: core's Smoothing has no
  // such value, and the request takes its own way below.
  const bool any_angle = request.smoothing() == v1::SMOOTHING_ANY_ANGLE;
  const auto smoothing = any_angle ? pathcore::Smoothing::kBeautify : to_core(request.smoothing());
  if (!smoothing) return invalid("smoothing: unknown value " + std::to_string(request.smoothing()));
  pathcore::AreaCosts costs;
  if (auto status = decode_area_costs(request.area_costs(), costs); !status.ok()) return status;
  if (any_angle && !request.area_costs().empty()) {
    return invalid(
        "area_costs: must be empty with SMOOTHING_ANY_ANGLE (its paths are the shortest in "
        "Euclidean length, whatever the terrain costs)");
  }
  const double clearance = request.clearance();
  if (auto status = check_clearance(clearance); !status.ok()) return status;
  // Up to half a pixel no walkable pixel is excluded: today's path, no usable mask.
  const double clearance_key = pathserver::clearance_key(clearance);
  pathcore::AreaSet enabled = pathcore::effective_areas(request.enabled_areas());
  if (enabled == 0) return no_walkable_area();
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
  enabled = mask.areas_in_use(enabled);
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
  options.field.enabled = enabled;
  options.field.connectivity = *connectivity;
  // A four-connected walker cannot squeeze between diagonal neighbours, so
  // corner cutting only means something with eight-connectivity.
  options.field.allow_corner_cutting =
      *connectivity == pathcore::Connectivity::kEight && request.allow_corner_cutting();
  options.field.area_costs = costs;
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
