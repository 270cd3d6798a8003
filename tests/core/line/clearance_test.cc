// The clearance map against a brute-force Chebyshev distance, and line of
// sight through it against the plain per-pixel check (the reference here:
// segment_walkable on the mask, itself checked against walk-every-pixel
// references in path_test). Beautify and path_from_field must give the same
// answers with and without a map.
#include "pathcore/clearance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

// Chebyshev distance from p to the nearest pixel that is not walkable,
// counting the ring of pixels just outside the mask; by brute force.
int brute_force_clearance(const Mask& mask, AreaSet enabled, Point p) {
  if (!mask.walkable(p, enabled)) return 0;
  const int w = static_cast<int>(mask.width());
  const int h = static_cast<int>(mask.height());
  int nearest = std::min({p.x + 1, p.y + 1, w - p.x, h - p.y});  // the outside
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (!mask.walkable({x, y}, enabled)) {
        nearest = std::min(nearest, std::max(std::abs(x - p.x), std::abs(y - p.y)));
      }
    }
  }
  return std::min(nearest, int{ClearanceMap::kMaxClearance});
}

// A mask that is mostly open: a few rectangles of blocked pixels (and of a
// second area) in a field of area 1, so clearances run high and segments long.
Mask rooms_mask(std::mt19937_64& rng, std::uint32_t width, std::uint32_t height, int blocks) {
  std::vector<std::uint8_t> areas(static_cast<std::size_t>(width) * height, 1);
  std::uniform_int_distribution<std::uint32_t> xs(0, width - 1);
  std::uniform_int_distribution<std::uint32_t> ys(0, height - 1);
  std::uniform_int_distribution<std::uint32_t> sizes(1, 12);
  for (int b = 0; b < blocks; ++b) {
    const std::uint32_t x0 = xs(rng);
    const std::uint32_t y0 = ys(rng);
    const std::uint32_t x1 = std::min(width, x0 + sizes(rng));
    const std::uint32_t y1 = std::min(height, y0 + sizes(rng));
    const std::uint8_t id = b % 3 == 0 ? 2 : 0;
    for (std::uint32_t y = y0; y < y1; ++y) {
      for (std::uint32_t x = x0; x < x1; ++x) areas[static_cast<std::size_t>(y) * width + x] = id;
    }
  }
  return Mask(width, height, std::move(areas));
}

TEST(ClearanceMap, MatchesBruteForceChebyshevDistance) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const auto width = static_cast<std::uint32_t>(1 + rng() % 40);
    const auto height = static_cast<std::uint32_t>(1 + rng() % 40);
    const Mask mask = round % 2 == 0 ? pathtest::random_mask(rng, width, height, 0.1, 3)
                                     : rooms_mask(rng, width, height, 4);
    const AreaSet enabled = round % 3 == 0 ? (AreaSet{1} << 1) : kAllAreas;
    const ClearanceMap map(mask, enabled);
    for (std::int32_t y = 0; y < static_cast<std::int32_t>(height); ++y) {
      for (std::int32_t x = 0; x < static_cast<std::int32_t>(width); ++x) {
        ASSERT_EQ(map.at({x, y}), brute_force_clearance(mask, enabled, {x, y}))
            << "round " << round << " at " << x << "," << y;
      }
    }
  }
}

TEST(ClearanceMap, CapsAtTheLargestByte) {
  const Mask open(600, 600, std::vector<std::uint8_t>(600 * 600, 1));
  const ClearanceMap map(open, kAllAreas);
  EXPECT_EQ(map.at({0, 0}), 1);
  EXPECT_EQ(map.at({3, 300}), 4);
  EXPECT_EQ(map.at({300, 300}), ClearanceMap::kMaxClearance);
}

