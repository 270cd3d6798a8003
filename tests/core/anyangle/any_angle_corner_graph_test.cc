// The prebuilt reference graph (support/any_angle_corner_graph.h) against the
// per-query reference it stands in for on the Moving AI maze: its candidate
// pruning misses no visible vertex (every point of small random masks
// against every vertex, by the reference's line test), and its lengths equal
// the reference's, with and without an upper bound, both corner rules.
#include "support/any_angle_corner_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/any_angle_reference.h"
#include "support/random_mask.h"

namespace pathtest {
namespace {

using pathcore::kAllAreas;
using pathcore::Mask;
using pathcore::Point;

// Random masks, every other one with dense diagonal pinches (a checkerboard
// with some pixels flipped), as the candidate floods must step through them.
Mask test_mask(std::mt19937_64& rng, int round) {
  std::uniform_int_distribution<std::uint32_t> side(1, 12);
  const std::uint32_t w = side(rng);
  const std::uint32_t h = side(rng);
  if (round % 2 == 0) {
    return random_mask(rng, w, h, std::uniform_real_distribution<double>(0.0, 0.5)(rng), 1);
  }
  std::bernoulli_distribution flip(0.2);
  std::vector<std::uint8_t> cells(std::size_t{w} * h);
  for (std::uint32_t y = 0; y < h; ++y) {
    for (std::uint32_t x = 0; x < w; ++x) {
      cells[std::size_t{y} * w + x] = ((x + y) % 2 == 0) != flip(rng) ? 0 : 1;
    }
  }
  return Mask(w, h, std::move(cells));
}

TEST(AnyAngleCornerGraph, CandidatesIncludeEveryVisibleVertex) {
  std::mt19937_64 rng(2103);
  for (int round = 0; round < 400; ++round) {
    const Mask mask = test_mask(rng, round);
    const bool cut = round % 4 >= 2;
    const AnyAngleCornerGraph graph(mask, kAllAreas, cut);
    const std::int64_t w2 = 2 * static_cast<std::int64_t>(mask.width());
    const std::int64_t h2 = 2 * static_cast<std::int64_t>(mask.height());
    // Every corner and centre of the mask as a segment's first end.
    for (std::int32_t y2 = 0; y2 <= h2; ++y2) {
      for (std::int32_t x2 = 0; x2 <= w2; ++x2) {
        if (x2 % 2 != y2 % 2) continue;  // edge midpoints are neither
        const Point a2{x2, y2};
        std::vector<std::uint32_t> found = graph.candidates(a2, {0, 0, w2, h2});
        std::sort(found.begin(), found.end());
        for (std::uint32_t v = 0; v < graph.vertex_count(); ++v) {
          if (graph.vertex(v) == a2) continue;
          if (!any_angle_visible(mask, kAllAreas, a2, graph.vertex(v), cut)) continue;
          ASSERT_TRUE(std::binary_search(found.begin(), found.end(), v))
              << "round " << round << " cut " << cut << " from (" << x2 << "," << y2 << ") to ("
              << graph.vertex(v).x << "," << graph.vertex(v).y << ")";
        }
      }
    }
  }
}

TEST(AnyAngleCornerGraph, LengthsEqualTheReference) {
  std::mt19937_64 rng(2104);
  int found = 0;
  int compared = 0;
  for (int round = 0; round < 600; ++round) {
    const Mask mask = test_mask(rng, round);
    const bool cut = round % 4 >= 2;
    const AnyAngleCornerGraph graph(mask, kAllAreas, cut);
    for (int k = 0; k < 4; ++k) {
      const Point start = random_point(rng, mask);
      const Point goal = random_point(rng, mask);
      const std::optional<double> expected =
          any_angle_shortest_length(mask, kAllAreas, start, goal, std::nullopt, cut);
      const std::string context = "round " + std::to_string(round) + " cut " +
                                  std::to_string(cut) + " from " + std::to_string(start.x) + "," +
                                  std::to_string(start.y) + " to " + std::to_string(goal.x) + "," +
                                  std::to_string(goal.y);
      const std::optional<double> unbounded = graph.shortest_length(start, goal, std::nullopt);
      ASSERT_EQ(unbounded.has_value(), expected.has_value()) << context;
      ++compared;
      if (!expected) continue;
      ++found;
      EXPECT_NEAR(*unbounded, *expected, 1e-9 * std::max(1.0, *expected)) << context;
      // A tight bound (the answer itself) loses nothing.
      const std::optional<double> bounded = graph.shortest_length(start, goal, *expected);
      ASSERT_TRUE(bounded.has_value()) << context;
      EXPECT_NEAR(*bounded, *expected, 1e-9 * std::max(1.0, *expected)) << context;
    }
  }
  EXPECT_GT(found, compared / 4);
  EXPECT_LT(found, compared);
}

}  // namespace
}  // namespace pathtest
