#include "service/cached_find_path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "cache/field_cache.h"
#include "cache/field_flights.h"
#include "cache/nearest_cache.h"
#include "cache/query_caches.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "service/endpoint_snapping.h"
#include "support/random_mask.h"

namespace pathserver {
namespace {

MaskEntry entry_for(pathcore::Mask mask) {
  MaskEntry entry;
  entry.name = "m";
  entry.revision = 1;
  entry.mask = std::make_shared<const pathcore::Mask>(std::move(mask));
  // As the store makes it: answers must still equal core's (which has no map).
  entry.clearance =
      std::make_shared<const pathcore::ClearanceMap>(*entry.mask, pathcore::kAllAreas);
  return entry;
}

// Cold (field half-built, then finished) and warm answers are
// identical to core's find_path, and the finished field lands in the cache.
TEST(CachedFindPath, ColdAndWarmAnswersAgreeWithCore) {
  std::mt19937_64 rng(0x5eed0401);
  for (int round = 0; round < 60; ++round) {
    const MaskEntry entry = entry_for(pathtest::random_mask(rng, 64, 48, 0.3, 3));
    const pathcore::Mask& mask = *entry.mask;
    FieldCache cache(16 << 20);
    pathcore::FindPathOptions options;
    options.field.connectivity =
        round % 2 == 0 ? pathcore::Connectivity::kFour : pathcore::Connectivity::kEight;
    options.field.area_costs[2] = round % 3 == 0 ? 5 : 1;
    options.smoothing =
        round % 4 == 0 ? pathcore::Smoothing::kNone : pathcore::Smoothing::kBeautify;
    options.snap_to_reachable = round % 5 == 0;
    const pathcore::Point start = pathtest::random_point(rng, mask);
    const pathcore::Point goal = pathtest::random_point(rng, mask);
    const pathcore::PathResult want = pathcore::find_path(mask, start, goal, options);
    const CachedPathResult cold = cached_find_path(entry, cache, start, goal, options);
    const CachedPathResult warm = cached_find_path(entry, cache, start, goal, options);
    for (const CachedPathResult* got : {&cold, &warm}) {
      EXPECT_EQ(got->path.found, want.found) << round;
      EXPECT_EQ(got->path.points, want.points) << round;
      EXPECT_EQ(got->path.cost, want.cost) << round;
      EXPECT_EQ(got->path.goal, want.goal) << round;
    }
    const bool filled = want.found && want.points.size() > 2;
    if (filled) {
      EXPECT_FALSE(cold.cache_hit) << round;
      EXPECT_TRUE(warm.cache_hit) << round;
    }
  }
}

TEST(CachedFindPath, CacheKeysSeparateCostsAndCornerRules) {
  const MaskEntry entry = entry_for(pathcore::Mask(4, 4, std::vector<std::uint8_t>(16, 1)));
  pathcore::FieldOptions options;
  const FieldKey plain = field_key(entry, options, {1, 1});
  options.area_costs[1] = 3;
  EXPECT_NE(field_key(entry, options, {1, 1}), plain);
  EXPECT_NE(FieldKeyHash{}(field_key(entry, options, {1, 1})), FieldKeyHash{}(plain));
  options.area_costs[1] = 1;
  options.allow_corner_cutting = true;  // meaningless with four: normalised away
  EXPECT_EQ(field_key(entry, options, {1, 1}), plain);
  options.connectivity = pathcore::Connectivity::kEight;
  const FieldKey eight_cutting = field_key(entry, options, {1, 1});
  options.allow_corner_cutting = false;
  EXPECT_NE(field_key(entry, options, {1, 1}), eight_cutting);
}

// Revisions 1 and 2 of one mask name under a cache that holds one field:
// every answer matches core on the revision asked for.
TEST(CachedFindPath, EvictionNeverServesAWrongRevision) {
  std::mt19937_64 rng(0x2e71);
  std::vector<MaskEntry> revisions;
  for (std::uint64_t r = 1; r <= 2; ++r) {
    MaskEntry entry = entry_for(pathtest::random_mask(rng, 48, 32, 0.35, 1));
    entry.revision = r;
    revisions.push_back(std::move(entry));
  }
  const std::size_t one =
      pathcore::compute_distance_field(*revisions[0].mask, {0, 0}, {}).memory_bytes();
  FieldCache cache(one + one / 2);
  pathcore::FindPathOptions options;
  options.smoothing = pathcore::Smoothing::kNone;
  int hits = 0;
  for (int i = 0; i < 200; ++i) {
    const MaskEntry& entry = revisions[rng() % 2];
    const pathcore::Point start = pathtest::random_point(rng, *entry.mask);
    const pathcore::Point goal = i % 4 == 0 ? pathcore::Point{1, 1} : pathcore::Point{46, 30};
    const pathcore::PathResult want = pathcore::find_path(*entry.mask, start, goal, options);
    const CachedPathResult got = cached_find_path(entry, cache, start, goal, options);
    ASSERT_EQ(got.path.found, want.found) << i;
    ASSERT_EQ(got.path.points, want.points) << i << " revision " << entry.revision;
    hits += got.cache_hit ? 1 : 0;
  }
  EXPECT_GT(hits, 10);
  EXPECT_GT(cache.stats().evictions, 10U);
}

// A request as the fills see it; gone() runs `on_gone` (poll count passed).
class FakeRequest final : public FieldRequest {
 public:
  std::function<grpc::Status(int)> on_gone;
  mutable int polls = 0;
  std::optional<grpc::Status> abandoned;
  std::optional<FieldKey> resumed_key;
  FieldPtr resumed_field;

