// The shared call plumbing of PathfinderService's unary RPCs: respond<>,
// which admits, decodes and runs a handler body and finishes its call (its
// non-template parts are in call_plumbing.cc), and ColdCall, the shape of a
// call whose work runs on the compute pool on fields it may wait for.
// Included by the files of the RPC families only.

#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "cache/field_flights.h"
#include "service/cached_find_path.h"
#include "service/pathfinder_service.h"
#include "service/request_decoding.h"
#include "service/run_handler.h"

namespace pathserver {
namespace plumbing {

namespace v1 = pathfinding::v1;

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

// The mask a request names, for its call's log line.
template <typename Request>
std::string_view logged_mask(const Request& request) {
  if constexpr (requires { request.mask(); }) {
    return request.mask();
  } else if constexpr (requires { request.name(); }) {
    return request.name();
  } else {
    return {};
  }
}

}  // namespace plumbing

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
    const auto named = plumbing::looked_up_mask(call->request());
    return named && store_lookup_may_help(answered, named->first, named->second);
  };
  // The body on the pool, run again once the store was looked up when that may help.
  const auto on_pool = [this, call, body, lookup_may_help](const std::function<bool()>& interrupt) {
    grpc::Status answered = body(*call, &interrupt);
    if (lookup_may_help(answered)) {
      call->answer().Clear();
      if (grpc::Status why = catch_up_store(call->context(), plumbing::looked_up_mask(call->request())->first);
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
  if constexpr (plumbing::kept_field_number<Request>() == 0) {
    // Decoding a query costs what its bytes do (thousands of pairs or
    // points): a large one is decoded where its work runs, on the pool.
    if (status.ok() && bytes.Length() > kDecodeOnCallThreadBytes &&
        bytes.Length() <= limits_.max_query_bytes) {
      status = offload(*call, [this, call, &bytes, on_pool](const std::function<bool()>& interrupt) {
        grpc::Status decoded =
            decode_request(bytes, limits_.max_query_bytes, kQueryLimitFlag, call->request());
        if (!decoded.ok()) return decoded;
        call->set_logged_mask(plumbing::logged_mask(call->request()));
        return on_pool(interrupt);
      });
      if (status.ok()) return call;
      finish(*call, status);
      return call;
    }
  }
  if (status.ok()) {
    if constexpr (plumbing::kept_field_number<Request>() != 0) {
      status = decode_request_keeping_field(bytes, limits_.max_message_bytes, kMessageLimitFlag,
                                            call->request(), plumbing::kept_field_number<Request>(),
                                            call->kept_field());
    } else {
      status = decode_request(bytes, limits_.max_query_bytes, kQueryLimitFlag, call->request());
    }
  }
  if (status.ok()) {
    call->set_logged_mask(plumbing::logged_mask(call->request()));
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

// A call whose work runs on the compute pool on fields (FindPath's and
// BatchFindPaths' cold calls): it parks on another call's fill of the same
// field, and is answered exactly once (finish) by whichever thread gets
// there first: the pool thread with the answer, or a fill's poll (or, with
// a give-up time, FieldFlights' give-up thread) when the call's deadline
// passed or it was cancelled. Subclasses say what the work is (work()).
class PathfinderService::ColdCall : public FieldRequest,
                                    public std::enable_shared_from_this<PathfinderService::ColdCall> {
 public:
  ColdCall(const ColdCall&) = delete;
  ColdCall& operator=(const ColdCall&) = delete;

  grpc::Status gone() const override;
  std::optional<std::chrono::system_clock::time_point> give_up_at() const override {
    return give_up_at_;
  }
  void abandon(const grpc::Status& status) override { answer(status); }
  void resume(const FieldKey& key, FieldPtr field) override;

  // The call's work; `given`: the field for *given_key of the fill it waited for.
  void run(const FieldKey* given_key = nullptr, FieldPtr given = nullptr);

 protected:
  // `counted_miss`: the field key whose cache miss sent the call here
  // (usually what it fills). `give_up_at`: see FieldRequest::give_up_at.
  ColdCall(PathfinderService& service, CallReactor& call, std::optional<FieldKey> counted_miss,
           std::optional<std::chrono::system_clock::time_point> give_up_at)
      : service_(service),
        call_(call),
        counted_miss_(std::move(counted_miss)),
        give_up_at_(give_up_at) {}

  // The work on `source`, its answer left in the call: throws what the
  // source throws (Parked: resumed by the fill it waits for; RequestGone).
  virtual grpc::Status work(FillingSource& source) = 0;

  [[nodiscard]] bool answered() const { return answered_.load(std::memory_order_acquire); }
  // Answers the call with `status` unless it was answered already.
  void answer(const grpc::Status& status);

  PathfinderService& service_;

 private:
  CallReactor& call_;  // alive until answered
  const std::optional<FieldKey> counted_miss_;
  const std::optional<std::chrono::system_clock::time_point> give_up_at_;
  mutable std::mutex answer_mutex_;
  std::atomic<bool> answered_{false};
};

}  // namespace pathserver
