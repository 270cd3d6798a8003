#include "field_cache.h"

#include <functional>

namespace pathserver {
namespace {

void mix(std::size_t& seed, std::size_t value) {
  // boost::hash_combine's mixing step, widened for 64-bit.
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace

std::size_t FieldKeyHash::operator()(const FieldKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  mix(seed, std::hash<std::uint64_t>{}(key.revision));
  mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  mix(seed, static_cast<std::size_t>(key.connectivity) * 2 + (key.allow_corner_cutting ? 1 : 0));
  mix(seed, std::hash<std::string_view>{}(std::string_view(
                reinterpret_cast<const char*>(key.area_costs.data()), key.area_costs.size())));
  mix(seed, std::hash<std::uint64_t>{}(
                (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.goal.x)) << 32) |
                static_cast<std::uint32_t>(key.goal.y)));
  return seed;
}

FieldCache::FieldCache(std::size_t max_entries) : max_entries_(max_entries) {}

FieldPtr FieldCache::get(const FieldKey& key) {
  const std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void FieldCache::put(const FieldKey& key, FieldPtr field) {
  if (max_entries_ == 0) return;
  FieldPtr evicted;  // released outside the lock (a field can be large)
  std::list<Entry> dropped;
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = index_.find(key); it != index_.end()) {
      evicted = std::exchange(it->second->second, std::move(field));
      lru_.splice(lru_.begin(), lru_, it->second);
      return;
    }
    lru_.emplace_front(key, std::move(field));
    index_.emplace(key, lru_.begin());
    while (lru_.size() > max_entries_) {
      index_.erase(lru_.back().first);
      dropped.splice(dropped.begin(), lru_, std::prev(lru_.end()));
    }
  }
}

void FieldCache::erase_mask(std::string_view mask) {
  std::list<Entry> dropped;  // released outside the lock
  const std::lock_guard lock(mutex_);
  for (auto it = lru_.begin(); it != lru_.end();) {
    const auto next = std::next(it);
    if (it->first.mask == mask) {
      index_.erase(it->first);
      dropped.splice(dropped.end(), lru_, it);
    }
    it = next;
  }
}

std::size_t FieldCache::size() const {
  const std::lock_guard lock(mutex_);
  return lru_.size();
}

FieldCacheStats FieldCache::stats() const {
  // Placeholder until the byte-budgeted cache lands: only entries is counted.
  const std::lock_guard lock(mutex_);
  FieldCacheStats stats;
  stats.entries = lru_.size();
  return stats;
}

}  // namespace pathserver
