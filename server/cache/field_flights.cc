#include "cache/field_flights.h"

#include <string>
#include <utility>

namespace pathserver {

std::string field_build_name(const FieldKey& key) {
  return "distance field for mask '" + key.mask + "' rev " + std::to_string(key.revision) +
         " toward (" + std::to_string(key.goal.x) + ", " + std::to_string(key.goal.y) + ")";
}

grpc::Status gave_up_waiting(const grpc::Status& why, const Flight& flight) {
  if (why.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) return why;
  return {grpc::StatusCode::DEADLINE_EXCEEDED,
          "deadline exceeded while waiting for " + flight.progress.describe() +
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
  } else {
    it->second->waiters.push_back(request);
  }
  leader = inserted;
  return it->second;
}

void FieldFlights::remove_locked(const Flight& flight) {
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
  std::uint64_t deadlines = 0;
  for (auto& [request, status] : gone) {
    deadlines += status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ? 1 : 0;
    request->abandon(status);
  }
  if (leader != nullptr && !leader_gone.ok()) {
    flight.leader_answered = true;
    const grpc::Status answer = gave_up_waiting(leader_gone, flight);
    deadlines += answer.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ? 1 : 0;
    leader->abandon(answer);
  }
  if (deadlines != 0) deadline_give_ups_.fetch_add(deadlines, std::memory_order_relaxed);
  return stop;
}

void FieldFlights::mark_served(Flight& flight) {
  const std::lock_guard lock(mutex_);
  flight.served = true;
}

std::vector<std::shared_ptr<FieldRequest>> FieldFlights::waiters(const Flight& flight) const {
  const std::lock_guard lock(mutex_);
  return flight.waiters;
}

void FieldFlights::remove_waiter(Flight& flight, const FieldRequest* request) {
  const std::lock_guard lock(mutex_);
  std::erase_if(flight.waiters, [request](const auto& w) { return w.get() == request; });
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
