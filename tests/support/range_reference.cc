#include "support/range_reference.h"

#include <cmath>
#include <set>
#include <tuple>

namespace pathtest {

double reference_cost_value(std::pair<std::uint32_t, std::uint32_t> cost) {
  return static_cast<double>(cost.first) + static_cast<double>(cost.second) * std::sqrt(2.0);
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> reference_costs_from(
    const pathcore::Mask& mask, pathcore::Point start, const pathcore::FieldOptions& options) {
  const auto w = static_cast<std::int32_t>(mask.width());
  const auto h = static_cast<std::int32_t>(mask.height());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> cost(mask.pixel_count(), {kNotReached, 0});
  const pathcore::AreaSet enabled = options.enabled & pathcore::kAllAreas;
  const auto walkable = [&](std::int32_t x, std::int32_t y) {
    return x >= 0 && y >= 0 && x < w && y < h && ((enabled >> mask.area({x, y})) & 1U) != 0;
  };
  const auto area_cost = [&](pathcore::Point p) -> std::uint32_t {
    const std::uint8_t c = options.area_costs[mask.area(p)];
    return c == 0 ? 1 : c;
  };
  if (!walkable(start.x, start.y)) return cost;
  std::set<std::tuple<double, std::int32_t, std::int32_t>> open;
  cost[mask.index(start)] = {0, 0};
  open.insert({0.0, start.y, start.x});
  std::vector<bool> done(mask.pixel_count(), false);
  while (!open.empty()) {
    const auto [key, y, x] = *open.begin();
    open.erase(open.begin());
    const std::size_t i = mask.index({x, y});
    if (done[i]) continue;
    done[i] = true;
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0) continue;
        const bool diagonal = dx != 0 && dy != 0;
        if (diagonal && options.connectivity == pathcore::Connectivity::kFour) continue;
        if (!walkable(x + dx, y + dy)) continue;
        if (diagonal && !options.allow_corner_cutting &&
            !(walkable(x + dx, y) && walkable(x, y + dy))) {
          continue;
        }
        const pathcore::Point n{x + dx, y + dy};
        auto candidate = cost[i];
        (diagonal ? candidate.second : candidate.first) += area_cost(n);
        auto& old = cost[mask.index(n)];
        if (old.first == kNotReached || reference_cost_value(candidate) < reference_cost_value(old)) {
          old = candidate;
          open.insert({reference_cost_value(candidate), n.y, n.x});
        }
      }
    }
  }
  return cost;
}

}  // namespace pathtest
