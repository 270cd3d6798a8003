#include "cache/field_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "pathcore/distance_field.h"
#include "support/random_mask.h"

namespace pathserver {
namespace {

FieldKey key_for(std::string mask, std::uint64_t revision, pathcore::Point goal) {
  FieldKey key;
  key.mask = std::move(mask);
  key.revision = revision;
  key.enabled = pathcore::kAllAreas;
  key.goal = goal;
  return key;
}

FieldPtr field_for(pathcore::Point goal) {
  return std::make_shared<const pathcore::DistanceField>(
      2, 2, goal, pathcore::FieldOptions{}, std::vector<pathcore::DistanceField::Distance>(4, 0));
}

// A budget that holds exactly n of field_for's fields.
std::size_t room_for(std::size_t n) { return n * FieldCache::entry_bytes(*field_for({0, 0})); }

TEST(FieldCache, MissThenHit) {
  FieldCache cache(room_for(4));
  const FieldKey key = key_for("m", 1, {1, 1});
  EXPECT_EQ(cache.get(key), nullptr);
  const FieldPtr field = field_for({1, 1});
  cache.put(key, field);
  EXPECT_EQ(cache.get(key), field);
  EXPECT_EQ(cache.size(), 1U);
  EXPECT_EQ(cache.budget_bytes(), room_for(4));
  EXPECT_EQ(cache.bytes(), FieldCache::entry_bytes(*field));
  const FieldCacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits, 1U);
  EXPECT_EQ(stats.misses, 1U);
  EXPECT_EQ(stats.entries, 1U);
  EXPECT_EQ(stats.bytes, FieldCache::entry_bytes(*field));
  EXPECT_EQ(stats.budget_bytes, room_for(4));
  EXPECT_EQ(stats.evictions, 0U);
}

TEST(FieldCache, EvictsLeastRecentlyUsed) {
  FieldCache cache(room_for(3));
  std::vector<FieldKey> keys;
  for (int i = 0; i < 5; ++i) keys.push_back(key_for("m", 1, {i, 0}));
  cache.put(keys[0], field_for({0, 0}));
  cache.put(keys[1], field_for({1, 0}));
  cache.put(keys[2], field_for({2, 0}));
  ASSERT_NE(cache.get(keys[0]), nullptr);  // order now 0, 2, 1
  cache.put(keys[3], field_for({3, 0}));   // evicts 1
  EXPECT_EQ(cache.size(), 3U);
  EXPECT_EQ(cache.get(keys[1]), nullptr);
  ASSERT_NE(cache.get(keys[2]), nullptr);  // order now 2, 3, 0
  cache.put(keys[4], field_for({4, 0}));   // evicts 0
  EXPECT_EQ(cache.get(keys[0]), nullptr);
  EXPECT_NE(cache.get(keys[2]), nullptr);
  EXPECT_NE(cache.get(keys[3]), nullptr);
  EXPECT_NE(cache.get(keys[4]), nullptr);
  EXPECT_EQ(cache.size(), 3U);
  EXPECT_EQ(cache.stats().evictions, 2U);
}

TEST(FieldCache, PutOfAnExistingKeyReplacesAndPromotes) {
  FieldCache cache(room_for(2));
  const FieldKey a = key_for("m", 1, {0, 0});
  const FieldKey b = key_for("m", 1, {1, 0});
  const FieldKey c = key_for("m", 1, {2, 0});
  cache.put(a, field_for({0, 0}));
  cache.put(b, field_for({1, 0}));
  const FieldPtr replacement = field_for({0, 0});
  cache.put(a, replacement);  // order now a, b
  EXPECT_EQ(cache.size(), 2U);
  cache.put(c, field_for({2, 0}));  // evicts b
  EXPECT_EQ(cache.get(a), replacement);
  EXPECT_EQ(cache.get(b), nullptr);
}

TEST(FieldCache, EvictedFieldsStayValidWhileHeld) {
  FieldCache cache(room_for(1));
  cache.put(key_for("m", 1, {0, 0}), field_for({0, 0}));
  const FieldPtr held = cache.get(key_for("m", 1, {0, 0}));
  cache.put(key_for("m", 1, {1, 1}), field_for({1, 1}));
  EXPECT_EQ(cache.get(key_for("m", 1, {0, 0})), nullptr);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->goal(), (pathcore::Point{0, 0}));
}

