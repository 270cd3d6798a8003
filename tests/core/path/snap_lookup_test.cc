// Snapping by lookups (pathcore/snap_lookup.h) against a brute force written
// here (a scan for the nearest walkable pixel, a textbook flood fill, a scan
// for the nearest reached pixel) and against the scanning snap_endpoints, on
// random masks of every density, areas and connectivity; far goals that need
// the ring search, ties, and bad input.
#include "pathcore/snap_lookup.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pathcore/components.h"
#include "pathcore/nearest_pixels.h"
#include "pathcore/path.h"
#include "support/random_mask.h"
#include "support/reference.h"

namespace pathcore {
namespace {

// The pixel nearest to target (Euclidean, ties to the first in row-major
// order) among those `allowed` flags, by scanning them all.
std::optional<Point> brute_nearest(const Mask& mask, const std::vector<bool>& allowed,
                                   Point target) {
  std::optional<Point> best;
  std::int64_t best_squared = 0;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      if (!allowed[static_cast<std::size_t>(y) * mask.width() + static_cast<std::size_t>(x)]) {
        continue;
      }
      const std::int64_t dx = x - target.x;
      const std::int64_t dy = y - target.y;
      if (!best || dx * dx + dy * dy < best_squared) {
        best = Point{x, y};
        best_squared = dx * dx + dy * dy;
      }
    }
  }
  return best;
}

std::vector<bool> walkable_flags(const Mask& mask, AreaSet enabled) {
  std::vector<bool> flags(mask.pixel_count());
  for (std::size_t i = 0; i < flags.size(); ++i) {
    flags[i] = ((enabled >> mask.areas()[i]) & 1U) != 0;
  }
  return flags;
}

// The tables a server caches for (mask, areas, connectivity).
struct Tables {
  Tables(const Mask& mask, AreaSet enabled, Connectivity connectivity, bool cutting)
      : walkable(mask.width(), mask.height(), [&] {
          std::vector<std::uint8_t> targets(mask.pixel_count());
          const std::vector<bool> flags = walkable_flags(mask, enabled);
          for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = flags[i] ? 1 : 0;
          return targets;
        }()),
        components(label_components(mask, {enabled, connectivity, cutting})) {}
  NearestPixels walkable;
  Components components;
};

struct Case {
  Connectivity connectivity;
  bool cutting;
  pathtest::Diagonals diagonals;  // the reference grid's reachability
};

const Case kCases[] = {
    {Connectivity::kFour, false, pathtest::Diagonals::kNone},
    {Connectivity::kEight, false, pathtest::Diagonals::kBothSidesFree},
    {Connectivity::kEight, true, pathtest::Diagonals::kAlways},
};

// The brute force's answer: start to its nearest walkable pixel, goal to the
// pixel nearest it that the flood fill from there reaches.
std::optional<SnappedEndpoints> brute_snap(const Mask& mask, AreaSet enabled, Point start,
                                           Point goal, pathtest::Diagonals diagonals) {
  const std::optional<Point> from = brute_nearest(mask, walkable_flags(mask, enabled), start);
  if (!from) return std::nullopt;
  const std::optional<Point> to =
      brute_nearest(mask, pathtest::reference_flood_fill(mask, *from, enabled, diagonals), goal);
  return SnappedEndpoints{*from, *to};
}

