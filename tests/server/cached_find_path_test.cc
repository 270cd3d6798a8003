#include "cached_find_path.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "field_cache.h"
#include "field_finisher.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "support/random_mask.h"

namespace pathserver {
namespace {

MaskEntry entry_for(pathcore::Mask mask) {
  MaskEntry entry;
  entry.name = "m";
  entry.revision = 1;
  entry.mask = std::make_shared<const pathcore::Mask>(std::move(mask));
  return entry;
}

// Cold (field half-built, finished in the background) and warm answers are
// identical to core's find_path, and the finished field lands in the cache.
TEST(CachedFindPath, ColdAndWarmAnswersAgreeWithCore) {
  std::mt19937_64 rng(0x5eed0401);
  for (int round = 0; round < 60; ++round) {
    const MaskEntry entry = entry_for(pathtest::random_mask(rng, 64, 48, 0.3, 3));
    const pathcore::Mask& mask = *entry.mask;
    FieldCache cache(16);
    FieldFinisher finisher(cache, 2);
    pathcore::FindPathOptions options;
    options.field.connectivity =
        round % 2 == 0 ? pathcore::Connectivity::kFour : pathcore::Connectivity::kEight;
    options.field.area_costs[2] = round % 3 == 0 ? 5 : 1;
    options.smoothing =
        round % 4 == 0 ? pathcore::Smoothing::kNone : pathcore::Smoothing::kBeautify;
    options.snap_to_reachable = round % 5 == 0;
    const pathcore::Point start = pathtest::random_point(rng, mask);
    const pathcore::Point goal = pathtest::random_point(rng, mask);
    const pathcore::PathResult want = pathcore::find_path(mask, start, goal, options);
    const CachedPathResult cold = cached_find_path(entry, cache, &finisher, start, goal, options);
    finisher.drain();
    const CachedPathResult warm = cached_find_path(entry, cache, &finisher, start, goal, options);
    for (const CachedPathResult* got : {&cold, &warm}) {
      EXPECT_EQ(got->path.found, want.found) << round;
      EXPECT_EQ(got->path.points, want.points) << round;
      EXPECT_EQ(got->path.cost, want.cost) << round;
      EXPECT_EQ(got->path.goal, want.goal) << round;
    }
    const bool filled = want.found && want.points.size() > 2;
    if (filled) {
      EXPECT_FALSE(cold.cache_hit) << round;
      EXPECT_TRUE(warm.cache_hit) << round;
    }
  }
}

TEST(CachedFindPath, CacheKeysSeparateCostsAndCornerRules) {
  const MaskEntry entry = entry_for(pathcore::Mask(4, 4, std::vector<std::uint8_t>(16, 1)));
  pathcore::FieldOptions options;
  const FieldKey plain = field_key(entry, options, {1, 1});
  options.area_costs[1] = 3;
  EXPECT_NE(field_key(entry, options, {1, 1}), plain);
  EXPECT_NE(FieldKeyHash{}(field_key(entry, options, {1, 1})), FieldKeyHash{}(plain));
  options.area_costs[1] = 1;
  options.allow_corner_cutting = true;  // meaningless with four: normalised away
  EXPECT_EQ(field_key(entry, options, {1, 1}), plain);
  options.connectivity = pathcore::Connectivity::kEight;
  const FieldKey eight_cutting = field_key(entry, options, {1, 1});
  options.allow_corner_cutting = false;
  EXPECT_NE(field_key(entry, options, {1, 1}), eight_cutting);
}

}  // namespace
}  // namespace pathserver
