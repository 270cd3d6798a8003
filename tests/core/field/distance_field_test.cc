#include "pathcore/distance_field.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/random_mask.h"
#include "support/reference.h"

namespace pathcore {
namespace {

using Distance = DistanceField::Distance;

FieldOptions four(AreaSet enabled = kAllAreas) {
  FieldOptions options;
  options.enabled = enabled;
  options.connectivity = Connectivity::kFour;
  return options;
}

// A random request bit set over areas 1..area_count, sometimes 0 (= all).
AreaSet random_enabled(std::mt19937_64& rng, int area_count) {
  if (std::bernoulli_distribution(0.25)(rng)) {
    return effective_areas(0);
  }
  std::uniform_int_distribution<std::uint64_t> bits(0, (std::uint64_t{1} << (area_count + 1)) - 1);
  return effective_areas(bits(rng));
}

// A walkable pixel when there is one (most of the time), else any pixel.
Point random_goal(std::mt19937_64& rng, const Mask& mask, AreaSet enabled) {
  Point p = pathtest::random_point(rng, mask);
  if (std::bernoulli_distribution(0.8)(rng)) {
    for (int attempt = 0; attempt < 64 && !mask.walkable(p, enabled); ++attempt) {
      p = pathtest::random_point(rng, mask);
    }
  }
  return p;
}

std::string describe(const Mask& mask, Point goal, AreaSet enabled) {
  return std::to_string(mask.width()) + "x" + std::to_string(mask.height()) + " goal (" +
         std::to_string(goal.x) + "," + std::to_string(goal.y) + ") enabled " +
         std::to_string(enabled);
}

TEST(DistanceField, MatchesBruteForceDijkstraOnRandomMasks) {
  std::mt19937_64 rng(0x5eed0001);
  std::uniform_int_distribution<std::uint32_t> size(1, 64);
  std::uniform_real_distribution<double> obstacles(0.0, 0.6);
  std::uniform_int_distribution<int> areas(1, 4);
  int reached_somewhere = 0;
  for (int round = 0; round < 3000; ++round) {
    const int area_count = areas(rng);
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), area_count);
    const AreaSet enabled = random_enabled(rng, area_count);
    const Point goal = random_goal(rng, mask, enabled);

    const DistanceField field = compute_distance_field(mask, goal, four(enabled));
    pathtest::ReferenceGrid grid;
    grid.enabled = enabled;
    const std::vector<double> expected = pathtest::reference_distances(mask, goal, grid);

    int reached = 0;
    for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
      for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
        const double want = expected[mask.index({x, y})];
        const Distance got = field.at({x, y});
        const bool ok = want == pathtest::kNoPath ? got == DistanceField::kUnreachable
                                                  : static_cast<double>(got) == want;
        ASSERT_TRUE(ok) << "round " << round << ", " << describe(mask, goal, enabled) << ": at ("
                        << x << "," << y << ") got " << got << ", Dijkstra says " << want;
        reached += got != DistanceField::kUnreachable && got > 0 ? 1 : 0;
      }
    }
    reached_somewhere += reached > 0 ? 1 : 0;
  }
  // The generator must exercise real fills, not just blocked goals.
  EXPECT_GT(reached_somewhere, 2000);
}

TEST(DistanceField, OpenFieldIsTheManhattanDistance) {
  const Mask mask(300, 200, std::vector<std::uint8_t>(300 * 200, 1));
  const Point goal{123, 45};
  const DistanceField field = compute_distance_field(mask, goal, four());
  for (std::int32_t y = 0; y < 200; ++y) {
    for (std::int32_t x = 0; x < 300; ++x) {
      ASSERT_EQ(field.at({x, y}),
                static_cast<Distance>(std::abs(x - goal.x) + std::abs(y - goal.y)));
    }
  }
  EXPECT_EQ(field.at({-1, 0}), DistanceField::kUnreachable);
  EXPECT_EQ(field.at({0, 200}), DistanceField::kUnreachable);
  EXPECT_FALSE(field.reachable({300, 0}));
}

