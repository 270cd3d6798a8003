// AnyAngleMesh::build: the walkable pixels as rectangles of merged row runs,
// their shared edge segments and (with corner cutting) pinch portals.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "anyangle/blocked_grid.h"
#include "mask/interrupt_check.h"
#include "pathcore/any_angle.h"

namespace pathcore {

AnyAngleMesh AnyAngleMesh::build(const Mask& mask, AreaSet enabled, bool allow_corner_cutting,
                                 const std::function<bool()>& interrupt,
                                 const ProgressReport& progress) {
  // The row pass counts every pixel; the passes after it are shorter.
  InterruptCheck check(interrupt, progress, mask.pixel_count());
  AnyAngleMesh mesh;
  mesh.width_ = mask.width();
  mesh.height_ = mask.height();
  mesh.allow_corner_cutting_ = allow_corner_cutting;
  mesh.blocked_ = BlockedGrid::padded_cells(mask, effective_areas(enabled));
  const BlockedGrid grid(mesh.blocked_, mesh.width_, mesh.height_);
  const auto width = static_cast<std::int32_t>(mesh.width_);
  const auto height = static_cast<std::int32_t>(mesh.height_);

  // Runs, row by row; a run with the same extent as one in the row above
  // extends that run's rectangle (both sides are then blocked all along).
  mesh.run_begin_.assign(std::size_t(height) + 1, 0);
  for (std::int32_t y = 0; y < height; ++y) {
    const std::uint32_t above_begin = y > 0 ? mesh.run_begin_[y - 1] : 0;
    const std::uint32_t above_end = mesh.run_begin_[y];
    std::uint32_t above = above_begin;
    for (std::int32_t x = 0; x < width;) {
      if (grid.blocked(x, y)) {
        ++x;
        continue;
      }
      const std::int32_t start = x;
      while (x < width && !grid.blocked(x, y)) ++x;
      while (above < above_end && mesh.runs_[above].x1 <= start) ++above;
      std::uint32_t rect = kNone;
      if (above < above_end && mesh.runs_[above].x0 == start && mesh.runs_[above].x1 == x) {
        rect = mesh.runs_[above].rect;
        mesh.rects_[rect].y1 = y + 1;
      } else {
        rect = static_cast<std::uint32_t>(mesh.rects_.size());
        mesh.rects_.push_back(Rect{start, x, y, y + 1});
      }
      mesh.runs_.push_back(Run{start, x, rect});
    }
    mesh.run_begin_[y + 1] = static_cast<std::uint32_t>(mesh.runs_.size());
    check.after(mesh.width_);
  }

  // Segments: where the runs of the row beyond an edge overlap it. That
  // run's rectangle ends at the edge (else the two rows would have merged).
  const auto add_segments = [&](const Rect& rect, std::int32_t row) {
    if (row < 0 || row >= height) return;
    const auto first = mesh.runs_.begin() + mesh.run_begin_[row];
    const auto last = mesh.runs_.begin() + mesh.run_begin_[row + 1];
    auto run = std::upper_bound(first, last, rect.x0,
                                [](std::int32_t x, const Run& r) { return x < r.x1; });
    for (; run != last && run->x0 < rect.x1; ++run) {
      mesh.segments_.push_back(
          Segment{std::max(run->x0, rect.x0), std::min(run->x1, rect.x1), run->rect});
    }
  };
  for (Rect& rect : mesh.rects_) {
    rect.top_begin = static_cast<std::uint32_t>(mesh.segments_.size());
    add_segments(rect, rect.y0 - 1);
    rect.bottom_begin = static_cast<std::uint32_t>(mesh.segments_.size());
    add_segments(rect, rect.y1);
    rect.bottom_end = static_cast<std::uint32_t>(mesh.segments_.size());
    check.after(static_cast<std::size_t>(rect.bottom_end - rect.top_begin) + 1);
  }

  // Portals: a pinch point is always a corner of both rectangles it joins
  // (each of them has a blocked pixel beside it on each side of the corner).
  for (Rect& rect : mesh.rects_) {
    rect.portal_begin = static_cast<std::uint32_t>(mesh.portals_.size());
    if (allow_corner_cutting) {
      for (const auto& [cx, cy, dx, dy] :
           {std::array{rect.x0, rect.y0, -1, -1}, std::array{rect.x1, rect.y0, 0, -1},
            std::array{rect.x0, rect.y1, -1, 0}, std::array{rect.x1, rect.y1, 0, 0}}) {
        if (!grid.pinch(cx, cy)) continue;
        const std::uint32_t across = mesh.rect_at({cx + dx, cy + dy});
        if (across != kNone) mesh.portals_.push_back(Portal{cx, cy, across});
      }
    }
    rect.portal_end = static_cast<std::uint32_t>(mesh.portals_.size());
  }

  // Components: union-find over the rectangles, joined across segments and
  // portals; then each labelled by its root.
  mesh.component_.resize(mesh.rects_.size());
  for (std::uint32_t r = 0; r < mesh.component_.size(); ++r) mesh.component_[r] = r;
  const auto find = [&](std::uint32_t r) {
    while (mesh.component_[r] != r) {
      mesh.component_[r] = mesh.component_[mesh.component_[r]];  // path halving
      r = mesh.component_[r];
    }
    return r;
  };
  const auto join = [&](std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) mesh.component_[std::max(a, b)] = std::min(a, b);
  };
  for (std::uint32_t r = 0; r < mesh.rects_.size(); ++r) {
    const Rect& rect = mesh.rects_[r];
    for (std::uint32_t s = rect.top_begin; s < rect.bottom_end; ++s) join(r, mesh.segments_[s].across);
    for (std::uint32_t p = rect.portal_begin; p < rect.portal_end; ++p) join(r, mesh.portals_[p].across);
  }
  for (std::uint32_t r = 0; r < mesh.component_.size(); ++r) mesh.component_[r] = find(r);
  return mesh;
}

