#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lru_cache.h"
#include "pathcore/components.h"
#include "pathcore/mask.h"
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

using ComponentCache = LruCache<ComponentKey, pathcore::Components, ComponentKeyHash>;
using RouteCache = LruCache<RouteKey, pathcore::StandardMoveResult, RouteKeyHash>;

// The caches behind Reachable and StandardMove. Keys carry the mask revision,
// so an entry of an old revision is never served; erase_mask() frees them
// eagerly when a mask is patched, replaced or deleted.
struct QueryCaches {
  QueryCaches(std::size_t component_entries, std::size_t route_entries)
      : components(component_entries), routes(route_entries) {}

  void erase_mask(std::string_view mask) {
    components.erase_if([mask](const ComponentKey& key) { return key.mask == mask; });
    routes.erase_if([mask](const RouteKey& key) { return key.mask == mask; });
  }

  ComponentCache components;
  RouteCache routes;
};

}  // namespace pathserver
