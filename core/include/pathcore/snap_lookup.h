#pragma once

// Snapping (snap_endpoints, pathcore/path.h) by lookups in two tables built
// once per mask, enabled areas and connectivity, so that each request costs
// what its answer's distance costs, not a scan of the mask (core/src/path).

#include <functional>
#include <optional>

#include "pathcore/components.h"
#include "pathcore/mask.h"
#include "pathcore/nearest_pixels.h"
#include "pathcore/path.h"

namespace pathcore {

// The pixel nearest to target (Euclidean distance between centres, ties to
// the first in row-major order: snapping's rule) that `from` reaches,
// target itself when it does (nearest_reachable of pathcore/path.h, without
// the flood fill); std::nullopt when from is not walkable. `walkable` is the
// transform to every pixel `components` labels (the walkable pixels of one
// mask and areas), labelled by the request's reachability. When from
// reaches the nearest walkable pixel, that is the answer: O(d). Else two
// searches in lockstep, the first to finish answering: square rings around
// target, from the first that can hold a walkable pixel to the first wholly
// farther than the best pixel found (O(R^2) pixels for an answer at
// distance R), and a walk of from's component (O(its size)). So the cost is
// bounded by the answer's distance, and by the component's size, whatever
// the mask's size. interrupt, when set, is called about every 16,384 ring
// pixels read; when it returns true the search stops by throwing
// Interrupted. Throws InvalidArgument (naming "from" or "target") for a
// point outside, or when the tables' sizes differ.
[[nodiscard]] std::optional<Point> nearest_reachable(const NearestPixels& walkable,
                                                     const Components& components, Point from,
                                                     Point target,
                                                     const std::function<bool()>& interrupt = {});

// snap_endpoints' answer (the same start and goal) from the tables:
// `walkable` the transform to every walkable pixel of the mask for the
// request's areas, `components` those pixels' labels under the request's
// connectivity and corner rule (four-connected for eight without corner
// cutting: the same components). start moves to walkable.nearest(start)
// when not walkable; goal stays when the (moved) start reaches it, else
// moves to nearest_reachable (interrupt: as there). std::nullopt when
// no pixel is walkable. Throws InvalidArgument (naming "start" or "goal")
// for a point outside, or when the tables' sizes differ.
[[nodiscard]] std::optional<SnappedEndpoints> snap_endpoints(
    const NearestPixels& walkable, const Components& components, Point start, Point goal,
    const std::function<bool()>& interrupt = {});

}  // namespace pathcore