TEST(FieldCache, EveryKeyPartDistinguishesEntries) {
  FieldCache cache(room_for(64));
  const FieldKey base = key_for("m", 3, {5, 7});
  cache.put(base, field_for({5, 7}));

  std::vector<FieldKey> variants;
  FieldKey k = base;
  k.mask = "n";
  variants.push_back(k);
  k = base;
  k.mask = "m/";  // a prefix or suffix is another name
  variants.push_back(k);
  k = base;
  k.revision = 4;
  variants.push_back(k);
  k = base;
  k.revision = 2;
  variants.push_back(k);
  k = base;
  k.enabled = pathcore::AreaSet{1} << 1;
  variants.push_back(k);
  k = base;
  k.enabled = pathcore::kAllAreas & ~(pathcore::AreaSet{1} << 63);
  variants.push_back(k);
  k = base;
  k.goal = {7, 5};
  variants.push_back(k);
  k = base;
  k.goal = {5, 8};
  variants.push_back(k);
  k = base;
  k.connectivity = pathcore::Connectivity::kEight;
  variants.push_back(k);
  k.allow_corner_cutting = true;
  variants.push_back(k);

  for (std::size_t i = 0; i < variants.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_FALSE(variants[i] == base);
    EXPECT_EQ(cache.get(variants[i]), nullptr);
  }
  // All can live side by side.
  for (const auto& variant : variants) cache.put(variant, field_for(variant.goal));
  EXPECT_EQ(cache.size(), variants.size() + 1);
  EXPECT_EQ(cache.get(base)->goal(), (pathcore::Point{5, 7}));
  EXPECT_EQ(FieldKeyHash{}(base), FieldKeyHash{}(key_for("m", 3, {5, 7})));
}

TEST(FieldCache, EraseMaskDropsTheOlderRevisionsOfThatMaskOnly) {
  FieldCache cache(room_for(16));
  cache.put(key_for("a", 1, {0, 0}), field_for({0, 0}));
  cache.put(key_for("a", 2, {0, 0}), field_for({0, 0}));
  cache.put(key_for("a", 2, {1, 0}), field_for({1, 0}));
  cache.put(key_for("a", 3, {0, 0}), field_for({0, 0}));  // filled for the new revision already
  cache.put(key_for("a/b", 1, {0, 0}), field_for({0, 0}));
  cache.put(key_for("b", 1, {0, 0}), field_for({0, 0}));
  cache.erase_mask("a", 3);
  EXPECT_EQ(cache.size(), 3U);
  EXPECT_EQ(cache.get(key_for("a", 1, {0, 0})), nullptr);
  EXPECT_EQ(cache.get(key_for("a", 2, {1, 0})), nullptr);
  EXPECT_NE(cache.get(key_for("a", 3, {0, 0})), nullptr);
  EXPECT_NE(cache.get(key_for("a/b", 1, {0, 0})), nullptr);
  EXPECT_NE(cache.get(key_for("b", 1, {0, 0})), nullptr);
  // The cache still works after erasing.
  cache.put(key_for("a", 3, {1, 0}), field_for({1, 0}));
  EXPECT_NE(cache.get(key_for("a", 3, {1, 0})), nullptr);
}

// A fill that was running when its mask was replaced (or deleted) finishes
// after the erase: its field is not kept.
TEST(FieldCache, FieldsOfAnErasedRevisionAreNotKeptWhenTheyArriveLate) {
  FieldCache cache(room_for(16));
  cache.erase_mask("a", 5);  // replaced by revision 5
  cache.put(key_for("a", 4, {0, 0}), field_for({0, 0}));
  EXPECT_EQ(cache.size(), 0U);
  EXPECT_EQ(cache.get(key_for("a", 4, {0, 0})), nullptr);
  cache.put(key_for("a", 5, {0, 0}), field_for({0, 0}));
  cache.put(key_for("b", 4, {0, 0}), field_for({0, 0}));  // other masks are not affected
  EXPECT_EQ(cache.size(), 2U);
  // A later erase never lowers the floor (an out-of-order call).
  cache.erase_mask("a", 2);
  cache.put(key_for("a", 3, {0, 0}), field_for({0, 0}));
  EXPECT_EQ(cache.get(key_for("a", 3, {0, 0})), nullptr);
  EXPECT_NE(cache.get(key_for("a", 5, {0, 0})), nullptr);
}

TEST(FieldCache, ZeroBudgetDisablesCaching) {
  FieldCache cache(room_for(0));
  cache.put(key_for("m", 1, {0, 0}), field_for({0, 0}));
  EXPECT_EQ(cache.size(), 0U);
  EXPECT_EQ(cache.get(key_for("m", 1, {0, 0})), nullptr);
}

TEST(FieldCache, ConcurrentUseKeepsTheLimit) {
  FieldCache cache(room_for(8));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        // Mask "a" is replaced every 500 calls.
        const std::uint64_t revision = t % 2 == 0 ? 1 + i / 500 : 1;
        const FieldKey key = key_for(t % 2 == 0 ? "a" : "b", revision, {i % 13, t});
        if (!cache.get(key)) cache.put(key, field_for(key.goal));
        if (i % 500 == 0) cache.erase_mask("a", revision);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(cache.size(), 8U);
  EXPECT_LE(cache.bytes(), room_for(8));
}

