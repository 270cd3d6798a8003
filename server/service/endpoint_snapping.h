#pragma once

// Snapping on the server: FindPath's and BatchFindPaths' ends looked up in
// tables cached per mask revision, areas and clearance (a nearest-walkable
// transform, NearestWalkable's) and connectivity (component labels,
// Reachable's), built once on the compute pool; then each snap costs what
// its answer's distance costs (pathcore/snap_lookup.h), not a scan.

#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "cache/nearest_cache.h"
#include "cache/query_caches.h"
#include "pathcore/components.h"
#include "pathcore/mask.h"
#include "pathcore/nearest_pixels.h"
#include "pathcore/path.h"
#include "service/cached_find_path.h"
#include "store/mask_store.h"

namespace pathserver {

// The transform to every pixel of `walked` (the stored entry, or the usable
// one with clearance) walkable for effective areas `enabled`, keyed as
// NearestWalkable keys it (so either serves the other): from `cache`, else
// built through `source` (begin_scan first, so on gRPC's thread the call
// moves to the compute pool; then build_once, one build for concurrent
// requests) and cached. O(pixels) to build, 5 bytes per pixel. Throws what
// the source throws, and pathcore::Interrupted when the build is stopped.
[[nodiscard]] std::shared_ptr<const pathcore::NearestPixels> walkable_transform(
    NearestCache& cache, FieldSource& source, const MaskEntry& walked, pathcore::AreaSet enabled,
    double clearance_key);

// The component labels of the same pixels under a connectivity and corner
// rule (normalised: eight neighbours without corner cutting label as four),
// keyed as Reachable and NearestWalkable key them; built as above. O(pixels)
// to build, 4 bytes per pixel.
[[nodiscard]] std::shared_ptr<const pathcore::Components> component_labels(
    ComponentCache& cache, FieldSource& source, const MaskEntry& walked, pathcore::AreaSet enabled,
    pathcore::Connectivity connectivity, bool allow_corner_cutting, double clearance_key);

// Snaps the ends of one FindPath call, or of every start of one batch:
// pathcore::snap_endpoints' answer (the same pixels, ties alike) from the
// cached tables. A goal's snapped pixel depends only on the start's
// component, so it is found once per component and remembered (a batch
// snaps its goal once). Thread-safe: a batch's helper thread shares it.
class EndpointSnapper {
 public:
  EndpointSnapper(NearestCache& transforms, ComponentCache& labels)
      : transforms_(transforms), labels_(labels) {}
  EndpointSnapper(const EndpointSnapper&) = delete;
  EndpointSnapper& operator=(const EndpointSnapper&) = delete;

  // The ends a snap_to_reachable request on `walked` really has; `reach`:
  // its areas, connectivity and corner rule (costs play no part);
  // clearance_key keys the tables. std::nullopt when no pixel is walkable.
  // Tables not cached are built through `source` (see walkable_transform),
  // and a goal's search that may read many pixels runs with the source's
  // interrupt check (begin_scan): on gRPC's thread either throws NeedsFill.
  // Throws RequestGone when the call went away meanwhile,
  // pathcore::InvalidArgument for a point outside, and what `source` throws.
  [[nodiscard]] std::optional<pathcore::SnappedEndpoints> snap(
      const MaskEntry& walked, FieldSource& source, const pathcore::FieldOptions& reach,
      double clearance_key, pathcore::Point start, pathcore::Point goal);

 private:
  NearestCache& transforms_;
  ComponentCache& labels_;
  std::mutex mutex_;
  // Snapped goals per start component, for one goal on one labelling (held,
  // so that a rebuilt labelling is never mistaken for it).
  std::shared_ptr<const pathcore::Components> remembered_labels_;
  pathcore::Point remembered_goal_;
  std::unordered_map<pathcore::Components::Label, pathcore::Point> snapped_goals_;
};

}  // namespace pathserver
