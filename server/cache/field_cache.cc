#include "cache/field_cache.h"

#include <algorithm>
#include <functional>

#include "cache/hash_mix.h"

namespace pathserver {

std::size_t FieldKeyHash::operator()(const FieldKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  hash_mix(seed, std::hash<std::uint64_t>{}(key.revision));
  hash_mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  hash_mix(seed,
           static_cast<std::size_t>(key.connectivity) * 2 + (key.allow_corner_cutting ? 1 : 0));
  hash_mix(seed, std::hash<std::string_view>{}(std::string_view(
                     reinterpret_cast<const char*>(key.area_costs.data()), key.area_costs.size())));
  hash_mix(seed, std::hash<double>{}(key.clearance));
  hash_mix(seed, std::hash<std::uint64_t>{}(
                     (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.goal.x)) << 32) |
                     static_cast<std::uint32_t>(key.goal.y)));
  for (const pathcore::Point g : key.goals) {
    hash_mix(seed, std::hash<std::uint64_t>{}(
                       (static_cast<std::uint64_t>(static_cast<std::uint32_t>(g.x)) << 32) |
                       static_cast<std::uint32_t>(g.y)));
  }
  return seed;
}

FieldCache::FieldCache(CacheBudget& budget)
    : budget_(budget),
      storage_pool_(std::make_shared<FieldStoragePool>(budget_.total_bytes() / kStoragePoolShare)) {
  budget_.join(*this);
}

FieldCache::FieldCache(std::size_t budget_bytes)
    : own_budget_(std::make_unique<CacheBudget>(budget_bytes)),
      budget_(*own_budget_),
      storage_pool_(std::make_shared<FieldStoragePool>(budget_.total_bytes() / kStoragePoolShare)) {
  budget_.join(*this);
}

FieldCache::~FieldCache() {
  budget_.leave(*this);
  budget_.release(bytes_);
}

std::size_t FieldCache::entry_bytes(const pathcore::DistanceField& field) {
  return field.memory_bytes() + kEntryOverheadBytes<FieldKey>;
}

void FieldCache::touch(List::iterator it) {
  it->tick = budget_.next_tick();
  lru_.splice(lru_.begin(), lru_, it);
}

FieldPtr FieldCache::get(const FieldKey& key) {
  const std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) {
    ++counters_.misses;
    return nullptr;
  }
  ++counters_.hits;
  touch(it->second);
  return it->second->field;
}

FieldPtr FieldCache::peek(const FieldKey& key) {
  const std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  touch(it->second);
  return it->second->field;
}

void FieldCache::put(const FieldKey& key, FieldPtr field) {
  if (field == nullptr) return;
  const std::size_t size = entry_bytes(*field) + key.goals.capacity() * sizeof(pathcore::Point);
  if (size > budget_.total_bytes()) {
    const std::lock_guard lock(mutex_);
    ++counters_.oversized;
    return;
  }
  // Room first, without holding mutex_: the budget may evict from this cache.
  if (!budget_.reserve(size)) return;
  List dropped;  // released outside the lock (fields can be large)
  std::size_t freed = 0;
  {
    const std::lock_guard lock(mutex_);
    if (const auto floor = first_live_revision_.find(key.mask);
        floor != first_live_revision_.end() && key.revision < floor->second) {
      freed = size;  // its mask was replaced or deleted meanwhile: not kept
    } else {
      if (const auto it = index_.find(key); it != index_.end()) {
        // Same key, same revision: an equal field. Drop the old one and re-add.
        freed = it->second->bytes;
        bytes_ -= freed;
        dropped.splice(dropped.end(), lru_, it->second);
        index_.erase(it);
      }
      lru_.push_front(Entry{key, std::move(field), size, budget_.next_tick()});
      index_.emplace(key, lru_.begin());
      bytes_ += size;
    }
  }
  if (freed != 0) budget_.release(freed);
}

void FieldCache::erase_mask(std::string_view mask, std::uint64_t first_live_revision) {
  List dropped;  // released outside the lock
  std::size_t freed = 0;
  {
    const std::lock_guard lock(mutex_);
    std::uint64_t& floor = first_live_revision_[std::string(mask)];
    floor = std::max(floor, first_live_revision);
    for (auto it = lru_.begin(); it != lru_.end();) {
      const auto next = std::next(it);
      if (it->key.mask == mask && it->key.revision < floor) {
        freed += it->bytes;
        index_.erase(it->key);
        dropped.splice(dropped.end(), lru_, it);
      }
      it = next;
    }
    bytes_ -= freed;
  }
  if (freed != 0) budget_.release(freed);
}

std::optional<std::uint64_t> FieldCache::oldest_tick() const {
  const std::lock_guard lock(mutex_);
  if (lru_.empty()) return std::nullopt;
  return lru_.back().tick;
}

std::optional<Eviction> FieldCache::evict_oldest() {
  const std::lock_guard lock(mutex_);
  if (lru_.empty()) return std::nullopt;
  Entry& oldest = lru_.back();
  Eviction eviction{oldest.bytes, std::move(oldest.field)};
  bytes_ -= oldest.bytes;
  index_.erase(oldest.key);
  lru_.pop_back();
  ++counters_.evictions;
  return eviction;
}

CacheUsage FieldCache::usage() const {
  const std::lock_guard lock(mutex_);
  return {"fields", lru_.size(), bytes_, counters_.evictions};
}

void FieldCache::record_computed(double seconds) {
  const std::lock_guard lock(mutex_);
  ++counters_.fields_computed;
  counters_.compute_seconds += seconds;
}

void FieldCache::record_interrupted() {
  const std::lock_guard lock(mutex_);
  ++counters_.fills_interrupted;
}

void FieldCache::record_shared_wait() {
  const std::lock_guard lock(mutex_);
  ++counters_.shared_waits;
}

std::size_t FieldCache::size() const {
  const std::lock_guard lock(mutex_);
  return lru_.size();
}

std::size_t FieldCache::bytes() const {
  const std::lock_guard lock(mutex_);
  return bytes_;
}

FieldCacheStats FieldCache::stats() const {
  const std::lock_guard lock(mutex_);
  FieldCacheStats stats = counters_;
  stats.entries = lru_.size();
  stats.bytes = bytes_;
  stats.budget_bytes = budget_.total_bytes();
  return stats;
}

}  // namespace pathserver
