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

// The pixel labelled `label` nearest to target (Euclidean distance between
// centres, ties to the first in row-major order: snapping's rule), target
// itself when it has the label; std::nullopt when no pixel has it (kNone
// included). `walkable` is the transform to every pixel `components`
// labels (the walkable pixels of one mask and areas). When the nearest
// walkable pixel has the label, that is the answer: O(d). Else a search of
// square rings around target, from the first that can hold a walkable
// pixel to the first wholly farther than the best pixel found: O(R^2) label
// reads for an answer at distance R, whatever the mask's size (R is at
// most target's distance to any pixel known to have the label). interrupt,
// when set, is called about every 16,384 pixels read; when it returns true
// the search stops by throwing Interrupted. Throws InvalidArgument (naming
// "target") when target is outside, or when the tables' sizes differ.
[[nodiscard]] std::optional<Point> nearest_in_component(
    const NearestPixels& walkable, const Components& components, Components::Label label,
    Point target, const std::function<bool()>& interrupt = {});

// snap_endpoints' answer (the same start and goal) from the tables:
// `walkable` the transform to every walkable pixel of the mask for the
// request's areas, `components` those pixels' labels under the request's
// connectivity and corner rule (four-connected for eight without corner
// cutting: the same components). start moves to walkable.nearest(start)
// when not walkable; goal stays when it has the (moved) start's label, else
// moves to nearest_in_component (interrupt: as there). std::nullopt when
// no pixel is walkable. Throws InvalidArgument (naming "start" or "goal")
// for a point outside, or when the tables' sizes differ.
[[nodiscard]] std::optional<SnappedEndpoints> snap_endpoints(
    const NearestPixels& walkable, const Components& components, Point start, Point goal,
    const std::function<bool()>& interrupt = {});

}  // namespace pathcore
