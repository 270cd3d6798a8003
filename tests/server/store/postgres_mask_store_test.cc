// PostgresMaskStore against a real PostgreSQL server (support/postgres_process.h),
// one started for the whole binary (each test has a database of its own)
// and one more for the test that stops and restarts it. Two store instances
// on one database are two replicas.

#include "store/postgres_mask_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "support/postgres_process.h"

namespace pathserver {
namespace {

using namespace std::chrono_literals;
using pathtest::PostgresProcess;
using ::testing::HasSubstr;

// Replicas retry their database quickly here.
constexpr PostgresStoreOptions kQuickRetry{.first_retry = 50ms, .max_retry = 200ms};

PostgresProcess& shared_postgres() {
  static PostgresProcess server;  // stopped at exit
  return server;
}

// width x height of area `area`.
pathcore::Mask filled(std::uint32_t width, std::uint32_t height, std::uint8_t area = 1) {
  return pathcore::Mask(width, height, std::vector<std::uint8_t>(std::size_t{width} * height, area));
}

// Polls `condition` until it holds or `timeout` passes.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 1s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

MaskPatch one_cell(std::uint64_t expected_revision, const std::vector<std::uint8_t>& area) {
  return {.expected_revision = expected_revision, .x = 0, .y = 0, .width = 1, .height = 1,
          .areas = area};
}

class PostgresMaskStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int databases = 0;
    dbname_ = "store_test_" + std::to_string(++databases);
    conninfo_ = shared_postgres().create_database(dbname_);
  }

  std::unique_ptr<PostgresMaskStore> open(StoreLimits limits = {}) const {
    return std::make_unique<PostgresMaskStore>(conninfo_, limits, kQuickRetry);
  }

  std::string dbname_;
  std::string conninfo_;
};

TEST_F(PostgresMaskStoreTest, PutGetListRemove) {
  const auto store = open();
  bool unchanged = true;
  const MaskEntryPtr b = store->put("level/b", filled(30, 20), &unchanged);
  EXPECT_FALSE(unchanged);
  EXPECT_EQ(b->revision, 1U);
  EXPECT_EQ(b->sha256, pathcore::area_grid_sha256(filled(30, 20)));
  ASSERT_NE(b->clearance, nullptr);
  store->put("level/a", filled(4, 4, 2));
  EXPECT_EQ(store->get("level/b"), b);
  ASSERT_EQ(store->list().size(), 2U);
  EXPECT_EQ(store->list()[0]->name, "level/a");
  EXPECT_EQ(store->size(), 2U);
  EXPECT_EQ(store->stored_bytes(), 30U * 20U + 16U);

  // A second replica loads what is stored, byte for byte.
  const auto other = open();
  ASSERT_NE(other->get("level/b"), nullptr);
  EXPECT_EQ(other->get("level/b")->revision, 1U);
  EXPECT_EQ(other->get("level/b")->mask->areas(), b->mask->areas());

  EXPECT_EQ(store->remove("level/b"), b);
  EXPECT_EQ(store->get("level/b"), nullptr);
  EXPECT_EQ(store->remove("level/b"), nullptr);
  EXPECT_EQ(store->size(), 1U);
  EXPECT_THROW(store->put("../x", filled(1, 1)), InvalidMaskName);
  EXPECT_THROW(store->remove(""), InvalidMaskName);
  const std::vector<std::uint8_t> area{3};
  EXPECT_THROW(store->patch("level/none", one_cell(0, area)), MaskNotFound);
}

TEST_F(PostgresMaskStoreTest, APatchThatChangesNothingKeepsTheRevisionAndWritesNothing) {
  const auto store = open();
  const MaskEntryPtr stored = store->put("m", filled(4, 4, 2));
  const std::vector<std::uint8_t> same{2};
  EXPECT_EQ(store->patch("m", one_cell(0, same))->revision, stored->revision);
  EXPECT_EQ(store->patch("m", one_cell(stored->revision, same))->revision, stored->revision);
  EXPECT_EQ(store->get("m")->revision, stored->revision);
  EXPECT_THROW(store->patch("m", one_cell(stored->revision + 1, same)), RevisionMismatch);
  // Nothing was written: no revision used up, the next change is the next one.
  const std::vector<std::uint8_t> changed{3};
  EXPECT_EQ(store->patch("m", one_cell(0, changed))->revision, stored->revision + 1);
  // A replica that has not read the current revision yet sees the same.
  const auto other = open();
  EXPECT_EQ(other->patch("m", one_cell(0, changed))->revision, stored->revision + 1);
  const std::vector<std::uint8_t> changed_again{4};
  EXPECT_EQ(other->patch("m", one_cell(0, changed_again))->revision, stored->revision + 2);
}

