#pragma once

#include <grpcpp/support/status.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cache/build_progress.h"
#include "cache/field_cache.h"

namespace pathserver {

// One request that needs a distance field (a FindPath call, or a test's
// stand-in). Called by whichever thread runs the fill the request waits for.
class FieldRequest {
 public:
  virtual ~FieldRequest() = default;
  // OK while the request still wants its answer; else why it does not
  // (DEADLINE_EXCEEDED, CANCELLED, UNAVAILABLE when the server stops).
  // Must be cheap: fills call it about every 16,384 pixels.
  [[nodiscard]] virtual grpc::Status gone() const = 0;
  // Answers the request with a failure status. Only the first answer of a
  // request counts; later ones (and gone() after it) must be harmless.
  virtual void abandon(const grpc::Status& status) = 0;
  // The field for key this request waited for is ready (nullptr: the fill failed; the
  // request should try again, e.g. lead a fill of its own). Must not block:
  // typically queues the request's work again with the field at hand.
  virtual void resume(const FieldKey& key, FieldPtr field) = 0;
  // The pixel the request traces from, when a half-built field may serve it
  // (serve_partial); nullopt (the default): it waits for the final field.
  [[nodiscard]] virtual std::optional<pathcore::Point> start() const { return std::nullopt; }
  // Called on the filling thread, with the fill paused and start() settled
  // in `partial` (a half-built field for key): answers the request from it
  // synchronously and returns true, or returns false (keeps waiting).
  virtual bool serve_partial(const FieldKey& /*key*/, const pathcore::DistanceField& /*partial*/) {
    return false;
  }
  // When the request gives up waiting for a build (shortly before its
  // deadline); nullopt (the default): only the builds' polls check it. With
  // a time, FieldFlights answers it then from a thread of its own (its
  // gone() then says why), however seldom the build it waits for polls:
  // abandon() and gone() must then be safe against each other.
  [[nodiscard]] virtual std::optional<std::chrono::system_clock::time_point> give_up_at() const {
    return std::nullopt;
  }
};

// One fill (or other shared build) under way, shared by every request that
// needs its key.
struct Flight {
  FieldKey key;
  // What is built and how far (set when the flight is made, then reported by the builder).
  BuildProgress progress;
  // The leader's say: when nobody wants the result any more, the build still
  // goes on for the cache (the default), unless this is false (the cache's
  // budget could not hold it).
  bool finish_for_cache = true;
  // The mask revision it is for was replaced or deleted (FieldFlights::mark_stale).
  std::atomic<bool> stale{false};
  // Completed or stopped: nobody waits for it any more.
  mutable std::atomic<bool> ended{false};
  // Guarded by FieldFlights' mutex:
  std::vector<std::shared_ptr<FieldRequest>> waiters;  // parked until the field is final
  bool served = false;  // an answer was traced on it: finish it for the cache regardless
  // The leader gave up and was answered (poll): not asked again. Only the
  // leader's thread reads and writes it.
  bool leader_answered = false;
  // Guarded by FieldFlights' mutex: who leads, whether it is inside the build
  // (so the give-up thread may answer it: it touches its call only after
  // end_leading), and whether the give-up thread did.
  std::weak_ptr<FieldRequest> leader;
  bool leader_building = false;
  bool leader_claimed = false;
  // Describes a build that is no flight here (watch_build): its request
  // guards its own answers, so the give-up thread may always answer it.
  bool self_guarded = false;
};

// What a field's flight builds, for answers and progress:
// "distance field for mask 'x' rev 3 toward (5, 7)".
[[nodiscard]] std::string field_build_name(const FieldKey& key);

// Single flight for distance fields: at most one fill per FieldKey at a time.
// The first request to miss leads (fills on its compute thread); the others
// park on the flight without holding a thread, and are answered from the
// half-built field as their starts settle (serve_partial) or resumed with the
// final field. While filling, the leader calls poll(), which answers the
// waiters whose deadline passed (or that were cancelled) with what is being
// built and how far, and tells the fill to stop only when the server stops,
// or when nobody is left who needs it and the result is not to be cached
// (its revision is gone, or Flight::finish_for_cache is false): work a
// deadline gave up on lands in the cache for the next call. Thread-safe.
class FieldFlights {
 public:
  FieldFlights() = default;
  FieldFlights(const FieldFlights&) = delete;
  FieldFlights& operator=(const FieldFlights&) = delete;

