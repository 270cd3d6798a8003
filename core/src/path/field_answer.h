#pragma once
// path_from_field's answer on a repaired field (path.cc), for
// path_around_obstacles (detour.cc).

#include "path/repaired_field.h"
#include "pathcore/path.h"

namespace pathcore {

// path_from_field(mask, the field `field` stands for, start, options):
// the same checks, trace, smoothing and costs. mask: the blocked mask.
[[nodiscard]] PathResult path_from_repaired_field(const Mask& mask, const RepairedField& field,
                                                  Point start, const FindPathOptions& options);

}  // namespace pathcore
