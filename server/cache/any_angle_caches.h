#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cache/cache_budget.h"
#include "cache/field_cache.h"
#include "cache/lru_cache.h"
#include "pathcore/any_angle.h"
#include "pathcore/mask.h"

namespace pathserver {

// Everything an any-angle mesh depends on (SMOOTHING_ANY_ANGLE):
// connectivity and area costs play no part in it.
struct AnyAngleMeshKey {
  std::string mask;               // mask name
  std::uint64_t revision = 0;     // a patched or replaced mask never matches
  pathcore::AreaSet enabled = 0;  // effective enabled areas
  bool allow_corner_cutting = false;
  // Agent clearance whose usable pixels the mesh was built on (0 when it
  // excludes no pixel, see pathcore::clearance_excludes_pixels).
  double clearance = 0;

  friend bool operator==(const AnyAngleMeshKey&, const AnyAngleMeshKey&) = default;
};

struct AnyAngleMeshKeyHash {
  [[nodiscard]] std::size_t operator()(const AnyAngleMeshKey& key) const;
};

struct AnyAngleMeshBytes {
  [[nodiscard]] std::size_t operator()(const pathcore::AnyAngleMesh& mesh) const {
    return mesh.memory_bytes();
  }
};

// The FieldFlights key under which the mesh for `key` is built, once for
// concurrent requests: goal (-2, -2), which no field (and no usable mask's
// flight, at (-1, -1)) has.
[[nodiscard]] FieldKey any_angle_structure_flight_key(const AnyAngleMeshKey& key);
// "any-angle structure for mask 'x' rev 3", for answers and progress.
[[nodiscard]] std::string any_angle_structure_name(const AnyAngleMeshKey& key);

// The any-angle engine's one cached level (pathcore/any_angle.h), a member of
// the one cache budget like the other query caches: meshes per (mask
// revision, areas, corner rule, clearance), labelled "anyangle_meshes" in
// metrics. A mesh holds a byte per pixel plus its rectangles (about 3 MB
// for a 1024x1024 game map, 20 MB for a full-HD map with 30% clutter). The
// per-query search is not cached: it costs what the path's surroundings
// cost, and an answer that depends on no table is the same on every
// replica, cached or not.
struct AnyAngleCaches {
  AnyAngleCaches(CacheBudget& budget, std::size_t mesh_entries)
      : meshes(budget, "anyangle_meshes", mesh_entries) {}

  void erase_mask(std::string_view mask) {
    meshes.erase_if([mask](const AnyAngleMeshKey& key) { return key.mask == mask; });
  }

  LruCache<AnyAngleMeshKey, pathcore::AnyAngleMesh, AnyAngleMeshKeyHash, AnyAngleMeshBytes> meshes;
  // Meshes built (service/any_angle_find_path.cc's any_angle_structure), for
  // metrics: a prepared mask's queries build none.
  std::atomic<std::uint64_t> structures_built{0};
};

}  // namespace pathserver
