#include "cache/field_flights.h"

#include <utility>

namespace pathserver {

std::shared_ptr<Flight> FieldFlights::lead_or_wait(const FieldKey& key,
                                                   const std::shared_ptr<FieldRequest>& request,
                                                   bool& leader) {
  const std::lock_guard lock(mutex_);
  auto [it, inserted] = flights_.try_emplace(key);
  if (inserted) {
    it->second = std::make_shared<Flight>();
    it->second->key = key;
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
      gone.emplace_back(std::move(waiters[i]), std::move(status));
      waiters[i] = std::move(waiters.back());
      waiters.pop_back();
    }
    const bool leader_wants = leader != nullptr && leader_gone.ok();
    stop = stopping() || (!flight.served && !leader_wants && waiters.empty());
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
  for (auto& [request, status] : gone) request->abandon(status);
  if (leader != nullptr && !leader_gone.ok()) leader->abandon(leader_gone);
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

std::size_t FieldFlights::size() const {
  const std::lock_guard lock(mutex_);
  return flights_.size();
}

}  // namespace pathserver
