#pragma once

#include <google/protobuf/arena.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/metrics.h"
#include "service/answer_watch.h"
#include "service/request_decoding.h"

namespace pathserver {

// Bytes of answers that are serialized and waiting for their clients to read
// them. A client that never reads (an HTTP/2 window of 0) keeps its answer in
// the server's memory until the call ends; large answers are charged here
// first and refused beyond the budget, so slow readers cannot pile them up.
// Thread-safe, lock-free.
class PendingAnswers {
 public:
  explicit PendingAnswers(std::size_t budget_bytes) : budget_bytes_(budget_bytes) {}

  // Charges `bytes`; false (nothing charged) when they would exceed the budget.
  [[nodiscard]] bool try_charge(std::size_t bytes) {
    std::size_t held = held_.load(std::memory_order_relaxed);
    do {
      if (held + bytes > budget_bytes_) return false;
    } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
    return true;
  }
  void release(std::size_t bytes) {
    held_.fetch_sub(bytes, std::memory_order_relaxed);
    released_total_.fetch_add(bytes, std::memory_order_relaxed);
  }

  [[nodiscard]] std::size_t held() const { return held_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::size_t budget_bytes() const { return budget_bytes_; }
  // Bytes released since the start (wrapping): how much answer memory was
  // freed, for AnswerWatch's trims.
  [[nodiscard]] std::size_t released_total() const {
    return released_total_.load(std::memory_order_relaxed);
  }

  // RESOURCE_EXHAUSTED naming the budget and its flag: `what` would not fit.
  [[nodiscard]] grpc::Status refusal(std::string_view what) const {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "server busy: " + std::to_string(held() >> 20) +
                " MiB of answers already wait for clients to read them (--pending-answers-mb " +
                std::to_string(budget_bytes_ >> 20) + "); " + std::string(what) + ", retry later"};
  }

 private:
  const std::size_t budget_bytes_;
  std::atomic<std::size_t> held_{0};
  std::atomic<std::size_t> released_total_{0};
};

// Objects that calls waiting for their readers keep alive (a GetField
// stream's field), charged to PendingAnswers once per object however many
// calls keep it: the first hold charges its bytes, the last release gives
// them back. Thread-safe.
class SharedCharges {
 public:
  explicit SharedCharges(PendingAnswers& pending) : pending_(pending) {}

  // Holds `object` (`bytes`), charging them unless another call holds it
  // already; false (nothing held) when the budget cannot take them.
  [[nodiscard]] bool try_hold(const void* object, std::size_t bytes) {
    const std::lock_guard lock(mutex_);
    auto [held, first] = holders_.try_emplace(object, Held{0, bytes});
    if (first && !pending_.try_charge(bytes)) {
      holders_.erase(held);
      return false;
    }
    ++held->second.holders;
    return true;
  }
  // Ends one hold of `object` (one try_hold that returned true).
  void release(const void* object) {
    const std::lock_guard lock(mutex_);
    const auto held = holders_.find(object);
    if (held == holders_.end() || --held->second.holders != 0) return;
    pending_.release(held->second.bytes);
    holders_.erase(held);
  }

 private:
  struct Held {
    std::size_t holders = 0;
    std::size_t bytes = 0;  // charged once
  };
  PendingAnswers& pending_;
  std::mutex mutex_;
  std::unordered_map<const void*, Held> holders_;  // guarded by mutex_
};

// One call of the service. Every Pathfinder method is raw (its request and
// answer are bytes), so the service itself decides what a request that does
// not decode, or is too large, answers, and logs and counts it like any
// other failure; gRPC would answer UNIMPLEMENTED without calling a handler.
// The call is its own reactor: gRPC deletes it (OnDone) once the call is
// over, which also returns its answer's bytes to PendingAnswers.
class CallReactor : public grpc::ServerUnaryReactor {
 public:
  CallReactor(grpc::CallbackServerContext* ctx, grpc::ByteBuffer* answer_bytes, const char* rpc,
              Metrics::Clock::time_point started)
      : ctx_(ctx), answer_bytes_(answer_bytes), rpc_(rpc), started_(started) {}
  CallReactor(const CallReactor&) = delete;
  CallReactor& operator=(const CallReactor&) = delete;