bool AnyAngleMesh::blocked(std::int64_t x, std::int64_t y) const {
  return BlockedGrid(blocked_, width_, height_).blocked(x, y);
}

bool AnyAngleMesh::walkable(Point p) const {
  if (p.x < 0 || p.y < 0 || static_cast<std::uint32_t>(p.x) >= width_ ||
      static_cast<std::uint32_t>(p.y) >= height_) {
    return false;
  }
  return !blocked(p.x, p.y);
}

std::uint32_t AnyAngleMesh::rect_at(Point p) const {
  if (!walkable(p)) return kNone;
  const auto first = runs_.begin() + run_begin_[static_cast<std::size_t>(p.y)];
  const auto last = runs_.begin() + run_begin_[static_cast<std::size_t>(p.y) + 1];
  const auto run =
      std::upper_bound(first, last, p.x, [](std::int32_t x, const Run& r) { return x < r.x1; });
  return run != last && run->x0 <= p.x ? run->rect : kNone;
}

bool AnyAngleMesh::convex_corner(std::int64_t x, std::int64_t y) const {
  return BlockedGrid(blocked_, width_, height_).blocked_around(x, y) == 1;
}

Point AnyAngleMesh::pixel_touching(std::int64_t x, std::int64_t y) const {
  const auto at = [](std::int64_t px, std::int64_t py) {
    return Point{static_cast<std::int32_t>(px), static_cast<std::int32_t>(py)};
  };
  if (convex_corner(x, y)) {
    if (blocked(x - 1, y - 1)) return at(x, y);
    if (blocked(x, y - 1)) return at(x - 1, y);
    if (blocked(x - 1, y)) return at(x, y - 1);
    return at(x - 1, y - 1);
  }
  for (const Point p : {at(x - 1, y - 1), at(x, y - 1), at(x - 1, y), at(x, y)}) {
    if (walkable(p)) return p;
  }
  return at(x, y);  // not a corner any path touches
}

std::size_t AnyAngleMesh::memory_bytes() const {
  return sizeof(*this) + blocked_.capacity() * sizeof(std::uint8_t) +
         rects_.capacity() * sizeof(Rect) + segments_.capacity() * sizeof(Segment) +
         portals_.capacity() * sizeof(Portal) + component_.capacity() * sizeof(std::uint32_t) + run_begin_.capacity() * sizeof(std::uint32_t) +
         runs_.capacity() * sizeof(Run);
}

}  // namespace pathcore