TEST(SnapLookup, AgreesWithABruteForceAndTheScanOnRandomMasks) {
  std::mt19937_64 rng(4242);
  int goals_moved = 0;
  int starts_moved = 0;
  int compared = 0;
  for (int round = 0; round < 240; ++round) {
    std::uniform_int_distribution<std::uint32_t> side(1, 40);
    const std::uint32_t width = side(rng);
    const std::uint32_t height = side(rng);
    const double density = std::vector<double>{0.1, 0.3, 0.45, 0.6, 0.8, 0.97}[round % 6];
    const Mask mask = pathtest::random_mask(rng, width, height, density, 3);
    const AreaSet enabled = round % 4 == 0 ? AreaSet{0b0110} : kAllAreas;  // areas 1, 2 only
    const Case& c = kCases[round % 3];
    const Tables tables(mask, enabled, c.connectivity, c.cutting);
    FieldOptions options;
    options.enabled = enabled;
    options.connectivity = c.connectivity;
    options.allow_corner_cutting = c.cutting;
    for (int query = 0; query < 12; ++query) {
      const Point start = pathtest::random_point(rng, mask);
      const Point goal = pathtest::random_point(rng, mask);
      const auto expected = brute_snap(mask, enabled, start, goal, c.diagonals);
      const auto looked_up = snap_endpoints(tables.walkable, tables.components, start, goal);
      const auto scanned = snap_endpoints(mask, options, start, goal, std::nullopt);
      ASSERT_EQ(looked_up.has_value(), expected.has_value()) << "round " << round;
      ASSERT_EQ(scanned.has_value(), expected.has_value()) << "round " << round;
      if (!expected) continue;
      EXPECT_EQ(looked_up->start, expected->start) << "round " << round;
      EXPECT_EQ(looked_up->goal, expected->goal) << "round " << round;
      EXPECT_EQ(scanned->start, expected->start) << "round " << round;
      EXPECT_EQ(scanned->goal, expected->goal) << "round " << round;
      starts_moved += expected->start != start ? 1 : 0;
      goals_moved += expected->goal != goal ? 1 : 0;
      ++compared;
    }
  }
  EXPECT_GT(compared, 2000);
  EXPECT_GT(starts_moved, 300);
  EXPECT_GT(goals_moved, 500);
}

TEST(SnapLookup, NearestReachableMatchesABruteForceFromEveryComponent) {
  // From one pixel of every component to many targets: the rings or the
  // walk of the component answer whenever the nearest walkable pixel lies
  // in another component.
  std::mt19937_64 rng(99);
  for (int round = 0; round < 30; ++round) {
    const Mask mask = pathtest::random_mask(rng, 23 + round % 7, 17 + round % 5, 0.55, 2);
    const Case& c = kCases[round % 3];
    const Tables tables(mask, kAllAreas, c.connectivity, c.cutting);
    std::vector<bool> seen_label(tables.components.count() + 1, false);
    for (std::size_t i = 0; i < mask.pixel_count(); ++i) {
      const Components::Label label = tables.components.labels()[i];
      if (label == Components::kNone || seen_label[label]) continue;
      seen_label[label] = true;
      const Point from{static_cast<std::int32_t>(i % mask.width()),
                       static_cast<std::int32_t>(i / mask.width())};
      const std::vector<bool> reached =
          pathtest::reference_flood_fill(mask, from, kAllAreas, c.diagonals);
      for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); y += 2) {
        for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); x += 3) {
          ASSERT_EQ(nearest_reachable(tables.walkable, tables.components, from, {x, y}),
                    brute_nearest(mask, reached, {x, y}))
              << "round " << round << " from (" << from.x << "," << from.y << ") to (" << x << ","
              << y << ")";
        }
      }
    }
  }
}

TEST(SnapLookup, FarGoalsAndTiesOnALargeMask) {
  // A 300x200 open mask with walled pockets: goals far from a pocket's
  // start need rings out to the pocket; symmetric pockets tie.
  std::vector<std::uint8_t> areas(300 * 200, 1);
  const auto wall_box = [&](int x0, int y0, int x1, int y1) {
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        if (x == x0 || x == x1 || y == y0 || y == y1) areas[y * 300 + x] = 0;
      }
    }
  };
  wall_box(10, 10, 20, 20);     // pocket (11..19, 11..19)
  wall_box(140, 90, 160, 110);  // pocket around the centre
  wall_box(270, 170, 290, 190);
  const Mask mask(300, 200, areas);
  for (const Case& c : kCases) {
    const Tables tables(mask, kAllAreas, c.connectivity, c.cutting);
    for (const Point start : {Point{15, 15}, Point{150, 100}, Point{280, 180}, Point{10, 10},
                              Point{0, 0}, Point{140, 100}}) {
      for (const Point goal : {Point{299, 199}, Point{150, 100}, Point{15, 15}, Point{0, 199},
                               Point{150, 0}, Point{160, 100}, Point{145, 100}}) {
        const auto expected = brute_snap(mask, kAllAreas, start, goal, c.diagonals);
        const auto looked_up = snap_endpoints(tables.walkable, tables.components, start, goal);
        ASSERT_TRUE(expected && looked_up);
        EXPECT_EQ(looked_up->start, expected->start);
        EXPECT_EQ(looked_up->goal, expected->goal)
            << "start (" << start.x << "," << start.y << ") goal (" << goal.x << "," << goal.y
            << ")";
      }
    }
  }
}

