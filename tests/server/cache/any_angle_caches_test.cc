// SMOOTHING_ANY_ANGLE's caches: what their keys tell apart, what an entry is
// charged to the shared budget, and that a mask's entries go with it.

#include "cache/any_angle_caches.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "cache/cache_budget.h"

namespace pathserver {
namespace {

pathcore::Mask room_with_pillar() {
  std::vector<std::uint8_t> areas(10 * 10, 1);
  areas[4 * 10 + 4] = 0;
  return {10, 10, std::move(areas)};
}

TEST(AnyAngleCaches, KeysTellMaskRevisionAreasCornerRuleAndGoalApart) {
  const AnyAngleGraphKey base{"m", 1, 0b10, false};
  AnyAngleGraphKey other = base;
  other.mask = "n";
  EXPECT_FALSE(base == other);
  other = base;
  other.revision = 2;
  EXPECT_FALSE(base == other);
  other = base;
  other.enabled = 0b110;
  EXPECT_FALSE(base == other);
  other = base;
  other.allow_corner_cutting = true;
  EXPECT_FALSE(base == other);
  EXPECT_NE(AnyAngleGraphKeyHash{}(base), AnyAngleGraphKeyHash{}(other));
  const AnyAngleGoalKey a{base, {1, 2}};
  const AnyAngleGoalKey b{base, {2, 1}};
  EXPECT_FALSE(a == b);
  EXPECT_NE(AnyAngleGoalKeyHash{}(a), AnyAngleGoalKeyHash{}(b));
  EXPECT_EQ(AnyAngleGoalKeyHash{}(a), AnyAngleGoalKeyHash{}(AnyAngleGoalKey{base, {1, 2}}));
}

TEST(AnyAngleCaches, EntriesAreChargedTheirMemoryBytesAndGoWithTheirMask) {
  CacheBudget budget(std::size_t{1} << 20);
  AnyAngleCaches caches(budget, 4, 4);
  const pathcore::Mask mask = room_with_pillar();
  auto graph = std::make_shared<const pathcore::AnyAngleGraph>(
      pathcore::AnyAngleGraph::build(mask, pathcore::kAllAreas, false));
  auto table = std::make_shared<const pathcore::AnyAngleGoalTable>(
      pathcore::AnyAngleGoalTable::build(*graph, {9, 9}));
  const AnyAngleGraphKey key{"m", 1, pathcore::kAllAreas, false};
  caches.graphs.put(key, graph);
  caches.goals.put({key, {9, 9}}, table);
  EXPECT_EQ(budget.used_bytes(), AnyAngleGraphCache::entry_bytes(*graph) +
                                     AnyAngleGoalCache::entry_bytes(*table));
  EXPECT_EQ(AnyAngleGraphCache::entry_bytes(*graph),
            graph->memory_bytes() + kEntryOverheadBytes<AnyAngleGraphKey>);
  bool named = false;
  for (const CacheUsage& usage : budget.usage()) {
    if (usage.name == "anyangle_graphs" || usage.name == "anyangle_goals") {
      EXPECT_EQ(usage.entries, 1U) << usage.name;
      named = true;
    }
  }
  EXPECT_TRUE(named);
  EXPECT_EQ(caches.goals.get({key, {9, 9}}), table);

  caches.erase_mask("other");
  EXPECT_NE(caches.graphs.get(key), nullptr);
  caches.erase_mask("m");
  EXPECT_EQ(caches.graphs.get(key), nullptr);
  EXPECT_EQ(caches.goals.get({key, {9, 9}}), nullptr);
  EXPECT_EQ(budget.used_bytes(), 0U);
}

}  // namespace
}  // namespace pathserver
