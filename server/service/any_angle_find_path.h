#pragma once

#include <memory>
#include <vector>

#include "cache/any_angle_caches.h"
#include "pathcore/any_angle.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"
#include "service/cached_find_path.h"
#include "store/mask_store.h"

namespace pathserver {

// What a SMOOTHING_ANY_ANGLE request asks besides its ends. Connectivity and
// area costs do not take part (the request decoder refuses area costs).
struct AnyAngleOptions {
  pathcore::AreaSet enabled = 0;  // effective enabled areas
  bool allow_corner_cutting = false;
  bool snap_to_reachable = false;
  // Agent clearance, normalised (0 when it excludes no pixel): only keys the
  // caches, the entry given is already the usable one (usable_entry.h).
  double clearance = 0;
};

struct AnyAnglePathResult {
  // found, goal, and (when found) points: a walkable pixel per vertex, a
  // pixel never twice in a row (a vertex on the square of the pixel before
  // adds none), and length: the exact path's. reason and the snap fields are left to
  // pathcore::explain_result.
  pathcore::PathResult path;
  std::vector<pathcore::PointD> precise;  // the exact vertices, when found
  bool cache_hit = false;  // the mesh came from the cache
};

// The any-angle structure for `key` (built on entry's mask, which for a key
// with clearance is the usable entry): from `caches`, else built through
// source.build_shared (once at a time per key; on the compute pool; it
// outlives a caller that gives up waiting, whose answer names it and its
// progress, and lands in `caches`) and cached. built: this call built it.
// Throws what build_shared throws (NeedsFill on gRPC's thread, Parked,
// RequestGone). The one place FindPath and PrepareMask get the structure:
// the engine's per-mask build and its cache live behind it.
[[nodiscard]] std::shared_ptr<const pathcore::AnyAngleMesh> any_angle_structure(
    const MaskEntry& entry, AnyAngleCaches& caches, FieldSource& source,
    const AnyAngleMeshKey& key, bool& built);

// FindPath with SMOOTHING_ANY_ANGLE on a stored mask (or a usable entry for
// clearance): the mesh for (mask, revision, areas, corner rule, clearance)
// from any_angle_structure, then pathcore::find_any_angle_path, the per-call
// search, which polls the call's deadline, cancellation and shutdown (an
// interrupted search throws RequestGone: it is the call's own work). Both ask
// `source` first: on gRPC's thread (CacheOnlySource) they throw NeedsFill,
// so the call moves to the compute pool and runs again there. cache_hit: the
// mesh came from the cache.
//
// An unwalkable start or goal, or ends no path joins: found = false, or with
// snap_to_reachable the ends move as pathcore::snap_endpoints moves them for
// four neighbours (eight with corner cutting), which join exactly the pixels
// any-angle paths join: looked up by `snapper` when set (as
// cached_find_path's), else scanned. start and goal must be inside the mask.
[[nodiscard]] AnyAnglePathResult any_angle_find_path(const MaskEntry& entry, AnyAngleCaches& caches,
                                                     FieldSource& source, pathcore::Point start,
                                                     pathcore::Point goal,
                                                     const AnyAngleOptions& options,
                                                     EndpointSnapper* snapper = nullptr);

}  // namespace pathserver