  grpc::Status gone() const override {
    ++polls;
    if (abandoned) return *abandoned;
    return on_gone ? on_gone(polls) : grpc::Status::OK;
  }
  void abandon(const grpc::Status& status) override {
    if (!abandoned) abandoned = status;
  }
  void resume(const FieldKey& key, FieldPtr field) override {
    resumed_key = key;
    resumed_field = std::move(field);
  }

  // With a start hint: answered from the half-built field (what it saw is kept).
  std::optional<pathcore::Point> start_hint;
  std::optional<std::uint32_t> partial_cost;
  bool partial_reached_corner = false;

  std::optional<pathcore::Point> start() const override { return start_hint; }
  bool serve_partial(const FieldKey& /*key*/, const pathcore::DistanceField& partial) override {
    partial_cost = partial.at(*start_hint);
    partial_reached_corner = partial.reachable({0, 0});
    return true;
  }
};

grpc::Status expired() { return {grpc::StatusCode::DEADLINE_EXCEEDED, "test deadline"}; }

class FillingSourceTest : public ::testing::Test {
 protected:
  // An open 1024x1024 mask: a full fill checks its requests about 64 times.
  const MaskEntry entry_ =
      entry_for(pathcore::Mask(1024, 1024, std::vector<std::uint8_t>(1 << 20, 1)));
  const pathcore::Point start_{0, 0};
  const pathcore::Point goal_{1023, 1023};
  pathcore::FindPathOptions options_ = [] {
    pathcore::FindPathOptions options;
    options.smoothing = pathcore::Smoothing::kNone;  // no beeline: a fill
    return options;
  }();
  const FieldKey key_ = field_key(entry_, options_.field, goal_);
  FieldCache cache_{64 << 20};
  FieldFlights flights_;