TEST_F(PostgresMaskStoreTest, IncompressibleAndCompressibleGridsRoundTrip) {
  std::vector<std::uint8_t> noise(64 * 64);
  std::uint32_t state = 12345;
  for (auto& area : noise) {
    state = state * 1103515245 + 12345;
    area = static_cast<std::uint8_t>((state >> 16) % 64);
  }
  const auto store = open();
  store->put("noise", pathcore::Mask(64, 64, noise));
  store->put("runs", filled(500, 400));
  const auto other = open();
  EXPECT_EQ(other->get("noise")->mask->areas(), noise);
  EXPECT_EQ(other->get("runs")->mask->areas(), filled(500, 400).areas());
  EXPECT_EQ(other->corrupt_count(), 0U);
}

TEST_F(PostgresMaskStoreTest, RevisionsNeverRepeatAcrossDeleteAndRestart) {
  {
    const auto store = open();
    EXPECT_EQ(store->put("m", filled(8, 8))->revision, 1U);
    const std::vector<std::uint8_t> area{0};
    EXPECT_EQ(store->patch("m", one_cell(1, area))->revision, 2U);
    ASSERT_NE(store->remove("m"), nullptr);
    EXPECT_EQ(store->put("m", filled(8, 8))->revision, 3U);
    ASSERT_NE(store->remove("m"), nullptr);
  }
  const auto restarted = open();
  EXPECT_EQ(restarted->get("m"), nullptr);
  EXPECT_EQ(restarted->put("m", filled(8, 8))->revision, 4U);
}

TEST_F(PostgresMaskStoreTest, TheSameGridKeepsItsRevision) {
  const auto store = open();
  const MaskEntryPtr first = store->put("m", filled(8, 8));
  bool unchanged = false;
  EXPECT_EQ(store->put("m", filled(8, 8), &unchanged), first);
  EXPECT_TRUE(unchanged);
  // Through another replica too.
  const auto other = open();
  EXPECT_EQ(other->put("m", filled(8, 8), &unchanged)->revision, first->revision);
  EXPECT_TRUE(unchanged);
  EXPECT_EQ(other->put("m", filled(8, 8, 2), &unchanged)->revision, first->revision + 1);
  EXPECT_FALSE(unchanged);
}

TEST_F(PostgresMaskStoreTest, ConcurrentPatchesOfTwoReplicasExpectingOneRevision_OneWins) {
  const auto a = open();
  const auto b = open();
  std::uint64_t revision = a->put("m", filled(16, 16))->revision;
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> won{0};
    std::atomic<int> mismatched{0};
    const std::vector<std::uint8_t> area_a{static_cast<std::uint8_t>(2 + round % 2)};
    // Both always change the cell (a patch that changes nothing keeps the
    // revision and so is no contender).
    const std::vector<std::uint8_t> area_b{static_cast<std::uint8_t>(4 + round % 2)};
    auto patch_through = [&](PostgresMaskStore& store, const std::vector<std::uint8_t>& area) {
      try {
        store.patch("m", one_cell(revision, area));
        ++won;
      } catch (const RevisionMismatch& e) {
        EXPECT_THAT(e.what(), HasSubstr("expected revision " + std::to_string(revision)));
        ++mismatched;
      }
    };
    std::thread first([&] { patch_through(*a, area_a); });
    std::thread second([&] { patch_through(*b, area_b); });
    first.join();
    second.join();
    ASSERT_EQ(won.load(), 1) << "round " << round;
    ASSERT_EQ(mismatched.load(), 1) << "round " << round;
    ++revision;
    auto at_revision = [&](const PostgresMaskStore& store) {
      const MaskEntryPtr entry = store.get("m");
      return entry && entry->revision == revision;
    };
    ASSERT_TRUE(eventually([&] { return at_revision(*a) && at_revision(*b); }));
  }
}

