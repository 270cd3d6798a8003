#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "anyangle/blocked_grid.h"
#include "mask/interrupt_check.h"
#include "pathcore/mask.h"

namespace pathcore {

// Finds, from a viewpoint (a pixel centre or a square corner, in doubled
// coordinates), a superset of the pixels any free segment from it can touch,
// ring by ring outward (rings of pixels at one Chebyshev distance), and stops
// at the first ring with none. Exact and conservative: a free segment from
// the viewpoint passes through a chain of walkable pixels, each 8-adjacent to
// the one before and no nearer (ring-wise), and its direction lies in the
// closed angular span of each pixel's square. So each kept pixel carries the
// directions that can reach it (its span intersected with the hull of what
// its kept neighbours inside or beside it pass on), and a pixel is kept when
// that is not empty: shadowcasting with exact integer cross products.
// Callers test the corners of the kept pixels with segment_free.
// Cost: the area of the square the kept pixels span.
class VisibleRegionScan {
 public:
  explicit VisibleRegionScan(const BlockedGrid& grid) : grid_(grid) {}

  // Calls visit(i, j) for each square corner (i, j) of every kept pixel
  // (corners shared by kept pixels more than once). check, when set, counts
  // the pixels scanned. allow(x, y) may rule out more pixels (and so all
  // behind them), e.g. those no shorter path can touch; it is asked before a
  // pixel is kept. Stops and returns false once more than `budget` pixels
  // were kept (the caller then does without the region); true when done.
  template <typename Visit, typename Allow>
  bool for_each_corner(Point viewpoint2, Visit&& visit, Allow&& allow, std::size_t budget,
                       InterruptCheck* check = nullptr);
  template <typename Visit>
  bool for_each_corner(Point viewpoint2, Visit&& visit, InterruptCheck* check = nullptr) {
    return for_each_corner(
        viewpoint2, visit, [](std::int64_t, std::int64_t) { return true; }, SIZE_MAX, check);
  }

 private:
  struct Box {
    std::int64_t x0, y0, x1, y1;  // inclusive pixel bounds
  };
  // Pixels on the boundary of box, clockwise from its top-left one.
  static std::int64_t perimeter(const Box& box);
  static Point perimeter_pixel(const Box& box, std::int64_t index);
  // Index along the boundary of box of a pixel on it.
  static std::int64_t perimeter_index(const Box& box, std::int64_t x, std::int64_t y);
  // The closed angular span of pixel (x, y)'s square seen from the
  // viewpoint: its extreme corners relative to it (doubled coordinates).
  struct Span {
    std::int64_t ax, ay, bx, by;
  };
  [[nodiscard]] Span span_of(std::int64_t x, std::int64_t y) const;
  [[nodiscard]] static bool overlap(const Span& s, const Span& t);
  // Of two overlapping spans: their common part. Of two spans within one
  // quarter turn: the smallest span holding both.
  [[nodiscard]] static Span intersection(const Span& s, const Span& t);
  [[nodiscard]] static Span hull(const Span& s, const Span& t);
  static std::int64_t cross(std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by) {
    return ax * by - ay * bx;
  }

