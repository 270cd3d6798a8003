#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pathserver {

// What a cache entry costs besides its value's own bytes, charged with every
// entry so that many small entries cannot outgrow the budget unseen: the key
// twice (the recency list and the index each hold a copy), the list node, the
// hash node and its bucket, the value's shared_ptr control block, and a mask
// name up to the store's 128 characters on the heap, in both key copies.
template <typename Key>
inline constexpr std::size_t kEntryOverheadBytes = 2 * sizeof(Key) + 384;

// An entry a member dropped at the budget's request: its charge, and its
// value, which the budget releases after letting go of its lock (fields and
// labellings can be megabytes).
struct Eviction {
  std::size_t bytes = 0;
  std::shared_ptr<const void> value;
};

// What one member cache holds now (for metrics and tests).
struct CacheUsage {
  std::string name;             // "fields", "labels", "routes", "paths"
  std::uint64_t entries = 0;    // held now
  std::uint64_t bytes = 0;      // charged for them now
  std::uint64_t evictions = 0;  // since it was made: entries dropped to make room
};

// A cache whose entries are charged to a CacheBudget. Every entry remembers
// the budget's tick of its last put or get; the member keeps its entries in
// that order, so its least recently used entry is its oldest one.
class BudgetMember {
 public:
  BudgetMember() = default;
  BudgetMember(const BudgetMember&) = delete;
  BudgetMember& operator=(const BudgetMember&) = delete;

  // The tick of the least recently used entry; nullopt when empty.
  [[nodiscard]] virtual std::optional<std::uint64_t> oldest_tick() const = 0;
  // Drops the least recently used entry (nullopt when empty) and counts it
  // as an eviction. Called by the budget with its lock held: must not call
  // the budget.
  [[nodiscard]] virtual std::optional<Eviction> evict_oldest() = 0;
  [[nodiscard]] virtual CacheUsage usage() const = 0;

 protected:
  ~BudgetMember() = default;
};

// One byte budget shared by all of the server's caches (--cache-mb): distance
// fields, Reachable's labellings, StandardMove's routes and FindPath's
// answers. A member reserve()s an entry's bytes before it keeps the entry and
// release()s them when the entry goes. A reservation that does not fit evicts
// the least recently used entries across every member until it does, so the
// bytes charged never exceed the total.
//
// Lock order: the budget's lock, then a member's. A member must never call
// reserve(), release(), join() or leave() while holding its own lock (the
// budget may ask any member, the caller included, to evict); next_tick() is
// lock-free and may be called under it.
//
// Recency across members is exact except under a race: between reading a
// member's oldest tick and asking it to evict, another thread may touch that
// entry, and the member then evicts its next oldest.
class CacheBudget {
 public:
  explicit CacheBudget(std::size_t total_bytes) : total_bytes_(total_bytes) {}
  CacheBudget(const CacheBudget&) = delete;
  CacheBudget& operator=(const CacheBudget&) = delete;

  [[nodiscard]] std::size_t total_bytes() const { return total_bytes_; }
  // Bytes charged now over all members (reserved entries included).
  [[nodiscard]] std::size_t used_bytes() const;

  // A tick later than every one handed out before (recency order of entries).
  [[nodiscard]] std::uint64_t next_tick() {
    return clock_.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  // Charges `bytes` for an entry about to be kept, evicting the least
  // recently used entries of every member until they fit. False (nothing
  // charged, nothing evicted when bytes exceeds the total) when they cannot
  // fit: more than the whole budget, or the rest is charged to entries that
  // other threads are inserting or removing right now.
  [[nodiscard]] bool reserve(std::size_t bytes);
  // Gives back bytes reserve() charged (the entry went, or was not kept).
  void release(std::size_t bytes);

  // Members register for their lifetime; leave() returns nothing of their
  // charge (the member releases its bytes itself).
  void join(BudgetMember& member);
  void leave(BudgetMember& member);

  // Each member's entries, bytes and evictions, in the order they joined.
  [[nodiscard]] std::vector<CacheUsage> usage() const;

 private:
  const std::size_t total_bytes_;
  std::atomic<std::uint64_t> clock_{0};
  mutable std::mutex mutex_;
  std::size_t used_bytes_ = 0;          // guarded by mutex_
  std::vector<BudgetMember*> members_;  // guarded by mutex_
};

}  // namespace pathserver
