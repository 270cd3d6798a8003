#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

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
  pathcore::Point goal;

  friend bool operator==(const FieldKey&, const FieldKey&) = default;
};

struct FieldKeyHash {
  [[nodiscard]] std::size_t operator()(const FieldKey& key) const;
};

using FieldPtr = std::shared_ptr<const pathcore::DistanceField>;

// Counters of a FieldCache since it was made (for metrics and tests).
struct FieldCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;        // entries dropped to stay within the limit
  std::uint64_t entries = 0;          // held now
  std::uint64_t bytes = 0;            // held now
  std::uint64_t budget_bytes = 0;     // the limit (0: no byte limit)
  std::uint64_t fields_computed = 0;  // fields filled on a miss
  double compute_seconds = 0;         // total time spent filling them
};

// A thread-safe least-recently-used cache of distance fields with a limit on
// the number of entries. get() and put() are O(1); erase_mask() is linear in
// the entries. A limit of 0 disables caching (put() keeps nothing).
class FieldCache {
 public:
  explicit FieldCache(std::size_t max_entries);

  // The field for key, marking it most recently used; nullptr on a miss.
  [[nodiscard]] FieldPtr get(const FieldKey& key);
  // Inserts or replaces the field for key as the most recently used entry,
  // evicting the least recently used ones beyond the limit.
  void put(const FieldKey& key, FieldPtr field);
  // Drops every entry of the named mask (any revision). Call when a mask is
  // replaced or deleted: their keys can no longer match, so this only frees memory.
  void erase_mask(std::string_view mask);

  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] FieldCacheStats stats() const;
  [[nodiscard]] std::size_t max_entries() const { return max_entries_; }

 private:
  using Entry = std::pair<FieldKey, FieldPtr>;
  using List = std::list<Entry>;  // front = most recently used

  const std::size_t max_entries_;
  mutable std::mutex mutex_;
  List lru_;
  std::unordered_map<FieldKey, List::iterator, FieldKeyHash> index_;
};

}  // namespace pathserver
