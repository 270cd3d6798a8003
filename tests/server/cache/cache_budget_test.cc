// CacheBudget: the field cache and the query caches charged to one byte
// budget, evicting the least recently used entries across all of them.

#include "cache/cache_budget.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "cache/field_cache.h"
#include "cache/query_caches.h"
#include "pathcore/components.h"
#include "pathcore/distance_field.h"

namespace pathserver {
namespace {

FieldKey field_key(int goal_x) {
  FieldKey key;
  key.mask = "m";
  key.revision = 1;
  key.enabled = pathcore::kAllAreas;
  key.goal = {goal_x, 0};
  return key;
}

// A field of side x side pixels (4 bytes each).
FieldPtr field_of_side(int side, int goal_x = 0) {
  const auto pixels = static_cast<std::size_t>(side) * static_cast<std::size_t>(side);
  return std::make_shared<const pathcore::DistanceField>(
      side, side, pathcore::Point{goal_x, 0}, pathcore::FieldOptions{},
      std::vector<pathcore::DistanceField::Distance>(pixels, 0));
}

ComponentKey labels_key(pathcore::AreaSet enabled) {
  return {"m", 1, enabled, pathcore::Connectivity::kFour, false};
}

// A labelling of side x side pixels (4 bytes each), one component.
std::shared_ptr<const pathcore::Components> labels_of_side(int side) {
  const auto size = static_cast<std::uint32_t>(side);
  return std::make_shared<const pathcore::Components>(
      size, size, 1, std::vector<pathcore::Components::Label>(std::size_t{size} * size, 1));
}

PathKey path_key(int start_x) {
  PathKey key;
  key.field = field_key(0);
  key.start = {start_x, 0};
  return key;
}

std::shared_ptr<const pathcore::PathResult> path_of(std::size_t points) {
  auto path = std::make_shared<pathcore::PathResult>();
  path->found = true;
  path->points.assign(points, pathcore::Point{0, 0});
  return path;
}

std::size_t sum_of_usage(const CacheBudget& budget) {
  std::size_t bytes = 0;
  for (const CacheUsage& usage : budget.usage()) bytes += usage.bytes;
  return bytes;
}

// Fields A, B and a labelling L fill the budget; A is then read. A field C
// needs room: the least recently used entry of all is L, in another cache,
// and it is the one evicted (one eviction suffices: L is larger than C).
TEST(CacheBudget, EvictsTheLeastRecentlyUsedEntryAcrossCaches) {
  const FieldPtr a = field_of_side(8, 0);
  const FieldPtr b = field_of_side(8, 1);
  const FieldPtr c = field_of_side(8, 2);
  const auto labels = labels_of_side(16);
  ASSERT_GT(ComponentCache::entry_bytes(*labels), FieldCache::entry_bytes(*c));
  CacheBudget budget(FieldCache::entry_bytes(*a) + ComponentCache::entry_bytes(*labels) +
                     FieldCache::entry_bytes(*b));
  FieldCache fields(budget);
  ComponentCache components(budget, "labels", 64);

  fields.put(field_key(0), a);
  components.put(labels_key(0b10), labels);
  fields.put(field_key(1), b);
  ASSERT_EQ(budget.used_bytes(), budget.total_bytes());
  ASSERT_EQ(fields.get(field_key(0)), a);  // now least recently used: labels, then b

  fields.put(field_key(2), c);
  EXPECT_EQ(components.get(labels_key(0b10)), nullptr);
  EXPECT_EQ(fields.get(field_key(0)), a);
  EXPECT_EQ(fields.get(field_key(1)), b);
  EXPECT_EQ(fields.get(field_key(2)), c);
  EXPECT_EQ(components.usage().evictions, 1U);
  EXPECT_EQ(fields.stats().evictions, 0U);
  EXPECT_EQ(budget.used_bytes(), 3 * FieldCache::entry_bytes(*a));
  EXPECT_EQ(budget.used_bytes(), sum_of_usage(budget));
}

// Three fields fill the budget; a labelling needs the room of two of them:
// the two least recently used fields go, the most recently used one stays.
TEST(CacheBudget, ALabellingThatWouldNotFitEvictsFields) {
  const FieldPtr field = field_of_side(16);
  const std::size_t one_field = FieldCache::entry_bytes(*field);
  CacheBudget budget(3 * one_field);
  FieldCache fields(budget);
  ComponentCache components(budget, "labels", 64);
  for (int goal = 0; goal < 3; ++goal) fields.put(field_key(goal), field_of_side(16, goal));
  ASSERT_NE(fields.get(field_key(0)), nullptr);  // now oldest: 1, then 2

  // The smallest square labelling that needs more room than one field.
  int side = 1;
  while (ComponentCache::entry_bytes(*labels_of_side(side)) <= one_field) ++side;
  const auto labels = labels_of_side(side);
  ASSERT_GT(ComponentCache::entry_bytes(*labels), one_field);
  ASSERT_LE(ComponentCache::entry_bytes(*labels), 2 * one_field);
  components.put(labels_key(0b10), labels);

  EXPECT_EQ(components.get(labels_key(0b10)), labels);
  EXPECT_EQ(fields.get(field_key(1)), nullptr);
  EXPECT_EQ(fields.get(field_key(2)), nullptr);
  EXPECT_NE(fields.get(field_key(0)), nullptr);
  EXPECT_EQ(fields.stats().evictions, 2U);
  EXPECT_EQ(fields.stats().budget_bytes, budget.total_bytes());
  EXPECT_EQ(budget.used_bytes(), one_field + ComponentCache::entry_bytes(*labels));
  EXPECT_EQ(budget.used_bytes(), sum_of_usage(budget));
}

TEST(CacheBudget, AnEntryLargerThanTheWholeBudgetIsNotKeptAndEvictsNothing) {
  const FieldPtr field = field_of_side(8);
  CacheBudget budget(4 * FieldCache::entry_bytes(*field));
  FieldCache fields(budget);
  ComponentCache components(budget, "labels", 64);
  fields.put(field_key(0), field);

  const auto labels = labels_of_side(64);
  ASSERT_GT(ComponentCache::entry_bytes(*labels), budget.total_bytes());
  components.put(labels_key(0b10), labels);
  EXPECT_EQ(components.get(labels_key(0b10)), nullptr);
  EXPECT_EQ(components.size(), 0U);
  EXPECT_EQ(fields.get(field_key(0)), field) << "nothing evicted for it";
  EXPECT_EQ(budget.used_bytes(), FieldCache::entry_bytes(*field));

  fields.put(field_key(1), field_of_side(128, 1));  // the same for a field
  EXPECT_EQ(fields.get(field_key(1)), nullptr);
  EXPECT_EQ(fields.stats().oversized, 1U);
  EXPECT_EQ(fields.get(field_key(0)), field);
  EXPECT_EQ(budget.used_bytes(), FieldCache::entry_bytes(*field));
}

// Replacing, erasing and evicting beyond an entry limit give the bytes back,
// and a cache that goes away returns all of its charge.
TEST(CacheBudget, EveryWayAnEntryGoesReleasesItsBytes) {
  CacheBudget budget(std::size_t{1} << 20);
  FieldCache fields(budget);
  {
    QueryCaches queries(budget, 2, 2, 2);
    queries.paths.put(path_key(0), path_of(10));
    queries.paths.put(path_key(0), path_of(100));  // replaces
    EXPECT_EQ(queries.paths.bytes(), PathCache::entry_bytes(*path_of(100)));
    queries.paths.put(path_key(1), path_of(10));
    queries.paths.put(path_key(2), path_of(10));  // over 2 entries: path 0 goes
    EXPECT_EQ(queries.paths.get(path_key(0)), nullptr);
    EXPECT_EQ(queries.paths.bytes(), 2 * PathCache::entry_bytes(*path_of(10)));
    queries.components.put(labels_key(0b10), labels_of_side(8));
    fields.put(field_key(0), field_of_side(8));
    EXPECT_EQ(budget.used_bytes(), sum_of_usage(budget));

    queries.erase_mask("m");
    EXPECT_EQ(queries.paths.size(), 0U);
    EXPECT_EQ(queries.components.size(), 0U);
    EXPECT_EQ(budget.used_bytes(), FieldCache::entry_bytes(*field_of_side(8)));
    queries.components.put(labels_key(0b10), labels_of_side(8));
  }
  EXPECT_EQ(budget.usage().size(), 1U) << "the query caches left";
  EXPECT_EQ(budget.used_bytes(), FieldCache::entry_bytes(*field_of_side(8)));
  fields.erase_mask("m", 2);
  EXPECT_EQ(budget.used_bytes(), 0U);
}

// Threads put fields, labellings and answers of different sizes into caches
// sharing a budget that holds a few of them, read them back and erase the
// query caches' entries now and then: the bytes charged never exceed the budget, and when all is
// done they are exactly what the caches hold.
TEST(CacheBudget, ConcurrentPutsNeverTakeTheBudgetOverItsTotal) {
  CacheBudget budget(6 * FieldCache::entry_bytes(*field_of_side(16)));
  FieldCache fields(budget);
  QueryCaches queries(budget, 64, 64, 64);
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  std::vector<std::thread> threads;
  std::vector<int> over_budget(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        const int n = (i * 7 + t) % 23;
        switch (i % 3) {
          case 0:
            if (!fields.get(field_key(n))) fields.put(field_key(n), field_of_side(8 + n, n));
            break;
          case 1:
            if (!queries.components.get(labels_key(pathcore::AreaSet{1} << (1 + n)))) {
              queries.components.put(labels_key(pathcore::AreaSet{1} << (1 + n)),
                                     labels_of_side(4 + n));
            }
            break;
          default:
            if (!queries.paths.get(path_key(n))) queries.paths.put(path_key(n), path_of(50 * n));
            break;
        }
        if (budget.used_bytes() > budget.total_bytes()) ++over_budget[t];
        if (i % 500 == 499) queries.erase_mask("m");
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(over_budget[t], 0) << "thread " << t;
  EXPECT_LE(budget.used_bytes(), budget.total_bytes());
  EXPECT_EQ(budget.used_bytes(), sum_of_usage(budget));
  EXPECT_EQ(sum_of_usage(budget), fields.bytes() + queries.components.bytes() +
                                      queries.routes.bytes() + queries.paths.bytes());
  EXPECT_GT(fields.stats().evictions + queries.components.usage().evictions, 0U);
}

}  // namespace
}  // namespace pathserver