  // Asks for key_ as request `waiter` while the fill is under way: it parks.
  void park(const std::shared_ptr<FakeRequest>& waiter) {
    FillingSource source(cache_, flights_, waiter);
    EXPECT_THROW((void)source.field(key_, entry_, {5, 5}), Parked);
  }
};

TEST_F(FillingSourceTest, ASecondRequestParksAndIsResumedWithTheOneField) {
  auto waiter = std::make_shared<FakeRequest>();
  auto leader = std::make_shared<FakeRequest>();
  leader->on_gone = [&](int poll) {
    if (poll == 1) park(waiter);
    return grpc::Status::OK;
  };
  FillingSource source(cache_, flights_, leader);
  const CachedPathResult got = cached_find_path(entry_, source, start_, goal_, options_);
  const pathcore::PathResult want = pathcore::find_path(*entry_.mask, start_, goal_, options_);
  EXPECT_EQ(got.path.points, want.points);
  EXPECT_FALSE(got.cache_hit);
  EXPECT_FALSE(waiter->resumed_key) << "resumed only when the field is final";
  source.finish_deferred();
  ASSERT_TRUE(waiter->resumed_key);
  EXPECT_EQ(*waiter->resumed_key, key_);
  ASSERT_NE(waiter->resumed_field, nullptr);
  EXPECT_EQ(cache_.peek(key_), waiter->resumed_field);
  EXPECT_FALSE(waiter->abandoned);
  EXPECT_FALSE(leader->abandoned);
  EXPECT_EQ(flights_.size(), 0U);
  const FieldCacheStats stats = cache_.stats();
  EXPECT_EQ(stats.fields_computed, 1U);
  EXPECT_EQ(stats.shared_waits, 1U);
  EXPECT_GT(stats.compute_seconds, 0.0);

  // The waiter carries on with the field it was given: same path from its start.
  FillingSource resumed(cache_, flights_, waiter);
  resumed.give(*waiter->resumed_key, waiter->resumed_field);
  const CachedPathResult again = cached_find_path(entry_, resumed, {5, 5}, goal_, options_);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.path.points, pathcore::find_path(*entry_.mask, {5, 5}, goal_, options_).points);
  EXPECT_EQ(cache_.stats().fields_computed, 1U);
}

// A whole fill (BatchFindPaths) leaves, like a fill answered half-built, a
// paged-in spare for the next fill of its size, and pages it in only after
// the answer (finish_deferred), not on the answer's path.
TEST_F(FillingSourceTest, AWholeFillKeepsASpareForTheNextFillAfterTheAnswer) {
  FieldCache cache(256 << 20);  // its pool (1/32) holds spares of this mask's 2 MB fields
  FieldStoragePool& pool = cache.storage_pool();
  ASSERT_EQ(pool.bytes(), 0U);
  auto request = std::make_shared<FakeRequest>();
  FillingSource source(cache, flights_, request);
  source.fill_whole_fields();
  const FieldLease lease = source.field(key_, entry_, start_);
  ASSERT_NE(lease.owner, nullptr) << "a whole field, cached";
  EXPECT_EQ(cache.peek(key_), lease.owner);
  EXPECT_EQ(pool.bytes(), 0U) << "nothing paged in before the answer";
  source.finish_deferred();
  EXPECT_GE(pool.bytes(), lease.owner->storage_bytes());
  EXPECT_GT(pool.take(1024, 1024).bytes(), 0U);
}

TEST_F(FillingSourceTest, AParkedRequestIsAnsweredAsSoonAsItsStartIsSettled) {
  auto waiter = std::make_shared<FakeRequest>();
  waiter->start_hint = pathcore::Point{100, 100};  // 1846 steps from the goal
  auto leader = std::make_shared<FakeRequest>();
  leader->on_gone = [&](int poll) {
    if (poll == 1) park(waiter);
    return grpc::Status::OK;
  };
  const pathcore::Point near{600, 600};  // the leader's start: 846 steps
  FillingSource source(cache_, flights_, leader);
  const CachedPathResult got = cached_find_path(entry_, source, near, goal_, options_);
  EXPECT_EQ(got.path.cost, 846.0);
  EXPECT_FALSE(waiter->partial_cost) << "not before the leader's answer";
  source.finish_deferred();
  ASSERT_TRUE(waiter->partial_cost);
  EXPECT_EQ(*waiter->partial_cost, 1846U);
  EXPECT_FALSE(waiter->partial_reached_corner) << "served before the fill reached (0,0)";
  EXPECT_FALSE(waiter->resumed_key) << "answered, so not resumed";
  EXPECT_FALSE(waiter->abandoned);
  ASSERT_NE(cache_.peek(key_), nullptr);
  EXPECT_EQ(cache_.peek(key_)->at({0, 0}), 2046U);
  EXPECT_EQ(cache_.stats().fields_computed, 1U);
  EXPECT_EQ(flights_.size(), 0U);
}

TEST_F(FillingSourceTest, AnExpiredLeaderAloneIsAnsweredAndItsFillGoesOnForTheCache) {
  auto leader = std::make_shared<FakeRequest>();
  leader->on_gone = [](int poll) { return poll >= 3 ? expired() : grpc::Status::OK; };
  {
    FillingSource source(cache_, flights_, leader);
    EXPECT_THROW((void)cached_find_path(entry_, source, start_, goal_, options_), RequestGone);
    ASSERT_TRUE(leader->abandoned) << "answered at the check that saw the deadline";
    EXPECT_EQ(leader->abandoned->error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
    EXPECT_THAT(leader->abandoned->error_message(),
                ::testing::MatchesRegex(
                    "deadline exceeded while waiting for distance field for mask '.*' rev 1 "
                    "toward \\(1023, 1023\\): [0-9]+% built; the build goes on.*"));
  }  // ~source finishes the fill for the cache
  EXPECT_EQ(flights_.size(), 0U);
  EXPECT_EQ(flights_.deadline_give_ups(), 1U);
  const FieldCacheStats stats = cache_.stats();
  EXPECT_EQ(stats.fields_computed, 1U);
  EXPECT_EQ(stats.fills_interrupted, 0U);
  ASSERT_NE(cache_.peek(key_), nullptr);
  EXPECT_EQ(cache_.peek(key_)->at(start_), 2046U);
}

TEST_F(FillingSourceTest, AnExpiredLeaderAloneStopsAFillTheCacheCouldNotKeep) {
  FieldCache small(1 << 20);  // 1 MiB: a 1024x1024 field takes at least 2 MiB
  auto leader = std::make_shared<FakeRequest>();
  leader->on_gone = [](int poll) { return poll >= 3 ? expired() : grpc::Status::OK; };
  {
    FillingSource source(small, flights_, leader);
    EXPECT_THROW((void)cached_find_path(entry_, source, start_, goal_, options_), RequestGone);
  }
  ASSERT_TRUE(leader->abandoned);
  EXPECT_EQ(leader->abandoned->error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LE(leader->polls, 5) << "the fill stopped at the check that saw the deadline";
  EXPECT_EQ(flights_.size(), 0U);
  EXPECT_EQ(small.stats().fields_computed, 0U);
  EXPECT_EQ(small.stats().fills_interrupted, 1U);
}

TEST_F(FillingSourceTest, AFillNobodyWaitsForStopsOnceItsRevisionIsReplaced) {
  auto leader = std::make_shared<FakeRequest>();
  leader->on_gone = [&](int poll) {
    if (poll == 2) flights_.mark_stale(entry_.name, entry_.revision + 1);
    return poll >= 3 ? expired() : grpc::Status::OK;
  };
  {
    FillingSource source(cache_, flights_, leader);
    EXPECT_THROW((void)cached_find_path(entry_, source, start_, goal_, options_), RequestGone);
  }
  ASSERT_TRUE(leader->abandoned);
  EXPECT_EQ(cache_.size(), 0U);
  EXPECT_EQ(flights_.size(), 0U);
  EXPECT_EQ(cache_.stats().fills_interrupted, 1U);
  // The next request fills afresh (the stopped fill left nothing behind).
  EXPECT_EQ(cached_find_path(entry_, cache_, start_, goal_, options_).path.points,
            pathcore::find_path(*entry_.mask, start_, goal_, options_).points);
}

TEST_F(FillingSourceTest, FillsStopAtShutdownEvenForTheCache) {
  auto leader = std::make_shared<FakeRequest>();
  leader->on_gone = [&](int poll) {
    if (poll == 2) flights_.stop();
    return poll >= 2 ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "stopping") : grpc::Status::OK;
  };
  {
    FillingSource source(cache_, flights_, leader);
    EXPECT_THROW((void)cached_find_path(entry_, source, start_, goal_, options_), RequestGone);
  }
  ASSERT_TRUE(leader->abandoned);
  EXPECT_EQ(leader->abandoned->error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(cache_.size(), 0U);
  EXPECT_EQ(flights_.deadline_give_ups(), 0U);
}

TEST_F(FillingSourceTest, AnExpiredLeaderIsAnsweredWhileTheFillGoesOnForAWaiter) {
  auto waiter = std::make_shared<FakeRequest>();
  auto leader = std::make_shared<FakeRequest>();
  leader->on_gone = [&](int poll) {
    if (poll == 1) park(waiter);
    return poll >= 3 ? expired() : grpc::Status::OK;
  };
  {
    FillingSource source(cache_, flights_, leader);
    EXPECT_THROW((void)cached_find_path(entry_, source, start_, goal_, options_), RequestGone);
    ASSERT_TRUE(leader->abandoned);
    EXPECT_EQ(leader->abandoned->error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  }  // ~source finishes the fill for the waiter
  ASSERT_TRUE(waiter->resumed_key);
  ASSERT_NE(waiter->resumed_field, nullptr);
  EXPECT_FALSE(waiter->abandoned);
  EXPECT_EQ(waiter->resumed_field->at(start_), 2046U);
  EXPECT_EQ(cache_.peek(key_), waiter->resumed_field);
  EXPECT_EQ(cache_.stats().fields_computed, 1U);
  EXPECT_EQ(cache_.stats().fills_interrupted, 0U);
}

TEST_F(FillingSourceTest, WhenEveryCallerIsGoneTheFillStillFinishesForTheCache) {
  auto waiter = std::make_shared<FakeRequest>();
  waiter->on_gone = [](int /*poll*/) { return grpc::Status(grpc::StatusCode::CANCELLED, "gone"); };
  auto leader = std::make_shared<FakeRequest>();
  leader->on_gone = [&](int poll) {
    if (poll == 1) park(waiter);
    return poll >= 4 ? expired() : grpc::Status::OK;
  };
  {
    FillingSource source(cache_, flights_, leader);
    EXPECT_THROW((void)cached_find_path(entry_, source, start_, goal_, options_), RequestGone);
  }
  ASSERT_TRUE(waiter->abandoned);
  EXPECT_EQ(waiter->abandoned->error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_FALSE(waiter->resumed_key);
  ASSERT_TRUE(leader->abandoned);
  EXPECT_EQ(leader->abandoned->error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(cache_.size(), 1U);
  EXPECT_EQ(flights_.size(), 0U);
  EXPECT_EQ(cache_.stats().fills_interrupted, 0U);
  EXPECT_EQ(cache_.stats().fields_computed, 1U);
}

}  // namespace
}  // namespace pathserver

namespace pathserver {
namespace {

// Without a snapper (tests and tools), snapping scans the mask: never on
// gRPC's threads (the warm source sends the call to the compute pool even
// when the field is cached), and stopped like a fill once the request is gone.
class SnappingScanTest : public ::testing::Test {
 protected:
  // 1024x256, walled at x 512: the left part cannot reach the right one.
  const MaskEntry entry_ = entry_for([] {
    std::vector<std::uint8_t> areas(1024 * 256, 1);
    for (std::uint32_t y = 0; y < 256; ++y) areas[y * 1024 + 512] = 0;
    return pathcore::Mask(1024, 256, std::move(areas));
  }());
  const pathcore::Point start_{10, 10};
  const pathcore::Point goal_{1000, 200};
  FieldCache cache_{64 << 20};
  FieldFlights flights_;

  pathcore::FindPathOptions options(bool snap) const {
    pathcore::FindPathOptions options;
    options.smoothing = pathcore::Smoothing::kNone;
    options.snap_to_reachable = snap;
    return options;
  }

  void SetUp() override {
    // The field to the goal is cached; without snapping the answer is "not found".
    const CachedPathResult plain = cached_find_path(entry_, cache_, start_, goal_, options(false));
    ASSERT_FALSE(plain.path.found);
  }
};

TEST_F(SnappingScanTest, TheWarmSourceSendsTheScanToTheComputePool) {
  CacheOnlySource warm(cache_);
  EXPECT_THROW((void)cached_find_path(entry_, warm, start_, goal_, options(true)), NeedsFill);
  EXPECT_FALSE(warm.missed().has_value());  // the field itself was cached

  FillingSource filling(cache_, flights_, std::make_shared<FakeRequest>());
  const CachedPathResult snapped = cached_find_path(entry_, filling, start_, goal_, options(true));
  EXPECT_TRUE(snapped.path.found);
  EXPECT_EQ(snapped.path.goal,
            (pathcore::Point{511, 200}));  // nearest to the goal, left of the wall
  EXPECT_EQ(snapped.path.points.front(), start_);
}

TEST_F(SnappingScanTest, AGoneRequestStopsTheScan) {
  auto request = std::make_shared<FakeRequest>();
  request->on_gone = [](int) { return expired(); };
  FillingSource filling(cache_, flights_, request);
  EXPECT_THROW((void)cached_find_path(entry_, filling, start_, goal_, options(true)), RequestGone);
  EXPECT_GE(request->polls, 1);
}

// With an EndpointSnapper (the server's calls), snapping looks its ends up in
// tables built once on the compute pool: a warm source then answers snapped
// calls itself, unless a goal's ring search may read many pixels.
class SnappingLookupTest : public SnappingScanTest {
 protected:
  NearestCache transforms_{cache_.budget(), "nearest", 8};
  ComponentCache labels_{cache_.budget(), "labels", 8};
  EndpointSnapper snapper_{transforms_, labels_};

  CachedPathResult find(FieldSource& source, pathcore::Point start, pathcore::Point goal) {
    return cached_find_path(entry_, source, start, goal, options(true), nullptr, &snapper_);
  }
  // The scanning snap (pathcore::snap_endpoints), built independently of the tables.
  pathcore::SnappedEndpoints scanned(pathcore::Point start, pathcore::Point goal) const {
    return *pathcore::snap_endpoints(*entry_.mask, options(true).field, start, goal, std::nullopt);
  }
};

TEST_F(SnappingLookupTest, OnlyTheTableBuildsAndLongRingSearchesGoToTheComputePool) {
  const pathcore::Point on_wall{512, 200};      // nearest walkable pixels tie left and right
  const pathcore::Point blocked_start{512, 5};  // on the wall too
  CacheOnlySource warm(cache_);
  EXPECT_THROW((void)find(warm, blocked_start, on_wall), NeedsFill);  // tables not built
  {
    FillingSource filling(cache_, flights_, std::make_shared<FakeRequest>());
    const CachedPathResult cold = find(filling, blocked_start, on_wall);
    ASSERT_TRUE(cold.path.found);
    EXPECT_EQ(cold.path.points.front(), scanned(blocked_start, on_wall).start);
    EXPECT_EQ(cold.path.goal, scanned(blocked_start, on_wall).goal);
  }
  EXPECT_EQ(transforms_.size(), 1U);
  EXPECT_EQ(labels_.size(), 1U);
  // Tables and the snapped goal's field cached: answered warm.
  const CachedPathResult warm_answer = find(warm, blocked_start, on_wall);
  ASSERT_TRUE(warm_answer.path.found);
  EXPECT_EQ(warm_answer.path.points.front(), scanned(blocked_start, on_wall).start);
  EXPECT_EQ(warm_answer.path.goal, scanned(blocked_start, on_wall).goal);

  // The goal right of the wall, the start left of it: its nearest pixel the
  // start reaches is 89 pixels away, across ring after ring.
  EXPECT_THROW((void)find(warm, start_, goal_), NeedsFill);
  FillingSource filling(cache_, flights_, std::make_shared<FakeRequest>());
  const CachedPathResult far = find(filling, start_, goal_);
  ASSERT_TRUE(far.path.found);
  EXPECT_EQ(far.path.points.front(), start_);
  EXPECT_EQ(far.path.goal, scanned(start_, goal_).goal);
}

TEST_F(SnappingLookupTest, AGoalIsSnappedOncePerStartComponent) {
  // The goal right of the wall needs a long search for starts left of it:
  // once done, another start of the same component gets the goal remembered
  // (the warm source, which refuses long searches, answers it), while a
  // snapper that has not snapped this goal sends the search to the pool.
  const pathcore::FieldOptions reach = options(true).field;
  FillingSource filling(cache_, flights_, std::make_shared<FakeRequest>());
  const auto first = snapper_.snap(entry_, filling, reach, 0, start_, goal_);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->goal, scanned(start_, goal_).goal);
  CacheOnlySource warm(cache_);
  const pathcore::Point other_start{300, 250};
  const auto second = snapper_.snap(entry_, warm, reach, 0, other_start, goal_);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->start, other_start);
  EXPECT_EQ(second->goal, scanned(other_start, goal_).goal);
  EndpointSnapper fresh(transforms_, labels_);
  EXPECT_THROW((void)fresh.snap(entry_, warm, reach, 0, other_start, goal_), NeedsFill);
}

// The call is gone, but the table it started is shared work: finished and
// cached for the next call (as fills and the any-angle mesh are).
TEST_F(SnappingLookupTest, AGoneRequestLeavesTheTableBuildFinishedForTheCache) {
  auto request = std::make_shared<FakeRequest>();
  request->on_gone = [](int) { return expired(); };
  FillingSource filling(cache_, flights_, request);
  EXPECT_THROW((void)find(filling, {512, 5}, goal_), RequestGone);
  EXPECT_GE(request->polls, 1);
  EXPECT_EQ(transforms_.size(), 1U);
  EXPECT_EQ(flights_.size(), 0U);
}

}  // namespace
}  // namespace pathserver

namespace pathserver {
namespace {

// A request with a give-up time, answered (from FieldFlights' give-up thread)
// under a lock, as the service's calls are.
class TimedRequest final : public FieldRequest {
 public:
  explicit TimedRequest(std::chrono::system_clock::time_point at) : at_(at) {}
  grpc::Status gone() const override {
    const std::lock_guard lock(mutex_);
    if (answer_) return {grpc::StatusCode::CANCELLED, "already answered"};
    return std::chrono::system_clock::now() >= at_
               ? grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "test deadline")
               : grpc::Status::OK;
  }
  void abandon(const grpc::Status& status) override {
    const std::lock_guard lock(mutex_);
    if (!answer_) answer_ = status;
  }
  void resume(const FieldKey& /*key*/, FieldPtr /*field*/) override {}
  std::optional<std::chrono::system_clock::time_point> give_up_at() const override { return at_; }
  std::optional<grpc::Status> answer() const {
    const std::lock_guard lock(mutex_);
    return answer_;
  }

 private:
  const std::chrono::system_clock::time_point at_;
  mutable std::mutex mutex_;
  std::optional<grpc::Status> answer_;
};

// A build may be slow to poll (its memory faulted in, its thread short of a
// core): its waiters still give up on time, told how far it is.
TEST(FieldFlightsGiveUpTest, AWaiterGivesUpOnTimeThoughTheBuildNeverPolls) {
  FieldFlights flights;
  FieldKey key;
  key.mask = "m";
  key.revision = 3;
  key.goal = {-2, -2};
  const auto soon = std::chrono::system_clock::now() + std::chrono::milliseconds(30);
  auto leader = std::make_shared<TimedRequest>(soon + std::chrono::hours(1));
  auto waiter = std::make_shared<TimedRequest>(soon);
  bool led = false;
  const auto flight = flights.lead_or_wait(key, leader, led, "any-angle structure for mask 'm' rev 3");
  ASSERT_TRUE(led);
  flight->progress.report(0.42);
  (void)flights.lead_or_wait(key, waiter, led);
  ASSERT_FALSE(led);
  for (int i = 0; i < 500 && !waiter->answer(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::optional<grpc::Status> answer = waiter->answer();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(answer->error_message(),
            "deadline exceeded while waiting for any-angle structure for mask 'm' rev 3: 42% "
            "built; the build goes on and a later call will find it cached");
  EXPECT_FALSE(leader->answer());
  EXPECT_EQ(flights.deadline_give_ups(), 1U);
  flights.complete(*flight, nullptr);
}

}  // namespace
}  // namespace pathserver
