// A goal's first any-angle call answers from AnyAngleGoalTable::build_toward
// (A* from the goal toward its start) and later calls from the complete
// table (Dijkstra): the project promises the same answer either way, bit for
// bit. Checked on thousands of small random masks, half of them symmetric
// (mirrored or rotated, where shortest ways tie), with pinch patterns, both
// corner rules and agent clearances; the distances the search settles are
// checked against the complete table's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/any_angle.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

// Blocked (0) or area 1 cells.
using Cells = std::vector<std::uint8_t>;

// A random mask, made symmetric by one of seven mirrorings or rotations on
// most rounds: ties between mirror-image shortest paths everywhere.
Mask tie_heavy_mask(std::mt19937_64& rng, int round) {
  std::uniform_int_distribution<std::uint32_t> side(2, 18);
  std::uint32_t w = side(rng);
  std::uint32_t h = side(rng);
  const int symmetry = round % 8;  // 0: none
  if (symmetry == 5 || symmetry == 6) h = w;  // transposes need a square
  const double blocked_ratio = std::uniform_real_distribution<double>(0.05, 0.45)(rng);
  std::bernoulli_distribution blocked(blocked_ratio);
  std::bernoulli_distribution checkerboard(round % 3 == 0 ? 0.3 : 0.0);
  Cells cells(std::size_t{w} * h);
  for (std::uint32_t y = 0; y < h; ++y) {
    for (std::uint32_t x = 0; x < w; ++x) {
      // Some pixels follow a checkerboard: pinch points galore.
      const bool wall = checkerboard(rng) ? (x + y) % 2 == 0 : blocked(rng);
      cells[std::size_t{y} * w + x] = wall ? 0 : 1;
    }
  }
  const auto at = [&](std::uint32_t x, std::uint32_t y) -> std::uint8_t& {
    return cells[std::size_t{y} * w + x];
  };
  for (std::uint32_t y = 0; y < h; ++y) {
    for (std::uint32_t x = 0; x < w; ++x) {
      switch (symmetry) {
        case 1:  // left-right mirror
          if (x >= (w + 1) / 2) at(x, y) = at(w - 1 - x, y);
          break;
        case 2:  // top-bottom mirror
          if (y >= (h + 1) / 2) at(x, y) = at(x, h - 1 - y);
          break;
        case 3:  // both mirrors
          if (x >= (w + 1) / 2 || y >= (h + 1) / 2) {
            at(x, y) = at(std::min(x, w - 1 - x), std::min(y, h - 1 - y));
          }
          break;
        case 4:  // half turn
          if (y * w + x >= (w * h + 1) / 2) at(x, y) = at(w - 1 - x, h - 1 - y);
          break;
        case 5:  // main diagonal
          if (x > y) at(x, y) = at(y, x);
          break;
        case 6:  // anti-diagonal
          if (x + y >= w) at(x, y) = at(w - 1 - y, w - 1 - x);
          break;
        case 7:  // periodic: a 3x3 tile repeated
          if (x >= 3 || y >= 3) at(x, y) = at(x % 3, y % 3);
          break;
        default:
          break;
      }
    }
  }
  return Mask(w, h, std::move(cells));
}

constexpr double kClearances[] = {0, 0.75, 1, 1.5};