TEST_F(PostgresMaskStoreTest, LimitsHoldAcrossReplicas) {
  const StoreLimits limits{.max_masks = 3, .max_bytes = 1000, .max_pixels = 600};
  const auto a = open(limits);
  const auto b = open(limits);
  EXPECT_THROW(a->put("huge", filled(30, 30)), StoreLimitExceeded);  // over max_pixels
  a->put("one", filled(10, 10));
  // Of two replicas adding 500 bytes each at once with room for 900, exactly
  // one succeeds.
  std::atomic<int> stored{0};
  std::atomic<int> refused{0};
  auto add = [&](PostgresMaskStore& store, const std::string& name) {
    try {
      store.put(name, filled(20, 25));
      ++stored;
    } catch (const StoreLimitExceeded& e) {
      EXPECT_THAT(e.what(), HasSubstr("--max-stored-mb"));
      ++refused;
    }
  };
  std::thread first([&] { add(*a, "two"); });
  std::thread second([&] { add(*b, "three"); });
  first.join();
  second.join();
  EXPECT_EQ(stored.load(), 1);
  EXPECT_EQ(refused.load(), 1);
  b->put("four", filled(1, 1));
  try {
    a->put("five", filled(1, 1));
    FAIL() << "a fourth mask was stored";
  } catch (const StoreLimitExceeded& e) {
    EXPECT_THAT(e.what(), HasSubstr("--max-masks"));
  }
  EXPECT_NO_THROW(b->put("one", filled(5, 5)));  // a replacement that shrinks
}

TEST_F(PostgresMaskStoreTest, AWriteReachesAnotherReplicaWithinASecond) {
  const auto a = open();
  const auto b = open();
  const MaskEntryPtr put = a->put("m", filled(8, 8));
  ASSERT_TRUE(eventually([&] { return b->get("m") != nullptr; }));
  EXPECT_EQ(b->get("m")->sha256, put->sha256);
  const std::vector<std::uint8_t> area{0};
  const MaskEntryPtr patched = a->patch("m", one_cell(put->revision, area));
  ASSERT_TRUE(eventually([&] {
    const MaskEntryPtr seen = b->get("m");
    return seen && seen->revision == patched->revision;
  }));
  EXPECT_EQ(b->get("m")->sha256, patched->sha256);
  EXPECT_EQ(b->get("m")->mask->area({0, 0}), 0);
  ASSERT_NE(b->remove("m"), nullptr);
  ASSERT_TRUE(eventually([&] { return a->get("m") == nullptr; }));
  EXPECT_EQ(a->size(), 0U);
}

TEST_F(PostgresMaskStoreTest, EveryChangeOfAnotherReplicaReachesTheChangeListener) {
  const auto a = open();
  const auto b = open();
  // What the listener heard: name, first live revision, kind, patched rectangle.
  using Heard = std::tuple<std::string, std::uint64_t, StoreChange::Kind, PixelRect>;
  std::mutex mutex;
  std::vector<Heard> told;
  b->set_change_listener([&](const StoreChange& change) {
    const std::lock_guard lock(mutex);
    told.emplace_back(change.name, change.first_live_revision(), change.kind, change.patched);
  });
  const auto told_so_far = [&] {
    const std::lock_guard lock(mutex);
    return told;
  };
  using Kind = StoreChange::Kind;

  const MaskEntryPtr put = a->put("m", filled(8, 8));
  ASSERT_TRUE(eventually([&] { return told_so_far().size() == 1; }));
  const std::vector<std::uint8_t> areas{0, 0};
  const MaskEntryPtr patched = a->patch(
      "m", {.expected_revision = put->revision, .x = 2, .y = 5, .width = 1, .height = 2,
            .areas = areas});
  ASSERT_TRUE(eventually([&] { return told_so_far().size() == 2; }));
  ASSERT_NE(a->remove("m"), nullptr);  // revision 2 deleted: nothing below 3 lives
  ASSERT_TRUE(eventually([&] { return told_so_far().size() == 3; }));
  EXPECT_EQ(told_so_far(),
            (std::vector<Heard>{{"m", put->revision, Kind::kReplaced, PixelRect{}},
                                {"m", patched->revision, Kind::kPatched, PixelRect{2, 5, 1, 2}},
                                {"m", patched->revision + 1, Kind::kDeleted, PixelRect{}}}));

  // Its own writes too (once each, though the database echoes them back).
  const MaskEntryPtr own = b->put("n", filled(4, 4));
  ASSERT_TRUE(eventually([&] { return told_so_far().size() == 4; }));
  EXPECT_EQ(told_so_far().back(), (Heard{"n", own->revision, Kind::kReplaced, PixelRect{}}));
  const MaskEntryPtr own_patch = b->patch(
      "n", {.expected_revision = own->revision, .x = 3, .y = 0, .width = 1, .height = 1,
            .areas = std::span(areas).first(1)});
  ASSERT_TRUE(eventually([&] { return told_so_far().size() == 5; }));
  EXPECT_EQ(told_so_far().back(), (Heard{"n", own_patch->revision, Kind::kPatched,
                                         PixelRect{3, 0, 1, 1}}));

  // Removed: not called again.
  b->set_change_listener({});
  (void)a->put("m", filled(8, 8));
  ASSERT_TRUE(eventually([&] { return b->get("m") != nullptr; }));
  std::this_thread::sleep_for(100ms);  // an echo of "n" would have come by now
  EXPECT_EQ(told_so_far().size(), 5U);
}

