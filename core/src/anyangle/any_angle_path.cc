// find_any_angle_path: the start's visible corners against a goal table.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "anyangle/blocked_grid.h"
#include "anyangle/line_of_sight.h"
#include "anyangle/region_budget.h"
#include "anyangle/visible_region.h"
#include "pathcore/any_angle.h"

namespace pathcore {
namespace {

// A walkable pixel whose square touches corner c: the one diagonally
// opposite its blocked pixel (so integer paths keep clear of it), or for a
// pinch point the first walkable one of the four.
Point pixel_at_corner(const AnyAngleGraph& graph, const AnyAngleGraph::Corner& c) {
  const std::int32_t i = c.x2 / 2;
  const std::int32_t j = c.y2 / 2;
  if (c.blocked_dx != 0) return {c.blocked_dx < 0 ? i : i - 1, c.blocked_dy < 0 ? j : j - 1};
  for (const Point p : {Point{i - 1, j - 1}, Point{i, j - 1}, Point{i - 1, j}, Point{i, j}}) {
    if (graph.walkable(p)) return p;
  }
  return {i, j};  // unreachable for a pinch point: two of the four are walkable
}

}  // namespace

std::size_t AnyAnglePath::memory_bytes() const {
  return sizeof(*this) + points.capacity() * sizeof(PointD) + pixels.capacity() * sizeof(Point);
}

std::optional<AnyAnglePath> find_any_angle_path(const AnyAngleGraph& graph,
                                                const AnyAngleGoalTable& table, Point start) {
  if (start.x < 0 || start.y < 0 || static_cast<std::uint32_t>(start.x) >= graph.width() ||
      static_cast<std::uint32_t>(start.y) >= graph.height()) {
    throw InvalidArgument("any-angle start outside the mask");
  }
  if (table.corner_count() != graph.corner_count()) {
    throw InvalidArgument("any-angle goal table built from another graph");
  }
  if (!table.goal_walkable() || !graph.walkable(start)) return std::nullopt;
  const Point goal = table.goal();
  const auto centre = [](Point p) { return PointD{p.x + 0.5, p.y + 0.5}; };
  if (start == goal) return AnyAnglePath{{centre(start)}, {start}, 0};

  const BlockedGrid grid(graph.padded_blocked(), graph.width(), graph.height());
  const Point start2{2 * start.x + 1, 2 * start.y + 1};
  const Point goal2{2 * goal.x + 1, 2 * goal.y + 1};
  const bool corner_cutting = graph.allow_corner_cutting();
  if (segment_free(grid, start2, goal2, corner_cutting)) {
    return AnyAnglePath{
        {centre(start), centre(goal)}, {start, goal}, pixel_distance(start2, goal2)};
  }

  // The best first corner: the visible one minimising |start c| + d(c). The
  // line test, the expensive part, only for corners that would improve.
  const std::vector<AnyAngleGraph::Corner>& corners = graph.corners();
  const std::vector<std::uint32_t>& corner_at = graph.corner_at();
  const std::size_t corner_stride = std::size_t{graph.width()} + 1;
  double best = std::numeric_limits<double>::infinity();
  std::uint32_t best_corner = AnyAngleGraph::kNoCorner;
  const auto consider = [&](std::uint32_t c) {
    const double rest = table.distance(c);
    if (!(rest < best) || c == best_corner) return;
    const AnyAngleGraph::Corner corner = corners[c];
    const Point corner2{corner.x2, corner.y2};
    const double through = pixel_distance(start2, corner2) + rest;
    if (!(through < best)) return;
    if (!taut_at(corner.blocked_dx, corner.blocked_dy, corner2.x - start2.x,
                 corner2.y - start2.y)) {
      return;
    }
    const std::uint32_t after = table.next(c);
    const Point onward =
        after == AnyAngleGoalTable::kGoal ? goal2 : Point{corners[after].x2, corners[after].y2};
    if (!taut_bend(corner.blocked_dx, corner.blocked_dy, corner2.x - start2.x, corner2.y - start2.y,
                   onward.x - corner2.x, onward.y - corner2.y)) {
      return;
    }
    if (!segment_free(grid, start2, corner2, corner_cutting)) return;
    best = through;
    best_corner = c;
  };
  // Pixels no path shorter than the best so far can touch are left out, and
  // so everything behind them: along a ray from the start, |start p| +
  // |p goal| never decreases. The bound: distances to the pixel's square.
  const auto to_square = [](const Point& p2, std::int64_t x, std::int64_t y) {
    const std::int64_t dx = std::max<std::int64_t>({0, 2 * x - p2.x, p2.x - 2 * x - 2});
    const std::int64_t dy = std::max<std::int64_t>({0, 2 * y - p2.y, p2.y - 2 * y - 2});
    return std::sqrt(static_cast<double>(dx * dx + dy * dy)) / 2;
  };
  VisibleRegionScan scan(grid);
  const bool scanned = scan.for_each_corner(
      start2,
      [&](std::int64_t i, std::int64_t j) {
        const std::uint32_t c =
            corner_at[static_cast<std::size_t>(j) * corner_stride + static_cast<std::size_t>(i)];
        if (c != AnyAngleGraph::kNoCorner) consider(c);
      },
      [&](std::int64_t x, std::int64_t y) {
        return to_square(start2, x, y) + to_square(goal2, x, y) <= best;
      },
      region_budget(graph));
  if (!scanned) {
    for (std::uint32_t c = 0; c < corners.size(); ++c) consider(c);
  }
  if (best_corner == AnyAngleGraph::kNoCorner) return std::nullopt;

  AnyAnglePath path;
  path.length = best;
  path.points.push_back(centre(start));
  path.pixels.push_back(start);
  for (std::uint32_t c = best_corner; c != AnyAngleGoalTable::kGoal; c = table.next(c)) {
    path.points.push_back({corners[c].x2 / 2.0, corners[c].y2 / 2.0});
    path.pixels.push_back(pixel_at_corner(graph, corners[c]));
  }
  path.points.push_back(centre(goal));
  path.pixels.push_back(goal);
  return path;
}

}  // namespace pathcore
