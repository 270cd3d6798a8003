// Straight segments between pixel centres: the Bresenham pixels and the
// "supercover" (every pixel square the segment touches), and polyline lengths.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "pathcore/clearance.h"
#include "pathcore/line.h"
#include "mask/point_checks.h"
#include "segment_walk.h"

namespace pathcore {
namespace {

using segment_walk::lexicographically_less;

// Calls visit(x, y) for each Bresenham pixel from a to b inclusive, stopping
// early (and returning false) as soon as visit returns false. Integer error
// term of A. Zingl's all-octant formulation; 64-bit so no coordinates overflow.
template <typename Visit>
bool walk_bresenham(Point a, Point b, Visit&& visit) {
  const std::int64_t dx = std::llabs(std::int64_t{b.x} - a.x);
  const std::int64_t dy = -std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t sx = a.x < b.x ? 1 : -1;
  const std::int64_t sy = a.y < b.y ? 1 : -1;
  std::int64_t err = dx + dy;
  std::int64_t x = a.x;
  std::int64_t y = a.y;
  while (true) {
    if (!visit(x, y)) {
      return false;
    }
    if (x == b.x && y == b.y) {
      return true;
    }
    const std::int64_t twice = 2 * err;
    if (twice >= dy) {
      err += dy;
      x += sx;
    }
    if (twice <= dx) {
      err += dx;
      y += sy;
    }
  }
}

// Calls visit(x, y) for every pixel whose closed unit square (centred on the
// pixel) the segment a-b touches, stopping early when visit returns false.
// Where the segment passes exactly through a pixel corner, all four pixels
// around that corner are visited. The walk compares, in integers, where the
// segment crosses the next vertical and the next horizontal pixel border:
// after ix column steps the next vertical border lies at parameter
// (ix + 1/2) / nx, the next horizontal one at (iy + 1/2) / ny.
// The caller guarantees |b - a| fits a mask, so the products cannot overflow.
template <typename Visit>
bool walk_supercover(Point a, Point b, Visit&& visit) {
  const std::int64_t nx = std::llabs(std::int64_t{b.x} - a.x);
  const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t sx = a.x < b.x ? 1 : -1;
  const std::int64_t sy = a.y < b.y ? 1 : -1;
  std::int64_t x = a.x;
  std::int64_t y = a.y;
  if (!visit(x, y)) {
    return false;
  }
  for (std::int64_t ix = 0, iy = 0; ix < nx || iy < ny;) {
    const std::int64_t vertical = (1 + 2 * ix) * ny;    // next column border, scaled
    const std::int64_t horizontal = (1 + 2 * iy) * nx;  // next row border, scaled
    if (vertical == horizontal) {
      // Exactly through a corner: the two pixels beside it count too. The
      // three pixels entered at the corner are visited in row-major order
      // (first_blocked_pixel's documented order; the others do not care).
      const std::int64_t near_row_x = sx > 0 ? x : x + sx;  // row y + sy: two pixels
      const bool ok = sy > 0 ? visit(x + sx, y) && visit(near_row_x, y + sy) &&
                                   visit(near_row_x + 1, y + sy)
                             : visit(near_row_x, y + sy) && visit(near_row_x + 1, y + sy) &&
                                   visit(x + sx, y);
      if (!ok) {
        return false;
      }
      x += sx;
      y += sy;
      ++ix;
      ++iy;
      continue;
    } else if (vertical < horizontal) {
      x += sx;
      ++ix;
    } else {
      y += sy;
      ++iy;
    }
    if (!visit(x, y)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool segment_walkable(const Mask& mask, AreaSet enabled, Point a, Point b, LineRule rule) {
  // Mask::walkable is false outside, so this checks that a and b are inside.
  return segment_walk::walkable_inside(mask, enabled & kAllAreas, a, b, rule);
}

bool segment_walkable(const ClearanceMap& map, Point a, Point b, LineRule rule) {
  const auto inside = [&map](Point p) {
    return p.x >= 0 && p.y >= 0 && static_cast<std::uint32_t>(p.x) < map.width() &&
           static_cast<std::uint32_t>(p.y) < map.height();
  };
  return inside(a) && inside(b) && segment_walk::walkable_inside(map, a, b, rule);
}

int segment_max_cost(const Mask& mask, AreaSet enabled, Point a, Point b, LineRule rule,
                     const AreaCosts& costs) {
  enabled &= kAllAreas;
  if (!mask.walkable(a, enabled) || !mask.walkable(b, enabled)) {
    return 0;
  }
  if (lexicographically_less(b, a)) {
    std::swap(a, b);
  }
  const std::uint8_t* areas = mask.areas().data();
  const auto width = static_cast<std::int64_t>(mask.width());
  int highest = 0;
  const auto visit = [&](std::int64_t x, std::int64_t y) {
    const std::uint8_t area = areas[y * width + x];
    if (((enabled >> area) & 1U) == 0) {
      return false;
    }
    highest = std::max<int>(highest, costs[area] == 0 ? 1 : costs[area]);
    return true;
  };
  const bool walkable =
      rule == LineRule::kBresenham ? walk_bresenham(a, b, visit) : walk_supercover(a, b, visit);
  return walkable ? highest : 0;
}

std::optional<Point> first_blocked_pixel(const Mask& mask, AreaSet enabled, Point a, Point b,
                                         LineRule rule) {
  require_inside(mask, a, "a");
  require_inside(mask, b, "b");
  enabled &= kAllAreas;
  std::optional<Point> blocked;
  const auto note_blocked = [&](std::int64_t x, std::int64_t y) {
    const Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
    if (mask.walkable(p, enabled)) {
      return true;
    }
    blocked = p;
    return false;
  };
  if (rule == LineRule::kNoCornerCutting) {
    // The supercover is the same set walked from either end, so walk from a.
    walk_supercover(a, b, note_blocked);
    return blocked;
  }
  // Bresenham pixels depend on the walking direction: walk from the
  // lexicographically smaller endpoint as segment_walkable does; from the
  // other end, the first blocked pixel is the last one found.
  if (!lexicographically_less(b, a)) {
    walk_bresenham(a, b, note_blocked);
    return blocked;
  }
  walk_bresenham(b, a, [&](std::int64_t x, std::int64_t y) {
    const Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
    if (!mask.walkable(p, enabled)) blocked = p;
    return true;
  });
  return blocked;
}

std::vector<Point> bresenham_line(Point a, Point b) {
  const bool reversed = lexicographically_less(b, a);
  if (reversed) {
    std::swap(a, b);
  }
  std::vector<Point> line;
  line.reserve(static_cast<std::size_t>(std::max(std::llabs(std::int64_t{b.x} - a.x),
                                                 std::llabs(std::int64_t{b.y} - a.y))) +
               1);
  walk_bresenham(a, b, [&line](std::int64_t x, std::int64_t y) {
    line.push_back({static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)});
    return true;
  });
  if (reversed) {
    std::reverse(line.begin(), line.end());
  }
  return line;
}

double polyline_length(const Path& path) {
  double length = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    // Integer coordinates square exactly: as exact as std::hypot, and faster.
    const double dx = static_cast<double>(path[i].x) - path[i - 1].x;
    const double dy = static_cast<double>(path[i].y) - path[i - 1].y;
    length += std::sqrt(dx * dx + dy * dy);
  }
  return length;
}

}  // namespace pathcore