  // The flight for key: a new one led by the caller (leader = true), or the
  // one under way with `request` parked on it (leader = false).
  // `what`: what the flight builds, for answers (default: field_build_name(key)).
  [[nodiscard]] std::shared_ptr<Flight> lead_or_wait(const FieldKey& key,
                                                     const std::shared_ptr<FieldRequest>& request,
                                                     bool& leader, std::string what = {});
  // The leader's interrupt check. Answers (abandon) every waiter that is gone,
  // and `leader` too when it is gone (leader may be null once it was
  // answered), a deadline's answer naming the build and its progress
  // (gave_up_waiting). True when the fill should stop: the server is
  // stopping, or no answer was traced on the fill yet, neither the leader
  // nor any waiter wants it and it is not to be finished for the cache
  // (stale revision, or !finish_for_cache). The flight is then removed
  // (nobody can join it any more).
  [[nodiscard]] bool poll(Flight& flight, FieldRequest* leader);
  // An answer was traced on the partial field: the rest is finished for the cache.
  void mark_served(Flight& flight);
  // The leader is inside the build again (it left with end_leading).
  void begin_leading(Flight& flight);
  // The leader leaves the build to use its result: false when the give-up
  // thread answered it meanwhile (it must not touch its call then).
  [[nodiscard]] bool end_leading(Flight& flight);
  // Takes request off flight's waiters to serve it on this thread (the
  // give-up thread can no longer answer it); false when it is not there.
  [[nodiscard]] bool take_waiter(Flight& flight, const FieldRequest* request);
  // Parks request on flight again (taken, then not served).
  void park_again(Flight& flight, std::shared_ptr<FieldRequest> request);
  // The requests parked on flight now (a copy).
  [[nodiscard]] std::vector<std::shared_ptr<FieldRequest>> waiters(const Flight& flight) const;
  // The fill is over: removes the flight and resumes its waiters with field
  // (nullptr when the fill failed or was interrupted).
  void complete(Flight& flight, const FieldPtr& field);

  // Flights for revisions of `mask` below first_live_revision (replaced or
  // deleted) stop at their next poll() once nobody waits for them.
  void mark_stale(const std::string& mask, std::uint64_t first_live_revision);
  // Calls answered DEADLINE_EXCEEDED by poll() while waiting for a build (metrics).
  [[nodiscard]] std::uint64_t deadline_give_ups() const {
    return deadline_give_ups_.load(std::memory_order_relaxed);
  }
  // One more such call, answered elsewhere (a build without a flight).
  void count_deadline_give_up() { deadline_give_ups_.fetch_add(1, std::memory_order_relaxed); }
  // For a build that is no flight here (a call's own build for the caches,
  // described by `flight`): answers `request` at its give_up_at() as a
  // waiter of a flight is, unless flight ended (Flight::ended) before.
  // request's abandon() must then be safe at any time until flight ends.
  void watch_build(const std::shared_ptr<FieldRequest>& request,
                   const std::shared_ptr<Flight>& flight) {
    flight->self_guarded = true;
    watch(request, flight);
  }

  ~FieldFlights();

  // Fills stop at their next poll(), even ones finishing for the cache.
  void stop() { stopping_.store(true, std::memory_order_relaxed); }
  [[nodiscard]] bool stopping() const { return stopping_.load(std::memory_order_relaxed); }
  // Flights under way (for tests).
  [[nodiscard]] std::size_t size() const;

 private:
  void remove_locked(const Flight& flight);
  // Answers `request` at its give_up_at() unless it was answered before
  // (the give-up thread, started on first use).
  void watch(const std::shared_ptr<FieldRequest>& request, const std::shared_ptr<Flight>& flight);
  // True when the give-up thread may answer request now: a parked waiter
  // (taken off flight) or the leader inside its build (marked claimed).
  [[nodiscard]] bool claim_for_give_up(Flight& flight,
                                       const std::shared_ptr<FieldRequest>& request);
  void run_give_ups();

  struct GiveUp {
    std::weak_ptr<FieldRequest> request;
    std::weak_ptr<Flight> flight;
  };
  std::mutex give_up_mutex_;
  std::condition_variable give_up_changed_;
  std::multimap<std::chrono::system_clock::time_point, GiveUp> give_ups_;  // by time
  bool give_ups_closed_ = false;
  std::thread give_up_thread_;

  mutable std::mutex mutex_;
  std::unordered_map<FieldKey, std::shared_ptr<Flight>, FieldKeyHash> flights_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> deadline_give_ups_{0};
};

// The answer of a call that gives up waiting for `flight` for reason `why`:
// a deadline's names what is built and how far, and that it goes on
// ("deadline exceeded while waiting: any-angle structure for mask 'x' rev 3:
// 40% built; the build goes on, a later call finds it cached"); other
// reasons are kept as they are.
[[nodiscard]] grpc::Status gave_up_waiting(const grpc::Status& why, const BuildProgress& build);
[[nodiscard]] inline grpc::Status gave_up_waiting(const grpc::Status& why, const Flight& flight) {
  return gave_up_waiting(why, flight.progress);
}

}  // namespace pathserver
