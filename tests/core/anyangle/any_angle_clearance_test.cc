// Any-angle paths with agent clearance (issue 21) on 2,000 small (8x8 to
// 24x24) random masks with diagonal pinches, both corner rules: the engine runs on
// core's UsableMask(mask, enabled, clearance).mask(), the reference on a
// usable mask built by brute force (support/clearance_reference.h, nothing
// shared with core's distance transform), and the two usable masks must
// agree pixel by pixel before the lengths are compared (within 1e-9
// relative) and the path checked legal on the brute-force mask by the
// reference's own line test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/any_angle.h"
#include "support/any_angle_reference.h"
#include "support/clearance_reference.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

// Thresholds exactly on distances a centre can have from a square (sqrt(a^2
// + b^2) / 2 with a, b in 0, 1, 3, 5...: 0.5, sqrt 2 / 2, 1.5, 2.5), and
// between them.
constexpr double kClearances[] = {0, 0.5, 0.7071067811865476, 0.75, 1, 1.5, 2, 2.3, 2.5, 3};

// 8x8 to 24x24; even rounds random, odd rounds a checkerboard of pinches
// with a quarter flipped, on an open background so that clearance leaves
// something usable.
Mask pinch_mask(std::mt19937_64& rng, int round) {
  std::uniform_int_distribution<std::uint32_t> side(8, 24);
  const std::uint32_t w = side(rng);
  const std::uint32_t h = side(rng);
  if (round % 2 == 0) {
    return pathtest::random_mask(rng, w, h, std::uniform_real_distribution<double>(0, 0.3)(rng), 2);
  }
  std::vector<std::uint8_t> cells(std::size_t{w} * h, 1);
  std::bernoulli_distribution in_patch(0.5);
  std::bernoulli_distribution flip(0.25);
  // Pinch patches: random rectangles of checkerboard.
  std::uniform_int_distribution<std::uint32_t> xs(0, w - 1);
  std::uniform_int_distribution<std::uint32_t> ys(0, h - 1);
  for (int patch = 0; patch < 3; ++patch) {
    const std::uint32_t x0 = xs(rng);
    const std::uint32_t y0 = ys(rng);
    const std::uint32_t x1 = std::min(w, x0 + 2 + xs(rng) / 3);
    const std::uint32_t y1 = std::min(h, y0 + 2 + ys(rng) / 3);
    for (std::uint32_t y = y0; y < y1; ++y) {
      for (std::uint32_t x = x0; x < x1; ++x) {
        cells[std::size_t{y} * w + x] = ((x + y) % 2 == 0) != flip(rng) ? 0 : 1;
      }
    }
  }
  return Mask(w, h, std::move(cells));
}

TEST(AnyAngleClearance, MatchesTheReferenceOnTheBruteForceUsableMask) {
  std::mt19937_64 rng(2105);
  int compared = 0;
  int found = 0;
  for (int round = 0; round < 2000; ++round) {
    const Mask mask = pinch_mask(rng, round);
    const AreaSet enabled = round % 5 == 0 ? kAllAreas & ~(AreaSet{1} << 2) : kAllAreas;
    const double clearance = kClearances[round % std::size(kClearances)];
    const UsableMask usable(mask, enabled, clearance);
    const Mask brute_force =
        pathtest::mask_of_usable(mask, pathtest::reference_usable(mask, enabled, clearance));
    for (std::size_t i = 0; i < mask.pixel_count(); ++i) {
      const Point p{static_cast<std::int32_t>(i % mask.width()),
                    static_cast<std::int32_t>(i / mask.width())};
      ASSERT_EQ(usable.usable(p), brute_force.walkable(p, enabled))
          << "round " << round << " clearance " << clearance << " at " << p.x << "," << p.y;
    }
    // Ends mostly on usable pixels (a random pixel rarely is under a big
    // clearance), sometimes anywhere (not usable: no path).
    std::vector<Point> usable_pixels;
    for (std::size_t i = 0; i < mask.pixel_count(); ++i) {
      const Point p{static_cast<std::int32_t>(i % mask.width()),
                    static_cast<std::int32_t>(i / mask.width())};
      if (brute_force.walkable(p, enabled)) usable_pixels.push_back(p);
    }
    const auto end_point = [&] {
      if (usable_pixels.empty() || rng() % 4 == 0) return pathtest::random_point(rng, mask);
      return usable_pixels[rng() % usable_pixels.size()];
    };
    for (const bool cut : {false, true}) {
      const AnyAngleMesh mesh = AnyAngleMesh::build(usable.mask(), enabled, cut);
      for (int k = 0; k < 2; ++k) {
        const Point goal = end_point();
        const Point start = end_point();
        const std::string context = "round " + std::to_string(round) + " clearance " +
                                    std::to_string(clearance) + " cut " + std::to_string(cut) +
                                    " from " + std::to_string(start.x) + "," +
                                    std::to_string(start.y) + " to " + std::to_string(goal.x) +
                                    "," + std::to_string(goal.y);
        const std::optional<AnyAnglePath> path = find_any_angle_path(mesh, start, goal);
        const std::optional<double> expected = pathtest::any_angle_shortest_length(
            brute_force, enabled, start, goal, std::nullopt, cut);
        ++compared;
        ASSERT_EQ(path.has_value(), expected.has_value()) << context;
        if (!path) continue;
        ++found;
        EXPECT_NEAR(path->length, *expected, 1e-9 * std::max(1.0, *expected)) << context;
        double walked = 0;
        for (std::size_t i = 0; i < path->points.size(); ++i) {
          EXPECT_TRUE(brute_force.walkable(path->pixels[i], enabled)) << context << " vertex " << i;
          if (i == 0) continue;
          const PointD a = path->points[i - 1];
          const PointD b = path->points[i];
          walked += std::hypot(b.x - a.x, b.y - a.y);
          EXPECT_TRUE(pathtest::any_angle_visible(
              brute_force, enabled,
              {static_cast<std::int32_t>(2 * a.x), static_cast<std::int32_t>(2 * a.y)},
              {static_cast<std::int32_t>(2 * b.x), static_cast<std::int32_t>(2 * b.y)}, cut))
              << context << " segment " << i;
        }
        EXPECT_NEAR(walked, path->length, 1e-9 * std::max(1.0, walked)) << context;
        if (HasFailure()) return;
      }
    }
  }
  // Found and not found both well represented.
  EXPECT_GT(found, compared / 4);
  EXPECT_LT(found, compared * 19 / 20);
}

}  // namespace
}  // namespace pathcore