// A one-pixel corridor snaking back and forth: the flood fill must follow it
// all the way, and the distance is the position along the snake.
TEST(DistanceField, FollowsAOnePixelSnake) {
  const std::uint32_t width = 17;
  const std::uint32_t height = 15;  // rows 0, 2, ..., 14 are corridors
  std::vector<std::uint8_t> areas(width * height, 0);
  for (std::uint32_t y = 0; y < height; y += 2) {
    for (std::uint32_t x = 0; x < width; ++x) {
      areas[y * width + x] = 1;
    }
    if (y + 1 < height) {  // the link down alternates between the right and left ends
      const std::uint32_t link = (y / 2) % 2 == 0 ? width - 1 : 0;
      areas[(y + 1) * width + link] = 1;
    }
  }
  const Mask mask(width, height, areas);
  const DistanceField field = compute_distance_field(mask, {0, 0}, four());

  // Walk the snake by hand, counting steps.
  Distance expected = 0;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(height); y += 2) {
    const bool rightward = (y / 2) % 2 == 0;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(width); ++i) {
      const std::int32_t x = rightward ? i : static_cast<std::int32_t>(width) - 1 - i;
      ASSERT_EQ(field.at({x, y}), expected) << "at (" << x << "," << y << ")";
      ++expected;
    }
    if (y + 1 < static_cast<std::int32_t>(height)) {
      ASSERT_EQ(field.at({rightward ? static_cast<std::int32_t>(width) - 1 : 0, y + 1}), expected);
      ++expected;
    }
  }
  EXPECT_EQ(field.at({5, 1}), DistanceField::kUnreachable);
}

// Fills stopped part way (run_until_settled) and resumed, on masks of
// one-pixel corridors with forks, dead ends and rooms (thin random mazes):
// every settled pixel already has its final distance, and the finished field
// is the brute-force one.
TEST(DistanceField, PartialFillsThroughCorridorsMatchBruteForce) {
  std::mt19937_64 rng(0x5eed0007);
  std::uniform_int_distribution<std::uint32_t> size(2, 48);
  std::uniform_real_distribution<double> obstacles(0.35, 0.55);
  int stops_checked = 0;
  for (int round = 0; round < 400; ++round) {
    const Mask mask = pathtest::random_mask(rng, size(rng), size(rng), obstacles(rng), 1);
    const Point goal = random_goal(rng, mask, kAllAreas);
    pathtest::ReferenceGrid grid;
    const std::vector<double> expected = pathtest::reference_distances(mask, goal, grid);
    FieldBuilder builder(mask, goal, four());
    for (int stop = 0; stop < 4; ++stop) {
      const Point p = pathtest::random_point(rng, mask);
      const bool reaches = expected[mask.index(p)] != pathtest::kNoPath;
      ASSERT_EQ(builder.run_until_settled(p), reaches)
          << "round " << round << ", " << describe(mask, goal, kAllAreas);
      for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
        for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
          if (builder.field().reachable({x, y})) {
            ASSERT_EQ(static_cast<double>(builder.field().at({x, y})), expected[mask.index({x, y})])
                << "round " << round << ", settled (" << x << "," << y << ")";
          }
        }
      }
      stops_checked += reaches ? 1 : 0;
    }
    builder.finish();
    const DistanceField field = builder.take();
    for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
      for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
        const double want = expected[mask.index({x, y})];
        const Distance got = field.at({x, y});
        ASSERT_TRUE(want == pathtest::kNoPath ? got == DistanceField::kUnreachable
                                              : static_cast<double>(got) == want)
            << "round " << round << ", " << describe(mask, goal, kAllAreas) << ": at (" << x << ","
            << y << ") got " << got << ", Dijkstra says " << want;
      }
    }
  }
  EXPECT_GT(stops_checked, 200);
}

