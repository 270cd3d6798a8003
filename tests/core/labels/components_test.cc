#include "pathcore/components.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "support/random_mask.h"
#include "support/reference.h"

namespace pathcore {
namespace {

using pathtest::Diagonals;

Mask ascii_mask(const std::vector<std::string>& rows) {
  std::vector<std::uint8_t> areas;
  for (const auto& row : rows) {
    for (const char c : row) areas.push_back(c == '#' ? 0 : (c == '2' ? 2 : 1));
  }
  return Mask(static_cast<std::uint32_t>(rows.front().size()),
              static_cast<std::uint32_t>(rows.size()), std::move(areas));
}

ComponentOptions options_for(AreaSet enabled, Connectivity connectivity, bool corner_cutting) {
  ComponentOptions options;
  options.enabled = enabled;
  options.connectivity = connectivity;
  options.allow_corner_cutting = corner_cutting;
  return options;
}

Diagonals diagonals_for(Connectivity connectivity, bool corner_cutting) {
  if (connectivity == Connectivity::kFour) return Diagonals::kNone;
  return corner_cutting ? Diagonals::kAlways : Diagonals::kBothSidesFree;
}

// Every pixel's label against a flood fill from it: same label <=> reached.
void expect_matches_flood_fill(const Mask& mask, const ComponentOptions& options,
                               const std::string& what) {
  const Components components = label_components(mask, options);
  const Diagonals diagonals = diagonals_for(options.connectivity, options.allow_corner_cutting);
  std::vector<bool> seen(components.count() + 1, false);
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      const Point p{x, y};
      const auto label = components.label(p);
      if (!mask.walkable(p, options.enabled)) {
        ASSERT_EQ(label, Components::kNone) << what << " at " << x << "," << y;
        continue;
      }
      ASSERT_NE(label, Components::kNone) << what << " at " << x << "," << y;
      if (seen[label]) continue;
      seen[label] = true;
      // The first pixel of each component in scan order: labels are numbered
      // in that order, so this is the next unused label.
      const auto reached = pathtest::reference_flood_fill(mask, p, options.enabled, diagonals);
      for (std::size_t i = 0; i < reached.size(); ++i) {
        ASSERT_EQ(reached[i], components.labels()[i] == label)
            << what << ": from " << x << "," << y << " pixel " << i % mask.width() << ","
            << i / mask.width();
      }
    }
  }
  for (Components::Label l = 1; l <= components.count(); ++l) {
    ASSERT_TRUE(seen[l]) << what << ": label " << l << " unused";
  }
}

TEST(ComponentsTest, MatchesAFloodFillOnRandomMasks) {
  std::mt19937_64 rng(20261123);
  for (int trial = 0; trial < 300; ++trial) {
    const auto width = std::uniform_int_distribution<std::uint32_t>(1, 40)(rng);
    const auto height = std::uniform_int_distribution<std::uint32_t>(1, 30)(rng);
    const double obstacles = std::uniform_real_distribution<double>(0.0, 0.7)(rng);
    const Mask mask = pathtest::random_mask(rng, width, height, obstacles, 3);
    const AreaSet enabled =
        trial % 3 == 0 ? kAllAreas
                       : effective_areas(std::uniform_int_distribution<std::uint64_t>(1, 15)(rng));
    for (const auto& [connectivity, cutting] :
         {std::pair{Connectivity::kFour, false}, std::pair{Connectivity::kEight, false},
          std::pair{Connectivity::kEight, true}}) {
      expect_matches_flood_fill(mask, options_for(enabled, connectivity, cutting),
                                "trial " + std::to_string(trial));
    }
  }
}

TEST(ComponentsTest, LabelsInScanOrderAndConnectedIsTwoLookups) {
  const Mask mask = ascii_mask({
      "..#..",
      "..#.#",
      "###2#",
      "#.#.#",
  });
  const Components c = label_components(mask, {});
  EXPECT_EQ(c.count(), 3U);
  EXPECT_EQ(c.label({0, 0}), 1U);
  EXPECT_EQ(c.label({3, 0}), 2U);
  EXPECT_EQ(c.label({3, 3}), 2U);  // through the area-2 tile
  EXPECT_EQ(c.label({1, 3}), 3U);
  EXPECT_EQ(c.label({2, 0}), Components::kNone);
  EXPECT_EQ(c.label({-1, 0}), Components::kNone);
  EXPECT_TRUE(c.connected({0, 0}, {1, 1}));
  EXPECT_TRUE(c.connected({3, 0}, {3, 3}));
  EXPECT_FALSE(c.connected({0, 0}, {3, 0}));
  EXPECT_FALSE(c.connected({2, 0}, {2, 0}));  // unwalkable: not even itself
  // Without area 2 the right column splits.
  const Components only1 =
      label_components(mask, options_for(AreaSet{1} << 1, Connectivity::kFour, false));
  EXPECT_FALSE(only1.connected({3, 0}, {3, 3}));
  EXPECT_EQ(only1.count(), 4U);
}