TEST_F(PostgresMaskStoreTest, UndecodableRowsAreCorruptNames) {
  {
    const auto store = open();
    store->put("zipped", filled(100, 100));
    store->put("digest", filled(4, 4));
    store->put("ids", filled(4, 4));
  }
  auto& server = shared_postgres();
  server.execute(dbname_, "UPDATE pathfinder_masks SET areas = '\\x0001'::bytea WHERE name = 'zipped'");
  server.execute(dbname_, "UPDATE pathfinder_masks SET sha256 = repeat('0', 64) WHERE name = 'digest'");
  server.execute(dbname_,
                 "UPDATE pathfinder_masks SET encoding = 'raw', areas = "
                 "decode(repeat('ff', 16), 'hex') WHERE name = 'ids'");
  const auto store = open();
  EXPECT_EQ(store->corrupt_count(), 3U);
  EXPECT_EQ(store->size(), 0U);
  EXPECT_TRUE(store->is_corrupt("zipped"));
  EXPECT_EQ(store->get("zipped"), nullptr);
  const std::vector<std::uint8_t> area{0};
  EXPECT_THROW(store->patch("digest", one_cell(0, area)), MaskCorrupt);
  // Replaced: readable again, at a new revision.
  const MaskEntryPtr replaced = store->put("digest", filled(4, 4));
  EXPECT_GT(replaced->revision, 1U);
  EXPECT_FALSE(store->is_corrupt("digest"));
  bool was_corrupt = false;
  EXPECT_EQ(store->remove("ids", &was_corrupt), nullptr);
  EXPECT_TRUE(was_corrupt);
  EXPECT_EQ(store->corrupt_count(), 1U);
}

TEST_F(PostgresMaskStoreTest, ReplicasStartingTogetherCreateTheSchemaOnce) {
  std::vector<std::thread> starts;
  std::atomic<int> opened{0};
  for (int i = 0; i < 3; ++i) {
    starts.emplace_back([&] {
      try {
        open();
        ++opened;
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (auto& start : starts) start.join();
  EXPECT_EQ(opened.load(), 3);
  shared_postgres().execute(dbname_, "UPDATE pathfinder_schema SET version = 2");
  try {
    open();
    FAIL() << "a newer schema was opened";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("schema version 2"));
  }
}

TEST(PostgresMaskStoreRestart, HeldMasksAnswerWhileTheDatabaseIsDownAndWritesAfterAreSeen) {
  PostgresProcess server;
  const std::string conninfo = server.create_database("restart");
  // This replica retries slowly, so that a write of another replica lands
  // while it is still disconnected: it must re-read, not rely on NOTIFY.
  PostgresMaskStore replica(conninfo, {}, {.first_retry = 1500ms, .max_retry = 1500ms});
  const MaskEntryPtr held = replica.put("held", filled(8, 8));

  server.stop();
  ASSERT_TRUE(eventually([&] { return !replica.is_available(); }, 2s));
  EXPECT_EQ(replica.get("held"), held);
  EXPECT_EQ(replica.list().size(), 1U);
  try {
    replica.put("new", filled(2, 2));
    FAIL() << "a write succeeded with the database down";
  } catch (const StoreUnavailable& e) {
    EXPECT_THAT(e.what(), HasSubstr("could not store mask 'new'"));
    EXPECT_THAT(e.what(), HasSubstr("cannot be reached"));
  }
  const std::vector<std::uint8_t> area{0};
  EXPECT_THROW(replica.patch("held", one_cell(0, area)), StoreUnavailable);
  EXPECT_THROW(replica.remove("held"), StoreUnavailable);

  server.start();
  {
    PostgresMaskStore other(conninfo, {}, kQuickRetry);
    other.put("meanwhile", filled(3, 3));
    other.patch("held", one_cell(held->revision, area));
  }
  const bool written_while_disconnected = !replica.is_available();
  ASSERT_TRUE(eventually([&] { return replica.is_available(); }, 10s));
  // Available means re-read: no waiting for notifications here.
  ASSERT_NE(replica.get("meanwhile"), nullptr);
  EXPECT_EQ(replica.get("held")->revision, held->revision + 1);
  EXPECT_TRUE(written_while_disconnected) << "the replica reconnected before the other's writes";
  EXPECT_EQ(replica.put("after", filled(2, 2))->revision, 1U);
}

}  // namespace
}  // namespace pathserver
