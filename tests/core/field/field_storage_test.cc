#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>

#include "pathcore/distance_field.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

FieldOptions options_for(Connectivity connectivity, std::uint8_t cost_of_area_two) {
  FieldOptions options;
  options.connectivity = connectivity;
  options.area_costs[2] = cost_of_area_two;
  return options;
}

void expect_same_costs(const DistanceField& a, const DistanceField& b) {
  ASSERT_EQ(a.width(), b.width());
  ASSERT_EQ(a.height(), b.height());
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(a.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(a.width()); ++x) {
      const Point p{x, y};
      ASSERT_EQ(a.reachable(p), b.reachable(p)) << x << "," << y;
      if (a.reachable(p)) {
        ASSERT_EQ(a.exact(p), b.exact(p)) << x << "," << y;
      }
    }
  }
}

// Every fill (level, octile in place, buckets) built in the storage of an
// earlier field of the same mask gives the same field as one built in new
// memory, and the level fill builds it in that memory.
TEST(FieldStorage, RecycledBuildsTheSameFieldInTheSameMemory) {
  std::mt19937_64 rng(20);
  const Mask mask = pathtest::random_mask(rng, 61, 47, 0.3, 2);
  const Point goals[] = {{3, 4}, {50, 40}, {30, 20}};
  for (const FieldOptions& options :
       {options_for(Connectivity::kFour, 1), options_for(Connectivity::kEight, 1),
        options_for(Connectivity::kFour, 3), options_for(Connectivity::kEight, 3)}) {
    DistanceField old = compute_distance_field(mask, goals[0], options);
    for (const Point goal : goals) {
      if (!mask.walkable(goal, options.enabled)) continue;
      const DistanceField fresh = compute_distance_field(mask, goal, options);
      const std::size_t bytes = old.memory_bytes();
      FieldStorage storage = old.release_storage();
      EXPECT_FALSE(old.reachable(goals[0]));
      const void* memory = storage.words16.empty()   ? storage.words32.empty()
                                                           ? static_cast<const void*>(storage.words64.data())
                                                           : storage.words32.data()
                                                       : storage.words16.data();
      FieldBuilder builder(mask, goal, options, std::move(storage));
      builder.finish();
      DistanceField recycled = builder.take();
      expect_same_costs(fresh, recycled);
      EXPECT_EQ(recycled.memory_bytes(), bytes);
      const void* now = recycled.bytes_per_pixel() == 2   ? recycled.four_costs<std::uint16_t>()
                        : recycled.four_costs<std::uint32_t>() != nullptr
                            ? static_cast<const void*>(recycled.four_costs<std::uint32_t>())
                            : nullptr;
      // The level fill (four-connected, unit costs) keeps its grid as the field.
      if (options.connectivity == Connectivity::kFour && options.area_costs[2] == 1) {
        EXPECT_EQ(now, memory);
      }
      old = std::move(recycled);
    }
  }
}

// Storage too small, or much larger than the mask needs, is not used (the
// field would keep the extra), and the field is still right.
TEST(FieldStorage, StorageThatDoesNotFitIsFreed) {
  std::mt19937_64 rng(21);
  const Mask small = pathtest::random_mask(rng, 20, 10, 0.2, 1);
  const Mask large = pathtest::random_mask(rng, 80, 60, 0.2, 1);
  const FieldOptions options = options_for(Connectivity::kFour, 1);
  Point goal{0, 0};
  while (!small.walkable(goal, options.enabled) || !large.walkable(goal, options.enabled)) {
    goal.x += 1;
  }
  DistanceField large_field = compute_distance_field(large, goal, options);
  const DistanceField small_field = compute_distance_field(small, goal, options);
  FieldBuilder too_large(small, goal, options, large_field.release_storage());
  too_large.finish();
  const DistanceField built = too_large.take();
  expect_same_costs(small_field, built);
  EXPECT_EQ(built.memory_bytes(), small_field.memory_bytes());

  DistanceField again = compute_distance_field(small, goal, options);
  FieldBuilder too_small(large, goal, options, again.release_storage());
  too_small.finish();
  expect_same_costs(compute_distance_field(large, goal, options), too_small.take());
}

}  // namespace
}  // namespace pathcore