TEST(ComponentsTest, DiagonalsFollowTheCornerRule) {
  const Mask mask = ascii_mask({
      ".#",
      "#.",
  });
  EXPECT_FALSE(label_components(mask, options_for(kAllAreas, Connectivity::kFour, false))
                   .connected({0, 0}, {1, 1}));
  // Both cardinal pixels beside the diagonal are blocked: no step.
  EXPECT_FALSE(label_components(mask, options_for(kAllAreas, Connectivity::kEight, false))
                   .connected({0, 0}, {1, 1}));
  EXPECT_TRUE(label_components(mask, options_for(kAllAreas, Connectivity::kEight, true))
                  .connected({0, 0}, {1, 1}));
  const Mask anti = ascii_mask({
      "#.",
      ".#",
  });
  EXPECT_TRUE(label_components(anti, options_for(kAllAreas, Connectivity::kEight, true))
                  .connected({1, 0}, {0, 1}));
}

TEST(ComponentsTest, EmptyAreaSetLabelsNothing) {
  const Mask mask = ascii_mask({"..", ".."});
  const Components c = label_components(mask, options_for(0, Connectivity::kFour, false));
  EXPECT_EQ(c.count(), 0U);
  EXPECT_FALSE(c.connected({0, 0}, {0, 0}));
}

// label_components calls the caller's interrupt check as the fills do (about
// every 16,384 pixels labelled): a check that says stop ends it with
// Interrupted at that very call, early or late; one that never does changes
// nothing.
TEST(ComponentsTest, LabellingStopsWhenTheInterruptCheckSaysSo) {
  std::mt19937_64 rng(20260419);
  const Mask mask = pathtest::random_mask(rng, 1920, 1080, 0.3, 1);
  for (const ComponentOptions& options : {options_for(kAllAreas, Connectivity::kFour, false),
                                          options_for(kAllAreas, Connectivity::kEight, true)}) {
    const Components plain = label_components(mask, options);
    int calls = 0;
    const std::function<bool()> never = [&] {
      ++calls;
      return false;
    };
    const Components checked = label_components(mask, options, never);
    EXPECT_EQ(checked.count(), plain.count());
    EXPECT_TRUE(std::ranges::equal(checked.labels(), plain.labels()));
    // 2,073,600 pixels, each of the two passes counting them: no fewer calls
    // than one per 16,384 pixels.
    EXPECT_GE(calls, static_cast<int>(mask.pixel_count() / 16384));

    for (const int stop_at : {1, calls / 2, calls}) {
      int until_stop = 0;
      const std::function<bool()> stop = [&] { return ++until_stop == stop_at; };
      EXPECT_THROW((void)label_components(mask, options, stop), Interrupted) << stop_at;
      EXPECT_EQ(until_stop, stop_at);
    }
  }
}

}  // namespace
}  // namespace pathcore

namespace {

// label_components' progress: reports that rise, stay below 1 and change no label.
TEST(ComponentsProgressTest, ReportsRiseBelowOneAndTheLabelsAreTheSame) {
  std::mt19937_64 rng(11);
  const pathcore::Mask mask = pathtest::random_mask(rng, 500, 400, 0.3, 2);
  const pathcore::ComponentOptions options;
  std::vector<double> reports;
  const pathcore::Components reported =
      pathcore::label_components(mask, options, {}, [&](double f) { reports.push_back(f); });
  ASSERT_GE(reports.size(), 5U) << "two passes over 200,000 pixels";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    EXPECT_LT(reports[i], 1.0);
    if (i > 0) {
      EXPECT_GE(reports[i], reports[i - 1]);
    }
  }
  EXPECT_GT(reports.back(), 0.8);
  const pathcore::Components plain = pathcore::label_components(mask, options);
  EXPECT_TRUE(std::equal(reported.labels().begin(), reported.labels().end(), plain.labels().begin(),
                         plain.labels().end()));
}

}  // namespace
