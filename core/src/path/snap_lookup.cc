// Snapping by lookups (pathcore/snap_lookup.h): the nearest walkable pixel
// from a distance transform, the nearest pixel of one component by a ring
// search bounded by the answer's distance.
#include "pathcore/snap_lookup.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "mask/interrupt_check.h"
#include "mask/point_checks.h"

namespace pathcore {
namespace {

void require_same_size(const NearestPixels& walkable, const Components& components) {
  if (walkable.width() != components.width() || walkable.height() != components.height()) {
    throw InvalidArgument("snapping tables: a " + std::to_string(walkable.width()) + "x" +
                          std::to_string(walkable.height()) + " transform with " +
                          std::to_string(components.width()) + "x" +
                          std::to_string(components.height()) + " labels");
  }
}

void require_inside(const Components& components, Point p, const char* name) {
  if (!components.contains(p)) {
    throw InvalidArgument(std::string(name) + " " + point_text(p) + " is outside the " +
                          std::to_string(components.width()) + "x" +
                          std::to_string(components.height()) + " mask");
  }
}

std::int64_t squared_distance(Point a, Point b) {
  const std::int64_t dx = std::int64_t{a.x} - b.x;
  const std::int64_t dy = std::int64_t{a.y} - b.y;
  return dx * dx + dy * dy;
}

}  // namespace

std::optional<Point> nearest_in_component(const NearestPixels& walkable,
                                          const Components& components, Components::Label label,
                                          Point target, const std::function<bool()>& interrupt) {
  require_same_size(walkable, components);
  require_inside(components, target, "target");
  if (label == Components::kNone || label > components.count()) return std::nullopt;
  if (components.label(target) == label) return target;
  const std::optional<Point> nearest = walkable.nearest(target);
  if (!nearest) return std::nullopt;
  // The first walkable pixel at the least distance: when it has the label,
  // no pixel of the component comes before it by snapping's rule.
  if (components.label(*nearest) == label) return nearest;

  // Ring k (the pixels at Chebyshev distance k from target) lies at squared
  // Euclidean distances k^2 .. 2k^2. No walkable pixel is nearer than
  // `nearest`, so the rings with 2k^2 below its distance are skipped; once
  // k^2 exceeds the best distance found, every later ring is farther. The
  // rings read are those with k <= R, R the answer's distance: O(R^2)
  // pixels, bounded by the answer, not by the mask.
  const std::int64_t floor_squared = squared_distance(*nearest, target);
  const auto width = static_cast<std::int64_t>(components.width());
  const auto height = static_cast<std::int64_t>(components.height());
  const Components::Label* labels = components.labels().data();
  std::optional<Point> best;
  std::int64_t best_squared = 0;
  const auto consider = [&](std::int64_t x, std::int64_t y) {
    if (labels[static_cast<std::size_t>(y * width + x)] != label) return;
    const Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
    const std::int64_t d = squared_distance(p, target);
    // Ties to the first in row-major order (the rings are not visited in it).
    if (!best || d < best_squared ||
        (d == best_squared && (p.y < best->y || (p.y == best->y && p.x < best->x)))) {
      best = p;
      best_squared = d;
    }
  };
  const std::int64_t tx = target.x;
  const std::int64_t ty = target.y;
  // Beyond this ring nothing is inside the mask.
  const std::int64_t last_ring = std::max({tx, width - 1 - tx, ty, height - 1 - ty});
  std::int64_t k = 0;
  while (2 * k * k < floor_squared) ++k;  // at most sqrt(d / 2) steps, d the nearest's distance
  InterruptCheck check(interrupt);
  for (; k <= last_ring; ++k) {
    if (best && k * k > best_squared) break;
    check.after(static_cast<std::size_t>(8 * k + 1));
    const std::int64_t left = std::max<std::int64_t>(0, tx - k);
    const std::int64_t right = std::min(width - 1, tx + k);
    if (ty - k >= 0) {
      for (std::int64_t x = left; x <= right; ++x) consider(x, ty - k);
    }
    if (k > 0 && ty + k < height) {
      for (std::int64_t x = left; x <= right; ++x) consider(x, ty + k);
    }
    const std::int64_t top = std::max<std::int64_t>(0, ty - k + 1);
    const std::int64_t bottom = std::min(height - 1, ty + k - 1);
    for (std::int64_t y = top; y <= bottom; ++y) {
      if (tx - k >= 0) consider(tx - k, y);
      if (k > 0 && tx + k < width) consider(tx + k, y);
    }
  }
  return best;
}

std::optional<SnappedEndpoints> snap_endpoints(const NearestPixels& walkable,
                                               const Components& components, Point start,
                                               Point goal, const std::function<bool()>& interrupt) {
  require_same_size(walkable, components);
  require_inside(components, start, "start");
  require_inside(components, goal, "goal");
  const std::optional<Point> from =
      components.label(start) != Components::kNone ? start : walkable.nearest(start);
  if (!from) return std::nullopt;
  const Components::Label label = components.label(*from);
  if (components.label(goal) == label) return SnappedEndpoints{*from, goal};
  // The component holds *from, so it has a nearest pixel.
  return SnappedEndpoints{*from, *nearest_in_component(walkable, components, label, goal, interrupt)};
}

}  // namespace pathcore
