#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cache/cache_budget.h"
#include "cache/field_cache.h"
#include "cache/lru_cache.h"
#include "pathcore/components.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"
#include "pathcore/standard_move.h"

namespace pathserver {

// Everything a component labelling depends on (Reachable).
struct ComponentKey {
  std::string mask;               // mask name
  std::uint64_t revision = 0;     // a patched or replaced mask never matches
  pathcore::AreaSet enabled = 0;  // effective enabled areas
  // Normalised: kEight without corner cutting labels like kFour, so both
  // share the kFour entry.
  pathcore::Connectivity connectivity = pathcore::Connectivity::kFour;
  bool allow_corner_cutting = false;
  // Agent clearance whose usable pixels were labelled (NearestWalkable); 0
  // for the walkable pixels (only clearances that exclude pixels are kept).
  double clearance = 0;

  friend bool operator==(const ComponentKey&, const ComponentKey&) = default;
};

struct ComponentKeyHash {
  [[nodiscard]] std::size_t operator()(const ComponentKey& key) const;
};

// Everything a StandardMove answer depends on.
struct RouteKey {
  std::string mask;
  std::uint64_t revision = 0;
  pathcore::AreaSet enabled = 0;  // effective
  pathcore::Point start;
  pathcore::Point goal;
  bool forbid_corner_cutting = false;
  int max_moves = 2;  // 1..3 (0 already mapped to 2)

  friend bool operator==(const RouteKey&, const RouteKey&) = default;
};

struct RouteKeyHash {
  [[nodiscard]] std::size_t operator()(const RouteKey& key) const;
};

// Everything a FindPath answer depends on: the field's key (mask, revision,
// areas, connectivity, corner rule, costs, goal) and the rest of the request.
struct PathKey {
  FieldKey field;
  pathcore::Point start;
  pathcore::Smoothing smoothing = pathcore::Smoothing::kBeautify;
  bool snap_to_reachable = false;

  friend bool operator==(const PathKey&, const PathKey&) = default;
};

struct PathKeyHash {
  [[nodiscard]] std::size_t operator()(const PathKey& key) const;
};

// Paths longer than this are not kept in the path cache (a raw full-HD path
// has thousands of points; smoothed ones have tens): 4 KiB of points at most
// an entry.
inline constexpr std::size_t kMaxCachedPathPoints = 512;

// Admission to the FindPath answer cache: an answer is kept the second time
// its key misses, not the first (TinyLFU's "doorkeeper"). A stream of
// requests that never repeat (a new start every call) then does not pay for
// inserting answers nobody asks for again and evicting the ones that might
// be; a repeated request is answered from the cache from its third call on.
// A fixed table of key fingerprints, as many as the cache has entries, so it
// remembers about as many recent misses as the cache holds answers (a key
// that repeats only after more misses than that would have been evicted
// before its next call anyway). Lock-free: a collision or a race only changes
// which answers are kept, never what is served.
class SecondMissFilter {
 public:
  // About `slots` fingerprints (rounded up to a power of two, at least 1).
  explicit SecondMissFilter(std::size_t slots);

  // Records a miss of the key with this hash; true when the same key had
  // missed before (as far as the table remembers).
  [[nodiscard]] bool missed_before(std::size_t key_hash);

 private:
  std::unique_ptr<std::atomic<std::uint64_t>[]> fingerprints_;
  std::size_t mask_ = 0;
};

// The bytes each query cache charges for its values (LruCache's ValueBytes).
struct ComponentsBytes {
  [[nodiscard]] std::size_t operator()(const pathcore::Components& components) const {
    return components.memory_bytes();
  }
};
struct RouteBytes {
  [[nodiscard]] std::size_t operator()(const pathcore::StandardMoveResult& route) const;
};
struct PathBytes {
  [[nodiscard]] std::size_t operator()(const pathcore::PathResult& path) const;
};

using ComponentCache =
    LruCache<ComponentKey, pathcore::Components, ComponentKeyHash, ComponentsBytes>;
using RouteCache = LruCache<RouteKey, pathcore::StandardMoveResult, RouteKeyHash, RouteBytes>;
using PathCache = LruCache<PathKey, pathcore::PathResult, PathKeyHash, PathBytes>;

// The caches behind Reachable, StandardMove and FindPath's answers, members
// of the budget the field cache charges too (FieldCache::budget()), each with
// a second limit on its entry count. Keys carry the mask revision, so an
// entry of an old revision is never served; erase_mask() frees them eagerly
// when a mask is patched, replaced or deleted.
struct QueryCaches {
  QueryCaches(CacheBudget& budget, std::size_t component_entries, std::size_t route_entries,
              std::size_t path_entries)
      : components(budget, "labels", component_entries),
        routes(budget, "routes", route_entries),
        paths(budget, "paths", path_entries),
        path_admission(path_entries) {}

  void erase_mask(std::string_view mask) {
    components.erase_if([mask](const ComponentKey& key) { return key.mask == mask; });
    routes.erase_if([mask](const RouteKey& key) { return key.mask == mask; });
    paths.erase_if([mask](const PathKey& key) { return key.field.mask == mask; });
  }

  ComponentCache components;
  RouteCache routes;
  PathCache paths;
  SecondMissFilter path_admission;  // which answers `paths` keeps
};

}  // namespace pathserver