  [[nodiscard]] grpc::CallbackServerContext& context() const { return *ctx_; }
  [[nodiscard]] grpc::ByteBuffer& answer_bytes() const { return *answer_bytes_; }
  [[nodiscard]] const char* rpc() const { return rpc_; }
  [[nodiscard]] Metrics::Clock::time_point started() const { return started_; }

  // The mask the request names, for the call's log line (empty until known).
  [[nodiscard]] std::string_view logged_mask() const { return logged_mask_; }
  void set_logged_mask(std::string_view mask) { logged_mask_ = mask; }

  // Serializes the answer into answer_bytes() unless it is there already
  // (answer_written()).
  [[nodiscard]] virtual grpc::Status write_answer() = 0;
  [[nodiscard]] bool answer_written() const { return answer_written_; }
  // The handler wrote answer_bytes() itself; by_reference: they point into
  // memory held elsewhere (a stored mask), not bytes of their own.
  void set_answer_written(bool by_reference) {
    answer_written_ = true;
    answer_by_reference_ = by_reference;
  }
  [[nodiscard]] bool answer_by_reference() const { return answer_by_reference_; }

  // Keeps `bytes` charged to `pending` until the call is over.
  void hold(PendingAnswers& pending, std::size_t bytes) {
    pending_ = &pending;
    held_bytes_ = bytes;
  }
  [[nodiscard]] bool holds_charge() const { return pending_ != nullptr; }
  // The answer is being written: `watch` cancels the call when its client
  // does not take it within the stall timeout.
  void watch_write(AnswerWatch& watch) {
    watch_ = &watch;
    grpc::CallbackServerContext* ctx = ctx_;
    watch.write_started(this, answer_bytes_->Length(), [ctx] { ctx->TryCancel(); });
  }

  void OnDone() override {
    if (watch_ != nullptr) (void)watch_->write_done(this);
    if (pending_ != nullptr) pending_->release(held_bytes_);
    delete this;
  }
  void OnCancel() override {}

 protected:
  ~CallReactor() override = default;

 private:
  grpc::CallbackServerContext* const ctx_;
  grpc::ByteBuffer* const answer_bytes_;
  const char* const rpc_;
  const Metrics::Clock::time_point started_;
  std::string_view logged_mask_;
  bool answer_written_ = false;
  bool answer_by_reference_ = false;
  PendingAnswers* pending_ = nullptr;
  std::size_t held_bytes_ = 0;
  AnswerWatch* watch_ = nullptr;
};

// A call whose request and answer are protobuf messages, both on one arena
// that starts in a block inside the call (one allocation per call; the points
// of an answer are bump-allocated and freed at once).
template <typename Request, typename Answer, std::size_t InitialBlockBytes = 4096>
class MessageCall final : public CallReactor {
 public:
  MessageCall(grpc::CallbackServerContext* ctx, grpc::ByteBuffer* answer_bytes, const char* rpc,
              Metrics::Clock::time_point started)
      : CallReactor(ctx, answer_bytes, rpc, started),
        arena_(arena_options(initial_block_)),
        request_(google::protobuf::Arena::CreateMessage<Request>(&arena_)),
        answer_(google::protobuf::Arena::CreateMessage<Answer>(&arena_)) {}

  [[nodiscard]] Request& request() const { return *request_; }
  [[nodiscard]] Answer& answer() const { return *answer_; }
  // A write's large bytes field, left in the received bytes (see
  // decode_request_keeping_field); empty for other calls.
  [[nodiscard]] KeptField& kept_field() { return kept_field_; }

  grpc::Status write_answer() override {
    if (answer_written()) return grpc::Status::OK;
    bool own_buffer = false;
    return grpc::SerializationTraits<Answer>::Serialize(*answer_, &answer_bytes(), &own_buffer);
  }

 private:
  static google::protobuf::ArenaOptions arena_options(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = InitialBlockBytes;
    return options;
  }

  alignas(std::max_align_t) char initial_block_[InitialBlockBytes];  // before arena_
  google::protobuf::Arena arena_;
  Request* const request_;
  Answer* const answer_;
  KeptField kept_field_;
};

}  // namespace pathserver
