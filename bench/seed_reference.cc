#include "seed_reference.h"

#include <utility>

namespace pathbench {

std::vector<std::int32_t> seed_reference_field(const pathcore::Mask& mask, pathcore::Point goal,
                                               pathcore::AreaSet enabled) {
  const int width = static_cast<int>(mask.width());
  const int height = static_cast<int>(mask.height());
  std::vector<std::int32_t> buffer(mask.pixel_count(), -1);
  if (!mask.walkable(goal, enabled)) {
    return buffer;
  }
  std::vector<pathcore::Point> current{goal};
  std::vector<pathcore::Point> next;
  buffer[mask.index(goal)] = 0;
  std::int32_t distance = 0;
  constexpr pathcore::Point kSteps[] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  while (!current.empty()) {
    ++distance;
    while (!current.empty()) {
      const pathcore::Point p = current.back();
      current.pop_back();
      for (const auto& step : kSteps) {
        const pathcore::Point n{p.x + step.x, p.y + step.y};
        if (n.x < 0 || n.y < 0 || n.x >= width || n.y >= height) {
          continue;
        }
        const std::size_t i = mask.index(n);
        if (buffer[i] == -1 && ((enabled >> mask.areas()[i]) & 1U) != 0) {
          buffer[i] = distance;
          next.push_back(n);
        }
      }
    }
    std::swap(current, next);
  }
  return buffer;
}

}  // namespace pathbench
