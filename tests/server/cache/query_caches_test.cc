// The FindPath answer cache's admission filter (SecondMissFilter).

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

#include "cache/query_caches.h"

namespace pathserver {
namespace {

TEST(SecondMissFilter, AKeyIsAdmittedOnItsSecondMissOnly) {
  SecondMissFilter filter(64);
  EXPECT_FALSE(filter.missed_before(12345));
  EXPECT_TRUE(filter.missed_before(12345));
  EXPECT_TRUE(filter.missed_before(12345));  // still remembered
  EXPECT_FALSE(filter.missed_before(777));
}

TEST(SecondMissFilter, DistinctKeysAreAlmostNeverAdmitted) {
  // A stream of keys that never repeat: each one misses once, so (apart from
  // a full-hash collision, which 64-bit random hashes make vanishingly rare)
  // none is admitted, however small the table.
  SecondMissFilter filter(16);
  std::mt19937_64 rng(7);
  int admitted = 0;
  for (int i = 0; i < 100000; ++i) admitted += filter.missed_before(rng()) ? 1 : 0;
  EXPECT_EQ(admitted, 0);
}

TEST(SecondMissFilter, RepeatsWithinTheTablesReachAreAdmitted) {
  // 1000 keys asked in turn, twice, through a table of 4096 slots. A key is
  // forgotten when one of the 999 others asked between its two misses takes
  // its slot: it is remembered with probability (1 - 1/4096)^999, about 78%.
  SecondMissFilter filter(4096);
  std::mt19937_64 rng(11);
  std::vector<std::size_t> keys(1000);
  for (auto& key : keys) key = rng();
  for (const auto key : keys) EXPECT_FALSE(filter.missed_before(key));
  int admitted = 0;
  for (const auto key : keys) admitted += filter.missed_before(key) ? 1 : 0;
  EXPECT_GT(admitted, 700);
  EXPECT_LT(admitted, 860);
}

TEST(SecondMissFilter, ATableOfNoSlotsStillWorks) {
  SecondMissFilter filter(0);  // rounded up to one slot
  EXPECT_FALSE(filter.missed_before(1));
  EXPECT_TRUE(filter.missed_before(1));
  EXPECT_FALSE(filter.missed_before(2));
  EXPECT_FALSE(filter.missed_before(1));  // forgotten: the one slot holds 2
}

}  // namespace
}  // namespace pathserver
