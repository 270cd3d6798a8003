#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cache/cache_budget.h"
#include "cache/field_storage_pool.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathserver {

// Everything a distance field depends on. Two requests with equal keys can
// share one field.
struct FieldKey {
  std::string mask;               // mask name
  std::uint64_t revision = 0;     // mask revision: a replaced mask never matches
  pathcore::AreaSet enabled = 0;  // effective enabled areas (bit 0 clear)
  pathcore::Connectivity connectivity = pathcore::Connectivity::kFour;
  bool allow_corner_cutting = false;                             // normalise to false for kFour
  pathcore::AreaCosts area_costs = pathcore::unit_area_costs();  // normalised (no 0 entries)
  // Agent clearance the field was filled on the usable pixels of (normalised:
  // 0 when it excludes no pixel, see pathcore::clearance_excludes_pixels).
  double clearance = 0;
  pathcore::Point goal;
  // A field to the nearest of several goals: all of them, in the request's
  // order (goal is goals[0]); empty for a field to one goal.
  std::vector<pathcore::Point> goals;

  friend bool operator==(const FieldKey&, const FieldKey&) = default;
};

struct FieldKeyHash {
  [[nodiscard]] std::size_t operator()(const FieldKey& key) const;
};

using FieldPtr = std::shared_ptr<const pathcore::DistanceField>;

// Counters of a FieldCache since it was made (for metrics and tests).
struct FieldCacheStats {
  std::uint64_t hits = 0;             // get() found the field
  std::uint64_t misses = 0;           // get() found nothing
  std::uint64_t evictions = 0;        // fields dropped to make room in the budget
  std::uint64_t entries = 0;          // held now
  std::uint64_t bytes = 0;            // charged for them now (FieldCache::entry_bytes of each)
  std::uint64_t budget_bytes = 0;     // shared with the query caches (0: nothing is kept)
  std::uint64_t fields_computed = 0;  // flood fills run to the end (record_computed)
  double compute_seconds = 0;         // total time spent filling them
  // Added by the byte-budgeted cache:
  std::uint64_t fills_interrupted = 0;  // fills stopped (cancelled / expired / shutdown), not kept
  std::uint64_t oversized = 0;          // put() of a field larger than the whole budget: not kept
  std::uint64_t shared_waits = 0;       // requests that waited for another's fill (single flight)
};

// A thread-safe least-recently-used cache of distance fields, a member of a
// CacheBudget (the one byte budget the query caches share): every entry is
// charged its DistanceField::memory_bytes() (2 to 8 bytes per pixel of the
// mask plus a small header) plus kEntryOverheadBytes<FieldKey> for key and
// nodes. put() has the budget evict the least recently used entries of any
// member until the new one fits; a field larger than the whole budget is not
// kept at all (the caller still serves it). get() and put() are O(1) plus
// the evictions; erase_mask() is linear in the entries. A budget of 0
// disables caching. Evicted fields stay valid for whoever still holds them
// (shared_ptr). Keys carry the mask revision, so a stale field never matches.
//
// The cache also keeps the computation counters (record_computed() and
// friends) so that one stats() call tells the whole story for metrics.
class FieldCache final : public BudgetMember {
 public:
  // The storage pool's bytes, as a fraction (1 / this) of the budget.
  static constexpr std::size_t kStoragePoolShare = 32;

  // Joins budget, shared with the query caches; it must outlive the cache.
  explicit FieldCache(CacheBudget& budget);
  // With a budget of its own of budget_bytes, which query caches may join
  // through budget() (tests, benchmarks).
  explicit FieldCache(std::size_t budget_bytes);
  ~FieldCache();

  // What an entry holding field is charged (a key with several goals also
  // its goals' bytes).
  [[nodiscard]] static std::size_t entry_bytes(const pathcore::DistanceField& field);

  // The field for key, marking it most recently used; nullptr on a miss.
  // Counts a hit or a miss.
  [[nodiscard]] FieldPtr get(const FieldKey& key);
  // Like get() without counting (a second look by the same request).
  [[nodiscard]] FieldPtr peek(const FieldKey& key);
  // Inserts or replaces the field for key as the most recently used entry,
  // evicting the least recently used entries of the budget's members until
  // it fits.
  void put(const FieldKey& key, FieldPtr field);
  // Drops every entry of the named mask below first_live_revision, and from
  // now on keeps no field of such a revision: a fill that was running when
  // its mask was replaced or deleted ends up in nobody's cache. Call when a
  // mask is replaced (with the new revision) or deleted (with its revision
  // + 1): those keys can no longer match, so this only frees memory (not
  // counted as evictions).
  void erase_mask(std::string_view mask, std::uint64_t first_live_revision);

  // Counters for the fill that produced a field (or failed to).
  void record_computed(double seconds);
  void record_interrupted();
  void record_shared_wait();

  [[nodiscard]] std::size_t size() const;
  // Bytes charged to the budget for the fields held now.
  [[nodiscard]] std::size_t bytes() const;
  [[nodiscard]] FieldCacheStats stats() const;
  // The whole budget, shared with the query caches.
  [[nodiscard]] std::size_t budget_bytes() const { return budget_.total_bytes(); }
  [[nodiscard]] CacheBudget& budget() const { return budget_; }
  // Where fills get their memory, and fields give it back when dropped:
  // holds up to a 32nd of the budget besides it (kStoragePoolShare).
  [[nodiscard]] FieldStoragePool& storage_pool() const { return *storage_pool_; }

  // BudgetMember:
  [[nodiscard]] std::optional<std::uint64_t> oldest_tick() const override;
  [[nodiscard]] std::optional<Eviction> evict_oldest() override;
  [[nodiscard]] CacheUsage usage() const override;

 private:
  struct Entry {
    FieldKey key;
    FieldPtr field;
    std::size_t bytes = 0;   // charged to the budget
    std::uint64_t tick = 0;  // the budget's tick of its last put or get
  };
  using List = std::list<Entry>;  // front = most recently used

  // Marks the entry most recently used (with mutex_ held).
  void touch(List::iterator it);

  std::unique_ptr<CacheBudget> own_budget_;  // only with the budget_bytes constructor
  CacheBudget& budget_;
  // Shared with the fields' deleters, which may outlive the cache.
  std::shared_ptr<FieldStoragePool> storage_pool_;
  mutable std::mutex mutex_;
  List lru_;
  std::unordered_map<FieldKey, List::iterator, FieldKeyHash> index_;
  std::size_t bytes_ = 0;
  // Per mask name erased, the lowest revision put() still keeps (one entry
  // per name ever replaced or deleted, as the store keeps its revisions).
  std::unordered_map<std::string, std::uint64_t> first_live_revision_;
  FieldCacheStats counters_;  // hits .. shared_waits; entries/bytes/budget filled by stats()
};

}  // namespace pathserver
