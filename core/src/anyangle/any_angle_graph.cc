// AnyAngleGraph::build: the convex corners and the sparse visibility graph
// (taut edges only) between them.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "anyangle/blocked_grid.h"
#include "anyangle/line_of_sight.h"
#include "anyangle/region_budget.h"
#include "anyangle/visible_region.h"
#include "mask/interrupt_check.h"
#include "pathcore/any_angle.h"

namespace pathcore {

AnyAngleGraph AnyAngleGraph::build(const Mask& mask, AreaSet enabled, bool allow_corner_cutting,
                                   const std::function<bool()>& interrupt,
                                   const ProgressReport& progress) {
  InterruptCheck check(interrupt);
  AnyAngleGraph graph;
  graph.width_ = mask.width();
  graph.height_ = mask.height();
  graph.allow_corner_cutting_ = allow_corner_cutting;
  graph.blocked_ = BlockedGrid::padded_cells(mask, effective_areas(enabled));
  const BlockedGrid grid(graph.blocked_, graph.width_, graph.height_);

  // Corners: exactly one blocked pixel around (a convex corner of the
  // blocked region); with corner cutting also pinch points, where a path may
  // squeeze through and bend. Corners on the mask's border have two outside
  // pixels around them, so only inner ones qualify.
  const std::size_t corner_stride = std::size_t{graph.width_} + 1;
  graph.corner_at_.assign(corner_stride * (std::size_t{graph.height_} + 1), kNoCorner);
  for (std::int64_t j = 1; j < graph.height_; ++j) {
    for (std::int64_t i = 1; i < graph.width_; ++i) {
      const int blocked = grid.blocked_around(i, j);
      Corner corner{static_cast<std::int32_t>(2 * i), static_cast<std::int32_t>(2 * j), 0, 0};
      if (blocked == 1) {
        const bool left = grid.blocked(i - 1, j - 1) || grid.blocked(i - 1, j);
        const bool up = grid.blocked(i - 1, j - 1) || grid.blocked(i, j - 1);
        corner.blocked_dx = static_cast<std::int8_t>(left ? -1 : 1);
        corner.blocked_dy = static_cast<std::int8_t>(up ? -1 : 1);
      } else if (!(allow_corner_cutting && blocked == 2 && grid.pinch(i, j))) {
        continue;
      }
      graph.corner_at_[static_cast<std::size_t>(j) * corner_stride + static_cast<std::size_t>(i)] =
          static_cast<std::uint32_t>(graph.corners_.size());
      graph.corners_.push_back(corner);
    }
    check.after(graph.width_);
    // The corner scan is a small part of the work: its first tenth.
    if (progress && j % 256 == 0) progress(0.1 * static_cast<double>(j) / graph.height_);
  }

  // Edges: from each corner, the corners in its visible region (a superset
  // of what it sees), kept when the segment is taut at both ends and free.
  // Each pair is tested once, from its lower index.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  std::vector<std::uint32_t> seen(graph.corners_.size(), kNoCorner);
  VisibleRegionScan scan(grid);
  const std::size_t budget = region_budget(graph);
  for (std::uint32_t u = 0; u < graph.corners_.size(); ++u) {
    if (progress && u % 1024 == 0) {
      progress(0.1 + 0.9 * static_cast<double>(u) / static_cast<double>(graph.corners_.size()));
    }
    const Corner from = graph.corners_[u];
    const auto consider = [&](std::uint32_t v) {
      if (v <= u || seen[v] == u) return;
      seen[v] = u;
      const Corner to = graph.corners_[v];
      const std::int64_t dx = to.x2 - from.x2;
      const std::int64_t dy = to.y2 - from.y2;
      if (!taut_at(from.blocked_dx, from.blocked_dy, dx, dy) ||
          !taut_at(to.blocked_dx, to.blocked_dy, dx, dy)) {
        return;
      }
      check.after(static_cast<std::size_t>(std::max(std::abs(dx), std::abs(dy))) / 2 + 1);
      if (segment_free(grid, {from.x2, from.y2}, {to.x2, to.y2}, allow_corner_cutting)) {
        edges.emplace_back(u, v);
      }
    };
    // Where the corner sees far (open maps), every later corner directly.
    const bool scanned = scan.for_each_corner(
        Point{from.x2, from.y2},
        [&](std::int64_t i, std::int64_t j) {
          const std::uint32_t v = graph.corner_at_[static_cast<std::size_t>(j) * corner_stride +
                                                   static_cast<std::size_t>(i)];
          if (v != kNoCorner) consider(v);
        },
        [](std::int64_t, std::int64_t) { return true; }, budget, &check);
    if (!scanned) {
      for (std::uint32_t v = u + 1; v < graph.corners_.size(); ++v) consider(v);
    }
  }

  // Compressed adjacency, both directions.
  graph.first_neighbour_.assign(graph.corners_.size() + 1, 0);
  for (const auto& [u, v] : edges) {
    ++graph.first_neighbour_[u + 1];
    ++graph.first_neighbour_[v + 1];
  }
  for (std::size_t c = 0; c < graph.corners_.size(); ++c) {
    graph.first_neighbour_[c + 1] += graph.first_neighbour_[c];
  }
  graph.neighbours_.resize(edges.size() * 2);
  std::vector<std::uint32_t> fill(graph.first_neighbour_.begin(), graph.first_neighbour_.end() - 1);
  for (const auto& [u, v] : edges) {
    graph.neighbours_[fill[u]++] = v;
    graph.neighbours_[fill[v]++] = u;
  }
  return graph;
}

bool AnyAngleGraph::walkable(Point p) const {
  if (p.x < 0 || p.y < 0 || static_cast<std::uint32_t>(p.x) >= width_ ||
      static_cast<std::uint32_t>(p.y) >= height_) {
    return false;
  }
  return BlockedGrid(blocked_, width_, height_).blocked(p.x, p.y) == false;
}

std::size_t AnyAngleGraph::memory_bytes() const {
  return sizeof(*this) + blocked_.capacity() * sizeof(std::uint8_t) +
         corners_.capacity() * sizeof(Corner) + corner_at_.capacity() * sizeof(std::uint32_t) +
         first_neighbour_.capacity() * sizeof(std::uint32_t) +
         neighbours_.capacity() * sizeof(std::uint32_t);
}

}  // namespace pathcore