// A stream of distinct goals with real fields of different sizes (2, 4 and
// 8 bytes a pixel): the held bytes never exceed the budget, every held byte
// is accounted for, and every put beyond the budget is an eviction.
TEST(FieldCache, ByteBudgetHoldsUnderAStreamOfDistinctGoals) {
  std::mt19937_64 rng(0xcac4e);
  const pathcore::Mask mask = pathtest::random_mask(rng, 96, 64, 0.25, 3);
  const std::size_t budget = 200 * 1024;  // about 8-25 of these fields
  FieldCache cache(budget);
  std::uint64_t puts = 0;
  for (int i = 0; i < 150; ++i) {
    pathcore::FieldOptions options;
    options.connectivity =
        i % 3 == 0 ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour;
    options.area_costs[2] = i % 2 == 0 ? 7 : 1;
    const pathcore::Point goal = pathtest::random_point(rng, mask);
    FieldKey key = key_for("m", 1, goal);
    key.connectivity = options.connectivity;
    key.area_costs = pathcore::normalized(options).area_costs;
    if (cache.get(key) != nullptr) continue;
    const FieldPtr field = std::make_shared<const pathcore::DistanceField>(
        pathcore::compute_distance_field(mask, goal, options));
    ASSERT_LE(FieldCache::entry_bytes(*field), budget);
    cache.put(key, field);
    ++puts;
    const FieldCacheStats stats = cache.stats();
    ASSERT_LE(stats.bytes, budget) << i;
    ASSERT_EQ(stats.bytes, cache.bytes());
    ASSERT_EQ(stats.evictions + stats.entries, puts) << i;
    ASSERT_EQ(cache.get(key), field) << "the newest entry is kept";
  }
  const FieldCacheStats stats = cache.stats();
  EXPECT_GT(stats.evictions, 0U);
  EXPECT_GT(stats.entries, 2U);
}

TEST(FieldCache, AFieldLargerThanTheBudgetIsNotKept) {
  const FieldPtr small = field_for({0, 0});
  FieldCache cache(FieldCache::entry_bytes(*small) + 8);
  cache.put(key_for("m", 1, {0, 0}), small);
  const FieldPtr big = std::make_shared<const pathcore::DistanceField>(
      64, 64, pathcore::Point{0, 0}, pathcore::FieldOptions{},
      std::vector<pathcore::DistanceField::Distance>(64 * 64, 0));
  cache.put(key_for("m", 1, {1, 1}), big);
  EXPECT_EQ(cache.get(key_for("m", 1, {1, 1})), nullptr);
  EXPECT_EQ(cache.get(key_for("m", 1, {0, 0})), small) << "nothing evicted for it";
  const FieldCacheStats stats = cache.stats();
  EXPECT_EQ(stats.oversized, 1U);
  EXPECT_EQ(stats.evictions, 0U);
  EXPECT_EQ(stats.bytes, FieldCache::entry_bytes(*small));
}

// Two revisions of a mask share every key part but the revision. Under a
// budget that forces constant eviction, whatever get() returns for a
// revision is that revision's field: equal to a fresh fill on that mask.
TEST(FieldCache, EvictionNeverServesAWrongRevision) {
  std::mt19937_64 rng(0x4e71);
  std::vector<pathcore::Mask> revisions;
  for (int r = 0; r < 3; ++r) revisions.push_back(pathtest::random_mask(rng, 40, 30, 0.3, 1));
  const std::vector<pathcore::Point> goals = {{0, 0}, {39, 29}, {20, 15}, {5, 25}};
  const auto fill = [&](std::size_t revision, pathcore::Point goal) {
    return pathcore::compute_distance_field(revisions[revision], goal, {});
  };
  const std::size_t one = FieldCache::entry_bytes(fill(0, goals[0]));
  FieldCache cache(3 * one + one / 2);  // three fields
  int served = 0;
  for (int i = 0; i < 400; ++i) {
    const auto revision = static_cast<std::size_t>(rng() % revisions.size());
    const pathcore::Point goal = goals[rng() % goals.size()];
    const FieldKey key = key_for("m", revision + 1, goal);
    if (const FieldPtr got = cache.get(key)) {
      ++served;
      const pathcore::DistanceField want = fill(revision, goal);
      for (int y = 0; y < 30; ++y) {
        for (int x = 0; x < 40; ++x) {
          ASSERT_EQ(got->at({x, y}), want.at({x, y})) << "revision " << revision + 1;
        }
      }
    } else {
      cache.put(key, std::make_shared<const pathcore::DistanceField>(fill(revision, goal)));
    }
    ASSERT_LE(cache.size(), 3U);
  }
  EXPECT_GT(served, 20);
  EXPECT_GT(cache.stats().evictions, 20U);
}

}  // namespace
}  // namespace pathserver
