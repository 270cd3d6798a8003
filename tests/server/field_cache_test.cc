#include "field_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "pathcore/distance_field.h"

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

TEST(FieldCache, MissThenHit) {
  FieldCache cache(4);
  const FieldKey key = key_for("m", 1, {1, 1});
  EXPECT_EQ(cache.get(key), nullptr);
  const FieldPtr field = field_for({1, 1});
  cache.put(key, field);
  EXPECT_EQ(cache.get(key), field);
  EXPECT_EQ(cache.size(), 1U);
  EXPECT_EQ(cache.max_entries(), 4U);
}

TEST(FieldCache, EvictsLeastRecentlyUsed) {
  FieldCache cache(3);
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
}

TEST(FieldCache, PutOfAnExistingKeyReplacesAndPromotes) {
  FieldCache cache(2);
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
  FieldCache cache(1);
  cache.put(key_for("m", 1, {0, 0}), field_for({0, 0}));
  const FieldPtr held = cache.get(key_for("m", 1, {0, 0}));
  cache.put(key_for("m", 1, {1, 1}), field_for({1, 1}));
  EXPECT_EQ(cache.get(key_for("m", 1, {0, 0})), nullptr);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->goal(), (pathcore::Point{0, 0}));
}

TEST(FieldCache, EveryKeyPartDistinguishesEntries) {
  FieldCache cache(64);
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

TEST(FieldCache, EraseMaskDropsEveryRevisionOfThatMaskOnly) {
  FieldCache cache(16);
  cache.put(key_for("a", 1, {0, 0}), field_for({0, 0}));
  cache.put(key_for("a", 2, {0, 0}), field_for({0, 0}));
  cache.put(key_for("a", 2, {1, 0}), field_for({1, 0}));
  cache.put(key_for("a/b", 1, {0, 0}), field_for({0, 0}));
  cache.put(key_for("b", 1, {0, 0}), field_for({0, 0}));
  cache.erase_mask("a");
  EXPECT_EQ(cache.size(), 2U);
  EXPECT_EQ(cache.get(key_for("a", 1, {0, 0})), nullptr);
  EXPECT_EQ(cache.get(key_for("a", 2, {1, 0})), nullptr);
  EXPECT_NE(cache.get(key_for("a/b", 1, {0, 0})), nullptr);
  EXPECT_NE(cache.get(key_for("b", 1, {0, 0})), nullptr);
  // The cache still works after erasing.
  cache.put(key_for("a", 3, {0, 0}), field_for({0, 0}));
  EXPECT_NE(cache.get(key_for("a", 3, {0, 0})), nullptr);
}

TEST(FieldCache, ZeroEntriesDisablesCaching) {
  FieldCache cache(0);
  cache.put(key_for("m", 1, {0, 0}), field_for({0, 0}));
  EXPECT_EQ(cache.size(), 0U);
  EXPECT_EQ(cache.get(key_for("m", 1, {0, 0})), nullptr);
}

TEST(FieldCache, ConcurrentUseKeepsTheLimit) {
  FieldCache cache(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        const FieldKey key = key_for(t % 2 == 0 ? "a" : "b", 1, {i % 13, t});
        if (!cache.get(key)) cache.put(key, field_for(key.goal));
        if (i % 500 == 0) cache.erase_mask("a");
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(cache.size(), 8U);
}

}  // namespace
}  // namespace pathserver