TEST(ClearanceMap, ServesOnlyAreaSetsThatWalkTheSamePixels) {
  // Areas 1 and 2 present; area 5 is not in the mask.
  const Mask mask(3, 1, {1, 2, 0});
  const AreaSet one = AreaSet{1} << 1;
  const AreaSet two = AreaSet{1} << 2;
  const ClearanceMap all(mask, kAllAreas);
  EXPECT_TRUE(all.serves(mask, kAllAreas));
  EXPECT_TRUE(all.serves(mask, one | two));
  EXPECT_TRUE(all.serves(mask, one | two | (AreaSet{1} << 5)));
  EXPECT_FALSE(all.serves(mask, one));
  const ClearanceMap only_one(mask, one);
  EXPECT_TRUE(only_one.serves(mask, one | (AreaSet{1} << 5)));
  EXPECT_FALSE(only_one.serves(mask, kAllAreas));
  EXPECT_FALSE(all.serves(Mask(1, 3, {1, 2, 0}), kAllAreas));  // another shape
}

// Every segment between random pixels (and from every pixel of small masks),
// both rules: the map's answer is the mask's.
TEST(ClearanceMap, SegmentWalkableAgreesWithThePlainCheck) {
  std::mt19937_64 rng(11);
  std::size_t walkable_long_segments = 0;
  for (int round = 0; round < 120; ++round) {
    const auto width = static_cast<std::uint32_t>(1 + rng() % 90);
    const auto height = static_cast<std::uint32_t>(1 + rng() % 90);
    Mask mask = round % 3 == 0   ? pathtest::random_mask(rng, width, height, 0.02, 2)
                : round % 3 == 1 ? rooms_mask(rng, width, height, 1 + static_cast<int>(rng() % 8))
                                 : pathtest::random_mask(rng, width, height, 0.3, 2);
    const AreaSet enabled = round % 4 == 0 ? (AreaSet{1} << 1) : kAllAreas;
    const ClearanceMap map(mask, enabled);
    for (int i = 0; i < 400; ++i) {
      const Point a = pathtest::random_point(rng, mask);
      const Point b = pathtest::random_point(rng, mask);
      for (const LineRule rule : {LineRule::kNoCornerCutting, LineRule::kBresenham}) {
        const bool expected = segment_walkable(mask, enabled, a, b, rule);
        ASSERT_EQ(segment_walkable(map, a, b, rule), expected)
            << "round " << round << " rule " << static_cast<int>(rule) << " segment " << a.x << ","
            << a.y << " - " << b.x << "," << b.y;
        if (expected && std::max(std::abs(a.x - b.x), std::abs(a.y - b.y)) > 20) {
          ++walkable_long_segments;
        }
      }
    }
  }
  // The jumps were exercised: many long segments were clear.
  EXPECT_GT(walkable_long_segments, 1000U);
}

// Every segment up to 9 pixels across from every pixel, near the mask's
// edges too (the span tests' 8-byte loads): the map's answer is the mask's.
TEST(ClearanceMap, ShortSegmentsAgree) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 12; ++round) {
    const auto width = static_cast<std::uint32_t>(1 + rng() % 40);
    const auto height = static_cast<std::uint32_t>(1 + rng() % 40);
    const Mask mask = pathtest::random_mask(rng, width, height, round % 2 == 0 ? 0.1 : 0.3, 2);
    const ClearanceMap map(mask, kAllAreas);
    const auto w = static_cast<std::int32_t>(width);
    const auto h = static_cast<std::int32_t>(height);
    for (std::int32_t ay = 0; ay < h; ++ay) {
      for (std::int32_t ax = 0; ax < w; ++ax) {
        for (std::int32_t by = std::max(0, ay - 9); by <= std::min(h - 1, ay + 9); ++by) {
          for (std::int32_t bx = std::max(0, ax - 9); bx <= std::min(w - 1, ax + 9); ++bx) {
            const Point a{ax, ay};
            const Point b{bx, by};
            ASSERT_EQ(segment_walkable(map, a, b, LineRule::kNoCornerCutting),
                      segment_walkable(mask, kAllAreas, a, b, LineRule::kNoCornerCutting))
                << "round " << round << ": " << ax << "," << ay << " - " << bx << "," << by;
          }
        }
      }
    }
  }
}

