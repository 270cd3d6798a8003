// The field to the nearest of several goals (FieldBuilder over a list of
// goals) against a brute force written here: one textbook Dijkstra per goal
// with exact (straight, diagonal) cost pairs, the minimum over the goals.
// Every pixel's cost and goal index (the lowest index at the minimum), and
// the path traced from it: valid, as cheap as the minimum, ending at that
// goal. Random masks, area costs, both connectivities, corner cutting,
// agent clearance (on the usable mask, as the server fills).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "support/invariants.h"
#include "support/random_mask.h"
#include "support/reference.h"

namespace pathcore {
namespace {

using ::testing::HasSubstr;

// An exact grid cost: straight + diagonal * sqrt 2.
struct Pair {
  std::int64_t straight = 0;
  std::int64_t diagonal = 0;
  [[nodiscard]] long double value() const {
    return static_cast<long double>(straight) +
           static_cast<long double>(diagonal) * std::sqrt(2.0L);
  }
  friend bool operator==(const Pair&, const Pair&) = default;
};

bool open(const Mask& mask, const FieldOptions& options, int x, int y) {
  if (x < 0 || y < 0 || x >= static_cast<int>(mask.width()) ||
      y >= static_cast<int>(mask.height())) {
    return false;
  }
  const std::uint8_t area = mask.area({x, y});
  return area != 0 && ((options.enabled >> area) & 1U) != 0;
}

// Cost from every pixel to goal; nullopt where it cannot reach it.
std::vector<std::optional<Pair>> brute_force(const Mask& mask, const FieldOptions& options,
                                             Point goal) {
  const int w = static_cast<int>(mask.width());
  const int h = static_cast<int>(mask.height());
  std::vector<std::optional<Pair>> best(static_cast<std::size_t>(w * h));
  if (!open(mask, options, goal.x, goal.y)) return best;
  using Item = std::pair<long double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  std::vector<bool> done(best.size(), false);
  best[static_cast<std::size_t>(goal.y * w + goal.x)] = Pair{};
  queue.push({0.0L, goal.y * w + goal.x});
  while (!queue.empty()) {
    const int u = queue.top().second;
    queue.pop();
    if (done[static_cast<std::size_t>(u)]) continue;
    done[static_cast<std::size_t>(u)] = true;
    const int ux = u % w;
    const int uy = u / w;
    // Stepping from a neighbour onto u costs u's area cost.
    const std::int64_t c = options.area_costs[mask.area({ux, uy})];
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0) continue;
        const bool diagonal = dx != 0 && dy != 0;
        if (diagonal && options.connectivity == Connectivity::kFour) continue;
        const int vx = ux + dx;
        const int vy = uy + dy;
        if (!open(mask, options, vx, vy)) continue;
        if (diagonal && !options.allow_corner_cutting &&
            (!open(mask, options, ux + dx, uy) || !open(mask, options, ux, uy + dy))) {
          continue;
        }
        Pair candidate = *best[static_cast<std::size_t>(u)];
        (diagonal ? candidate.diagonal : candidate.straight) += c;
        auto& slot = best[static_cast<std::size_t>(vy * w + vx)];
        if (!slot || candidate.value() < slot->value()) {
          slot = candidate;
          queue.push({candidate.value(), vy * w + vx});
        }
      }
    }
  }
  return best;
}

struct Rules {
  Connectivity connectivity;
  bool corner_cutting;
};
constexpr Rules kRules[] = {
    {Connectivity::kFour, false}, {Connectivity::kEight, false}, {Connectivity::kEight, true}};

