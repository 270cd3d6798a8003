// SMOOTHING_ANY_ANGLE's cache: what its keys tell apart, what an entry is
// charged to the shared budget, and that a mask's entries go with it.

#include "cache/any_angle_caches.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "cache/cache_budget.h"
#include "cache/usable_mask_cache.h"

namespace pathserver {
namespace {

pathcore::Mask room_with_pillar() {
  std::vector<std::uint8_t> areas(10 * 10, 1);
  areas[4 * 10 + 4] = 0;
  return {10, 10, std::move(areas)};
}

TEST(AnyAngleCaches, KeysTellMaskRevisionAreasCornerRuleAndClearanceApart) {
  const AnyAngleMeshKey base{"m", 1, 0b10, false, 0};
  AnyAngleMeshKey other = base;
  other.mask = "n";
  EXPECT_FALSE(base == other);
  other = base;
  other.revision = 2;
  EXPECT_FALSE(base == other);
  other = base;
  other.enabled = 0b110;
  EXPECT_FALSE(base == other);
  other = base;
  other.clearance = 1.5;
  EXPECT_FALSE(base == other);
  other = base;
  other.allow_corner_cutting = true;
  EXPECT_FALSE(base == other);
  EXPECT_NE(AnyAngleMeshKeyHash{}(base), AnyAngleMeshKeyHash{}(other));
  EXPECT_EQ(AnyAngleMeshKeyHash{}(base), AnyAngleMeshKeyHash{}(AnyAngleMeshKey{base}));
  // Its builds are single flights of their own: no field's or usable
  // grid's flight shares the key.
  EXPECT_FALSE(any_angle_structure_flight_key(base) == any_angle_structure_flight_key(other));
  EXPECT_FALSE(any_angle_structure_flight_key(base) ==
               usable_grid_flight_key(UsableMaskKey{"m", 1, 0b10, 0}));
  EXPECT_LT(any_angle_structure_flight_key(base).goal.x, 0);
}

TEST(AnyAngleCaches, EntriesAreChargedTheirMemoryBytesAndGoWithTheirMask) {
  CacheBudget budget(std::size_t{1} << 20);
  AnyAngleCaches caches(budget, 4);
  const pathcore::Mask mask = room_with_pillar();
  auto mesh = std::make_shared<const pathcore::AnyAngleMesh>(
      pathcore::AnyAngleMesh::build(mask, pathcore::kAllAreas, false));
  const AnyAngleMeshKey key{"m", 1, pathcore::kAllAreas, false, 0};
  caches.meshes.put(key, mesh);
  EXPECT_EQ(budget.used_bytes(), mesh->memory_bytes() + kEntryOverheadBytes<AnyAngleMeshKey>);
  bool named = false;
  for (const CacheUsage& usage : budget.usage()) {
    if (usage.name == "anyangle_meshes") {
      EXPECT_EQ(usage.entries, 1U) << usage.name;
      named = true;
    }
  }
  EXPECT_TRUE(named);
  EXPECT_EQ(caches.meshes.get(key), mesh);

  caches.erase_mask("other");
  EXPECT_NE(caches.meshes.get(key), nullptr);
  caches.erase_mask("m");
  EXPECT_EQ(caches.meshes.get(key), nullptr);
  EXPECT_EQ(budget.used_bytes(), 0U);
}

}  // namespace
}  // namespace pathserver
