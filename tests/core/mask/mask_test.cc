#include "pathcore/mask.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "support/random_mask.h"

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

// with_blocked updates the statistics from the pixels it changes: they must
// be those of a mask built from the same grid (which scans it).
TEST(Mask, WithBlockedHasTheStatisticsOfAMaskBuiltFromTheSameGrid) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const auto width = static_cast<std::uint32_t>(1 + rng() % 24);
    const auto height = static_cast<std::uint32_t>(1 + rng() % 24);
    const Mask mask =
        pathtest::random_mask(rng, width, height, 0.3, 1 + static_cast<int>(rng() % 4));
    std::vector<std::size_t> pixels;  // repeats and already blocked pixels too
    const std::size_t count = rng() % (mask.pixel_count() + 2);
    for (std::size_t i = 0; i < count; ++i) pixels.push_back(rng() % mask.pixel_count());
    const Mask patched = mask.with_blocked(pixels);
    std::vector<std::uint8_t> areas = mask.areas();
    for (const std::size_t i : pixels) areas[i] = 0;
    const Mask rebuilt(width, height, areas);
    ASSERT_EQ(patched.areas(), rebuilt.areas()) << trial;
    EXPECT_EQ(patched.areas_present(), rebuilt.areas_present()) << trial;
    EXPECT_EQ(patched.walkable_pixels(), rebuilt.walkable_pixels()) << trial;
    EXPECT_EQ(patched.row_boundaries(), rebuilt.row_boundaries()) << trial;
  }
  const Mask mask(2, 1, {1, 1});
  const std::vector<std::size_t> outside = {2};
  EXPECT_THROW((void)mask.with_blocked(outside), InvalidArgument);
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

TEST(Mask, AreasInUseKeepOnlyTheEnabledAreasTheMaskHas) {
  const Mask mask(4, 1, {0, 1, 3, 3});  // areas 0, 1 and 3
  const AreaSet one = AreaSet{1} << 1;
  const AreaSet three = AreaSet{1} << 3;
  EXPECT_EQ(mask.areas_in_use(kAllAreas), one | three);
  EXPECT_EQ(mask.areas_in_use(one | (AreaSet{1} << 7) | (AreaSet{1} << 63)), one);
  // Nothing of the mask enabled: the lowest absent area (2), for every such set.
  EXPECT_EQ(mask.areas_in_use(AreaSet{1} << 9), AreaSet{1} << 2);
  EXPECT_EQ(mask.areas_in_use((AreaSet{1} << 9) | (AreaSet{1} << 40)), AreaSet{1} << 2);
  // Walkability is what the request's own set gives, pixel by pixel.
  for (const AreaSet requested : {kAllAreas, one | (AreaSet{1} << 7), AreaSet{1} << 9, three}) {
    for (int x = 0; x < 4; ++x) {
      EXPECT_EQ(mask.walkable({x, 0}, mask.areas_in_use(requested)), mask.walkable({x, 0}, requested))
          << x;
    }
  }
  // A mask with all 63 areas: any set is kept as it is.
  std::vector<std::uint8_t> every(64);
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = static_cast<std::uint8_t>(i);
  EXPECT_EQ(Mask(64, 1, every).areas_in_use(three), three);
}

TEST(Mask, Sha256IsTheDigestOfTheAreaGrid) {
  const Mask mask(3, 1, {1, 2, 3});
  // Independent reference: printf '\x01\x02\x03' | sha256sum
  EXPECT_EQ(area_grid_sha256(mask),
            "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81");
}

}  // namespace
}  // namespace pathcore
