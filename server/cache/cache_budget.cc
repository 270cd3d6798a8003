#include "cache/cache_budget.h"

#include <algorithm>

namespace pathserver {

std::size_t CacheBudget::used_bytes() const {
  const std::lock_guard lock(mutex_);
  return used_bytes_;
}

bool CacheBudget::reserve(std::size_t bytes) {
  if (bytes > total_bytes_) return false;
  std::vector<std::shared_ptr<const void>> evicted;  // released after the lock
  const std::lock_guard lock(mutex_);
  while (used_bytes_ + bytes > total_bytes_) {
    BudgetMember* oldest = nullptr;
    std::uint64_t oldest_tick = 0;
    for (BudgetMember* member : members_) {
      const auto tick = member->oldest_tick();
      if (tick && (oldest == nullptr || *tick < oldest_tick)) {
        oldest = member;
        oldest_tick = *tick;
      }
    }
    if (oldest == nullptr) return false;  // the rest is on its way in or out
    if (auto eviction = oldest->evict_oldest()) {
      used_bytes_ -= eviction->bytes;
      evicted.push_back(std::move(eviction->value));
    }
  }
  used_bytes_ += bytes;
  return true;
}

void CacheBudget::release(std::size_t bytes) {
  const std::lock_guard lock(mutex_);
  used_bytes_ -= bytes;
}

void CacheBudget::join(BudgetMember& member) {
  const std::lock_guard lock(mutex_);
  members_.push_back(&member);
}

void CacheBudget::leave(BudgetMember& member) {
  const std::lock_guard lock(mutex_);
  members_.erase(std::remove(members_.begin(), members_.end(), &member), members_.end());
}

std::vector<CacheUsage> CacheBudget::usage() const {
  std::vector<CacheUsage> usage;
  const std::lock_guard lock(mutex_);
  usage.reserve(members_.size());
  for (const BudgetMember* member : members_) usage.push_back(member->usage());
  return usage;
}

}  // namespace pathserver
