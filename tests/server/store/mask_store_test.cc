#include "store/file_mask_store.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pathcore/mask.h"
#include "support/captured_log.h"
#include "support/file_size_limit.h"
#include "support/random_mask.h"

namespace pathserver {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using Bytes = std::vector<std::uint8_t>;

Bytes read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// Recomputes the trailing SHA-256 so a deliberately edited file passes the
// checksum and fails a later check.
void reseal(Bytes& bytes) {
  unsigned int size = 0;
  ASSERT_EQ(EVP_Digest(bytes.data(), bytes.size() - 32, bytes.data() + bytes.size() - 32, &size,
                       EVP_sha256(), nullptr),
            1);
  ASSERT_EQ(size, 32U);
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class MaskStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "mask_store_test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  pathcore::Mask make_mask(std::uint32_t width, std::uint32_t height) {
    return pathtest::random_mask(rng_, width, height, 0.3, 7);
  }

  fs::path dir_;
  std::mt19937_64 rng_{12345};
};

TEST_F(MaskStoreTest, ReopenGivesTheSameMasksRevisionsAndDigests) {
  std::vector<MaskEntryPtr> stored;
  {
    FileMaskStore store(dir_);
    EXPECT_EQ(store.size(), 0U);
    store.put("demo", make_mask(17, 9));
    stored.push_back(store.put("demo", make_mask(5, 30)));  // revision 2
    stored.push_back(store.put("levels/town-1.v2", make_mask(1, 1)));
    stored.push_back(store.put("a", make_mask(64, 48)));
    stored.push_back(store.put(std::string(kMaxMaskNameLength, 'x'), make_mask(3, 3)));
  }
  FileMaskStore store(dir_);
  EXPECT_EQ(store.load_report().loaded, stored.size());
  EXPECT_EQ(store.load_report().skipped, 0U);
  ASSERT_EQ(store.size(), stored.size());
  for (const auto& before : stored) {
    SCOPED_TRACE(before->name);
    const MaskEntryPtr after = store.get(before->name);
    ASSERT_NE(after, nullptr);
    EXPECT_EQ(after->revision, before->revision);
    EXPECT_EQ(after->sha256, before->sha256);
    EXPECT_EQ(after->sha256, pathcore::area_grid_sha256(*after->mask));
    EXPECT_EQ(after->mask->width(), before->mask->width());
    EXPECT_EQ(after->mask->height(), before->mask->height());
    EXPECT_EQ(after->mask->areas(), before->mask->areas());
  }
  EXPECT_EQ(store.get("demo")->revision, 2U);
  // Revisions continue from what was loaded.
  EXPECT_EQ(store.put("demo", make_mask(2, 2))->revision, 3U);
}

TEST_F(MaskStoreTest, ListIsOrderedByName) {
  FileMaskStore store(dir_);
  for (const char* name : {"b", "a/z", "a", "C"}) store.put(name, make_mask(2, 2));
  std::vector<std::string> names;
  for (const auto& entry : store.list()) names.push_back(entry->name);
  EXPECT_EQ(names, (std::vector<std::string>{"C", "a", "a/z", "b"}));
}

TEST_F(MaskStoreTest, EntryDescribesTheMask) {
  FileMaskStore store(dir_);
  const auto entry = store.put("m", pathcore::Mask(3, 2, {0, 1, 5, 63, 1, 0}));
  EXPECT_EQ(entry->name, "m");
  EXPECT_EQ(entry->revision, 1U);
  EXPECT_EQ(entry->mask->walkable_pixels(), 4U);
  EXPECT_EQ(entry->sha256, pathcore::area_grid_sha256(*entry->mask));
  EXPECT_EQ(entry->sha256.size(), 64U);
  EXPECT_EQ(store.get("m"), entry);
  EXPECT_EQ(store.get("n"), nullptr);
}

TEST_F(MaskStoreTest, RevisionIncrementsOnReplace) {
  FileMaskStore store(dir_);
  EXPECT_EQ(store.put("a", make_mask(4, 4))->revision, 1U);
  EXPECT_EQ(store.put("a", make_mask(4, 4))->revision, 2U);
  EXPECT_EQ(store.put("b", make_mask(4, 4))->revision, 1U);
  const auto third = store.put("a", make_mask(6, 2));
  EXPECT_EQ(third->revision, 3U);
  EXPECT_EQ(store.get("a"), third);
  EXPECT_EQ(store.size(), 2U);
}

TEST_F(MaskStoreTest, RevisionStaysMonotonicAcrossDeleteAndReupload) {
  FileMaskStore store(dir_);
  store.put("a", make_mask(4, 4));
  store.put("a", make_mask(4, 4));
  ASSERT_TRUE(store.remove("a"));
  EXPECT_EQ(store.put("a", make_mask(4, 4))->revision, 3U);
}

TEST_F(MaskStoreTest, DeleteRemovesTheMaskDurably) {
  {
    FileMaskStore store(dir_);
    store.put("levels/keep", make_mask(4, 4));
    store.put("levels/gone", make_mask(4, 4));
    EXPECT_TRUE(fs::exists(dir_ / mask_file_name("levels/gone")));
    EXPECT_TRUE(store.remove("levels/gone"));
    EXPECT_EQ(store.get("levels/gone"), nullptr);
    EXPECT_FALSE(store.remove("levels/gone"));
    EXPECT_FALSE(store.remove("never"));
    EXPECT_FALSE(fs::exists(dir_ / mask_file_name("levels/gone")));
  }
  FileMaskStore store(dir_);
  EXPECT_EQ(store.get("levels/gone"), nullptr);
  EXPECT_NE(store.get("levels/keep"), nullptr);
  EXPECT_EQ(store.size(), 1U);
}

TEST_F(MaskStoreTest, FileNamesAreFlatAndLeaveNoTempFiles) {
  FileMaskStore store(dir_);
  store.put("levels/town/inn", make_mask(4, 4));
  store.put(".hidden", make_mask(4, 4));
  store.put("levels/town/inn", make_mask(4, 4));
  EXPECT_EQ(files_in(dir_), (std::vector<std::string>{".hidden.pfmask", "levels~town~inn.pfmask"}));
  EXPECT_EQ(mask_file_name("a/b"), "a~b.pfmask");
}