TEST(AnyAngleCold, SearchTowardAStartAnswersExactlyAsTheCompleteTable) {
  std::mt19937_64 rng(2121);
  int compared = 0;
  int found = 0;
  int settled_differently = 0;  // distances that differ in the last bits
  int partial = 0;  // searches that stopped before settling every corner
  for (int round = 0; round < 3000; ++round) {
    const Mask drawn = tie_heavy_mask(rng, round);
    const double clearance = round % 4 == 3 ? kClearances[(round / 4) % std::size(kClearances)] : 0;
    const Mask mask = clearance > 0 ? UsableMask(drawn, kAllAreas, clearance).mask() : drawn;
    const bool corner_cutting = (round / 2) % 2 == 1;
    const AnyAngleGraph graph = AnyAngleGraph::build(mask, kAllAreas, corner_cutting);
    std::vector<Point> walkable;
    for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
      for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
        if (mask.walkable({x, y}, kAllAreas)) walkable.push_back({x, y});
      }
    }
    const auto end_point = [&] {
      // Mostly walkable ends; now and then any pixel (no path).
      if (walkable.empty() || rng() % 8 == 0) return pathtest::random_point(rng, mask);
      return walkable[rng() % walkable.size()];
    };
    for (int g = 0; g < 2; ++g) {
      const Point goal = end_point();
      const AnyAngleGoalTable complete = AnyAngleGoalTable::build(graph, goal);
      ASSERT_TRUE(complete.complete());
      for (int s = 0; s < 4; ++s) {
        // Mirror-image starts of mirror-image goals tie most often.
        const Point start = s == 3 ? Point{static_cast<std::int32_t>(mask.width()) - 1 - goal.x,
                                           static_cast<std::int32_t>(mask.height()) - 1 - goal.y}
                                   : end_point();
        const std::string context =
            "round " + std::to_string(round) + " cut " + std::to_string(corner_cutting) +
            " clearance " + std::to_string(clearance) + " start " + std::to_string(start.x) + "," +
            std::to_string(start.y) + " goal " + std::to_string(goal.x) + "," +
            std::to_string(goal.y);
        const AnyAngleGoalTable toward = AnyAngleGoalTable::build_toward(graph, goal, start);
        partial += toward.complete() ? 0 : 1;
        // Whatever the search settled has the complete table's distance.
        for (std::uint32_t c = 0; c < graph.corner_count(); ++c) {
          const double searched = toward.distance(c);
          if (!std::isfinite(searched)) continue;
          const double full = complete.distance(c);
          ASSERT_NEAR(searched, full, 1e-12 * full) << context << " corner " << c;
          settled_differently += searched != full ? 1 : 0;
        }
        const std::optional<AnyAnglePath> warm = find_any_angle_path(graph, complete, start);
        const std::optional<AnyAnglePath> cold = find_any_angle_path(graph, toward, start);
        ++compared;
        ASSERT_EQ(cold.has_value(), warm.has_value()) << context;
        if (!warm) continue;
        ++found;
        ASSERT_EQ(cold->points, warm->points) << context;
        ASSERT_EQ(cold->pixels, warm->pixels) << context;
        // Bit for bit, not merely close.
        ASSERT_EQ(cold->length, warm->length) << context;
      }
    }
  }
  // Both outcomes are well represented.
  EXPECT_GT(found, compared / 3);
  EXPECT_LT(found, compared);
  // Most searches stop early (else this checks little).
  EXPECT_GT(partial, compared / 2);
  // Informational: how often the two searches summed a distance differently.
  RecordProperty("distances_settled_differently", settled_differently);
}

// The search toward a start may serve only that start: another start could
// need corners it never settled.
TEST(AnyAngleCold, ATableTowardAStartRefusesAnotherStart) {
  // Two blocks in a corridor; the goal left of the first, the start right of
  // it: the second block's corners are never needed.
  const Mask mask(12, 3, Cells{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  //
                               1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1,  //
                               1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  const AnyAngleGraph graph = AnyAngleGraph::build(mask, kAllAreas, false);
  const AnyAngleGoalTable toward = AnyAngleGoalTable::build_toward(graph, {0, 1}, {5, 1});
  EXPECT_FALSE(toward.complete());
  EXPECT_EQ(toward.start(), (Point{5, 1}));
  EXPECT_TRUE(find_any_angle_path(graph, toward, {5, 1}).has_value());
  EXPECT_THROW((void)find_any_angle_path(graph, toward, {5, 0}), InvalidArgument);
  EXPECT_THROW((void)AnyAngleGoalTable::build_toward(graph, {0, 1}, {12, 1}), InvalidArgument);
  EXPECT_THROW((void)AnyAngleGoalTable::build_toward(graph, {0, 3}, {5, 1}), InvalidArgument);
  // A start the goal cannot reach: the search settles everything it reaches,
  // which is the complete table, good for any start.
  const Mask walled(5, 1, Cells{1, 1, 0, 1, 1});
  const AnyAngleGraph walled_graph = AnyAngleGraph::build(walled, kAllAreas, false);
  const AnyAngleGoalTable exhausted = AnyAngleGoalTable::build_toward(walled_graph, {0, 0}, {4, 0});
  EXPECT_TRUE(exhausted.complete());
  EXPECT_FALSE(find_any_angle_path(walled_graph, exhausted, {4, 0}).has_value());
  EXPECT_TRUE(find_any_angle_path(walled_graph, exhausted, {1, 0}).has_value());
}

// Where two shortest paths tie exactly (a block in the middle of a square
// room, start and goal on its axis), the answer is the one through the
// lower-index corner, from either table.
TEST(AnyAngleCold, TiesGoThroughTheLowestIndexCorner) {
  Cells cells(7 * 7, 1);
  cells[3 * 7 + 3] = 0;
  const Mask mask(7, 7, std::move(cells));
  const AnyAngleGraph graph = AnyAngleGraph::build(mask, kAllAreas, false);
  const AnyAngleGoalTable complete = AnyAngleGoalTable::build(graph, {3, 6});
  const AnyAngleGoalTable toward = AnyAngleGoalTable::build_toward(graph, {3, 6}, {3, 0});
  for (const AnyAngleGoalTable* table : {&complete, &toward}) {
    const std::optional<AnyAnglePath> path = find_any_angle_path(graph, *table, {3, 0});
    ASSERT_TRUE(path.has_value());
    // Corners are numbered row by row: (3, 3) before (4, 3), then (3, 4).
    EXPECT_EQ(path->points,
              (std::vector<PointD>{{3.5, 0.5}, {3, 3}, {3, 4}, {3.5, 6.5}}));
  }
}

}  // namespace
}  // namespace pathcore