// Segments that pass exactly through pixel corners next to a lone blocked
// pixel, at every offset: the corner rule must survive the jumps.
TEST(ClearanceMap, CornerGrazingSegmentsAgree) {
  for (std::uint32_t size : {9U, 31U, 64U}) {
    std::vector<std::uint8_t> areas(static_cast<std::size_t>(size) * size, 1);
    const std::uint32_t centre = size / 2;
    areas[static_cast<std::size_t>(centre) * size + centre] = 0;
    const Mask mask(size, size, std::move(areas));
    const ClearanceMap map(mask, kAllAreas);
    const auto n = static_cast<std::int32_t>(size);
    for (std::int32_t ax = 0; ax < n; ++ax) {
      for (std::int32_t by = 0; by < n; ++by) {
        for (const auto& [a, b] : {std::pair<Point, Point>{{ax, 0}, {n - 1, by}},
                                   std::pair<Point, Point>{{0, ax}, {by, n - 1}},
                                   std::pair<Point, Point>{{ax, n - 1}, {n - 1 - by, 0}}}) {
          for (const LineRule rule : {LineRule::kNoCornerCutting, LineRule::kBresenham}) {
            ASSERT_EQ(segment_walkable(map, a, b, rule),
                      segment_walkable(mask, kAllAreas, a, b, rule))
                << size << ": " << a.x << "," << a.y << " - " << b.x << "," << b.y;
          }
        }
      }
    }
  }
}

TEST(ClearanceMap, OutsidePointsAreNotWalkable) {
  const Mask mask(4, 4, std::vector<std::uint8_t>(16, 1));
  const ClearanceMap map(mask, kAllAreas);
  EXPECT_FALSE(segment_walkable(map, {-1, 0}, {3, 3}, LineRule::kNoCornerCutting));
  EXPECT_FALSE(segment_walkable(map, {0, 0}, {4, 3}, LineRule::kBresenham));
  EXPECT_TRUE(segment_walkable(map, {0, 0}, {3, 3}, LineRule::kNoCornerCutting));
}

// The same paths, point for point, with and without a map, in every mode;
// a map that does not serve the request is ignored.
TEST(ClearanceMap, PathsAreTheSameWithAndWithoutAMap) {
  std::mt19937_64 rng(5);
  std::size_t beautified = 0;
  for (int round = 0; round < 60; ++round) {
    const auto width = static_cast<std::uint32_t>(8 + rng() % 80);
    const auto height = static_cast<std::uint32_t>(8 + rng() % 80);
    const Mask mask = round % 2 == 0
                          ? rooms_mask(rng, width, height, 2 + static_cast<int>(rng() % 10))
                          : pathtest::random_mask(rng, width, height, 0.15, 2);
    FindPathOptions options;
    options.field.connectivity = round % 3 == 0 ? Connectivity::kFour : Connectivity::kEight;
    options.field.allow_corner_cutting = round % 3 == 2;
    if (round % 5 == 0) options.field.enabled = AreaSet{1} << 1;
    const ClearanceMap map(mask, kAllAreas);  // serves only when every area is enabled
    const Point goal = pathtest::random_point(rng, mask);
    if (!mask.walkable(goal, options.field.enabled)) continue;
    const DistanceField field = compute_distance_field(mask, goal, options.field);
    for (int i = 0; i < 20; ++i) {
      const Point start = pathtest::random_point(rng, mask);
      for (const Smoothing smoothing : {Smoothing::kBeautify, Smoothing::kSimplify}) {
        options.smoothing = smoothing;
        const PathResult plain = path_from_field(mask, field, start, options);
        const PathResult mapped = path_from_field(mask, field, start, options, &map);
        ASSERT_EQ(plain.found, mapped.found);
        ASSERT_EQ(plain.points, mapped.points)
            << "round " << round << " start " << start.x << "," << start.y;
        if (plain.found && smoothing == Smoothing::kBeautify && plain.points.size() > 2) {
          ++beautified;
        }
        const auto plain_beeline = beeline_answer(mask, start, goal, options);
        const auto mapped_beeline = beeline_answer(mask, start, goal, options, &map);
        ASSERT_EQ(plain_beeline.has_value(), mapped_beeline.has_value());
        if (plain_beeline) {
          ASSERT_EQ(plain_beeline->points, mapped_beeline->points);
        }
      }
    }
  }
  EXPECT_GT(beautified, 300U);
}

}  // namespace
}  // namespace pathcore
