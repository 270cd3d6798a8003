// Endpoint snapping: the nearest walkable pixel to a start, the reachable
// pixel nearest a goal (pathcore/path.h).
#include <cstdint>
#include <optional>
#include <vector>

#include "mask/interrupt_check.h"
#include "mask/point_checks.h"
#include "path/steps.h"
#include "pathcore/path.h"

namespace pathcore {

std::optional<Point> nearest_walkable(const Mask& mask, AreaSet enabled, Point p,
                                      const std::function<bool()>& interrupt) {
  enabled &= kAllAreas;
  if (mask.walkable(p, enabled)) {
    return p;
  }
  std::optional<Point> best;
  std::int64_t best_distance = 0;
  const auto width = static_cast<std::int32_t>(mask.width());
  const auto height = static_cast<std::int32_t>(mask.height());
  const std::uint8_t* areas = mask.areas().data();
  InterruptCheck check(interrupt);
  for (std::int32_t y = 0; y < height; ++y) {
    const std::int64_t dy = std::int64_t{y} - p.y;
    if (best && dy * dy > best_distance && y > p.y) {
      break;  // every later row is farther
    }
    check.after(mask.width());
    for (std::int32_t x = 0; x < width; ++x) {
      if (((enabled >> areas[static_cast<std::size_t>(y) * mask.width() + x]) & 1U) == 0) {
        continue;
      }
      const std::int64_t dx = std::int64_t{x} - p.x;
      const std::int64_t d = dx * dx + dy * dy;
      if (!best || d < best_distance) {
        best = Point{x, y};
        best_distance = d;
      }
    }
  }
  return best;
}

std::optional<Point> nearest_reachable(const Mask& mask, const FieldOptions& options, Point from,
                                       Point target, const std::function<bool()>& interrupt) {
  const FieldOptions field = normalized(options);
  const AreaSet enabled = field.enabled;
  if (!mask.walkable(from, enabled)) {
    return std::nullopt;
  }
  const std::size_t count = mask.pixel_count();
  std::vector<std::uint8_t> reached(count, 0);
  std::vector<std::uint32_t> queue;
  queue.reserve(1024);
  const bool eight = field.connectivity == Connectivity::kEight;
  const bool cutting = eight && field.allow_corner_cutting;
  reached[mask.index(from)] = 1;
  queue.push_back(static_cast<std::uint32_t>(mask.index(from)));
  InterruptCheck check(interrupt);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    check.after(1);
    const Point p{static_cast<std::int32_t>(queue[head] % mask.width()),
                  static_cast<std::int32_t>(queue[head] / mask.width())};
    for (const Step step : kCardinalSteps) {
      const Point n = p + step;
      if (mask.walkable(n, enabled) && reached[mask.index(n)] == 0) {
        reached[mask.index(n)] = 1;
        queue.push_back(static_cast<std::uint32_t>(mask.index(n)));
      }
    }
    if (!eight) continue;
    for (const Step step : kDiagonalSteps) {
      const Point n = p + step;
      if (mask.walkable(n, enabled) && reached[mask.index(n)] == 0 &&
          (cutting || (mask.walkable(p + Step{step.dx, 0}, enabled) &&
                       mask.walkable(p + Step{0, step.dy}, enabled)))) {
        reached[mask.index(n)] = 1;
        queue.push_back(static_cast<std::uint32_t>(mask.index(n)));
      }
    }
  }
  std::optional<Point> best;
  std::int64_t best_distance = 0;
  for (std::size_t i = 0; i < count; ++i) {
    check.after(1);
    if (reached[i] == 0) continue;
    const auto x = static_cast<std::int32_t>(i % mask.width());
    const auto y = static_cast<std::int32_t>(i / mask.width());
    const std::int64_t dx = std::int64_t{x} - target.x;
    const std::int64_t dy = std::int64_t{y} - target.y;
    const std::int64_t d = dx * dx + dy * dy;
    if (!best || d < best_distance) {
      best = Point{x, y};
      best_distance = d;
    }
  }
  return best;
}

std::optional<SnappedEndpoints> snap_endpoints(const Mask& mask, const FieldOptions& options,
                                               Point start, Point goal,
                                               std::optional<bool> goal_reachable,
                                               const std::function<bool()>& interrupt) {
  require_inside(mask, start, "start");
  require_inside(mask, goal, "goal");
  const AreaSet enabled = options.enabled & kAllAreas;
  const std::optional<Point> from = nearest_walkable(mask, enabled, start, interrupt);
  if (!from) {
    return std::nullopt;
  }
  if (*from == start && goal_reachable.value_or(false) && mask.walkable(goal, enabled)) {
    return SnappedEndpoints{start, goal};
  }
  const std::optional<Point> to = nearest_reachable(mask, options, *from, goal, interrupt);
  return SnappedEndpoints{*from, *to};
}

}  // namespace pathcore
