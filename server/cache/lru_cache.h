#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace pathserver {

// A thread-safe least-recently-used cache of shared immutable values with a
// limit on the number of entries (the component labels and StandardMove
// routes; distance fields have their byte-budgeted FieldCache).
// get() and put() are O(1); erase_if() is linear in the entries. A limit of 0
// disables caching (put() keeps nothing). Evicted values are released outside
// the lock.
template <typename Key, typename Value, typename Hash>
class LruCache {
 public:
  using ValuePtr = std::shared_ptr<const Value>;

  explicit LruCache(std::size_t max_entries) : max_entries_(max_entries) {}

  // The value for key, marking it most recently used; nullptr on a miss.
  [[nodiscard]] ValuePtr get(const Key& key) {
    const std::lock_guard lock(mutex_);
    const auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }

  // Inserts or replaces the value for key as the most recently used entry,
  // evicting the least recently used ones beyond the limit.
  void put(const Key& key, ValuePtr value) {
    if (max_entries_ == 0) return;
    List dropped;
    ValuePtr replaced;
    const std::lock_guard lock(mutex_);
    if (const auto it = index_.find(key); it != index_.end()) {
      replaced = std::exchange(it->second->second, std::move(value));
      lru_.splice(lru_.begin(), lru_, it->second);
      return;
    }
    lru_.emplace_front(key, std::move(value));
    index_.emplace(key, lru_.begin());
    while (lru_.size() > max_entries_) {
      index_.erase(lru_.back().first);
      dropped.splice(dropped.begin(), lru_, std::prev(lru_.end()));
    }
  }

  // Drops every entry whose key satisfies pred.
  template <typename Pred>
  void erase_if(Pred&& pred) {
    List dropped;
    const std::lock_guard lock(mutex_);
    for (auto it = lru_.begin(); it != lru_.end();) {
      const auto next = std::next(it);
      if (pred(it->first)) {
        index_.erase(it->first);
        dropped.splice(dropped.end(), lru_, it);
      }
      it = next;
    }
  }

  [[nodiscard]] std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return lru_.size();
  }
  [[nodiscard]] std::size_t max_entries() const { return max_entries_; }

 private:
  using List = std::list<std::pair<Key, ValuePtr>>;  // front = most recently used

  const std::size_t max_entries_;
  mutable std::mutex mutex_;
  List lru_;
  std::unordered_map<Key, typename List::iterator, Hash> index_;
};

}  // namespace pathserver
