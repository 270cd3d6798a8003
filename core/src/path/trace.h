#pragma once
// Tracing inside the path folder: trace_for_smoothing's walk, keeping every
// pixel or only the corners simplify would keep (path_from_field's smoothing
// asks for corners without building the whole path first).

#include "path/repaired_field.h"
#include "pathcore/path.h"

namespace pathcore {

// memo (optional, same answer): see TraceMemo (pathcore/path.h).
Path smoothing_trace(const Mask& mask, const DistanceField& field, Point start, bool corners_only,
                     TraceMemo* memo = nullptr);

// The same traces on a repaired field (path_around_obstacles): the answers
// the field it stands for gives, from the start it was repaired for.
Path smoothing_trace(const Mask& mask, const RepairedField& field, Point start, bool corners_only);
Path trace(const Mask& mask, const RepairedField& field, Point start, bool diagonal_shortcuts);

}  // namespace pathcore
