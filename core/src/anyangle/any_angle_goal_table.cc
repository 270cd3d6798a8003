// AnyAngleGoalTable::build and build_toward: Dijkstra (or A* toward one
// start) from the goal over the graph, seeded with the corners the goal's
// centre sees.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "anyangle/blocked_grid.h"
#include "anyangle/line_of_sight.h"
#include "anyangle/open_set.h"
#include "anyangle/region_budget.h"
#include "anyangle/visible_region.h"
#include "mask/interrupt_check.h"
#include "pathcore/any_angle.h"

namespace pathcore {
namespace {

// A* toward a start goes on until the open set's smallest estimate exceeds
// the best way found by this much (relative): more than the tolerance of
// find_any_angle_path's choice, so every corner that choice may look at is
// settled, with a wide margin for rounding.
constexpr double kSearchMargin = 100 * kAnyAnglePathTolerance;

// In the search's record of the next vertex on the way: the goal itself.
constexpr std::uint32_t kGoal = 0xFFFFFFFFU;

}  // namespace

AnyAngleGoalTable AnyAngleGoalTable::build(const AnyAngleGraph& graph, Point goal,
                                           const std::function<bool()>& interrupt) {
  return search(graph, goal, std::nullopt, interrupt);
}

AnyAngleGoalTable AnyAngleGoalTable::build_toward(const AnyAngleGraph& graph, Point goal,
                                                  Point start,
                                                  const std::function<bool()>& interrupt) {
  if (start.x < 0 || start.y < 0 || static_cast<std::uint32_t>(start.x) >= graph.width() ||
      static_cast<std::uint32_t>(start.y) >= graph.height()) {
    throw InvalidArgument("any-angle start outside the mask");
  }
  return search(graph, goal, start, interrupt);
}

AnyAngleGoalTable AnyAngleGoalTable::search(const AnyAngleGraph& graph, Point goal,
                                            const std::optional<Point>& toward,
                                            const std::function<bool()>& interrupt) {
  if (goal.x < 0 || goal.y < 0 || static_cast<std::uint32_t>(goal.x) >= graph.width() ||
      static_cast<std::uint32_t>(goal.y) >= graph.height()) {
    throw InvalidArgument("any-angle goal outside the mask");
  }
  InterruptCheck check(interrupt);
  AnyAngleGoalTable table;
  table.goal_ = goal;
  table.goal_walkable_ = graph.walkable(goal);
  table.complete_ = !toward.has_value();
  table.start_ = toward.value_or(goal);
  const std::size_t count = graph.corner_count();
  constexpr double kUnreached = std::numeric_limits<double>::infinity();
  table.distance_.assign(count, kUnreached);
  if (!table.goal_walkable_) return table;

  const BlockedGrid grid(graph.padded_blocked(), graph.width(), graph.height());
  const std::vector<AnyAngleGraph::Corner>& corners = graph.corners();
  const std::vector<std::uint32_t>& corner_at = graph.corner_at();
  const std::size_t corner_stride = std::size_t{graph.width()} + 1;
  const bool corner_cutting = graph.allow_corner_cutting();
  const Point goal2{2 * goal.x + 1, 2 * goal.y + 1};
  const auto corner_index = [&](std::int64_t i, std::int64_t j) {
    return corner_at[static_cast<std::size_t>(j) * corner_stride + static_cast<std::size_t>(i)];
  };

  // Toward a start: the corners it may see (taut there, in its visible
  // region; the line test waits until one is settled), and the best way
  // through a settled one that it does see. Nothing to search when the
  // start needs no corner: unwalkable, the goal itself, or seeing it.
  const Point start2{2 * table.start_.x + 1, 2 * table.start_.y + 1};
  enum : std::uint8_t { kNotSeen = 0, kMaybeSeen = 1 };
  std::vector<std::uint8_t> start_sees;
  double best_through_seen = kUnreached;
  if (toward) {
    if (!graph.walkable(*toward) || *toward == goal ||
        segment_free(grid, start2, goal2, corner_cutting)) {
      return table;
    }
    start_sees.assign(count, kNotSeen);
    const auto mark = [&](std::uint32_t c) {
      const AnyAngleGraph::Corner corner = corners[c];
      if (taut_at(corner.blocked_dx, corner.blocked_dy, corner.x2 - start2.x,
                  corner.y2 - start2.y)) {
        start_sees[c] = kMaybeSeen;
      }
    };
    VisibleRegionScan start_scan(grid);
    const bool start_scanned = start_scan.for_each_corner(
        start2,
        [&](std::int64_t i, std::int64_t j) {
          const std::uint32_t c = corner_index(i, j);
          if (c != AnyAngleGraph::kNoCorner) mark(c);
        },
        [](std::int64_t, std::int64_t) { return true; }, region_budget(graph), &check);
    if (!start_scanned) {
      for (std::uint32_t c = 0; c < count; ++c) mark(c);
    }
  }
  // A*'s estimate of the rest of the way (0 for the whole table: Dijkstra).
  // Straight-line distance: consistent, so a settled corner's distance is final.
  const auto to_start = [&](std::uint32_t c) {
    return toward ? pixel_distance({corners[c].x2, corners[c].y2}, start2) : 0.0;
  };

  // By distance + estimate; the next corner on the way, for tautness.
  OpenSet open;
  std::vector<std::uint32_t> next(count, kGoal);
  // The corners the goal sees start the search. Where the goal's visible
  // region is large next to the number of corners (open maps), testing
  // every corner straight away is cheaper: the region scan gives up then.
  const auto seed = [&](std::uint32_t c) {
    if (table.distance_[c] != kUnreached) return;
    const AnyAngleGraph::Corner corner = corners[c];
    const Point corner2{corner.x2, corner.y2};
    if (!taut_at(corner.blocked_dx, corner.blocked_dy, corner2.x - goal2.x, corner2.y - goal2.y)) {
      return;
    }
    check.after(16);
    if (!segment_free(grid, goal2, corner2, corner_cutting)) return;
    table.distance_[c] = pixel_distance(goal2, corner2);
    open.push(table.distance_[c] + to_start(c), c);
  };
  VisibleRegionScan scan(grid);
  const bool scanned = scan.for_each_corner(
      goal2,
      [&](std::int64_t i, std::int64_t j) {
        const std::uint32_t c = corner_index(i, j);
        if (c != AnyAngleGraph::kNoCorner) seed(c);
      },
      [](std::int64_t, std::int64_t) { return true; }, region_budget(graph), &check);
  if (!scanned) {
    for (std::uint32_t c = 0; c < count; ++c) seed(c);
  }

  std::vector<bool> settled(count, false);
  while (!open.empty()) {
    const auto [estimate, u] = open.top();
    if (estimate > best_through_seen * (1 + kSearchMargin)) break;
    open.pop();
    // An entry left behind by a later improvement: the improved one came
    // out first (the estimate is consistent) and settled u.
    if (settled[u]) continue;
    const double distance = table.distance_[u];
    settled[u] = true;
    const AnyAngleGraph::Corner from = corners[u];
    if (toward && start_sees[u] == kMaybeSeen) {
      start_sees[u] = kNotSeen;
      check.after(16);
      if (segment_free(grid, start2, {from.x2, from.y2}, corner_cutting)) {
        best_through_seen = std::min(best_through_seen, distance + to_start(u));
      }
    }
    // Where the way from u goes next: only neighbours whose segment into u
    // bends there tautly can improve through u (else a path cutting the bend
    // beside u is shorter, see taut_bend).
    const Point onward =
        next[u] == kGoal ? goal2 : Point{corners[next[u]].x2, corners[next[u]].y2};
    const std::uint32_t* end = graph.neighbours_end(u);
    check.after(static_cast<std::size_t>(end - graph.neighbours_begin(u)) + 1);
    for (const std::uint32_t* n = graph.neighbours_begin(u); n != end; ++n) {
      const std::uint32_t v = *n;
      if (settled[v]) continue;
      const Point to{corners[v].x2, corners[v].y2};
      if (!taut_bend(from.blocked_dx, from.blocked_dy, from.x2 - to.x, from.y2 - to.y,
                     onward.x - from.x2, onward.y - from.y2)) {
        continue;
      }
      const double through = distance + pixel_distance({from.x2, from.y2}, to);
      if (through < table.distance_[v]) {
        table.distance_[v] = through;
        next[v] = u;
        open.push(through + to_start(v), v);
      }
    }
  }
  // Toward a start: a search that ran out of corners settled every one the
  // goal reaches, which is the complete table. Else what is not settled is
  // not final: left out.
  if (toward && open.empty()) table.complete_ = true;
  if (!table.complete_) {
    for (std::uint32_t c = 0; c < count; ++c) {
      if (!settled[c]) table.distance_[c] = kUnreached;
    }
  }
  return table;
}

std::size_t AnyAngleGoalTable::memory_bytes() const {
  return sizeof(*this) + distance_.capacity() * sizeof(double);
}

}  // namespace pathcore