TEST(DistanceField, OneByOneMask) {
  const Mask walkable(1, 1, {3});
  const DistanceField field = compute_distance_field(walkable, {0, 0}, four());
  EXPECT_EQ(field.at({0, 0}), 0U);
  const Mask blocked(1, 1, {0});
  EXPECT_FALSE(compute_distance_field(blocked, {0, 0}, four()).reachable({0, 0}));
}

TEST(DistanceField, UnwalkableGoalReachesNothing) {
  // Area 0 in the middle, area 2 in the corner, the rest area 1.
  const Mask mask(3, 3, {1, 1, 1, 1, 0, 1, 1, 1, 2});
  for (const auto& [goal, enabled] :
       std::vector<std::pair<Point, AreaSet>>{{{1, 1}, kAllAreas}, {{2, 2}, AreaSet{1} << 1}}) {
    const DistanceField field = compute_distance_field(mask, goal, four(enabled));
    for (std::int32_t y = 0; y < 3; ++y) {
      for (std::int32_t x = 0; x < 3; ++x) {
        EXPECT_FALSE(field.reachable({x, y})) << x << "," << y;
      }
    }
  }
}

TEST(DistanceField, DisabledAreasBlockTheFill) {
  // Two rooms of area 1 joined by a door of area 2 at (2,0).
  const Mask mask(5, 2, {1, 1, 2, 1, 1, 1, 1, 0, 1, 1});
  const DistanceField closed = compute_distance_field(mask, {0, 0}, four(AreaSet{1} << 1));
  EXPECT_EQ(closed.at({1, 1}), 2U);
  EXPECT_FALSE(closed.reachable({2, 0}));
  EXPECT_FALSE(closed.reachable({4, 1}));
  const DistanceField open =
      compute_distance_field(mask, {0, 0}, four((AreaSet{1} << 1) | (AreaSet{1} << 2)));
  EXPECT_EQ(open.at({2, 0}), 2U);
  EXPECT_EQ(open.at({4, 1}), 5U);
  // Nothing enabled: nothing walkable, and area 0 never is.
  EXPECT_FALSE(compute_distance_field(mask, {0, 0}, four(0)).reachable({0, 0}));
  EXPECT_FALSE(compute_distance_field(mask, {2, 1}, four(~AreaSet{0})).reachable({2, 1}));
}

TEST(DistanceField, KeepsItsGoalDimensionsAndOptions) {
  const Mask mask(4, 3, std::vector<std::uint8_t>(12, 1));
  const DistanceField field = compute_distance_field(mask, {3, 2}, four(~AreaSet{0}));
  EXPECT_EQ(field.width(), 4U);
  EXPECT_EQ(field.height(), 3U);
  EXPECT_EQ(field.goal(), (Point{3, 2}));
  EXPECT_EQ(field.options().enabled, kAllAreas);  // area 0 cleared
  EXPECT_EQ(field.options().connectivity, Connectivity::kFour);
  EXPECT_GE(field.memory_bytes(), 12 * sizeof(Distance));
}

TEST(DistanceField, RejectsGoalsOutsideTheMask) {
  const Mask mask(4, 3, std::vector<std::uint8_t>(12, 1));
  for (const Point goal : {Point{-1, 0}, Point{4, 0}, Point{0, 3}, Point{0, -1}}) {
    try {
      (void)compute_distance_field(mask, goal, four());
      ADD_FAILURE() << "goal " << goal.x << "," << goal.y << " accepted";
    } catch (const InvalidArgument& error) {
      EXPECT_NE(std::string(error.what()).find("goal"), std::string::npos) << error.what();
    }
  }
}

TEST(DistanceField, ConstructorRejectsAWrongBufferSize) {
  EXPECT_THROW(DistanceField(2, 2, {0, 0}, FieldOptions{}, std::vector<Distance>(3)),
               InvalidArgument);
}

}  // namespace
}  // namespace pathcore