// Checks field (to goals) and the paths traced on it from every pixel.
void check_field(const Mask& mask, const std::vector<Point>& goals, const FieldOptions& options,
                 const std::string& what) {
  const FieldOptions normal = normalized(options);
  const DistanceField field = compute_distance_field(mask, goals, options);
  std::vector<std::vector<std::optional<Pair>>> per_goal;
  for (const Point g : goals) per_goal.push_back(brute_force(mask, normal, g));
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      const Point p{x, y};
      const std::size_t i = mask.index(p);
      std::optional<Pair> best;
      std::uint32_t lowest = 0;
      for (std::size_t j = 0; j < goals.size(); ++j) {
        const auto& d = per_goal[j][i];
        if (d && (!best || d->value() < best->value())) {
          best = d;
          lowest = static_cast<std::uint32_t>(j);
        }
      }
      const std::string where = what + " at " + pathtest::text(p);
      ASSERT_EQ(field.reachable(p), best.has_value()) << where;
      if (!best) continue;
      const GridCost got = field.exact(p);
      ASSERT_EQ(got.straight, best->straight) << where;
      ASSERT_EQ(got.diagonal, best->diagonal) << where;
      ASSERT_EQ(field.goal_index(p), lowest) << where;

      for (const Smoothing smoothing : {Smoothing::kNone, Smoothing::kSimplify,
                                        Smoothing::kBeautify}) {
        FindPathOptions find;
        find.field = options;
        find.smoothing = smoothing;
        const PathResult result = path_from_field(mask, field, p, find);
        ASSERT_TRUE(result.found) << where;
        EXPECT_EQ(result.goal_index, lowest) << where;
        EXPECT_EQ(result.goal, goals[lowest]) << where;
        ASSERT_FALSE(result.points.empty()) << where;
        EXPECT_EQ(result.points.back(), goals[lowest]) << where;
        // The path's own checks against a one-goal reference to that goal,
        // whose distance at p is the minimum.
        const std::vector<double> reference = pathtest::reference_distances(
            mask, goals[lowest], pathtest::reference_grid_for(normal));
        EXPECT_NEAR(reference[i], static_cast<double>(best->value()), 1e-9) << where;
        const std::string problem =
            pathtest::path_answer_problem(mask, p, goals[lowest], find, reference, result);
        EXPECT_EQ(problem, "") << where << " smoothing " << static_cast<int>(smoothing);
      }
    }
  }
}

TEST(MultiGoalField, MatchesBruteForceOnRandomMasks) {
  std::mt19937_64 rng(20261129);
  for (int round = 0; round < 90; ++round) {
    const auto width = static_cast<std::uint32_t>(4 + rng() % 17);
    const auto height = static_cast<std::uint32_t>(4 + rng() % 13);
    const int areas = 1 + static_cast<int>(rng() % 3);
    const Mask mask = pathtest::random_mask(rng, width, height, 0.15 + 0.1 * (rng() % 3), areas);
    const Rules rules = kRules[round % 3];
    FieldOptions options;
    options.connectivity = rules.connectivity;
    options.allow_corner_cutting = rules.corner_cutting;
    if (round % 2 == 1) {
      for (int a = 1; a <= areas; ++a) {
        options.area_costs[static_cast<std::size_t>(a)] = static_cast<std::uint8_t>(1 + rng() % 4);
      }
    }
    if (round % 5 == 4) options.enabled = 0b110;  // area 1 disabled
    std::vector<Point> goals;
    const std::size_t count = 2 + rng() % 6;
    for (std::size_t j = 0; j < count; ++j) {
      goals.push_back(pathtest::random_point(rng, mask));
      if (j > 0 && rng() % 6 == 0) goals.back() = goals[rng() % j];  // a repeated goal
    }
    check_field(mask, goals, options, "round " + std::to_string(round));
  }
}

TEST(MultiGoalField, MatchesBruteForceOnUsablePixels) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 15; ++round) {
    const Mask mask = pathtest::random_mask(rng, 18, 14, 0.1, 2);
    const Rules rules = kRules[round % 3];
    FieldOptions options;
    options.connectivity = rules.connectivity;
    options.allow_corner_cutting = rules.corner_cutting;
    const UsableMask usable(mask, kAllAreas, 1.0 + 0.25 * (round % 3));
    std::vector<Point> goals;
    for (int j = 0; j < 4; ++j) goals.push_back(pathtest::random_point(rng, mask));
    check_field(usable.mask(), goals, options, "clearance round " + std::to_string(round));
  }
}

// Equal costs go to the lowest index: the same two goals, either order.
TEST(MultiGoalField, TiesGoToTheLowestIndex) {
  const Mask mask(9, 1, std::vector<std::uint8_t>(9, 1));
  const Point start{4, 0};
  for (const bool swapped : {false, true}) {
    const std::vector<Point> goals =
        swapped ? std::vector<Point>{{8, 0}, {0, 0}} : std::vector<Point>{{0, 0}, {8, 0}};
    const DistanceField field = compute_distance_field(mask, goals, FieldOptions{});
    EXPECT_EQ(field.goal_index(start), 0U);
    FindPathOptions find;
    const PathResult result = path_from_field(mask, field, start, find);
    ASSERT_TRUE(result.found);
    EXPECT_EQ(result.points.back(), goals[0]);
    EXPECT_EQ(result.goal_index, 0U);
  }
}

