// Straight segments between pixel centres: the Bresenham pixels and the
// "supercover" (every pixel square the segment touches).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "pathcore/clearance.h"
#include "pathcore/path.h"

namespace pathcore {
namespace {

// Segments are always walked from the lexicographically smaller endpoint
// (x, then y), so a-b and b-a give the same pixels.
bool lexicographically_less(Point a, Point b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

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
      // Exactly through a corner: the two pixels beside it count too.
      if (!visit(x + sx, y) || !visit(x, y + sy)) {
        return false;
      }
      x += sx;
      y += sy;
      ++ix;
      ++iy;
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

// The walks above with the visit fixed to "is the area enabled", for
// segment_walkable, the hot loop of beautify (tens of thousands of short
// segments per path on cluttered masks). Same pixels, visited branch-free:
// on cluttered masks the step direction is unpredictable, so each step picks
// its moves with compares instead of jumps, accumulates the walkability of
// the pixels it enters with ANDs, and advances one pointer. The loops stop at
// the end pixel or at the first blocked one (a predictable branch).
// areas points at pixel a of a grid of `stride` bytes per row; a is the
// lexicographically smaller endpoint (so b.x >= a.x) and every visited pixel
// lies inside the grid (the bounding box of a and b).
// 1 when v < 0, else 0, with a shift rather than a compare the compiler could
// turn back into a branch. |v| stays far below 2^62 here.
std::int64_t less_than_zero(std::int64_t v) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) >> 63);
}

// walkable(byte) is 1 when a grid byte is walkable, else 0.
template <typename Walkable>
bool bresenham_walkable(const std::uint8_t* areas, std::int64_t stride, Walkable walkable, Point a,
                        Point b) {
  const std::int64_t dx = std::int64_t{b.x} - a.x;
  const std::int64_t dy = -std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t row = b.y >= a.y ? stride : -stride;
  const std::uint8_t* const end = areas + (std::int64_t{b.y} - a.y) * stride + dx;
  const std::uint8_t* at = areas;
  std::int64_t err = dx + dy;
  AreaSet ok = walkable(*at);
  while (at != end && (ok & 1U) != 0) {
    const std::int64_t twice = 2 * err;
    const std::int64_t step_x = less_than_zero(dy - twice - 1);  // twice >= dy
    const std::int64_t step_y = less_than_zero(twice - dx - 1);  // twice <= dx
    err += (step_x * dy) + (step_y * dx);
    at += step_x + step_y * row;
    ok &= walkable(*at);
  }
  return (ok & 1U) != 0;
}

bool supercover_walkable(const std::uint8_t* areas, std::int64_t stride, AreaSet enabled, Point a,
                         Point b) {
  const std::int64_t nx = std::int64_t{b.x} - a.x;
  const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t row = b.y >= a.y ? stride : -stride;
  const std::uint8_t* const end = areas + (std::int64_t{b.y} - a.y) * stride + nx;
  const std::uint8_t* at = areas;
  // Next column border (1 + 2 ix) * ny and next row border (1 + 2 iy) * nx,
  // as in walk_supercover, kept up to date by additions.
  std::int64_t vertical = ny;
  std::int64_t horizontal = nx;
  AreaSet ok = enabled >> *at;
  while (at != end && (ok & 1U) != 0) {
    // step_x: vertical <= horizontal; step_y: horizontal <= vertical.
    const std::int64_t step_x = less_than_zero(vertical - horizontal - 1);
    const std::int64_t step_y = less_than_zero(horizontal - vertical - 1);
    // Through a corner (both steps) the two pixels beside it count too; on a
    // single step these reads are the entered pixel or the current one.
    ok &= (enabled >> at[step_x]) & (enabled >> at[step_y * row]);
    at += step_x + step_y * row;
    ok &= enabled >> *at;
    vertical += step_x * 2 * ny;
    horizontal += step_y * 2 * nx;
  }
  return (ok & 1U) != 0;
}

