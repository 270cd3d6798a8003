// FieldBuilder::set_interrupt: a fill stops at the check that asks it to,
// and carries on to the same field when run again.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "pathcore/distance_field.h"
#include "support/random_mask.h"

namespace {

using pathcore::Connectivity;
using pathcore::DistanceField;
using pathcore::FieldBuilder;
using pathcore::FieldOptions;

std::vector<FieldOptions> every_method() {
  std::vector<FieldOptions> all;
  FieldOptions four;  // breadth first
  all.push_back(four);
  FieldOptions eight;  // unit-cost octile buckets
  eight.connectivity = Connectivity::kEight;
  all.push_back(eight);
  FieldOptions weighted = four;  // bucket queue
  weighted.area_costs[2] = 9;
  all.push_back(weighted);
  FieldOptions weighted_eight = eight;
  weighted_eight.area_costs[2] = 9;
  weighted_eight.allow_corner_cutting = true;
  all.push_back(weighted_eight);
  return all;
}

void expect_same(const DistanceField& got, const DistanceField& want) {
  ASSERT_EQ(got.width(), want.width());
  for (int y = 0; y < static_cast<int>(want.height()); ++y) {
    for (int x = 0; x < static_cast<int>(want.width()); ++x) {
      ASSERT_EQ(got.reachable({x, y}), want.reachable({x, y})) << x << "," << y;
      if (want.reachable({x, y})) {
        ASSERT_EQ(got.exact({x, y}), want.exact({x, y}));
      }
    }
  }
}

// A goal whose field covers more than half the mask (a fill with many checks).
pathcore::Point big_component_goal(std::mt19937_64& rng, const pathcore::Mask& mask) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const pathcore::Point goal = pathtest::random_point(rng, mask);
    const DistanceField field = pathcore::compute_distance_field(mask, goal, {});
    std::size_t reached = 0;
    for (int y = 0; y < static_cast<int>(mask.height()); ++y) {
      for (int x = 0; x < static_cast<int>(mask.width()); ++x) reached += field.reachable({x, y});
    }
    if (reached > mask.width() * mask.height() / 2) return goal;
  }
  ADD_FAILURE() << "no goal in a large component";
  return {0, 0};
}

TEST(FieldInterrupt, EveryMethodStopsWhenAskedAndResumesToTheSameField) {
  std::mt19937_64 rng(0x1217);
  const pathcore::Mask mask = pathtest::random_mask(rng, 400, 300, 0.2, 2);
  const pathcore::Point goal = big_component_goal(rng, mask);
  for (const FieldOptions& options : every_method()) {
    const DistanceField want = pathcore::compute_distance_field(mask, goal, options);
    FieldBuilder builder(mask, goal, options);
    int checks = 0;
    bool stop = true;
    builder.set_interrupt([&] {
      ++checks;
      return stop;
    });
    EXPECT_THROW(builder.finish(), pathcore::Interrupted);
    EXPECT_EQ(checks, 1);
    EXPECT_FALSE(builder.finished());
    // Interrupted again and again, then let run: the same field as one fill.
    int interruptions = 1;
    while (interruptions < 1000) {
      stop = interruptions % 2 == 1;
      try {
        builder.finish();
        break;
      } catch (const pathcore::Interrupted&) {
        ++interruptions;
      }
    }
    ASSERT_TRUE(builder.finished());
    EXPECT_GT(checks, 2);
    expect_same(builder.take(), want);
  }
}

TEST(FieldInterrupt, RunUntilSettledCanBeInterruptedAndResumed) {
  std::mt19937_64 rng(0x5e7);
  const pathcore::Mask mask = pathtest::random_mask(rng, 300, 200, 0.15, 2);
  const pathcore::Point goal = big_component_goal(rng, mask);
  for (const FieldOptions& options : every_method()) {
    const pathcore::Point start = pathtest::random_point(rng, mask);
    const DistanceField want = pathcore::compute_distance_field(mask, goal, options);
    FieldBuilder builder(mask, goal, options);
    int checks = 0;
    builder.set_interrupt([&] { return ++checks % 2 == 1; });  // every other check stops
    bool settled = false;
    for (int attempt = 0; attempt < 1000; ++attempt) {
      try {
        settled = builder.run_until_settled(start);
        break;
      } catch (const pathcore::Interrupted&) {
      }
    }
    EXPECT_EQ(settled, want.reachable(start));
    if (settled) {
      EXPECT_EQ(builder.field().exact(start), want.exact(start));
    }
    builder.set_interrupt({});  // no check: never interrupted
    builder.finish();
    expect_same(builder.take(), want);
  }
}

TEST(FieldInterrupt, NoCheckWhenNoneIsSet) {
  const pathcore::Mask mask(64, 64, std::vector<std::uint8_t>(64 * 64, 1));
  FieldBuilder builder(mask, {0, 0}, {});
  builder.finish();
  EXPECT_EQ(builder.field().at({63, 63}), 126U);
}

}  // namespace

namespace {

// FieldBuilder::set_progress: reports that rise, stay below 1, and change
// nothing in the field, whichever method fills.
TEST(FieldProgressTest, ReportsRiseBelowOneAndLeaveTheFieldAsItWas) {
  std::mt19937_64 rng(7);
  const pathcore::Mask mask = pathtest::random_mask(rng, 400, 300, 0.2, 3);
  const pathcore::Point goal = big_component_goal(rng, mask);
  for (const FieldOptions& options : every_method()) {
    std::vector<double> reports;
    FieldBuilder builder(mask, goal, options);
    builder.set_progress([&](double fraction) { reports.push_back(fraction); });
    builder.finish();
    ASSERT_GE(reports.size(), 2U) << "120,000 pixels: several reports";
    for (std::size_t i = 0; i < reports.size(); ++i) {
      EXPECT_GE(reports[i], 0.0);
      EXPECT_LT(reports[i], 1.0);
      if (i > 0) {
        EXPECT_GE(reports[i], reports[i - 1]);
      }
    }
    EXPECT_GT(reports.back(), 0.3) << "the reports reach well into the fill";
    expect_same(builder.take(), pathcore::compute_distance_field(mask, goal, options));
  }
}

}  // namespace
