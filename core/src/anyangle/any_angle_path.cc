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
  if (!table.complete() && start != table.start()) {
    throw InvalidArgument("any-angle goal table built toward another start");
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

  // The shortest way: min over the visible corners c of |start c| + d(c).
  // Every visible corner within the tolerance of the best so far is kept;
  // the line test, the expensive part, only for those.
  const std::vector<AnyAngleGraph::Corner>& corners = graph.corners();
  const std::vector<std::uint32_t>& corner_at = graph.corner_at();
  const std::size_t corner_stride = std::size_t{graph.width()} + 1;
  const auto point2 = [&](std::uint32_t c) { return Point{corners[c].x2, corners[c].y2}; };
  constexpr double kSlack = 1 + kAnyAnglePathTolerance;
  double best = std::numeric_limits<double>::infinity();
  struct FirstCorner {
    std::uint32_t corner;
    double through;
  };
  std::vector<FirstCorner> first_corners;
  const auto consider = [&](std::uint32_t c) {
    const double rest = table.distance(c);
    if (!std::isfinite(rest) || rest > best * kSlack) return;  // unreachable, or too long
    const Point corner2 = point2(c);
    const double through = pixel_distance(start2, corner2) + rest;
    if (through > best * kSlack) return;
    if (!taut_at(corners[c].blocked_dx, corners[c].blocked_dy, corner2.x - start2.x,
                 corner2.y - start2.y)) {
      return;
    }
    // (The region scan visits a corner once per kept pixel around it.)
    for (const FirstCorner& kept : first_corners) {
      if (kept.corner == c) return;
    }
    if (!segment_free(grid, start2, corner2, corner_cutting)) return;
    first_corners.push_back({c, through});
    best = std::min(best, through);
  };
  // Pixels no path within the tolerance of the best so far can touch are
  // left out, and so everything behind them: along a ray from the start,
  // |start p| + |p goal| never decreases. The bound: distances to the
  // pixel's square.
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
        return to_square(start2, x, y) + to_square(goal2, x, y) <= best * kSlack;
      },
      region_budget(graph));
  if (!scanned) {
    for (std::uint32_t c = 0; c < corners.size(); ++c) consider(c);
  }
  if (first_corners.empty()) return std::nullopt;

  // The canonical way within the tolerance: at each step the lowest index
  // (the goal before every corner) whose way on keeps the whole path within
  // best * kSlack. Only the order of corner indices and the tolerance
  // decide, not how the distances were summed, so tables that differ in the
  // last bits or in which of tying ways they recorded give the same path.
  const double limit = best * kSlack;
  std::uint32_t at = AnyAngleGraph::kNoCorner;
  for (const FirstCorner& candidate : first_corners) {
    if (candidate.through <= limit && candidate.corner < at) at = candidate.corner;
  }
  AnyAnglePath path;
  path.points.push_back(centre(start));
  path.pixels.push_back(start);
  double walked = pixel_distance(start2, point2(at));
  for (std::size_t steps = 0;; ++steps) {
    path.points.push_back({corners[at].x2 / 2.0, corners[at].y2 / 2.0});
    path.pixels.push_back(pixel_at_corner(graph, corners[at]));
    const Point from = point2(at);
    const double to_goal = pixel_distance(from, goal2);
    // The goal straight away, when it is within the limit and seen.
    if (walked + to_goal <= limit && segment_free(grid, from, goal2, corner_cutting)) {
      walked += to_goal;
      break;
    }
    // Else the lowest-index neighbour within the limit. Rounding may leave
    // none within it where the way taken so far was right at the limit:
    // then the one that keeps the way shortest (the goal included).
    std::uint32_t chosen = AnyAngleGraph::kNoCorner;
    std::uint32_t shortest = AnyAngleGraph::kNoCorner;
    double shortest_total = std::numeric_limits<double>::infinity();
    for (const std::uint32_t* n = graph.neighbours_begin(at); n != graph.neighbours_end(at); ++n) {
      const double total = walked + pixel_distance(from, point2(*n)) + table.distance(*n);
      if (total <= limit && *n < chosen) chosen = *n;
      if (total < shortest_total || (total == shortest_total && *n < shortest)) {
        shortest_total = total;
        shortest = *n;
      }
    }
    if (chosen == AnyAngleGraph::kNoCorner) {
      if (walked + to_goal <= shortest_total && segment_free(grid, from, goal2, corner_cutting)) {
        walked += to_goal;
        break;
      }
      chosen = shortest;
    }
    // Each step walks at least a pixel and the way left shrinks with it, so
    // this ends; the bound only guards against a table from another graph.
    if (chosen == AnyAngleGraph::kNoCorner || steps > corners.size()) {
      throw InvalidArgument("any-angle goal table does not lead to its goal");
    }
    walked += pixel_distance(from, point2(chosen));
    at = chosen;
  }
  path.points.push_back(centre(goal));
  path.pixels.push_back(goal);
  path.length = walked;
  return path;
}

}  // namespace pathcore