TEST(MultiGoalField, OneGoalIsTheOneGoalField) {
  std::mt19937_64 rng(3);
  const Mask mask = pathtest::random_mask(rng, 30, 20, 0.25, 1);
  const Point goal = pathtest::random_point(rng, mask);
  for (const Rules rules : kRules) {
    FieldOptions options;
    options.connectivity = rules.connectivity;
    options.allow_corner_cutting = rules.corner_cutting;
    const std::vector<Point> goals{goal};
    const DistanceField many = compute_distance_field(mask, goals, options);
    const DistanceField one = compute_distance_field(mask, goal, options);
    EXPECT_FALSE(many.several_goals());
    for (std::int32_t y = 0; y < 20; ++y) {
      for (std::int32_t x = 0; x < 30; ++x) {
        ASSERT_EQ(many.cost_at({x, y}), one.cost_at({x, y}));
        if (one.reachable({x, y})) {
          EXPECT_EQ(trace(mask, many, {x, y}, true), trace(mask, one, {x, y}, true));
        }
      }
    }
  }
}

TEST(MultiGoalField, CountsItsLabelsInMemoryBytes) {
  const Mask mask(64, 32, std::vector<std::uint8_t>(64 * 32, 1));
  const std::vector<Point> goals{{1, 1}, {60, 30}, {30, 10}};
  const DistanceField field = compute_distance_field(mask, goals, FieldOptions{});
  EXPECT_TRUE(field.several_goals());
  EXPECT_EQ(field.goal_count(), 3U);
  // 8 bytes of cost and 2 of goal index per pixel (with the border).
  EXPECT_GE(field.memory_bytes(), std::size_t{66 * 34} * 10);
}

TEST(MultiGoalField, RejectsBadGoalLists) {
  const Mask mask(8, 8, std::vector<std::uint8_t>(64, 1));
  EXPECT_THAT([&] { (void)FieldBuilder(mask, std::span<const Point>{}, FieldOptions{}); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("goals")));
  const std::vector<Point> outside{{1, 1}, {8, 2}};
  EXPECT_THAT([&] { (void)FieldBuilder(mask, outside, FieldOptions{}); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("goals[1]")));
}

// Unreachable and blocked goals are no sources; a start reaching none is unreachable.
TEST(MultiGoalField, BlockedGoalsAreSkipped) {
  // Two rooms: x 0..3 and x 5..8, a wall at x 4.
  std::vector<std::uint8_t> areas(9 * 3, 1);
  for (int y = 0; y < 3; ++y) areas[static_cast<std::size_t>(y * 9 + 4)] = 0;
  const Mask mask(9, 3, areas);
  const std::vector<Point> goals{{4, 1}, {7, 1}};
  const DistanceField field = compute_distance_field(mask, goals, FieldOptions{});
  EXPECT_FALSE(field.reachable({1, 1}));
  ASSERT_TRUE(field.reachable({5, 0}));
  EXPECT_EQ(field.goal_index({5, 0}), 1U);
  EXPECT_EQ(field.exact({5, 0}).straight, 3U);
}

// An interrupted fill carries on where it stopped: the same field.
TEST(MultiGoalField, InterruptedFillResumes) {
  std::mt19937_64 rng(11);
  const Mask mask = pathtest::random_mask(rng, 300, 200, 0.2, 2);
  std::vector<Point> goals;
  for (int j = 0; j < 8; ++j) goals.push_back(pathtest::random_point(rng, mask));
  FieldOptions options;
  options.connectivity = Connectivity::kEight;
  const DistanceField whole = compute_distance_field(mask, goals, options);
  FieldBuilder builder(mask, goals, options);
  int calls = 0;
  builder.set_interrupt([&] { return ++calls % 2 == 1; });
  int stops = 0;
  for (;;) {
    try {
      builder.finish();
      break;
    } catch (const Interrupted&) {
      ++stops;
    }
  }
  EXPECT_GT(stops, 0);
  const DistanceField resumed = builder.take();
  for (std::int32_t y = 0; y < 200; ++y) {
    for (std::int32_t x = 0; x < 300; ++x) {
      ASSERT_EQ(resumed.cost_at({x, y}), whole.cost_at({x, y}));
      if (whole.reachable({x, y})) {
        ASSERT_EQ(resumed.goal_index({x, y}), whole.goal_index({x, y}));
      }
    }
  }
}

}  // namespace
}  // namespace pathcore