TEST_F(MaskStoreTest, CorruptTruncatedAndStrayFilesAreSkipped) {
  Bytes victim;
  {
    FileMaskStore store(dir_);
    store.put("good", make_mask(10, 10));
    store.put("other/good", make_mask(3, 7));
    store.put("victim", make_mask(20, 10));
  }
  const fs::path victim_path = dir_ / mask_file_name("victim");
  victim = read_bytes(victim_path);
  ASSERT_EQ(victim.size(), 96U + 6 + 200 + 32);

  struct Case {
    std::string what;
    std::string file;  // written instead of the victim (victim removed)
    Bytes bytes;
    std::size_t skipped = 1;
    std::size_t temp_removed = 0;
  };
  std::vector<Case> cases;
  for (std::size_t cut :
       {std::size_t{0}, std::size_t{5}, std::size_t{8}, std::size_t{95}, std::size_t{96},
        std::size_t{100}, std::size_t{150}, victim.size() - 33, victim.size() - 1}) {
    cases.push_back({"truncated at " + std::to_string(cut), mask_file_name("victim"),
                     Bytes(victim.begin(), victim.begin() + static_cast<long>(cut))});
  }
  for (std::size_t at :
       {std::size_t{0}, std::size_t{9}, std::size_t{13}, std::size_t{17}, std::size_t{25},
        std::size_t{40}, std::size_t{97}, std::size_t{200}, victim.size() - 1}) {
    Bytes flipped = victim;
    flipped[at] ^= 0x10;
    cases.push_back({"byte " + std::to_string(at) + " flipped", mask_file_name("victim"), flipped});
  }
  Bytes longer = victim;
  longer.push_back(0);
  cases.push_back({"one byte appended", mask_file_name("victim"), longer});
  Bytes garbage(1000);
  for (auto& b : garbage) b = static_cast<std::uint8_t>(rng_());
  cases.push_back({"garbage", mask_file_name("victim"), garbage});
  cases.push_back({"empty file", mask_file_name("victim"), {}});
  Bytes bad_area = victim;
  bad_area[96 + 6 + 3] = 64;  // area id out of range, checksum made valid
  reseal(bad_area);
  cases.push_back({"area id 64", mask_file_name("victim"), bad_area});
  Bytes bad_version = victim;
  bad_version[8] = 2;
  reseal(bad_version);
  cases.push_back({"unknown version", mask_file_name("victim"), bad_version});
  cases.push_back({"copied under another name", mask_file_name("impostor"), victim});
  cases.push_back(
      {"leftover temp file", "." + mask_file_name("victim") + ".99-1.tmp", victim, 0, 1});
  cases.push_back({"leftover empty temp file", ".x.pfmask.1-2.tmp", {}, 0, 1});

  // Every case ends by deleting "victim", so each upload of it must get a
  // revision above the one before.
  std::uint64_t last_victim_revision = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    fs::remove(victim_path);
    write_bytes(dir_ / c.file, c.bytes);
    {
      FileMaskStore store(dir_);
      EXPECT_EQ(store.load_report().loaded, 2U);
      EXPECT_EQ(store.load_report().skipped, c.skipped);
      EXPECT_EQ(store.load_report().temp_removed, c.temp_removed);
      EXPECT_NE(store.get("good"), nullptr);
      EXPECT_NE(store.get("other/good"), nullptr);
      EXPECT_EQ(store.get("victim"), nullptr);
      EXPECT_EQ(store.get("impostor"), nullptr);
      // A bad file under a mask's file name makes that mask corrupt; temp files do not.
      const bool victim_file = c.file == mask_file_name("victim");
      const bool impostor_file = c.file == mask_file_name("impostor");
      EXPECT_EQ(store.is_corrupt("victim"), victim_file);
      EXPECT_EQ(store.is_corrupt("impostor"), impostor_file);
      EXPECT_EQ(store.corrupt_count(), victim_file || impostor_file ? 1U : 0U);
      EXPECT_EQ(store.load_report().corrupt.size(), store.corrupt_count());
      EXPECT_FALSE(store.is_corrupt("good"));
      // A bad file is left for the operator; a temp file is deleted.
      EXPECT_EQ(fs::exists(dir_ / c.file), c.temp_removed == 0);
      // A fresh upload replaces a corrupt file.
      const std::uint64_t revision = store.put("victim", make_mask(2, 2))->revision;
      EXPECT_GT(revision, last_victim_revision);
      last_victim_revision = revision;
      EXPECT_FALSE(store.is_corrupt("victim"));
    }
    {
      FileMaskStore store(dir_);
      ASSERT_NE(store.get("victim"), nullptr);
      EXPECT_EQ(store.get("victim")->mask->width(), 2U);
      EXPECT_TRUE(store.remove("victim"));
    }
    fs::remove(dir_ / c.file);
  }
}

TEST_F(MaskStoreTest, OtherFilesAndDirectoriesAreIgnored) {
  {
    FileMaskStore store(dir_);
    store.put("a", make_mask(3, 3));
  }
  write_bytes(dir_ / "port", {'1', '2', '\n'});
  fs::create_directory(dir_ / "sub.pfmask");
  FileMaskStore store(dir_);
  EXPECT_EQ(store.load_report().loaded, 1U);
  EXPECT_EQ(store.load_report().ignored, 2U);
  EXPECT_EQ(store.load_report().skipped, 0U);
}

TEST_F(MaskStoreTest, SecondStoreOnTheSameDirIsRefused) {
  FileMaskStore store(dir_);
  EXPECT_THROW(FileMaskStore{dir_}, StoreError);
}

TEST_F(MaskStoreTest, UnusableDirIsAStoreError) {
  write_bytes(dir_ / "file", {1});
  EXPECT_THROW(FileMaskStore{dir_ / "file"}, StoreError);
  EXPECT_THROW(FileMaskStore{dir_ / "file" / "sub"}, StoreError);
}

TEST_F(MaskStoreTest, MissingDirIsCreated) {
  FileMaskStore store(dir_ / "new" / "data");
  store.put("a", make_mask(2, 2));
  EXPECT_TRUE(fs::exists(dir_ / "new" / "data" / mask_file_name("a")));
}

TEST_F(MaskStoreTest, InvalidNamesAreRefused) {
  FileMaskStore store(dir_);
  try {
    store.put("../x", make_mask(2, 2));
    FAIL() << "accepted ../x";
  } catch (const InvalidMaskName& e) {
    EXPECT_EQ(std::string(e.what()), "name: must not contain a '..' segment");
  }
  EXPECT_THROW(store.remove("a b"), InvalidMaskName);
  EXPECT_TRUE(files_in(dir_).empty());
}

