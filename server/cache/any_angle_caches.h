#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "cache/cache_budget.h"
#include "cache/field_cache.h"
#include "cache/lru_cache.h"
#include "pathcore/any_angle.h"
#include "pathcore/mask.h"

namespace pathserver {

// Everything an any-angle visibility graph depends on (SMOOTHING_ANY_ANGLE):
// connectivity and area costs play no part in it.
struct AnyAngleGraphKey {
  std::string mask;               // mask name
  std::uint64_t revision = 0;     // a patched or replaced mask never matches
  pathcore::AreaSet enabled = 0;  // effective enabled areas
  bool allow_corner_cutting = false;
  // Agent clearance whose usable pixels the graph was built on (0 when it
  // excludes no pixel, see pathcore::clearance_excludes_pixels).
  double clearance = 0;

  friend bool operator==(const AnyAngleGraphKey&, const AnyAngleGraphKey&) = default;
};

struct AnyAngleGraphKeyHash {
  [[nodiscard]] std::size_t operator()(const AnyAngleGraphKey& key) const;
};

// The FieldFlights key under which the any-angle structure for `key` is
// built, once for concurrent requests: goal (-2, -2), which no field (and no
// usable mask's flight, at (-1, -1)) has.
[[nodiscard]] FieldKey any_angle_structure_flight_key(const AnyAngleGraphKey& key);
// "any-angle structure for mask 'x' rev 3", for answers and progress.
[[nodiscard]] std::string any_angle_structure_name(const AnyAngleGraphKey& key);

// A goal's distance table is only valid against the graph it was built from.
struct AnyAngleGoalKey {
  AnyAngleGraphKey graph;
  pathcore::Point goal;

  friend bool operator==(const AnyAngleGoalKey&, const AnyAngleGoalKey&) = default;
};

struct AnyAngleGoalKeyHash {
  [[nodiscard]] std::size_t operator()(const AnyAngleGoalKey& key) const;
};

struct AnyAngleGraphBytes {
  [[nodiscard]] std::size_t operator()(const pathcore::AnyAngleGraph& graph) const {
    return graph.memory_bytes();
  }
};
struct AnyAngleGoalBytes {
  [[nodiscard]] std::size_t operator()(const pathcore::AnyAngleGoalTable& table) const {
    return table.memory_bytes();
  }
};

using AnyAngleGraphCache = LruCache<AnyAngleGraphKey, pathcore::AnyAngleGraph,
                                    AnyAngleGraphKeyHash, AnyAngleGraphBytes>;
using AnyAngleGoalCache = LruCache<AnyAngleGoalKey, pathcore::AnyAngleGoalTable,
                                   AnyAngleGoalKeyHash, AnyAngleGoalBytes>;

// The two cached levels of the any-angle engine (pathcore/any_angle.h),
// members of the one cache budget like the other query caches: graphs per
// (mask revision, areas, corner rule, clearance), labelled "anyangle_graphs" in metrics,
// and distance tables per (graph, goal), "anyangle_goals". The third level,
// the per-start query, is cheap and not cached. A goal's first call answers
// from a search toward its start and builds the complete table after it has
// answered (service/any_angle_find_path.cc). A graph's bytes grow with
// the mask's corners and visible pairs (kilobytes on open maps, tens of
// megabytes on mazes); a table's with the corners (8 bytes each).
struct AnyAngleCaches {
  AnyAngleCaches(CacheBudget& budget, std::size_t graph_entries, std::size_t goal_entries)
      : graphs(budget, "anyangle_graphs", graph_entries),
        goals(budget, "anyangle_goals", goal_entries) {}

  void erase_mask(std::string_view mask) {
    graphs.erase_if([mask](const AnyAngleGraphKey& key) { return key.mask == mask; });
    goals.erase_if([mask](const AnyAngleGoalKey& key) { return key.graph.mask == mask; });
  }

  // A goal's complete table is built once at a time, after the call that
  // first asked for the goal is answered: true when the caller should build
  // it (and then call table_built), false when someone already is.
  [[nodiscard]] bool start_table(const AnyAngleGoalKey& key) {
    const std::lock_guard lock(building_mutex_);
    return building_.insert(key).second;
  }
  void table_built(const AnyAngleGoalKey& key) {
    const std::lock_guard lock(building_mutex_);
    building_.erase(key);
  }

  AnyAngleGraphCache graphs;
  AnyAngleGoalCache goals;
  // Any-angle structures built (service/any_angle_find_path.cc's
  // any_angle_structure), for metrics: a prepared mask's queries build none.
  std::atomic<std::uint64_t> structures_built{0};

 private:
  std::mutex building_mutex_;
  std::unordered_set<AnyAngleGoalKey, AnyAngleGoalKeyHash> building_;
};

}  // namespace pathserver
