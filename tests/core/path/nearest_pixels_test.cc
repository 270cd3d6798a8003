// NearestPixels against exhaustive search (support/line_reference): random
// target sets from empty to full, single targets, ties.
#include "pathcore/nearest_pixels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <random>
#include <vector>

#include "support/line_reference.h"

namespace pathcore {
namespace {

void expect_matches_exhaustive_search(std::uint32_t width, std::uint32_t height,
                                      const std::vector<std::uint8_t>& targets) {
  const NearestPixels nearest(width, height, targets);
  const auto is_target = [&](Point p) { return targets[p.y * width + p.x] != 0; };
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(height); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(width); ++x) {
      ASSERT_EQ(nearest.nearest({x, y}), pathtest::reference_nearest(width, height, {x, y}, is_target))
          << width << "x" << height << " at (" << x << "," << y << ")";
    }
  }
}

TEST(NearestPixelsTest, MatchesExhaustiveSearchOnRandomTargets) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::uniform_int_distribution<std::uint32_t> side(1, 30);
    const std::uint32_t width = side(rng);
    const std::uint32_t height = side(rng);
    // From almost empty to almost full.
    const double density = std::vector<double>{0.001, 0.01, 0.05, 0.3, 0.9}[round % 5];
    std::bernoulli_distribution target(density);
    std::vector<std::uint8_t> targets(std::size_t{width} * height);
    for (auto& t : targets) t = target(rng) ? 1 : 0;
    expect_matches_exhaustive_search(width, height, targets);
  }
}

TEST(NearestPixelsTest, SingleTargetsAndSymmetricTies) {
  // One target: every pixel answers it. Targets placed symmetrically around
  // the centre tie everywhere on the axes: the row-major first wins.
  for (std::uint32_t t = 0; t < 35; ++t) {
    std::vector<std::uint8_t> targets(35, 0);
    targets[t] = 1;
    expect_matches_exhaustive_search(7, 5, targets);
  }
  std::vector<std::uint8_t> ring(21 * 21, 0);
  for (const auto& [x, y] : {std::pair{10, 0}, std::pair{0, 10}, std::pair{20, 10}, std::pair{10, 20},
                            std::pair{3, 4}, std::pair{17, 16}, std::pair{4, 17}}) {
    ring[y * 21 + x] = 1;
  }
  expect_matches_exhaustive_search(21, 21, ring);
  std::vector<std::uint8_t> axes(21 * 21, 0);
  for (const auto& [x, y] : {std::pair{10, 0}, std::pair{0, 10}, std::pair{20, 10}, std::pair{10, 20}}) {
    axes[y * 21 + x] = 1;
  }
  const NearestPixels centred(21, 21, axes);
  EXPECT_EQ(centred.nearest({10, 10}), (Point{10, 0}));  // four at distance 10: the top one
  EXPECT_EQ(centred.nearest({5, 10}), (Point{0, 10}));
}

TEST(NearestPixelsTest, NoTargetsAndBadInput) {
  const NearestPixels none(4, 3, std::vector<std::uint8_t>(12, 0));
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.nearest({1, 1}), std::nullopt);
  EXPECT_THROW((void)none.nearest({4, 0}), InvalidArgument);
  EXPECT_THROW((void)none.nearest({0, -1}), InvalidArgument);
  EXPECT_THROW(NearestPixels(4, 3, std::vector<std::uint8_t>(11, 1)), InvalidArgument);
}

TEST(NearestPixelsTest, StopsWhenInterrupted) {
  std::vector<std::uint8_t> targets(std::size_t{300} * 300, 0);
  targets[0] = 1;
  const std::function<bool()> stop = [] { return true; };
  EXPECT_THROW(NearestPixels(300, 300, targets, stop), Interrupted);
}

}  // namespace
}  // namespace pathcore

namespace {

// NearestPixels' progress: reports that rise and stay below 1.
TEST(NearestPixelsProgressTest, ReportsRiseBelowOne) {
  const std::uint32_t width = 600;
  const std::uint32_t height = 500;
  std::vector<std::uint8_t> targets(std::size_t{width} * height, 0);
  targets[12345] = 1;
  std::vector<double> reports;
  const pathcore::NearestPixels nearest(width, height, targets, {},
                                        [&](double f) { reports.push_back(f); });
  ASSERT_GE(reports.size(), 5U);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    EXPECT_LT(reports[i], 1.0);
    if (i > 0) {
      EXPECT_GE(reports[i], reports[i - 1]);
    }
  }
  EXPECT_GT(reports.back(), 0.8);
  EXPECT_EQ(nearest.nearest({0, 0}), (pathcore::Point{12345 % 600, 12345 / 600}));
}

}  // namespace
