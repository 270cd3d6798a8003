#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "cache/cache_budget.h"

namespace pathserver {

// A thread-safe least-recently-used cache of shared immutable values, a
// member of a CacheBudget (the component labels, StandardMove routes and
// FindPath answers; distance fields have FieldCache). Each entry is charged
// ValueBytes{}(value) plus kEntryOverheadBytes<Key>; the budget may evict it
// to make room for an entry of any member. max_entries is a second limit, on
// this cache's count alone (0 disables caching: put() keeps nothing).
// get() and put() are O(1) plus the evictions; erase_if() is linear in the
// entries. Evicted values are released outside the lock.
template <typename Key, typename Value, typename Hash, typename ValueBytes>
class LruCache final : public BudgetMember {
 public:
  using ValuePtr = std::shared_ptr<const Value>;

  // `name` labels the cache in metrics. The budget must outlive the cache.
  LruCache(CacheBudget& budget, std::string name, std::size_t max_entries)
      : budget_(budget), name_(std::move(name)), max_entries_(max_entries) {
    budget_.join(*this);
  }
  ~LruCache() {
    budget_.leave(*this);
    budget_.release(bytes_);
  }

  // What an entry holding value is charged.
  [[nodiscard]] static std::size_t entry_bytes(const Value& value) {
    return ValueBytes{}(value) + kEntryOverheadBytes<Key>;
  }

  // The value for key, marking it most recently used; nullptr on a miss.
  [[nodiscard]] ValuePtr get(const Key& key) {
    const std::lock_guard lock(mutex_);
    const auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    touch(it->second);
    return it->second->value;
  }

  // Inserts or replaces the value for key as the most recently used entry,
  // evicting least recently used entries (of any member of the budget) until
  // its bytes fit, and this cache's own beyond max_entries. A value whose
  // bytes do not fit the budget is not kept (the cache is left as it was).
  void put(const Key& key, ValuePtr value) {
    if (max_entries_ == 0 || value == nullptr) return;
    const std::size_t bytes = entry_bytes(*value);
    if (!budget_.reserve(bytes)) return;
    List dropped;  // released outside the lock
    std::size_t freed = 0;
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = index_.find(key); it != index_.end()) {
        freed += it->second->bytes;
        dropped.splice(dropped.end(), lru_, it->second);
        index_.erase(it);
      }
      lru_.push_front(Entry{key, std::move(value), bytes, budget_.next_tick()});
      index_.emplace(key, lru_.begin());
      bytes_ += bytes;
      while (lru_.size() > max_entries_) {
        freed += lru_.back().bytes;
        index_.erase(lru_.back().key);
        dropped.splice(dropped.end(), lru_, std::prev(lru_.end()));
        ++evictions_;
      }
      bytes_ -= freed;
    }
    if (freed != 0) budget_.release(freed);
  }

  // Drops every entry whose key satisfies pred (not counted as evictions).
  template <typename Pred>
  void erase_if(Pred&& pred) {
    List dropped;  // released outside the lock
    std::size_t freed = 0;
    {
      const std::lock_guard lock(mutex_);
      for (auto it = lru_.begin(); it != lru_.end();) {
        const auto next = std::next(it);
        if (pred(it->key)) {
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

  [[nodiscard]] std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return lru_.size();
  }
  // Bytes charged to the budget for the entries held now.
  [[nodiscard]] std::size_t bytes() const {
    const std::lock_guard lock(mutex_);
    return bytes_;
  }
  [[nodiscard]] std::size_t max_entries() const { return max_entries_; }

  // BudgetMember:
  [[nodiscard]] std::optional<std::uint64_t> oldest_tick() const override {
    const std::lock_guard lock(mutex_);
    if (lru_.empty()) return std::nullopt;
    return lru_.back().tick;
  }
  [[nodiscard]] std::optional<Eviction> evict_oldest() override {
    const std::lock_guard lock(mutex_);
    if (lru_.empty()) return std::nullopt;
    Entry& oldest = lru_.back();
    Eviction eviction{oldest.bytes, std::move(oldest.value)};
    bytes_ -= oldest.bytes;
    index_.erase(oldest.key);
    lru_.pop_back();
    ++evictions_;
    return eviction;
  }
  [[nodiscard]] CacheUsage usage() const override {
    const std::lock_guard lock(mutex_);
    return {name_, lru_.size(), bytes_, evictions_};
  }

 private:
  struct Entry {
    Key key;
    ValuePtr value;
    std::size_t bytes = 0;   // charged to the budget
    std::uint64_t tick = 0;  // the budget's tick of its last put or get
  };
  using List = std::list<Entry>;  // front = most recently used

  // Marks the entry most recently used (with mutex_ held).
  void touch(typename List::iterator it) {
    it->tick = budget_.next_tick();
    lru_.splice(lru_.begin(), lru_, it);
  }

  CacheBudget& budget_;
  const std::string name_;
  const std::size_t max_entries_;
  mutable std::mutex mutex_;
  List lru_;
  std::unordered_map<Key, typename List::iterator, Hash> index_;
  std::size_t bytes_ = 0;
  std::uint64_t evictions_ = 0;  // for room in the budget or beyond max_entries
};

}  // namespace pathserver
