#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cache/cache_budget.h"
#include "cache/lru_cache.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/nearest_pixels.h"

namespace pathserver {

// Everything NearestWalkable's target pixels depend on: the usable pixels of
// a mask revision (areas, clearance) and, when the request has
// reachable_from, the one component of them it may end in.
struct NearestKey {
  std::string mask;               // mask name
  std::uint64_t revision = 0;     // a patched or replaced mask never matches
  pathcore::AreaSet enabled = 0;  // effective enabled areas
  double clearance = 0;           // only clearances that exclude pixels; else 0
  // Normalised as ComponentKey: kEight without corner cutting is kFour.
  pathcore::Connectivity connectivity = pathcore::Connectivity::kFour;
  bool allow_corner_cutting = false;
  // 0: every usable pixel; else the component label (in the labelling of the
  // key's pixels under its connectivity) the answers must lie in.
  std::uint32_t component = 0;

  friend bool operator==(const NearestKey&, const NearestKey&) = default;
};

struct NearestKeyHash {
  [[nodiscard]] std::size_t operator()(const NearestKey& key) const;
};

struct NearestPixelsBytes {
  [[nodiscard]] std::size_t operator()(const pathcore::NearestPixels& nearest) const {
    return nearest.memory_bytes();
  }
};

// NearestWalkable's distance transforms (5 bytes per pixel each), a member of
// the one cache budget ("nearest" in metrics).
using NearestCache = LruCache<NearestKey, pathcore::NearestPixels, NearestKeyHash, NearestPixelsBytes>;

}  // namespace pathserver
