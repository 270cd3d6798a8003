#pragma once

// A path around a request's temporary obstacles from the field of the mask
// without them: the answer the blocked mask's own field gives, at the cost
// of the detour instead of a fill.

#include <cstddef>
#include <functional>
#include <optional>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/obstacles.h"
#include "pathcore/path.h"

namespace pathcore {

// path_from_field(blocked_mask, F, start, options), where F is the field of
// blocked_mask toward field.goal() under field.options(), without filling F.
// field: a finished one-goal field (for options.field) of the mask that
// blocked_mask is with the pixels of `blocked` set to area 0 (blocked_mask =
// with_obstacles(mask, blocked), or the usable mask of that with the
// obstacles grown by the clearance). Blocking only raises costs, so F equals
// field except on the pixels every cheapest step of which the obstacles cut,
// and only those uphill of the obstacles in the order of field: they are
// found in that order, and their new costs by a Dijkstra seeded from the
// pixels beside them, both only as far as the start needs (a trace from the
// start reads only costs below its own). So the cost follows the detour
// (the pixels the obstacles shadow toward the goal, no farther than the
// start's new cost), not the mask; plus the overlay's bitmap, width * height
// / 8 bytes. std::nullopt when that work would pass max_pixels pixels (the
// caller fills F instead). interrupt: as for FieldBuilder, about every
// 16,384 pixels (throws Interrupted). Throws InvalidArgument as
// path_from_field does, and for a field to several goals or of another size.
[[nodiscard]] std::optional<PathResult> path_around_obstacles(
    const Mask& blocked_mask, const DistanceField& field, const ObstacleSet& blocked, Point start,
    const FindPathOptions& options, std::size_t max_pixels,
    const std::function<bool()>& interrupt = {});

}  // namespace pathcore
