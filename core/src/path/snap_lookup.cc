// Snapping by lookups (pathcore/snap_lookup.h): the nearest walkable pixel
// from a distance transform, the nearest pixel of one component by a ring
// search bounded by the answer's distance.
#include "pathcore/snap_lookup.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

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

std::optional<Point> nearest_reachable(const NearestPixels& walkable, const Components& components,
                                       Point from, Point target,
                                       const std::function<bool()>& interrupt) {
  require_same_size(walkable, components);
  require_inside(components, from, "from");
  require_inside(components, target, "target");
  const Components::Label label = components.label(from);
  if (label == Components::kNone) return std::nullopt;
  if (components.label(target) == label) return target;
  // The first walkable pixel at the least distance: when `from` reaches it,
  // no pixel of the component comes before it by snapping's rule.
  const Point nearest = *walkable.nearest(target);  // `from` is walkable
  if (components.label(nearest) == label) return nearest;

  const auto width = static_cast<std::int64_t>(components.width());
  const auto height = static_cast<std::int64_t>(components.height());
  const Components::Label* labels = components.labels().data();
  const auto index = [width](std::int64_t x, std::int64_t y) {
    return static_cast<std::size_t>(y * width + x);
  };
  // The best pixel of the component seen, by snapping's rule (neither
  // search below meets the pixels in row-major order).
  struct Best {
    std::optional<Point> pixel;
    std::int64_t squared = 0;
    void offer(Point p, Point target) {
      const std::int64_t d = squared_distance(p, target);
      if (!pixel || d < squared ||
          (d == squared && (p.y < pixel->y || (p.y == pixel->y && p.x < pixel->x)))) {
        pixel = p;
        squared = d;
      }
    }
  };

  // Two searches in lockstep; the first to finish answers, so the cost is
  // bounded both by the answer's distance and by the component's size.
  //
  // Rings: ring k (the pixels at Chebyshev distance k from target) lies at
  // squared Euclidean distances k^2 .. 2k^2. No walkable pixel is nearer
  // than `nearest`, so the rings with 2k^2 below its distance are skipped;
  // once k^2 exceeds the best distance found, every later ring is farther.
  // The rings read are those with k <= R, R the answer's distance: O(R^2)
  // pixels, whatever the mask's size.
  Best rings;
  const std::int64_t tx = target.x;
  const std::int64_t ty = target.y;
  const std::int64_t last_ring = std::max({tx, width - 1 - tx, ty, height - 1 - ty});
  const std::int64_t floor_squared = squared_distance(nearest, target);
  std::int64_t k = 0;
  while (2 * k * k < floor_squared) ++k;  // at most sqrt(d / 2) steps, d the nearest's distance
  const auto consider = [&](std::int64_t x, std::int64_t y) {
    if (labels[index(x, y)] == label) {
      rings.offer({static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)}, target);
    }
  };
  // Reads ring k; false once the rings are done (rings.pixel answers).
  const auto next_ring = [&]() -> bool {
    if (k > last_ring || (rings.pixel && k * k > rings.squared)) return false;
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
    ++k;
    return true;
  };

  // Walk: the component's pixels from `from`, stepping to the eight
  // neighbours of the same label (a component of four-connected labels is
  // four-connected, so it is all met): O(size), for the small pockets far
  // from target that would cost the rings most.
  Best walk;
  std::vector<std::uint32_t> queue{static_cast<std::uint32_t>(index(from.x, from.y))};
  std::unordered_set<std::uint32_t> seen{queue.front()};
  std::size_t head = 0;
  // Visits one pixel; false once the walk is done (walk.pixel answers).
  const auto next_pixel = [&]() -> bool {
    if (head == queue.size()) return false;
    const std::uint32_t at = queue[head++];
    const std::int64_t x = at % width;
    const std::int64_t y = at / width;
    walk.offer({static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)}, target);
    for (std::int64_t ny = std::max<std::int64_t>(0, y - 1); ny <= std::min(height - 1, y + 1);
         ++ny) {
      for (std::int64_t nx = std::max<std::int64_t>(0, x - 1); nx <= std::min(width - 1, x + 1);
           ++nx) {
        const auto n = static_cast<std::uint32_t>(index(nx, ny));
        if (labels[n] == label && seen.insert(n).second) queue.push_back(n);
      }
    }
    return true;
  };

  // A walked pixel costs about what this many ring pixels cost (eight
  // label reads and a hash set against one read).
  constexpr std::int64_t kRingPixelsPerWalkedPixel = 32;
  InterruptCheck check(interrupt);
  std::int64_t walk_credit = 0;
  for (;;) {
    const std::int64_t ring_pixels = 8 * k + 1;
    if (!next_ring()) return rings.pixel;
    check.after(static_cast<std::size_t>(ring_pixels));
    for (walk_credit += ring_pixels; walk_credit >= kRingPixelsPerWalkedPixel;
         walk_credit -= kRingPixelsPerWalkedPixel) {
      if (!next_pixel()) return walk.pixel;
    }
  }
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
  return SnappedEndpoints{*from, *nearest_reachable(walkable, components, *from, goal, interrupt)};
}

}  // namespace pathcore
