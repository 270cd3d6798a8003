// The exact cost of segments and polylines between pixel centres
// (segment_cost, polyline_cost; the walk is SegmentCoster, segment_cost.h).
#include "line/segment_cost.h"

#include "mask/point_checks.h"
#include "pathcore/line.h"

namespace pathcore {

double segment_cost(const Mask& mask, AreaSet enabled, Point a, Point b, const AreaCosts& costs) {
  require_inside(mask, a, "segment end");
  require_inside(mask, b, "segment end");
  const SegmentCoster coster(mask, enabled, costs);
  if (coster.uniform_charge() != 0) {
    return coster.uniform_charge() * polyline_length({a, b});
  }
  return coster.cost(a, b);
}

double polyline_cost(const Path& path, const Mask& mask, AreaSet enabled, const AreaCosts& costs) {
  for (const Point p : path) {
    require_inside(mask, p, "path point");
  }
  const SegmentCoster coster(mask, enabled, costs);
  if (coster.uniform_charge() != 0) {
    return coster.uniform_charge() * polyline_length(path);
  }
  double cost = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    cost += coster.cost(path[i - 1], path[i]);
  }
  return cost;
}

}  // namespace pathcore
