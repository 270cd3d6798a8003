#pragma once

// The exact cost of straight segments between pixel centres (not installed):
// what segment_cost and polyline_cost compute (pathcore/line.h), in a form
// that reads the area table once for many segments (beautify on weighted
// terrain prices every move it tries).

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "field/cost_range.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathcore {

class SegmentCoster {
 public:
  SegmentCoster(const Mask& mask, AreaSet enabled, const AreaCosts& costs)
      : areas_(mask.areas().data()), width_(static_cast<std::int64_t>(mask.width())) {
    enabled &= kAllAreas;
    const CostRange range = area_cost_range(mask, enabled, costs);
    // No enabled area present: nothing is walkable, any charge will do.
    const int cheapest = range.dearest == 0 ? 1 : range.cheapest;
    uniform_charge_ = range.dearest == 0 || range.cheapest == range.dearest ? cheapest : 0;
    if (uniform_charge_ != 0) {
      return;  // no table needed: callers use the charge times the length
    }
    for (int id = 0; id <= kMaxAreaId; ++id) {
      const auto i = static_cast<std::size_t>(id);
      // A pixel the path may not stand on is only ever crossed by a corner-cutting
      // segment clipping its square; it is charged the cheapest walkable cost, so
      // that such a clip never makes a segment dearer than the terrain it runs on.
      charge_[i] = ((enabled >> id) & 1U) != 0 ? (costs[i] == 0 ? 1 : costs[i]) : cheapest;
    }
  }

  // The charge of every pixel when all are charged alike (every enabled area
  // present costs the same), else 0. Then a segment costs that times its length.
  [[nodiscard]] int uniform_charge() const { return uniform_charge_; }

  // The cost of the segment a-b; both inside the mask, and the terrain
  // weighted (uniform_charge() == 0; else the charge times the length). The segment's
  // parameter t (0 at a, 1 at b) is scaled by `total` so that every border
  // crossing is an integer: the k-th column border (x = a.x +- (k + 1/2)) at
  // (2k + 1) * ny, the k-th row border at (2k + 1) * nx, total = 2 * nx * ny
  // (an axis-parallel segment has one kind of crossing and total = 2 * n).
  // The charges times the scaled lengths then sum exactly, in integers, and
  // one division and one multiplication by the length round the result. A
  // crossing exactly through a pixel corner moves diagonally: the two pixels
  // beside the corner hold no length. Symmetric: cost(a, b) == cost(b, a).
  [[nodiscard]] double cost(Point a, Point b) const {
    const std::int64_t nx = std::llabs(std::int64_t{b.x} - a.x);
    const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
    if (nx == 0 && ny == 0) {
      return 0;
    }
    const std::int64_t sx = a.x < b.x ? 1 : -1;
    const std::int64_t sy = a.y < b.y ? 1 : -1;
    const std::int64_t column_scale = ny > 0 ? ny : 1;
    const std::int64_t row_scale = nx > 0 ? nx : 1;
    const std::int64_t total = nx > 0 ? 2 * nx * column_scale : 2 * ny * row_scale;
    std::int64_t x = a.x;
    std::int64_t y = a.y;
    std::int64_t at = 0;
    std::int64_t weighted = 0;
    for (std::int64_t ix = 0, iy = 0; ix < nx || iy < ny;) {
      const std::int64_t column = ix < nx ? (2 * ix + 1) * column_scale : total;
      const std::int64_t row = iy < ny ? (2 * iy + 1) * row_scale : total;
      const std::int64_t next = column < row ? column : row;
      weighted += charge(x, y) * (next - at);
      at = next;
      if (column <= row) {
        x += sx;
        ++ix;
      }
      if (row <= column) {
        y += sy;
        ++iy;
      }
    }
    weighted += charge(x, y) * (total - at);
    const double dx = static_cast<double>(nx);
    const double dy = static_cast<double>(ny);
    return static_cast<double>(weighted) / static_cast<double>(total) * std::sqrt(dx * dx + dy * dy);
  }

 private:
  [[nodiscard]] std::int64_t charge(std::int64_t x, std::int64_t y) const {
    return charge_[areas_[y * width_ + x]];
  }

  const std::uint8_t* areas_;
  std::int64_t width_;
  std::array<std::uint16_t, kMaxAreaId + 1> charge_{};
  int uniform_charge_ = 0;
};

}  // namespace pathcore