TEST_F(MaskStoreTest, ConcurrentWritersAndReaders) {
  FileMaskStore store(dir_);
  constexpr int kThreads = 4;
  constexpr int kPuts = 10;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&store, t] {
      std::mt19937_64 rng(static_cast<std::uint64_t>(t));
      for (int i = 0; i < kPuts; ++i) {
        store.put("shared", pathtest::random_mask(rng, 8, 8, 0.2, 3));
        store.put("own/" + std::to_string(t), pathtest::random_mask(rng, 4, 4, 0.2, 3));
        const auto entry = store.get("shared");
        ASSERT_NE(entry, nullptr);
        EXPECT_EQ(entry->sha256, pathcore::area_grid_sha256(*entry->mask));
        EXPECT_FALSE(store.list().empty());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(store.get("shared")->revision, std::uint64_t{kThreads * kPuts});
  EXPECT_EQ(store.size(), std::size_t{kThreads + 1});
}

// ---------------------------------------------------------------------------
// patch()

MaskPatch rect(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h,
               const std::vector<std::uint8_t>& areas, std::uint64_t expected = 0) {
  MaskPatch patch;
  patch.expected_revision = expected;
  patch.x = x;
  patch.y = y;
  patch.width = w;
  patch.height = h;
  patch.areas = areas;
  return patch;
}

TEST_F(MaskStoreTest, PatchOverwritesARectangleAsANewRevision) {
  FileMaskStore store(dir_);
  const auto before = store.put("m", pathcore::Mask(4, 3, std::vector<std::uint8_t>(12, 1)));
  const std::vector<std::uint8_t> areas{0, 2, 63, 0};
  const auto after = store.patch("m", rect(1, 1, 2, 2, areas, 1));
  EXPECT_EQ(after->revision, 2U);
  EXPECT_EQ(after->mask->areas(), (std::vector<std::uint8_t>{1, 1, 1, 1, 1, 0, 2, 1, 1, 63, 0, 1}));
  EXPECT_EQ(after->sha256, pathcore::area_grid_sha256(*after->mask));
  EXPECT_NE(after->sha256, before->sha256);
  EXPECT_EQ(store.get("m"), after);
  // The old entry is untouched (readers holding it keep a consistent mask).
  EXPECT_EQ(before->mask->areas(), std::vector<std::uint8_t>(12, 1));
  // expected_revision 0 means any.
  EXPECT_EQ(store.patch("m", rect(0, 0, 1, 1, {5}))->revision, 3U);
}

TEST_F(MaskStoreTest, PatchRefusesBadRequestsWithoutChangingAnything) {
  FileMaskStore store(dir_);
  store.put("m", pathcore::Mask(4, 3, std::vector<std::uint8_t>(12, 1)));
  const std::vector<std::uint8_t> four(4, 0);
  const auto message = [&](const MaskPatch& patch) {
    try {
      (void)store.patch("m", patch);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THROW((void)store.patch("m", rect(3, 0, 2, 2, four)), InvalidPatch);
  EXPECT_EQ(message(rect(3, 0, 2, 2, four)).rfind("x: ", 0), 0U);
  EXPECT_EQ(message(rect(0, 2, 2, 2, four)).rfind("y: ", 0), 0U);
  EXPECT_EQ(message(rect(0, 0, 0, 2, {})).rfind("width: ", 0), 0U);
  EXPECT_EQ(message(rect(0, 0, 2, 1, four)).rfind("areas: ", 0), 0U);
  EXPECT_EQ(message(rect(0, 0, 1, 1, {64})).rfind("areas: ", 0), 0U);
  EXPECT_THROW((void)store.patch("missing", rect(0, 0, 1, 1, {0})), MaskNotFound);
  EXPECT_THROW((void)store.patch("../m", rect(0, 0, 1, 1, {0})), InvalidMaskName);
  EXPECT_THROW((void)store.patch("m", rect(0, 0, 1, 1, {0}, 7)), RevisionMismatch);
  EXPECT_EQ(message(rect(0, 0, 1, 1, {0}, 7)), "expected revision 7 but mask 'm' is at revision 1");
  EXPECT_EQ(store.get("m")->revision, 1U);
  EXPECT_EQ(store.get("m")->mask->areas(), std::vector<std::uint8_t>(12, 1));
}

TEST_F(MaskStoreTest, ConcurrentPatchesExpectingOneRevisionExactlyOneWins) {
  FileMaskStore store(dir_);
  store.put("shared", pathcore::Mask(8, 8, std::vector<std::uint8_t>(64, 1)));
  for (std::uint64_t round = 1; round <= 5; ++round) {
    constexpr int kThreads = 8;
    std::atomic<int> wins{0};
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        // A new id every round: each patch changes the mask (one that
        // changes nothing keeps the revision and contends for nothing).
        const std::vector<std::uint8_t> areas{
            static_cast<std::uint8_t>(2 + round * kThreads + static_cast<std::uint64_t>(t))};
        try {
          (void)store.patch("shared", rect(static_cast<std::uint32_t>(t), 0, 1, 1, areas, round));
          ++wins;
        } catch (const RevisionMismatch&) {
          ++mismatches;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(wins.load(), 1) << "round " << round;
    EXPECT_EQ(mismatches.load(), kThreads - 1) << "round " << round;
    EXPECT_EQ(store.get("shared")->revision, round + 1);
  }
}

TEST_F(MaskStoreTest, RestartKeepsThePatchedRevision) {
  MaskEntryPtr patched;
  {
    FileMaskStore store(dir_);
    store.put("m", make_mask(9, 7));
    patched = store.patch("m", rect(2, 3, 3, 2, {0, 1, 2, 3, 4, 5}, 1));
  }
  FileMaskStore store(dir_);
  const auto loaded = store.get("m");
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->revision, 2U);
  EXPECT_EQ(loaded->sha256, patched->sha256);
  EXPECT_EQ(loaded->mask->areas(), patched->mask->areas());
  EXPECT_EQ(store.patch("m", rect(0, 0, 1, 1, {0}, 2))->revision, 3U);
}

// ---------------------------------------------------------------------------
// Limits: masks stored and bytes stored (width*height per mask).

// The message of the StoreLimitExceeded that `put` throws ("" if it does not).
template <class Put>
std::string limit_message(Put&& put) {
  try {
    std::forward<Put>(put)();
  } catch (const StoreLimitExceeded& e) {
    return e.what();
  }
  return "";
}

TEST_F(MaskStoreTest, TooManyMasksIsRefusedAndNothingStoredChanges) {
  FileMaskStore store(dir_, {.max_masks = 3, .max_bytes = 1'000'000});
  for (const char* name : {"a", "b", "c"}) store.put(name, make_mask(4, 4));
  const auto files_before = files_in(dir_);
  const std::string message = limit_message([&] { store.put("d", make_mask(4, 4)); });
  EXPECT_THAT(message, HasSubstr("'d'"));
  EXPECT_THAT(message, HasSubstr("holds 3 masks, the limit is 3 masks stored"));
  EXPECT_THAT(message, HasSubstr("--max-masks"));
  EXPECT_EQ(store.get("d"), nullptr);
  EXPECT_EQ(store.size(), 3U);
  EXPECT_EQ(files_in(dir_), files_before);
  // Replacing a stored name is not a new mask; a deletion makes room.
  EXPECT_EQ(store.put("a", make_mask(5, 5))->revision, 2U);
  EXPECT_TRUE(store.remove("b"));
  // Above the deleted b's revision 1 (the revision floor).
  EXPECT_EQ(store.put("d", make_mask(4, 4))->revision, 2U);
  EXPECT_EQ(store.size(), 3U);
  EXPECT_EQ(store.stored_bytes(), 25U + 16U + 16U);
}

TEST_F(MaskStoreTest, TooManyBytesIsRefusedAndReplacementsCountTheDifference) {
  FileMaskStore store(dir_, {.max_masks = 100, .max_bytes = 1000});
  store.put("big", make_mask(30, 30));    // 900 bytes
  store.put("small", make_mask(10, 10));  // 1000: exactly the limit
  EXPECT_EQ(store.stored_bytes(), 1000U);
  const std::string message = limit_message([&] { store.put("one", make_mask(1, 1)); });
  EXPECT_THAT(message, HasSubstr("'one' (1x1 = 1 bytes)"));
  EXPECT_THAT(message, HasSubstr("bytes stored would be 1001, the limit is 1000"));
  EXPECT_THAT(message, HasSubstr("--max-stored-mb"));
  EXPECT_EQ(store.get("one"), nullptr);
  // Growing a stored mask counts only the growth: 900 -> 901 is one too many.
  const auto big = store.get("big");
  EXPECT_THAT(limit_message([&] { store.put("big", make_mask(901, 1)); }),
              HasSubstr("bytes stored would be 1001"));
  EXPECT_EQ(store.get("big"), big);
  EXPECT_EQ(store.stored_bytes(), 1000U);
  // Same-size and smaller replacements fit; a patch never changes the size.
  EXPECT_EQ(store.put("big", make_mask(900, 1))->revision, 2U);
  EXPECT_EQ(store.put("big", make_mask(20, 20))->revision, 3U);  // 400 bytes
  EXPECT_EQ(store.stored_bytes(), 500U);
  const std::vector<std::uint8_t> areas(100, 2);
  store.patch("small", MaskPatch{.width = 10, .height = 10, .areas = areas});
  EXPECT_EQ(store.stored_bytes(), 500U);
  store.put("one", make_mask(25, 20));  // 1000 again
  EXPECT_TRUE(store.remove("one"));
  EXPECT_EQ(store.stored_bytes(), 500U);
  EXPECT_EQ(store.size(), 2U);
}

TEST_F(MaskStoreTest, ReopeningAboveLowerLimitsKeepsEverythingAndOnlyRefusesGrowth) {
  {
    FileMaskStore store(dir_);
    store.put("a", make_mask(20, 10));
    store.put("b", make_mask(10, 10));
    store.put("c", make_mask(5, 2));
  }
  FileMaskStore store(dir_, {.max_masks = 2, .max_bytes = 100});
  EXPECT_EQ(store.size(), 3U);
  EXPECT_EQ(store.stored_bytes(), 310U);
  EXPECT_FALSE(limit_message([&] { store.put("d", make_mask(1, 1)); }).empty());
  EXPECT_FALSE(limit_message([&] { store.put("c", make_mask(11, 1)); }).empty());
  // Shrinking is allowed even above the limit.
  EXPECT_EQ(store.put("a", make_mask(5, 5))->revision, 2U);
  EXPECT_EQ(store.stored_bytes(), 135U);
  EXPECT_EQ(store.size(), 3U);
}

// Eight writers each put four new 8x8 masks (64 bytes) at once.
// Returns how many puts were stored and how many refused.
std::pair<int, int> race_puts(MaskStore& store) {
  constexpr int kThreads = 8;
  std::atomic<int> stored{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&store, t, &stored, &refused] {
      std::mt19937_64 rng(static_cast<std::uint64_t>(t));
      for (int i = 0; i < 4; ++i) {
        try {
          store.put("t" + std::to_string(t) + "/" + std::to_string(i),
                    pathtest::random_mask(rng, 8, 8, 0.2, 3));
          ++stored;
        } catch (const StoreLimitExceeded&) {
          ++refused;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return {stored.load(), refused.load()};
}

TEST_F(MaskStoreTest, ConcurrentPutsNeverOvershootTheMaskLimit) {
  FileMaskStore store(dir_, {.max_masks = 5, .max_bytes = 1'000'000});
  EXPECT_EQ(race_puts(store), std::make_pair(5, 32 - 5));
  EXPECT_EQ(store.size(), 5U);
  EXPECT_EQ(store.stored_bytes(), 5U * 64U);
  EXPECT_EQ(files_in(dir_).size(), 5U);
}

TEST_F(MaskStoreTest, ConcurrentPutsNeverOvershootTheByteLimit) {
  FileMaskStore store(dir_, {.max_masks = 1000, .max_bytes = 3 * 64 + 63});
  EXPECT_EQ(race_puts(store), std::make_pair(3, 32 - 3));
  EXPECT_EQ(store.size(), 3U);
  EXPECT_EQ(store.stored_bytes(), 3U * 64U);
  EXPECT_EQ(files_in(dir_).size(), 3U);
}

// ---------------------------------------------------------------------------
// Failing and hostile storage: no room, links and special files, files larger
// than the limits or lying about their grid, revisions across deletes and
// restarts.

// How many lines of `log` contain every one of `parts`.
std::size_t lines_with(const std::string& log, const std::vector<std::string>& parts) {
  std::size_t n = 0;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const bool all = std::all_of(parts.begin(), parts.end(), [&](const std::string& part) {
      return line.find(part) != std::string::npos;
    });
    n += all ? 1 : 0;
  }
  return n;
}

// The message of the E (a StoreError) that `write` throws; "" when it throws none.
template <class E = StoreError, class Write>
std::string store_error_message(Write&& write) {
  try {
    std::forward<Write>(write)();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

// No room: under a file size limit the kernel fails the store's own writes
// with EFBIG (support/file_size_limit.h), as a full disk fails them with
// ENOSPC (see ARealFullFileSystemIsStoreFull).
TEST_F(MaskStoreTest, AWriteWithNoRoomIsStoreFullAndChangesNothing) {
  MaskEntryPtr small;
  MaskEntryPtr big;
  {
    FileMaskStore store(dir_);
    small = store.put("small", make_mask(4, 4));
    big = store.put("big", make_mask(40, 40));
    const auto files_before = files_in(dir_);
    const std::vector<std::uint8_t> wall{0};
    const pathtest::CapturedLog log;
    std::string replace_message;
    std::string patch_message;
    std::string new_message;
    {
      const pathtest::FileSizeLimit limit(1000);  // a 40x40 mask's file has 1729 bytes
      replace_message =
          store_error_message<StoreFull>([&] { store.put("small", make_mask(40, 40)); });
      patch_message =
          store_error_message<StoreFull>([&] { store.patch("big", rect(0, 0, 1, 1, wall)); });
      new_message = store_error_message<StoreFull>([&] { store.put("new", make_mask(40, 40)); });
    }
    // Clients learn that storage is full, not where the server keeps its files.
    EXPECT_EQ(replace_message, "could not store mask 'small': storage is full");
    EXPECT_EQ(patch_message, "could not store mask 'big': storage is full");
    EXPECT_EQ(new_message, "could not store mask 'new': storage is full");
    // The operator learns where and why, once per failure.
    for (const char* name : {"'small'", "'big'", "'new'"}) {
      EXPECT_EQ(lines_with(log.text(), {"[error]", name, dir_.string(), "File too large"}), 1U)
          << log.text();
    }
    // Nothing half-written: no temp file left, every old revision still served.
    EXPECT_EQ(files_in(dir_), files_before);
    EXPECT_EQ(store.get("small"), small);
    EXPECT_EQ(store.get("big"), big);
    EXPECT_EQ(store.get("new"), nullptr);
    EXPECT_EQ(store.stored_bytes(), 16U + 1600U);
    // With room again, writes work (the failed attempts used up their revisions).
    EXPECT_GT(store.put("small", make_mask(40, 40))->revision, 1U);
    ASSERT_TRUE(store.remove("small"));
  }
  // The old revisions are what is on disk.
  FileMaskStore store(dir_);
  EXPECT_EQ(store.load_report().loaded, 1U);
  EXPECT_EQ(store.load_report().skipped, 0U);
  const MaskEntryPtr loaded = store.get("big");
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->revision, 1U);
  EXPECT_EQ(loaded->mask->areas(), big->mask->areas());
}

// Runs `scenario` in a child process in which `mount_point` is a tmpfs of
// `size` ("256k"), mounted in a mount namespace of the child's own (inside a
// user namespace of its own, so root is not needed where the kernel allows
// that); the tmpfs is gone with the child. Returns what the scenario
// returned, or why this system cannot do that ("unsupported: ...").
std::string in_small_tmpfs(const fs::path& mount_point, const std::string& size,
                           const std::function<std::string()>& scenario) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "unsupported: pipe failed";
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  const pid_t pid = ::fork();
  if (pid < 0) return "unsupported: fork failed";
  if (pid == 0) {
    ::close(pipe_fds[0]);
    const auto finish = [&](const std::string& text) {
      std::size_t done = 0;
      while (done < text.size()) {
        const ssize_t n = ::write(pipe_fds[1], text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
      }
      ::_exit(0);
    };
    const auto write_proc = [](const char* path, const std::string& text) {
      std::ofstream out(path);
      out << text;
      out.flush();
      return out.good();
    };
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
      finish(std::string("unsupported: unshare: ") + std::strerror(errno));
    }
    if (!write_proc("/proc/self/setgroups", "deny") ||
        !write_proc("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
        !write_proc("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1")) {
      finish("unsupported: cannot map the user into the namespace");
    }
    // Private, so the tmpfs can never show up outside the child.
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", mount_point.c_str(), "tmpfs", 0, ("size=" + size).c_str()) != 0) {
      finish(std::string("unsupported: mount: ") + std::strerror(errno));
    }
    try {
      finish(scenario());
    } catch (const std::exception& e) {
      finish(std::string("scenario threw: ") + e.what());
    }
  }
  ::close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return text;
}

// A real ENOSPC: the data dir on a full tmpfs. The child reports what it saw,
// one line per check, and this process compares the lines.
TEST_F(MaskStoreTest, ARealFullFileSystemIsStoreFull) {
  const fs::path mount_point = dir_ / "small-fs";
  fs::create_directory(mount_point);
  const fs::path data = mount_point / "data";
  const std::string report = in_small_tmpfs(mount_point, "256k", [&] {
    std::string out;
    MaskEntryPtr stored;
    const pathtest::CapturedLog log;
    {
      FileMaskStore store(data);
      stored = store.put("m", make_mask(4, 4));
      const std::vector<std::uint8_t> open(1024 * 1024, 1);  // 1 MiB: more than the disk
      try {
        store.put("m", pathcore::Mask(1024, 1024, open));
        out += "put: stored\n";
      } catch (const StoreFull& e) {
        out += std::string("put: StoreFull: ") + e.what() + "\n";
      } catch (const std::exception& e) {
        out += std::string("put: other error: ") + e.what() + "\n";
      }
      out += "files:";
      for (const auto& name : files_in(data)) out += " " + name;
      out += "\nserved: ";
      out += store.get("m") == stored ? "the old revision\n" : "something else\n";
    }
    FileMaskStore reopened(data);
    const MaskEntryPtr loaded = reopened.get("m");
    out += "reopened: ";
    out += loaded && loaded->revision == stored->revision && loaded->sha256 == stored->sha256
               ? "the old revision\n"
               : "something else\n";
    out += "logged: ";
    out += lines_with(log.text(), {"[error]", "'m'", data.string(), "No space left on device"}) == 1
               ? "the path and the system error\n"
               : log.text();
    return out;
  });
  if (report.starts_with("unsupported: ")) GTEST_SKIP() << report;
  EXPECT_EQ(report,
            "put: StoreFull: could not store mask 'm': storage is full\n"
            "files: m.pfmask\n"
            "served: the old revision\n"
            "reopened: the old revision\n"
            "logged: the path and the system error\n");
}

TEST_F(MaskStoreTest, OtherWriteFailuresNameTheMaskButNotThePath) {
  FileMaskStore store(dir_);
  const MaskEntryPtr stored = store.put("m", make_mask(4, 4));
  // A directory where the mask's file goes: the rename over it and the unlink
  // of it fail (EISDIR), for root too.
  fs::remove(dir_ / mask_file_name("m"));
  fs::create_directories(dir_ / mask_file_name("m") / "inside");
  const pathtest::CapturedLog log;
  const std::string put_message = store_error_message([&] { store.put("m", make_mask(5, 5)); });
  const std::string remove_message = store_error_message([&] { store.remove("m"); });
  EXPECT_EQ(put_message, "could not store mask 'm'");
  EXPECT_EQ(remove_message, "could not delete mask 'm'");
  EXPECT_EQ(lines_with(log.text(),
                       {"[error]", "could not store mask 'm'", dir_.string(), "Is a directory"}),
            1U)
      << log.text();
  EXPECT_EQ(lines_with(log.text(),
                       {"[error]", "could not delete mask 'm'", dir_.string(), "Is a directory"}),
            1U)
      << log.text();
  EXPECT_EQ(store.get("m"), stored);
  for (const auto& name : files_in(dir_)) EXPECT_FALSE(name.ends_with(".tmp")) << name;
}

TEST_F(MaskStoreTest, ADeleteThatCannotRaiseTheRevisionFloorKeepsTheMask) {
  FileMaskStore store(dir_);
  store.put("a", make_mask(4, 4));
  const MaskEntryPtr stored = store.put("a", make_mask(4, 4));
  std::string message;
  {
    const pathtest::FileSizeLimit limit(10);  // the floor file has 52 bytes
    message = store_error_message<StoreFull>([&] { store.remove("a"); });
  }
  EXPECT_EQ(message, "could not delete mask 'a': storage is full");
  EXPECT_EQ(store.get("a"), stored);
  EXPECT_EQ(files_in(dir_), std::vector<std::string>{mask_file_name("a")});
  EXPECT_EQ(store.remove("a"), stored);
  EXPECT_EQ(files_in(dir_), std::vector<std::string>{"revision-floor"});
}

TEST_F(MaskStoreTest, LinksAndSpecialFilesInTheDataDirAreNeverFollowedOrRead) {
  const fs::path data = dir_ / "data";
  const fs::path outside = dir_ / "outside";
  {
    FileMaskStore store(outside);
    store.put("stolen", make_mask(4, 4));
  }
  {
    FileMaskStore store(data);
    store.put("own", make_mask(3, 3));
  }
  write_bytes(outside / "secret.txt", {'s', 'e', 'c', 'r', 'e', 't'});
  const Bytes stolen_file = read_bytes(outside / mask_file_name("stolen"));
  // A link to a good mask file elsewhere, to any file, to nothing, to a dir;
  // one named like a leftover temp file; a FIFO (opening it could block).
  fs::create_symlink(outside / mask_file_name("stolen"), data / mask_file_name("stolen"));
  fs::create_symlink(outside / "secret.txt", data / mask_file_name("secret"));
  fs::create_symlink(outside / "missing", data / mask_file_name("dangling"));
  fs::create_symlink(outside / "secret.txt", data / "notes.txt");
  fs::create_directory_symlink(outside, data / "linked.pfmask");
  fs::create_symlink(outside / "secret.txt", data / ".x.pfmask.1-2.tmp");
  ASSERT_EQ(::mkfifo((data / mask_file_name("fifo")).c_str(), 0644), 0);
  const auto outside_files = files_in(outside);
  const auto data_files = files_in(data);
  {
    const pathtest::CapturedLog log;
    FileMaskStore store(data);
    const LoadReport& report = store.load_report();
    EXPECT_EQ(report.loaded, 1U);
    EXPECT_EQ(report.refused, 7U);
    EXPECT_EQ(report.skipped, 0U);
    EXPECT_EQ(report.ignored, 0U);
    EXPECT_EQ(report.temp_removed, 0U);
    EXPECT_NE(store.get("own"), nullptr);
    for (const char* name : {"stolen", "secret", "dangling", "fifo", "linked"}) {
      EXPECT_EQ(store.get(name), nullptr) << name;
      EXPECT_FALSE(store.is_corrupt(name)) << name;  // no mask of the name was ever stored here
    }
    EXPECT_EQ(lines_with(log.text(), {"[warning]", "refusing", data.string()}), 7U) << log.text();
    // Left in place, and what they point to untouched.
    EXPECT_EQ(files_in(data), data_files);
    EXPECT_EQ(files_in(outside), outside_files);
    // An upload of such a name puts a file of its own in the link's place.
    store.put("stolen", make_mask(2, 2));
    EXPECT_FALSE(fs::is_symlink(data / mask_file_name("stolen")));
    EXPECT_EQ(read_bytes(outside / mask_file_name("stolen")), stolen_file);
    EXPECT_EQ(read_bytes(outside / "secret.txt"), (Bytes{'s', 'e', 'c', 'r', 'e', 't'}));
  }
  // The data dir itself may be given as a link.
  fs::create_directory_symlink(data, dir_ / "data-link");
  FileMaskStore store(dir_ / "data-link");
  EXPECT_EQ(store.load_report().loaded, 2U);
  EXPECT_EQ(store.get("stolen")->mask->width(), 2U);
}

// A mask file in the documented format (FileMaskStore): header, name, grid
// bytes and the trailing checksum, for files no store would write.
Bytes mask_file(std::uint64_t revision, std::uint32_t width, std::uint32_t height,
                const std::string& digest, const std::string& name, const Bytes& areas) {
  Bytes bytes = {'P', 'F', 'M', 'A', 'S', 'K', '\r', '\n'};
  const auto put_le = [&](std::uint64_t value, int size) {
    for (int i = 0; i < size; ++i) bytes.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  };
  put_le(1, 4);  // format version
  put_le(name.size(), 4);
  put_le(revision, 8);
  put_le(width, 4);
  put_le(height, 4);
  bytes.insert(bytes.end(), digest.begin(), digest.end());
  bytes.insert(bytes.end(), name.begin(), name.end());
  bytes.insert(bytes.end(), areas.begin(), areas.end());
  bytes.resize(bytes.size() + 32);
  reseal(bytes);
  return bytes;
}

TEST_F(MaskStoreTest, AStoredMaskAboveMaxPixelsIsSkippedAndCannotBeUploaded) {
  {
    FileMaskStore store(dir_);
    store.put("big", make_mask(11, 10));
    store.put("fits", make_mask(10, 10));
  }
  const pathtest::CapturedLog log;
  FileMaskStore store(dir_, {.max_pixels = 100});
  EXPECT_EQ(store.load_report().loaded, 1U);
  EXPECT_EQ(store.load_report().skipped, 1U);
  EXPECT_EQ(store.load_report().corrupt, std::vector<std::string>{"big"});
  EXPECT_EQ(store.get("big"), nullptr);
  EXPECT_NE(store.get("fits"), nullptr);
  EXPECT_EQ(lines_with(log.text(), {"[error]", "mask 'big' is corrupt",
                                    "declares 11x10 = 110 pixels, more than the limit of 100 "
                                    "(--max-pixels)"}),
            1U)
      << log.text();
  // Uploads obey the same limit, so what is stored loads at the next start.
  EXPECT_THAT(limit_message([&] { store.put("big", make_mask(11, 10)); }),
              HasSubstr("the limit is 100 pixels per mask (--max-pixels)"));
  EXPECT_TRUE(store.is_corrupt("big"));
  store.put("big", make_mask(10, 10));
  EXPECT_FALSE(store.is_corrupt("big"));
}

// The case of the issue: a sparse file of exactly the size its header
// declares (49152x49152, 2.25 GiB) made the server allocate it all at start-up.
TEST_F(MaskStoreTest, ASparseFileDeclaringAHugeGridIsRefusedByItsHeader) {
  const fs::path path = dir_ / mask_file_name("huge");
  Bytes head = mask_file(1, 49152, 49152, std::string(64, '0'), "huge", {});
  head.resize(head.size() - 32);  // the grid and checksum come from the hole below
  write_bytes(path, head);
  fs::resize_file(path, head.size() + 49152ULL * 49152 + 32);
  const pathtest::CapturedLog log;
  FileMaskStore store(dir_);  // the default --max-pixels, 64 Mi
  EXPECT_TRUE(store.is_corrupt("huge"));
  EXPECT_EQ(store.load_report().loaded, 0U);
  EXPECT_EQ(lines_with(log.text(), {"[error]", "mask 'huge' is corrupt",
                                    "declares 49152x49152 = 2415919104 pixels", "--max-pixels"}),
            1U)
      << log.text();
}

TEST_F(MaskStoreTest, AHeaderDigestThatDoesNotMatchTheGridMakesTheMaskCorrupt) {
  const pathcore::Mask victim(4, 2, {1, 1, 1, 1, 2, 2, 2, 2});
  const std::string victim_digest = pathcore::area_grid_sha256(victim);
  const std::string other_digest =
      pathcore::area_grid_sha256(pathcore::Mask(4, 2, std::vector<std::uint8_t>(8, 1)));
  const Bytes areas(victim.areas().begin(), victim.areas().end());
  Bytes changed_areas = areas;
  changed_areas[5] = 3;
  const std::vector<std::pair<std::string, Bytes>> cases = {
      {"the digest of another grid", mask_file(1, 4, 2, other_digest, "victim", areas)},
      {"an area changed under the digest",
       mask_file(1, 4, 2, victim_digest, "victim", changed_areas)},
  };
  {
    FileMaskStore store(dir_);
    store.put("good", make_mask(3, 3));
  }
  // The file as a store writes it loads: mask_file follows the format.
  write_bytes(dir_ / mask_file_name("victim"), mask_file(1, 4, 2, victim_digest, "victim", areas));
  {
    FileMaskStore store(dir_);
    ASSERT_NE(store.get("victim"), nullptr);
    EXPECT_EQ(store.get("victim")->mask->areas(), victim.areas());
  }
  for (const auto& [what, bytes] : cases) {
    SCOPED_TRACE(what);
    write_bytes(dir_ / mask_file_name("victim"), bytes);
    const pathtest::CapturedLog log;
    FileMaskStore store(dir_);
    EXPECT_EQ(store.load_report().loaded, 1U);
    EXPECT_EQ(store.load_report().skipped, 1U);
    EXPECT_TRUE(store.is_corrupt("victim"));
    EXPECT_EQ(store.get("victim"), nullptr);
    // Once, at error level.
    EXPECT_EQ(lines_with(log.text(), {"'victim'"}), 1U) << log.text();
    EXPECT_EQ(lines_with(log.text(), {"[error]", "mask 'victim' is corrupt",
                                      "the area digest in its header does not match"}),
              1U)
        << log.text();
  }
}

TEST_F(MaskStoreTest, RevisionsNeverRepeatAfterDeleteAndRestart) {
  {
    FileMaskStore store(dir_);
    store.put("a", make_mask(4, 4));
    ASSERT_EQ(store.put("a", make_mask(4, 4))->revision, 2U);
    ASSERT_EQ(store.put("b", make_mask(4, 4))->revision, 1U);
    ASSERT_TRUE(store.remove("a"));
    EXPECT_EQ(files_in(dir_), (std::vector<std::string>{mask_file_name("b"), "revision-floor"}));
  }
  {
    FileMaskStore store(dir_);
    // The floor file is the store's own: neither a mask nor a stranger.
    EXPECT_EQ(store.load_report().loaded, 1U);
    EXPECT_EQ(store.load_report().skipped, 0U);
    EXPECT_EQ(store.load_report().ignored, 0U);
    EXPECT_EQ(store.load_report().refused, 0U);
    // Above the deleted revision 2, for the deleted name and a new one alike.
    EXPECT_EQ(store.put("a", make_mask(4, 4))->revision, 3U);
    EXPECT_EQ(store.put("c", make_mask(4, 4))->revision, 3U);
    // A delete below the floor leaves the floor; b comes back above it.
    ASSERT_TRUE(store.remove("b"));
    EXPECT_EQ(store.put("b", make_mask(4, 4))->revision, 3U);
    // A patched revision counts like any other.
    EXPECT_EQ(store.patch("a", rect(0, 0, 1, 1, {0}))->revision, 4U);
    ASSERT_TRUE(store.remove("a"));
  }
  FileMaskStore store(dir_);
  EXPECT_EQ(store.put("a", make_mask(4, 4))->revision, 5U);
  EXPECT_EQ(store.put("b", make_mask(4, 4))->revision, 5U);  // was 3, the floor is 4
}

TEST_F(MaskStoreTest, AnUnreadableRevisionFloorKeepsTheStoreClosed) {
  {
    FileMaskStore store(dir_);
    store.put("a", make_mask(4, 4));
    store.put("a", make_mask(4, 4));
    ASSERT_TRUE(store.remove("a"));
  }
  const fs::path floor = dir_ / "revision-floor";
  ASSERT_TRUE(fs::exists(floor));
  const Bytes good = read_bytes(floor);
  ASSERT_EQ(good.size(), 52U);
  write_bytes(dir_ / "copy-of-floor", good);
  Bytes value_flipped = good;
  value_flipped[12] ^= 0x01;  // the floor's lowest byte; the checksum no longer matches
  Bytes other_version = good;
  other_version[8] = 2;
  reseal(other_version);
  Bytes bad_magic = good;
  bad_magic[0] = 'X';
  reseal(bad_magic);
  Bytes longer = good;
  longer.push_back(0);
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"empty", [&] { write_bytes(floor, {}); }},
      {"truncated", [&] { write_bytes(floor, Bytes(good.begin(), good.end() - 1)); }},
      {"one byte appended", [&] { write_bytes(floor, longer); }},
      {"value flipped", [&] { write_bytes(floor, value_flipped); }},
      {"unknown version", [&] { write_bytes(floor, other_version); }},
      {"bad magic", [&] { write_bytes(floor, bad_magic); }},
      {"a directory", [&] { fs::create_directory(floor); }},
      {"a link to a good copy", [&] { fs::create_symlink(dir_ / "copy-of-floor", floor); }},
  };
  for (const auto& [what, make] : cases) {
    SCOPED_TRACE(what);
    fs::remove_all(floor);
    make();
    const std::string message = store_error_message([&] { FileMaskStore store(dir_); });
    EXPECT_THAT(message, HasSubstr("revision floor '" + floor.string() + "' is unreadable"));
    EXPECT_THAT(message, HasSubstr("revisions of deleted masks could repeat"));
  }
  fs::remove_all(floor);
  write_bytes(floor, good);
  FileMaskStore store(dir_);
  EXPECT_EQ(store.put("a", make_mask(4, 4))->revision, 3U);
}

struct NameCase {
  std::string name;
  bool valid;
};

// ---------------------------------------------------------------------------
// Corrupt masks and uploads of the same grid

// Writes "victim" through a store and flips one byte of its file, as a disk
// might; returns the file's path.
fs::path store_then_corrupt(const fs::path& dir, pathcore::Mask mask) {
  {
    FileMaskStore store(dir);
    store.put("levels/victim", std::move(mask));
    store.put("fine", pathcore::Mask(2, 2, {1, 1, 1, 1}));
  }
  const fs::path path = dir / mask_file_name("levels/victim");
  Bytes bytes = read_bytes(path);
  bytes[bytes.size() / 2] ^= 0x01;
  write_bytes(path, bytes);
  return path;
}

TEST_F(MaskStoreTest, CorruptMaskIsRememberedUntilDeleted) {
  const fs::path path = store_then_corrupt(dir_, make_mask(8, 8));
  FileMaskStore store(dir_);
  EXPECT_EQ(store.load_report().skipped, 1U);
  EXPECT_EQ(store.load_report().corrupt, std::vector<std::string>{"levels/victim"});
  EXPECT_TRUE(store.is_corrupt("levels/victim"));
  EXPECT_EQ(store.get("levels/victim"), nullptr);
  EXPECT_EQ(store.size(), 1U);  // only "fine" is listed
  ASSERT_EQ(store.list().size(), 1U);
  EXPECT_EQ(store.list()[0]->name, "fine");

  // A patch cannot apply to what cannot be read; the message names the
  // mask and not the server's file.
  const std::vector<std::uint8_t> one{1};
  try {
    store.patch("levels/victim", rect(0, 0, 1, 1, one));
    FAIL() << "patch of a corrupt mask succeeded";
  } catch (const MaskCorrupt& e) {
    EXPECT_THAT(e.what(), HasSubstr("'levels/victim'"));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr(dir_.string())));
  }
  EXPECT_TRUE(fs::exists(path));  // left for the operator until deleted

  bool was_corrupt = false;
  EXPECT_EQ(store.remove("levels/victim", &was_corrupt), nullptr);
  EXPECT_TRUE(was_corrupt);
  EXPECT_FALSE(store.is_corrupt("levels/victim"));
  EXPECT_EQ(store.corrupt_count(), 0U);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(store.remove("levels/victim", &was_corrupt), nullptr);
  EXPECT_FALSE(was_corrupt);  // now it is simply not there
  EXPECT_THROW(store.patch("levels/victim", rect(0, 0, 1, 1, one)), MaskNotFound);
}

TEST_F(MaskStoreTest, UploadReplacesACorruptMask) {
  store_then_corrupt(dir_, make_mask(8, 8));
  {
    FileMaskStore store(dir_);
    ASSERT_TRUE(store.is_corrupt("levels/victim"));
    bool unchanged = true;
    const auto entry = store.put("levels/victim", make_mask(3, 5), &unchanged);
    EXPECT_FALSE(unchanged);
    EXPECT_FALSE(store.is_corrupt("levels/victim"));
    EXPECT_EQ(store.get("levels/victim"), entry);
    EXPECT_EQ(store.size(), 2U);
  }
  FileMaskStore store(dir_);  // the replacement is what is on disk now
  EXPECT_EQ(store.load_report().skipped, 0U);
  EXPECT_FALSE(store.is_corrupt("levels/victim"));
  ASSERT_NE(store.get("levels/victim"), nullptr);
  EXPECT_EQ(store.get("levels/victim")->mask->width(), 3U);
}

// The (device, inode) of a file: a rewrite (temp file + rename) changes it.
std::pair<dev_t, ino_t> file_identity(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return {st.st_dev, st.st_ino};
}

TEST_F(MaskStoreTest, SameGridKeepsTheRevisionAndTheFile) {
  FileMaskStore store(dir_);
  const pathcore::Mask mask = make_mask(12, 7);
  bool unchanged = true;
  const auto first = store.put("m", mask, &unchanged);
  EXPECT_FALSE(unchanged);
  const auto identity = file_identity(dir_ / mask_file_name("m"));
  const auto bytes_before = store.stored_bytes();

  const auto again =
      store.put("m", pathcore::Mask(mask.width(), mask.height(), mask.areas()), &unchanged);
  EXPECT_TRUE(unchanged);
  EXPECT_EQ(again, first);  // the very entry: same revision, digest, clearance
  EXPECT_EQ(store.get("m")->revision, 1U);
  EXPECT_EQ(file_identity(dir_ / mask_file_name("m")), identity);
  EXPECT_EQ(store.stored_bytes(), bytes_before);

  // The same area ids in another shape are another grid.
  const auto reshaped =
      store.put("m", pathcore::Mask(mask.height(), mask.width(), mask.areas()), &unchanged);
  EXPECT_FALSE(unchanged);
  EXPECT_EQ(reshaped->revision, 2U);
  // One id changed is another grid.
  std::vector<std::uint8_t> areas = reshaped->mask->areas();
  areas[5] = areas[5] == 1 ? 2 : 1;
  EXPECT_EQ(store.put("m", pathcore::Mask(mask.height(), mask.width(), areas))->revision, 3U);
  // And the grid of revision 3 again keeps 3.
  EXPECT_EQ(store.put("m", pathcore::Mask(mask.height(), mask.width(), areas))->revision, 3U);
}

TEST_F(MaskStoreTest, SameGridAfterAPatchIsUnchangedToo) {
  FileMaskStore store(dir_);
  store.put("m", pathcore::Mask(3, 1, {1, 1, 1}));
  const std::vector<std::uint8_t> wall{0};
  const auto patched = store.patch("m", rect(1, 0, 1, 1, wall));
  ASSERT_EQ(patched->revision, 2U);
  bool unchanged = false;
  EXPECT_EQ(store.put("m", pathcore::Mask(3, 1, {1, 0, 1}), &unchanged), patched);
  EXPECT_TRUE(unchanged);
}

TEST_F(MaskStoreTest, APatchThatChangesNothingKeepsTheRevisionAndWritesNothing) {
  FileMaskStore store(dir_);
  const auto stored = store.put("m", pathcore::Mask(3, 2, {1, 2, 3, 4, 5, 6}));
  const auto identity = file_identity(dir_ / mask_file_name("m"));
  const std::vector<std::uint8_t> same{2, 3, 5, 6};
  EXPECT_EQ(store.patch("m", rect(1, 0, 2, 2, same)), stored);
  EXPECT_EQ(store.patch("m", rect(1, 0, 2, 2, same, stored->revision)), stored);
  EXPECT_EQ(store.get("m")->revision, stored->revision);
  EXPECT_EQ(file_identity(dir_ / mask_file_name("m")), identity);
  // Still checked: the expected revision and the rectangle.
  EXPECT_THROW(store.patch("m", rect(1, 0, 2, 2, same, stored->revision + 1)), RevisionMismatch);
  EXPECT_THROW(store.patch("m", rect(2, 0, 2, 2, same)), InvalidPatch);
  // One id different is a change, and the next revision.
  const std::vector<std::uint8_t> changed{2, 3, 5, 7};
  EXPECT_EQ(store.patch("m", rect(1, 0, 2, 2, changed))->revision, stored->revision + 1);
}

TEST(MaskStoreNames, ValidationTable) {
  const std::vector<NameCase> cases = {
      {"a", true},
      {"demo", true},
      {"levels/town-1.v2", true},
      {"A_b.c-d/e/F", true},
      {".hidden", true},
      {"a..b", true},
      {"..a/b..", true},
      {"...", true},
      {std::string(128, 'n'), true},
      {std::string(64, 'a') + "/" + std::string(63, 'b'), true},
      {"", false},
      {std::string(129, 'n'), false},
      {"../x", false},
      {"..", false},
      {".", false},
      {"x/..", false},
      {"a/../b", false},
      {"a/./b", false},
      {"/abs", false},
      {"/", false},
      {"a/", false},
      {"a//b", false},
      {"a b", false},
      {"a\\b", false},
      {"a:b", false},
      {"a~b", false},
      {"a\nb", false},
      {std::string("a\0b", 3), false},
      {"\xc3\xa9t\xc3\xa9", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("name '" + c.name + "'");
    const auto problem = mask_name_problem(c.name);
    EXPECT_EQ(!problem.has_value(), c.valid) << (problem ? *problem : "accepted");
  }
}

TEST(MaskStoreNames, ProblemsSayWhatIsWrong) {
  EXPECT_EQ(mask_name_problem(""), "must not be empty");
  EXPECT_EQ(mask_name_problem(std::string(129, 'n')), "is 129 characters long; the limit is 128");
  EXPECT_EQ(mask_name_problem("a b"), "' ' at position 1 is not allowed (use A-Z a-z 0-9 . _ - /)");
  EXPECT_EQ(mask_name_problem("a\nb"),
            "byte 0x0a at position 1 is not allowed (use A-Z a-z 0-9 . _ - /)");
  EXPECT_EQ(mask_name_problem("/abs"), "must not start with '/'");
  EXPECT_EQ(mask_name_problem("a/"), "must not end with '/'");
  EXPECT_EQ(mask_name_problem("a//b"), "must not contain an empty segment ('//')");
  EXPECT_EQ(mask_name_problem("a/./b"), "must not contain a '.' segment");
}

}  // namespace
}  // namespace pathserver