TEST(SnapLookup, NothingWalkableAndBadInput) {
  const Mask blocked(4, 3, std::vector<std::uint8_t>(12, 0));
  const Tables none(blocked, kAllAreas, Connectivity::kFour, false);
  EXPECT_EQ(snap_endpoints(none.walkable, none.components, {1, 1}, {2, 2}), std::nullopt);
  EXPECT_EQ(nearest_reachable(none.walkable, none.components, {1, 1}, {2, 2}), std::nullopt);

  const Mask open(4, 3, std::vector<std::uint8_t>(12, 1));
  const Tables tables(open, kAllAreas, Connectivity::kFour, false);
  EXPECT_THROW((void)snap_endpoints(tables.walkable, tables.components, {4, 0}, {0, 0}),
               InvalidArgument);
  EXPECT_THROW((void)snap_endpoints(tables.walkable, tables.components, {0, 0}, {0, -1}),
               InvalidArgument);
  EXPECT_THROW((void)nearest_reachable(tables.walkable, tables.components, {0, 0}, {0, 3}),
               InvalidArgument);
  EXPECT_THROW((void)nearest_reachable(tables.walkable, tables.components, {-1, 0}, {0, 0}),
               InvalidArgument);
  // Tables of two masks.
  const Mask other(5, 3, std::vector<std::uint8_t>(15, 1));
  const Tables wider(other, kAllAreas, Connectivity::kFour, false);
  EXPECT_THROW((void)snap_endpoints(tables.walkable, wider.components, {0, 0}, {1, 1}),
               InvalidArgument);
}

TEST(SnapLookup, ALongSearchStopsWhenInterrupted) {
  // A 600x600 mask walled in two at x = 300: a goal in the far corner of the
  // right half, snapped for a start in the left one, is far from the start's
  // component and that component is large, so both searches run long.
  std::vector<std::uint8_t> areas(600 * 600, 1);
  for (int y = 0; y < 600; ++y) areas[y * 600 + 300] = 0;
  const Mask mask(600, 600, areas);
  const Tables tables(mask, kAllAreas, Connectivity::kFour, false);
  int polls = 0;
  const std::function<bool()> stop = [&] { return ++polls >= 3; };
  EXPECT_THROW((void)snap_endpoints(tables.walkable, tables.components, {10, 10}, {599, 599}, stop),
               Interrupted);
  EXPECT_EQ(polls, 3);
  const auto snapped = snap_endpoints(tables.walkable, tables.components, {10, 10}, {599, 599});
  const auto expected =
      brute_snap(mask, kAllAreas, {10, 10}, {599, 599}, pathtest::Diagonals::kNone);
  ASSERT_TRUE(snapped && expected);
  EXPECT_EQ(snapped->goal, expected->goal);
}

TEST(SnapLookup, SmallPocketsFarFromTheGoal) {
  // Pockets of a few pixels across a 400x300 open mask, the goal in a far
  // corner: the walk of the pocket answers long before the rings reach it.
  std::vector<std::uint8_t> areas(400 * 300, 1);
  const auto wall_box = [&](int x0, int y0, int x1, int y1) {
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        if (x == x0 || x == x1 || y == y0 || y == y1) areas[y * 400 + x] = 0;
      }
    }
  };
  wall_box(5, 5, 9, 9);
  wall_box(200, 100, 203, 104);
  wall_box(390, 5, 395, 8);
  const Mask mask(400, 300, areas);
  for (const Case& c : kCases) {
    const Tables tables(mask, kAllAreas, c.connectivity, c.cutting);
    for (const Point start : {Point{7, 7}, Point{201, 102}, Point{392, 6}, Point{5, 5}}) {
      for (const Point goal : {Point{399, 299}, Point{0, 299}, Point{0, 0}, Point{200, 299}}) {
        const auto expected = brute_snap(mask, kAllAreas, start, goal, c.diagonals);
        const auto looked_up = snap_endpoints(tables.walkable, tables.components, start, goal);
        ASSERT_TRUE(expected && looked_up);
        EXPECT_EQ(looked_up->start, expected->start);
        EXPECT_EQ(looked_up->goal, expected->goal);
      }
    }
  }
}

}  // namespace
}  // namespace pathcore