  const BlockedGrid& grid_;
  std::int64_t vx_ = 0;  // viewpoint, doubled
  std::int64_t vy_ = 0;
  // The current ring's pixels met so far, by perimeter index; an entry is
  // valid for the ring whose stamp it carries (no clearing between rings).
  struct Cell {
    std::uint32_t met = 0;   // stamp: looked at in this ring
    std::uint32_t kept = 0;  // stamp: kept in this ring
    bool walkable = false;
    Span span{};
    Span reach{};
  };
  std::vector<Cell> cells_;
  std::uint32_t stamp_ = 0;
  struct Kept {
    Point pixel;
    Span reach;
  };
  std::vector<Kept> previous_;  // the kept pixels of the ring inside
  std::vector<Kept> current_;
  std::vector<std::int64_t> work_;  // perimeter indices to pass on from
  std::vector<std::int64_t> kept_indices_;
};

inline std::int64_t VisibleRegionScan::perimeter(const Box& box) {
  const std::int64_t w = box.x1 - box.x0 + 1;
  const std::int64_t h = box.y1 - box.y0 + 1;
  if (w == 1 || h == 1) return w * h;
  return 2 * (w + h) - 4;
}

inline Point VisibleRegionScan::perimeter_pixel(const Box& box, std::int64_t index) {
  const std::int64_t w = box.x1 - box.x0 + 1;
  const std::int64_t h = box.y1 - box.y0 + 1;
  if (w == 1 || h == 1) {
    return {static_cast<std::int32_t>(box.x0 + (w == 1 ? 0 : index)),
            static_cast<std::int32_t>(box.y0 + (w == 1 ? index : 0))};
  }
  auto point = [](std::int64_t x, std::int64_t y) {
    return Point{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
  };
  if (index < w) return point(box.x0 + index, box.y0);  // top, left to right
  index -= w;
  if (index < h - 1) return point(box.x1, box.y0 + 1 + index);  // right, downward
  index -= h - 1;
  if (index < w - 1) return point(box.x1 - 1 - index, box.y1);  // bottom, right to left
  index -= w - 1;
  return point(box.x0, box.y1 - 1 - index);  // left, upward
}

inline std::int64_t VisibleRegionScan::perimeter_index(const Box& box, std::int64_t x,
                                                       std::int64_t y) {
  const std::int64_t w = box.x1 - box.x0 + 1;
  const std::int64_t h = box.y1 - box.y0 + 1;
  if (w == 1 || h == 1) return w == 1 ? y - box.y0 : x - box.x0;
  if (y == box.y0) return x - box.x0;
  if (x == box.x1) return w + (y - box.y0 - 1);
  if (y == box.y1) return w + (h - 1) + (box.x1 - 1 - x);
  return w + (h - 1) + (w - 1) + (box.y1 - 1 - y);
}

inline VisibleRegionScan::Span VisibleRegionScan::span_of(std::int64_t x, std::int64_t y) const {
  // Corners relative to the viewpoint; the viewpoint may be one of them
  // (a corner viewpoint's own four pixels), which is then left out.
  const std::int64_t left = 2 * x - vx_;
  const std::int64_t top = 2 * y - vy_;
  const std::int64_t cx[4] = {left, left + 2, left, left + 2};
  const std::int64_t cy[4] = {top, top, top + 2, top + 2};
  int first = -1;
  int last = -1;
  for (int k = 0; k < 4; ++k) {
    if (cx[k] == 0 && cy[k] == 0) continue;
    bool is_first = true;
    bool is_last = true;
    for (int m = 0; m < 4; ++m) {
      const std::int64_t cross = cx[k] * cy[m] - cy[k] * cx[m];
      if (cross < 0) is_first = false;
      if (cross > 0) is_last = false;
    }
    if (is_first && first < 0) first = k;
    if (is_last && last < 0) last = k;
  }
  return {cx[first], cy[first], cx[last], cy[last]};
}

inline bool VisibleRegionScan::overlap(const Span& s, const Span& t) {
  // Both spans are at most a quarter turn: direction d lies in [a, b] iff
  // a x d >= 0 and d x b >= 0; two arcs meet iff one's start lies in the other.
  const auto inside = [](const Span& arc, std::int64_t dx, std::int64_t dy) {
    return arc.ax * dy - arc.ay * dx >= 0 && dx * arc.by - dy * arc.bx >= 0;
  };
  return inside(s, t.ax, t.ay) || inside(t, s.ax, s.ay);
}

inline VisibleRegionScan::Span VisibleRegionScan::intersection(const Span& s, const Span& t) {
  Span both = s;
  if (cross(s.ax, s.ay, t.ax, t.ay) > 0) {
    both.ax = t.ax;
    both.ay = t.ay;
  }
  if (cross(s.bx, s.by, t.bx, t.by) < 0) {
    both.bx = t.bx;
    both.by = t.by;
  }
  return both;
}

inline VisibleRegionScan::Span VisibleRegionScan::hull(const Span& s, const Span& t) {
  Span either = s;
  if (cross(s.ax, s.ay, t.ax, t.ay) < 0) {
    either.ax = t.ax;
    either.ay = t.ay;
  }
  if (cross(s.bx, s.by, t.bx, t.by) > 0) {
    either.bx = t.bx;
    either.by = t.by;
  }
  return either;
}

template <typename Visit, typename Allow>
bool VisibleRegionScan::for_each_corner(Point viewpoint2, Visit&& visit, Allow&& allow,
                                        std::size_t budget, InterruptCheck* check) {
  vx_ = viewpoint2.x;
  vy_ = viewpoint2.y;
  const bool centre = (vx_ % 2) != 0;
  const auto visit_pixel = [&](const Point& q) {
    visit(q.x, q.y);
    visit(q.x + 1, q.y);
    visit(q.x, q.y + 1);
    visit(q.x + 1, q.y + 1);
  };
  // Ring 0: the viewpoint's pixel (it sees every way: its reach is unused),
  // or the four pixels around the viewpoint corner.
  Box inner = centre ? Box{(vx_ - 1) / 2, (vy_ - 1) / 2, (vx_ - 1) / 2, (vy_ - 1) / 2}
                     : Box{vx_ / 2 - 1, vy_ / 2 - 1, vx_ / 2, vy_ / 2};
  previous_.clear();
  std::size_t kept_count = 0;
  for (std::int64_t k = 0; k < perimeter(inner); ++k) {
    const Point q = perimeter_pixel(inner, k);
    if (grid_.blocked_anywhere(q.x, q.y)) continue;
    previous_.push_back({q, centre ? Span{} : span_of(q.x, q.y)});
    visit_pixel(q);
  }
  bool inside_sees_all = centre;
  while (!previous_.empty()) {
    const Box box{inner.x0 - 1, inner.y0 - 1, inner.x1 + 1, inner.y1 + 1};
    const std::int64_t length = perimeter(box);
    if (cells_.size() < static_cast<std::size_t>(length))
      cells_.resize(static_cast<std::size_t>(length));
    ++stamp_;
    if (check != nullptr) check->after(previous_.size() * 4 + 1);
    current_.clear();
    work_.clear();
    kept_indices_.clear();
    // Looks at pixel index k of this ring once: walkable, span.
    const auto meet = [&](std::int64_t k, Point q) -> Cell& {
      Cell& cell = cells_[static_cast<std::size_t>(k)];
      if (cell.met != stamp_) {
        cell.met = stamp_;
        cell.walkable = !grid_.blocked_anywhere(q.x, q.y);
        if (cell.walkable) cell.span = span_of(q.x, q.y);
      }
      return cell;
    };
    // Passes directions `from` on to pixel k: what of them its span holds.
    const auto pass_on = [&](std::int64_t k, Point q, const Span* from) {
      Cell& cell = meet(k, q);
      if (!cell.walkable) return;
      if (cell.kept != stamp_ && !allow(q.x, q.y)) {
        cell.walkable = false;  // ruled out: as good as blocked
        return;
      }
      Span passed = cell.span;
      if (from != nullptr) {
        if (!overlap(cell.span, *from)) return;
        passed = intersection(cell.span, *from);
      }
      if (cell.kept != stamp_) {
        cell.kept = stamp_;
        cell.reach = passed;
        kept_indices_.push_back(k);
      } else {
        const Span grown = hull(cell.reach, passed);
        if (grown.ax == cell.reach.ax && grown.ay == cell.reach.ay && grown.bx == cell.reach.bx &&
            grown.by == cell.reach.by) {
          return;
        }
        cell.reach = grown;
      }
      work_.push_back(k);
    };
    // From the ring inside: each kept pixel to its neighbours on this ring.
    for (const Kept& kept : previous_) {
      for (std::int64_t dy = -1; dy <= 1; ++dy) {
        for (std::int64_t dx = -1; dx <= 1; ++dx) {
          const Point q{kept.pixel.x + static_cast<std::int32_t>(dx),
                        kept.pixel.y + static_cast<std::int32_t>(dy)};
          if (q.x >= inner.x0 && q.x <= inner.x1 && q.y >= inner.y0 && q.y <= inner.y1) continue;
          pass_on(perimeter_index(box, q.x, q.y), q, inside_sees_all ? nullptr : &kept.reach);
        }
      }
    }
    // Along the ring, both ways, until nothing grows.
    while (!work_.empty()) {
      const std::int64_t k = work_.back();
      work_.pop_back();
      const Span reach = cells_[static_cast<std::size_t>(k)].reach;
      for (const std::int64_t next : {(k + 1) % length, (k + length - 1) % length}) {
        pass_on(next, perimeter_pixel(box, next), &reach);
      }
    }
    // The kept pixels: visited, and the next ring's sources.
    kept_count += kept_indices_.size();
    if (kept_count > budget) return false;
    for (const std::int64_t k : kept_indices_) {
      const Point q = perimeter_pixel(box, k);
      current_.push_back({q, cells_[static_cast<std::size_t>(k)].reach});
      visit_pixel(q);
    }
    previous_.swap(current_);
    inner = box;
    inside_sees_all = false;
  }
  return true;
}

}  // namespace pathcore
