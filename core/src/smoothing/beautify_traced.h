#pragma once
// beautify for a path the caller traced itself (path_from_field): the same
// answer, without first checking that every point is inside the mask and
// every segment walkable per the rule, which a trace guarantees (diagonal
// steps only with both pixels beside them walkable, unless corners may be
// cut). Not installed.

#include "pathcore/smoothing.h"

namespace pathcore {

[[nodiscard]] Path beautify_traced(const Path& path, const Mask& mask, AreaSet enabled,
                                   LineRule rule, const AreaCosts& costs,
                                   const ClearanceMap* clearance, SmoothingScratch* scratch);

}  // namespace pathcore
