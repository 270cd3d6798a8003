#include "pathcore/mask.h"

#include <gtest/gtest.h>

namespace pathcore {
namespace {

TEST(Mask, CountsAreasAndWalkablePixels) {
  const Mask mask(3, 2, {0, 1, 5, 63, 1, 0});
  EXPECT_EQ(mask.areas_present(),
            (AreaSet{1} << 0) | (AreaSet{1} << 1) | (AreaSet{1} << 5) | (AreaSet{1} << 63));
  EXPECT_EQ(mask.walkable_pixels(), 4U);
  // Row 0: 0|1 differ, 1|5 do not; row 1: 63|1 do not, 1|0 differ.
  EXPECT_EQ(mask.row_boundaries(), 2U);
  // Pairs never span two rows: the 1 ending row 0 and the 0 starting row 1 are none.
  EXPECT_EQ(Mask(2, 2, {0, 1, 0, 1}).row_boundaries(), 2U);
  EXPECT_EQ(Mask(4, 1, {1, 0, 1, 0}).row_boundaries(), 3U);
  EXPECT_TRUE(mask.walkable({1, 0}, kAllAreas));
  EXPECT_FALSE(mask.walkable({0, 0}, kAllAreas));
  EXPECT_FALSE(mask.walkable({3, 0}, kAllAreas));
  EXPECT_FALSE(mask.walkable({-1, 0}, kAllAreas));
  EXPECT_FALSE(mask.walkable({2, 0}, AreaSet{1} << 1));
  EXPECT_TRUE(mask.walkable({2, 0}, AreaSet{1} << 5));
}

TEST(Mask, RejectsBadShapesAndIds) {
  EXPECT_THROW(Mask(0, 1, {}), InvalidArgument);
  EXPECT_THROW(Mask(2, 2, {1, 1, 1}), InvalidArgument);
  try {
    Mask(2, 1, {1, 64});
    FAIL() << "area id 64 accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_STREQ(error.what(), "area id 64 at (1,0) exceeds the largest area id 63");
  }
}

TEST(Mask, EffectiveAreasNeverIncludeAreaZero) {
  EXPECT_EQ(effective_areas(0), kAllAreas);
  EXPECT_EQ(effective_areas(0b111), 0b110U);
}

TEST(Mask, Sha256IsTheDigestOfTheAreaGrid) {
  const Mask mask(3, 1, {1, 2, 3});
  // Independent reference: printf '\x01\x02\x03' | sha256sum
  EXPECT_EQ(area_grid_sha256(mask),
            "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81");
}

}  // namespace
}  // namespace pathcore
