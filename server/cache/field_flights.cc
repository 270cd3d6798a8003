#include "cache/field_flights.h"

#include <algorithm>
#include <string>
#include <utility>

namespace pathserver {

std::string field_build_name(const FieldKey& key) {
  const std::string toward =
      key.goals.empty() ? "(" + std::to_string(key.goal.x) + ", " + std::to_string(key.goal.y) + ")"
                        : "the nearest of " + std::to_string(key.goals.size()) + " goals";
  return "distance field for mask '" + key.mask + "' rev " + std::to_string(key.revision) +
         " toward " + toward;
}

grpc::Status gave_up_waiting(const grpc::Status& why, const BuildProgress& build) {
  if (why.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) return why;
  return {grpc::StatusCode::DEADLINE_EXCEEDED,
          "deadline exceeded while waiting for " + build.describe() +
              "; the build goes on and a later call will find it cached"};
}

std::shared_ptr<Flight> FieldFlights::lead_or_wait(const FieldKey& key,
                                                   const std::shared_ptr<FieldRequest>& request,
                                                   bool& leader, std::string what) {
  const std::lock_guard lock(mutex_);
  auto [it, inserted] = flights_.try_emplace(key);
  if (inserted) {
    it->second = std::make_shared<Flight>();
    it->second->key = key;
    it->second->progress.set_what(what.empty() ? field_build_name(key) : std::move(what));
    it->second->leader = request;
    it->second->leader_building = request != nullptr;
  } else {
    it->second->waiters.push_back(request);
  }
  leader = inserted;
  if (request != nullptr) watch(request, it->second);
  return it->second;
}

FieldFlights::~FieldFlights() {
  {
    const std::lock_guard lock(give_up_mutex_);
    give_ups_closed_ = true;
  }
  give_up_changed_.notify_all();
  if (give_up_thread_.joinable()) give_up_thread_.join();
}

void FieldFlights::watch(const std::shared_ptr<FieldRequest>& request,
                         const std::shared_ptr<Flight>& flight) {
  const std::optional<std::chrono::system_clock::time_point> at = request->give_up_at();
  if (!at) return;
  {
    const std::lock_guard lock(give_up_mutex_);
    if (give_ups_closed_) return;
    give_ups_.emplace(*at, GiveUp{request, flight});
    if (!give_up_thread_.joinable()) give_up_thread_ = std::thread([this] { run_give_ups(); });
  }
  give_up_changed_.notify_all();
}

// The builds poll about every 16,384 pixels, but a build may be slow to get
// there (its memory being faulted in, its niced thread waiting for a core):
// here a call gives up on time whatever the build does.
void FieldFlights::run_give_ups() {
  std::unique_lock lock(give_up_mutex_);
  while (!give_ups_closed_) {
    if (give_ups_.empty()) {
      give_up_changed_.wait(lock);
      continue;
    }
    const auto first = give_ups_.begin();
    if (std::chrono::system_clock::now() < first->first) {
      give_up_changed_.wait_until(lock, first->first);
      continue;
    }
    const GiveUp due = first->second;
    give_ups_.erase(first);
    lock.unlock();
    const std::shared_ptr<FieldRequest> request = due.request.lock();
    const std::shared_ptr<Flight> flight = due.flight.lock();
    // A flight that ended resumed its waiters: they watch their own time again.
    if (request != nullptr && flight != nullptr && !flight->ended.load(std::memory_order_relaxed)) {
      const grpc::Status why = request->gone();
      if (!why.ok() && why.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
          claim_for_give_up(*flight, request)) {
        // Counted first: whoever sees the answer sees the count.
        deadline_give_ups_.fetch_add(1, std::memory_order_relaxed);
        request->abandon(gave_up_waiting(why, *flight));
      }
    }
    lock.lock();
  }
}

void FieldFlights::remove_locked(const Flight& flight) {
  flight.ended.store(true, std::memory_order_relaxed);
  const auto it = flights_.find(flight.key);
  if (it != flights_.end() && it->second.get() == &flight) flights_.erase(it);
}

bool FieldFlights::poll(Flight& flight, FieldRequest* leader) {
  if (flight.leader_answered) leader = nullptr;
  std::vector<std::pair<std::shared_ptr<FieldRequest>, grpc::Status>> gone;
  // The leader is asked outside the lock (it is the caller's own request).
  const grpc::Status leader_gone = leader != nullptr ? leader->gone() : grpc::Status::OK;
  bool stop = false;
  {
    const std::lock_guard lock(mutex_);
    auto& waiters = flight.waiters;
    for (std::size_t i = 0; i < waiters.size();) {
      grpc::Status status = waiters[i]->gone();
      if (status.ok()) {
        ++i;
        continue;
      }
      gone.emplace_back(std::move(waiters[i]), gave_up_waiting(status, flight));
      waiters[i] = std::move(waiters.back());
      waiters.pop_back();
    }
    const bool leader_wants = leader != nullptr && leader_gone.ok();
    const bool for_cache = flight.finish_for_cache && !flight.stale.load(std::memory_order_relaxed);
    stop = stopping() || (!flight.served && !leader_wants && waiters.empty() && !for_cache);
    if (stop) {
      // Everyone still parked is answered below with the shutdown status.
      for (auto& waiter : waiters) {
        gone.emplace_back(std::move(waiter),
                          grpc::Status(grpc::StatusCode::UNAVAILABLE, "server is stopping"));
      }
      waiters.clear();
      remove_locked(flight);
    }
  }
  // Counted first: whoever sees an answer sees the count.
  std::uint64_t deadlines = 0;
  for (const auto& [request, status] : gone) {
    deadlines += status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ? 1 : 0;
  }
  const bool leader_gives_up = leader != nullptr && !leader_gone.ok();
  const grpc::Status leader_answer =
      leader_gives_up ? gave_up_waiting(leader_gone, flight) : grpc::Status::OK;
  deadlines += leader_answer.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ? 1 : 0;
  if (deadlines != 0) deadline_give_ups_.fetch_add(deadlines, std::memory_order_relaxed);
  for (auto& [request, status] : gone) request->abandon(status);
  if (leader_gives_up) {
    flight.leader_answered = true;
    leader->abandon(leader_answer);
  }
  return stop;
}

bool FieldFlights::claim_for_give_up(Flight& flight, const std::shared_ptr<FieldRequest>& request) {
  const std::lock_guard lock(mutex_);
  if (flight.self_guarded) return true;
  // A parked waiter: taken off the flight, nobody else answers or resumes it.
  const auto parked = std::find(flight.waiters.begin(), flight.waiters.end(), request);
  if (parked != flight.waiters.end()) {
    flight.waiters.erase(parked);
    return true;
  }
  // The leader, inside its build: it answers nothing itself before end_leading.
  if (flight.leader_building && !flight.leader_claimed && flight.leader.lock() == request) {
    flight.leader_claimed = true;
    return true;
  }
  return false;  // running its own work now: it sees its deadline itself
}

void FieldFlights::begin_leading(Flight& flight) {
  const std::lock_guard lock(mutex_);
  flight.leader_building = true;
}

bool FieldFlights::end_leading(Flight& flight) {
  const std::lock_guard lock(mutex_);
  flight.leader_building = false;
  return !flight.leader_claimed;
}

bool FieldFlights::take_waiter(Flight& flight, const FieldRequest* request) {
  const std::lock_guard lock(mutex_);
  const auto it = std::find_if(flight.waiters.begin(), flight.waiters.end(),
                               [request](const auto& w) { return w.get() == request; });
  if (it == flight.waiters.end()) return false;
  flight.waiters.erase(it);
  return true;
}

void FieldFlights::park_again(Flight& flight, std::shared_ptr<FieldRequest> request) {
  const std::lock_guard lock(mutex_);
  flight.waiters.push_back(std::move(request));
}

void FieldFlights::mark_served(Flight& flight) {
  const std::lock_guard lock(mutex_);
  flight.served = true;
}

std::vector<std::shared_ptr<FieldRequest>> FieldFlights::waiters(const Flight& flight) const {
  const std::lock_guard lock(mutex_);
  return flight.waiters;
}

void FieldFlights::complete(Flight& flight, const FieldPtr& field) {
  std::vector<std::shared_ptr<FieldRequest>> waiters;
  {
    const std::lock_guard lock(mutex_);
    waiters.swap(flight.waiters);
    remove_locked(flight);
  }
  for (auto& waiter : waiters) waiter->resume(flight.key, field);
}

void FieldFlights::mark_stale(const std::string& mask, std::uint64_t first_live_revision) {
  const std::lock_guard lock(mutex_);
  for (const auto& [key, flight] : flights_) {
    if (key.mask == mask && key.revision < first_live_revision) {
      flight->stale.store(true, std::memory_order_relaxed);
    }
  }
}

std::size_t FieldFlights::size() const {
  const std::lock_guard lock(mutex_);
  return flights_.size();
}

}  // namespace pathserver
