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
// field wherever a pixel keeps one of its cheapest steps to a pixel that
// keeps its cost: that is decided only for the pixels a trace from the start
// reads (a walk down their cheapest steps, remembered). A start whose cost
// rose gets F on its detour from an A* over the pixels whose cost rose,
// guided by field (a lower bound of F). So the cost follows the detour and
// the trace, not the mask. std::nullopt when that work would pass
// max_pixels pixels (the caller fills F instead). interrupt: as for
// FieldBuilder, about every 16,384 pixels (throws Interrupted). Throws
// InvalidArgument as path_from_field does, and for a field to several goals
// or of another size.
[[nodiscard]] std::optional<PathResult> path_around_obstacles(
    const Mask& blocked_mask, const DistanceField& field, const ObstacleSet& blocked, Point start,
    const FindPathOptions& options, std::size_t max_pixels,
    const std::function<bool()>& interrupt = {});

}  // namespace pathcore
