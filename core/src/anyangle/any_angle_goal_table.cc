// AnyAngleGoalTable::build: Dijkstra from the goal over the graph, seeded with
// the corners the goal's centre sees.
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "anyangle/blocked_grid.h"
#include "anyangle/line_of_sight.h"
#include "anyangle/region_budget.h"
#include "anyangle/visible_region.h"
#include "mask/interrupt_check.h"
#include "pathcore/any_angle.h"

namespace pathcore {

AnyAngleGoalTable AnyAngleGoalTable::build(const AnyAngleGraph& graph, Point goal,
                                           const std::function<bool()>& interrupt) {
  if (goal.x < 0 || goal.y < 0 || static_cast<std::uint32_t>(goal.x) >= graph.width() ||
      static_cast<std::uint32_t>(goal.y) >= graph.height()) {
    throw InvalidArgument("any-angle goal outside the mask");
  }
  InterruptCheck check(interrupt);
  AnyAngleGoalTable table;
  table.goal_ = goal;
  table.goal_walkable_ = graph.walkable(goal);
  const std::size_t count = graph.corner_count();
  constexpr double kUnreached = std::numeric_limits<double>::infinity();
  table.distance_.assign(count, kUnreached);
  table.next_.assign(count, kGoal);
  if (!table.goal_walkable_) return table;

  const BlockedGrid grid(graph.padded_blocked(), graph.width(), graph.height());
  const std::vector<AnyAngleGraph::Corner>& corners = graph.corners();
  const std::vector<std::uint32_t>& corner_at = graph.corner_at();
  const std::size_t corner_stride = std::size_t{graph.width()} + 1;
  const Point goal2{2 * goal.x + 1, 2 * goal.y + 1};

  using Entry = std::pair<double, std::uint32_t>;  // (distance, corner)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
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
    if (!segment_free(grid, goal2, corner2, graph.allow_corner_cutting())) return;
    table.distance_[c] = pixel_distance(goal2, corner2);
    open.emplace(table.distance_[c], c);
  };
  VisibleRegionScan scan(grid);
  const bool scanned = scan.for_each_corner(
      goal2,
      [&](std::int64_t i, std::int64_t j) {
        const std::uint32_t c =
            corner_at[static_cast<std::size_t>(j) * corner_stride + static_cast<std::size_t>(i)];
        if (c != AnyAngleGraph::kNoCorner) seed(c);
      },
      [](std::int64_t, std::int64_t) { return true; }, region_budget(graph), &check);
  if (!scanned) {
    for (std::uint32_t c = 0; c < count; ++c) seed(c);
  }

  std::vector<bool> settled(count, false);
  while (!open.empty()) {
    const auto [distance, u] = open.top();
    open.pop();
    if (settled[u] || distance > table.distance_[u]) continue;
    settled[u] = true;
    const AnyAngleGraph::Corner from = corners[u];
    // Where the way from u goes next: only neighbours whose segment into u
    // bends there tautly can improve through u (else a path cutting the bend
    // beside u is shorter, see taut_bend).
    const Point onward = table.next_[u] == kGoal
                             ? goal2
                             : Point{corners[table.next_[u]].x2, corners[table.next_[u]].y2};
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
        table.next_[v] = u;
        open.emplace(through, v);
      }
    }
  }
  return table;
}

std::size_t AnyAngleGoalTable::memory_bytes() const {
  return sizeof(*this) + distance_.capacity() * sizeof(double) +
         next_.capacity() * sizeof(std::uint32_t);
}

}  // namespace pathcore
