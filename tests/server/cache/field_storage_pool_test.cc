#include "cache/field_storage_pool.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "cache/field_cache.h"
#include "pathcore/distance_field.h"
#include "support/random_mask.h"

namespace pathserver {
namespace {

pathcore::DistanceField four_field(const pathcore::Mask& mask, pathcore::Point goal,
                                   pathcore::FieldStorage storage = {}) {
  pathcore::FieldBuilder builder(mask, goal, pathcore::FieldOptions{}, std::move(storage));
  builder.finish();
  return builder.take();
}

const std::uint16_t* grid_of(const pathcore::DistanceField& field) {
  return field.four_costs<std::uint16_t>();
}

// A shared field's storage comes back when its last holder lets go, and the
// next fill of a mask of that size is built in it.
TEST(FieldStoragePool, DroppedFieldsStorageBuildsTheNextField) {
  std::mt19937_64 rng(7);
  const pathcore::Mask mask = pathtest::random_mask(rng, 40, 30, 0.0, 1);
  auto pool = std::make_shared<FieldStoragePool>(std::size_t{1} << 20);
  FieldPtr field = pool->share(four_field(mask, {1, 1}));
  const std::uint16_t* memory = grid_of(*field);
  const std::size_t bytes = field->storage_bytes();
  FieldPtr second_holder = field;
  field.reset();
  EXPECT_EQ(pool->bytes(), 0U);  // still held
  second_holder.reset();
  EXPECT_EQ(pool->bytes(), bytes);

  EXPECT_EQ(pool->take(41, 30).bytes(), 0U);  // another size: nothing
  const pathcore::DistanceField next = four_field(mask, {20, 20}, pool->take(40, 30));
  EXPECT_EQ(grid_of(next), memory);
  EXPECT_EQ(next.at({20, 20}), 0U);
  EXPECT_EQ(next.at({21, 20}), 1U);
  EXPECT_EQ(pool->bytes(), 0U);
}

// Beyond max_bytes the oldest storage goes; 0 keeps nothing.
TEST(FieldStoragePool, HoldsAtMostMaxBytes) {
  std::mt19937_64 rng(8);
  const pathcore::Mask mask = pathtest::random_mask(rng, 40, 30, 0.0, 1);
  const std::size_t one = four_field(mask, {1, 1}).storage_bytes();
  FieldStoragePool pool(2 * one);
  for (int i = 0; i < 3; ++i) pool.give(40, 30, four_field(mask, {1, 1}).release_storage());
  EXPECT_EQ(pool.bytes(), 2 * one);
  EXPECT_GT(pool.take(40, 30).bytes(), 0U);
  EXPECT_GT(pool.take(40, 30).bytes(), 0U);
  EXPECT_EQ(pool.take(40, 30).bytes(), 0U);

  auto none = std::make_shared<FieldStoragePool>(0);
  FieldPtr field = none->share(four_field(mask, {1, 1}));
  field.reset();
  EXPECT_EQ(none->bytes(), 0U);
  none->keep_spare_like(four_field(mask, {1, 1}));
  EXPECT_EQ(none->bytes(), 0U);
}

// keep_spare_like pages in kSparesPerSize storages a later unit-cost fill of
// that size builds in, and none for fields a fill cannot build in (area costs).
TEST(FieldStoragePool, SparesForUnitCostFields) {
  std::mt19937_64 rng(9);
  const pathcore::Mask mask = pathtest::random_mask(rng, 40, 30, 0.1, 2);
  pathcore::Point goal{0, 0};
  while (!mask.walkable(goal, pathcore::kAllAreas)) ++goal.x;
  FieldStoragePool pool(std::size_t{1} << 20);
  const pathcore::DistanceField built = four_field(mask, goal);
  pool.keep_spare_like(built);
  EXPECT_EQ(pool.bytes(), FieldStoragePool::kSparesPerSize * built.storage_bytes());
  pool.keep_spare_like(built);  // enough kept already
  EXPECT_EQ(pool.bytes(), FieldStoragePool::kSparesPerSize * built.storage_bytes());
  pathcore::FieldStorage spare = pool.take(40, 30);
  const void* memory = spare.words16.data();
  const pathcore::DistanceField next = four_field(mask, goal, std::move(spare));
  EXPECT_EQ(static_cast<const void*>(grid_of(next)), memory);
  for (std::int32_t y = 0; y < 30; ++y) {
    for (std::int32_t x = 0; x < 40; ++x) ASSERT_EQ(next.at({x, y}), built.at({x, y}));
  }

  FieldStoragePool costed_pool(std::size_t{1} << 20);
  pathcore::FieldOptions costed;
  costed.area_costs[2] = 5;
  costed_pool.keep_spare_like(pathcore::compute_distance_field(mask, goal, costed));
  EXPECT_EQ(costed_pool.bytes(), 0U);
}

// Fields may outlive the pool (and the cache that owns it): then their
// storage is simply freed.
TEST(FieldStoragePool, FieldsOutliveThePool) {
  std::mt19937_64 rng(10);
  const pathcore::Mask mask = pathtest::random_mask(rng, 20, 10, 0.0, 1);
  FieldPtr field;
  {
    FieldCache cache(std::size_t{64} << 20);
    field = cache.storage_pool().share(four_field(mask, {1, 1}));
  }
  EXPECT_EQ(field->at({2, 1}), 1U);
  field.reset();
}

// Storage comes and goes from many threads at once.
TEST(FieldStoragePool, ConcurrentShareAndTake) {
  std::mt19937_64 rng(11);
  const pathcore::Mask mask = pathtest::random_mask(rng, 30, 20, 0.0, 1);
  auto pool = std::make_shared<FieldStoragePool>(std::size_t{1} << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        FieldPtr field = pool->share(four_field(mask, {i % 30, 0}, pool->take(30, 20)));
        ASSERT_EQ(field->at({i % 30, 0}), 0U);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(pool->bytes(), pool->max_bytes());
}

}  // namespace
}  // namespace pathserver