// supercover_walkable over a clearance map (byte 0: not walkable; c: every
// pixel within Chebyshev distance c - 1 walkable), jumping where it is open.
// The walk is the one of walk_supercover, in states (ix, iy): column and row
// steps taken, i.e. the pixel a + (ix, iy * sign). From a pixel of clearance
// c >= 3 it jumps k = c - 1 steps along the longer axis, to the state the
// walk reaches right after crossing that many borders (for x-major lines:
// after the border between columns ix - 1 and ix, it has crossed every row
// border j with (1 + 2j) nx <= (2 ix - 1) ny). The pixels skipped lie within
// k columns, and within k rows: the row borders crossed meanwhile lie on a
// stretch of the line at most k * ny / nx <= k long, which holds at most k
// of them. So all of them are within c - 1 of the pixel jumped from, and
// walkable; likewise the rest of the segment once b is within k on both axes.
bool supercover_clear(const std::uint8_t* const origin, std::int64_t stride, Point a, Point b) {
  const std::int64_t nx = std::int64_t{b.x} - a.x;
  const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t row = b.y >= a.y ? stride : -stride;
  const bool x_major = nx >= ny;
  std::int64_t ix = 0;
  std::int64_t iy = 0;
  std::int64_t vertical = ny;    // next column border, as in walk_supercover
  std::int64_t horizontal = nx;  // next row border
  const std::uint8_t* at = origin;
  while (true) {
    const std::int64_t clearance = *at;
    if (clearance == 0) {
      return false;
    }
    const std::int64_t left_x = nx - ix;
    const std::int64_t left_y = ny - iy;
    const std::int64_t k = clearance - 1;
    if (k >= 2 && std::max(left_x, left_y) <= k) {
      return true;
    }
    if (k >= 2 && (x_major ? left_x : left_y) > 0) {
      if (x_major) {
        ix += std::min(k, left_x);
        iy = ((2 * ix - 1) * ny + nx) / (2 * nx);
      } else {
        iy += std::min(k, left_y);
        ix = ((2 * iy - 1) * nx + ny) / (2 * ny);
      }
      vertical = (1 + 2 * ix) * ny;
      horizontal = (1 + 2 * iy) * nx;
      at = origin + ix + iy * row;
      continue;
    }
    if (left_x == 0 && left_y == 0) {
      return true;
    }
    const bool step_x = vertical <= horizontal;
    const bool step_y = horizontal <= vertical;
    // Through a corner the two pixels beside it count too; with clearance 2
    // every neighbour is walkable.
    if (step_x && step_y && clearance == 1 && (at[1] == 0 || at[row] == 0)) {
      return false;
    }
    if (step_x) {
      ++ix;
      vertical += 2 * ny;
      at += 1;
    }
    if (step_y) {
      ++iy;
      horizontal += 2 * nx;
      at += row;
    }
  }
}

}  // namespace

bool segment_walkable(const Mask& mask, AreaSet enabled, Point a, Point b, LineRule rule) {
  enabled &= kAllAreas;
  if (!mask.walkable(a, enabled) || !mask.walkable(b, enabled)) {
    return false;
  }
  if (lexicographically_less(b, a)) {
    std::swap(a, b);
  }
  // Every visited pixel lies in the bounding box of a and b, so inside the mask.
  const auto width = static_cast<std::int64_t>(mask.width());
  const std::uint8_t* at = mask.areas().data() + std::int64_t{a.y} * width + a.x;
  if (rule == LineRule::kBresenham) {
    return bresenham_walkable(
        at, width, [enabled](std::uint8_t area) { return (enabled >> area) & 1U; }, a, b);
  }
  return supercover_walkable(at, width, enabled, a, b);
}

bool segment_walkable(const ClearanceMap& map, Point a, Point b, LineRule rule) {
  const auto inside = [&map](Point p) {
    return p.x >= 0 && p.y >= 0 && static_cast<std::uint32_t>(p.x) < map.width() &&
           static_cast<std::uint32_t>(p.y) < map.height();
  };
  if (!inside(a) || !inside(b)) {
    return false;
  }
  if (lexicographically_less(b, a)) {
    std::swap(a, b);
  }
  const auto width = static_cast<std::int64_t>(map.width());
  const std::uint8_t* at = map.values().data() + std::int64_t{a.y} * width + a.x;
  if (rule == LineRule::kBresenham) {
    return bresenham_walkable(
        at, width, [](std::uint8_t clearance) { return AreaSet{clearance != 0}; }, a, b);
  }
  return supercover_clear(at, width, a, b);
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

}  // namespace pathcore
