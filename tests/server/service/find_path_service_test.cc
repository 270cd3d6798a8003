// The FindPath service in-process (loopback, port chosen at run time): cold
// calls on the compute pool, single flight, deadlines, the queue bound, and
// the field cache's counters as metrics read them.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace pb = pathfinding::v1;

// An open 3840x2160 mask: a cold four-connected fill covers 8.3M pixels.
constexpr int kWidth = 3840;
constexpr int kHeight = 2160;

class FindPathServiceTest : public ::testing::Test {
 protected:
  void start(ServiceLimits limits) {
    store_ = std::make_unique<FileMaskStore>(dir_.file("data"));
    store_->put("open",
                pathcore::Mask(kWidth, kHeight,
                               std::vector<std::uint8_t>(std::size_t{kWidth} * kHeight, 1)));
    service_ = std::make_unique<PathfinderService>(*store_, cache_, limits);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_NE(port, 0);
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials());
    stub_ = pb::Pathfinder::NewStub(channel_);
  }

  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
    server_.reset();
    service_.reset();
  }

  static pb::FindPathRequest request(int sx, int sy, int gx, int gy) {
    pb::FindPathRequest r;
    r.set_mask("open");
    r.mutable_start()->set_x(sx);
    r.mutable_start()->set_y(sy);
    r.mutable_goal()->set_x(gx);
    r.mutable_goal()->set_y(gy);
    r.set_smoothing(pb::SMOOTHING_NONE);  // the raw grid path: no beeline, a fill
    return r;
  }

  // A call is answered as soon as its start is settled; its fill is finished
  // (and counted) after that. Waits (up to 60 s) until n fields were computed.
  FieldCacheStats wait_for_computed(std::uint64_t n) {
    for (int i = 0; i < 6000 && cache_.stats().fields_computed < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return cache_.stats();
  }

  grpc::Status find(const pb::FindPathRequest& r, pb::FindPathResponse& response,
                    std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + deadline);
    return stub_->FindPath(&ctx, r, &response);
  }

  pathtest::TempDir dir_{"pathfinder-find-path-service"};
  FieldCache cache_{std::size_t{1} << 30};
  std::unique_ptr<MaskStore> store_;
  std::unique_ptr<PathfinderService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::Pathfinder::Stub> stub_;
};

// A 64x64 room split by a wall at x = 32 with a one-pixel door at (32, door_y).
pathcore::Mask walled_room(int door_y) {
  std::vector<std::uint8_t> areas(64 * 64, 1);
  for (int y = 0; y < 64; ++y) {
    if (y != door_y) areas[static_cast<std::size_t>(y) * 64 + 32] = 0;
  }
  return pathcore::Mask(64, 64, std::move(areas));
}

bool passes_through(const pb::FindPathResponse& response, int x, int y) {
  for (const auto& p : response.points()) {
    if (p.x() == x && p.y() == y) return true;
  }
  return false;
}

TEST_F(FindPathServiceTest, RepeatedCallsAreAnsweredFromThePathCacheButNeverAcrossRevisions) {
  start({});
  store_->put("room", walled_room(10));
  pb::FindPathRequest r = request(5, 40, 60, 40);
  r.set_mask("room");
  pb::FindPathResponse first;
  ASSERT_TRUE(find(r, first).ok());
  ASSERT_TRUE(first.found());
  EXPECT_TRUE(passes_through(first, 32, 10));
  wait_for_computed(1);

  // An answer is kept when its request misses a second time: the second call
  // is traced again on the cached field, the third is served as it is.
  pb::FindPathResponse second;
  ASSERT_TRUE(find(r, second).ok());
  EXPECT_TRUE(second.cache_hit());
  const FieldCacheStats before = cache_.stats();
  EXPECT_EQ(before.hits, 1U);
  pb::FindPathResponse again;
  ASSERT_TRUE(find(r, again).ok());
  EXPECT_TRUE(again.cache_hit());
  ASSERT_EQ(again.points_size(), first.points_size());
  for (int i = 0; i < first.points_size(); ++i) {
    EXPECT_EQ(again.points(i).x(), first.points(i).x()) << i;
    EXPECT_EQ(again.points(i).y(), first.points(i).y()) << i;
  }
  EXPECT_EQ(again.cost(), first.cost());
  // Answered without even a field lookup.
  EXPECT_EQ(cache_.stats().hits, before.hits);
  EXPECT_EQ(cache_.stats().misses, before.misses);

  r.set_smoothing(pb::SMOOTHING_BEAUTIFY);  // another answer of the same field
  pb::FindPathResponse smoothed;
  ASSERT_TRUE(find(r, smoothed).ok());
  EXPECT_LT(smoothed.points_size(), first.points_size());
  EXPECT_EQ(cache_.stats().hits, before.hits + 1);

  // The door moves: the next answer is traced on the new revision.
  store_->put("room", walled_room(50));
  r.set_smoothing(pb::SMOOTHING_NONE);
  pb::FindPathResponse moved;
  ASSERT_TRUE(find(r, moved).ok());
  ASSERT_TRUE(moved.found());
  EXPECT_GT(moved.mask_revision(), first.mask_revision());
  EXPECT_FALSE(moved.cache_hit());
  EXPECT_TRUE(passes_through(moved, 32, 50));
  EXPECT_FALSE(passes_through(moved, 32, 10));
}

// Enabled areas and costs the mask does not have change no answer, so they
// must not make new cache keys: otherwise every such variant is a cold build
// a client gets for free.
TEST_F(FindPathServiceTest, RequestsDifferingOnlyInAreasTheMaskLacksShareTheirCaches) {
  start({});
  store_->put("room", walled_room(10));  // areas 0 and 1 only
  const auto variant = [](std::uint64_t absent_bits, std::uint32_t absent_cost) {
    pb::FindPathRequest r = request(5, 40, 60, 40);
    r.set_mask("room");
    r.set_enabled_areas(absent_bits == 0 ? 0 : (std::uint64_t{1} << 1) | absent_bits);
    if (absent_cost != 0) (*r.mutable_area_costs())[7] = absent_cost;
    return r;
  };
  pb::FindPathResponse first;
  ASSERT_TRUE(find(variant(0, 0), first).ok());
  ASSERT_TRUE(first.found());
  wait_for_computed(1);
  int variant_index = 0;
  for (const std::uint64_t absent : {std::uint64_t{1} << 5, std::uint64_t{1} << 40,
                                     (std::uint64_t{1} << 2) | (std::uint64_t{1} << 63)}) {
    for (const std::uint32_t cost : {0U, 3U, 200U}) {
      SCOPED_TRACE(++variant_index);
      pb::FindPathResponse again;
      ASSERT_TRUE(find(variant(absent, cost), again).ok());
      EXPECT_TRUE(again.cache_hit());
      EXPECT_EQ(again.cost(), first.cost());
      EXPECT_EQ(again.points_size(), first.points_size());
    }
  }
  EXPECT_EQ(cache_.stats().fields_computed, 1U);

  // The any-angle mesh, too: one build for every variant.
  for (const std::uint64_t absent : {std::uint64_t{0}, std::uint64_t{1} << 5, std::uint64_t{1} << 40}) {
    pb::FindPathRequest r = variant(absent, 0);
    r.set_smoothing(pb::SMOOTHING_ANY_ANGLE);
    pb::FindPathResponse answer;
    ASSERT_TRUE(find(r, answer).ok());
    EXPECT_TRUE(answer.found());
  }
  EXPECT_EQ(service_->any_angle_structures_built(), 1U);

  // A set that enables no area of the mask: nothing walkable, whatever absent areas it names.
  for (const std::uint64_t absent : {std::uint64_t{1} << 5, std::uint64_t{1} << 40}) {
    pb::FindPathRequest r = request(5, 40, 60, 40);
    r.set_mask("room");
    r.set_enabled_areas(absent);
    pb::FindPathResponse answer;
    ASSERT_TRUE(find(r, answer).ok());
    EXPECT_FALSE(answer.found());
  }
}

TEST_F(FindPathServiceTest, ConcurrentIdenticalColdCallsFillTheFieldOnce) {
  start({.compute_threads = 2});
  constexpr int kCalls = 8;
  const pb::FindPathRequest r = request(10, 20, kWidth - 30, kHeight - 40);
  std::vector<pb::FindPathResponse> responses(kCalls);
  std::vector<grpc::Status> statuses(kCalls);
  std::latch go(kCalls);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCalls; ++i) {
    threads.emplace_back([&, i] {
      go.arrive_and_wait();
      statuses[i] = find(r, responses[i]);
    });
  }
  for (auto& thread : threads) thread.join();
  int cold = 0;
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(statuses[i].ok()) << i << ": " << statuses[i].error_message();
    ASSERT_TRUE(responses[i].found());
    // Four-connected on an open mask: the Manhattan distance.
    EXPECT_EQ(responses[i].cost(), (kWidth - 40) + (kHeight - 60));
    EXPECT_EQ(responses[i].points_size(), responses[0].points_size());
    cold += responses[i].cache_hit() ? 0 : 1;
  }
  const FieldCacheStats stats = wait_for_computed(1);
  std::cout << "hits " << stats.hits << ", misses " << stats.misses << ", shared waits "
            << stats.shared_waits << ", fields computed " << stats.fields_computed << " in "
            << stats.compute_seconds << " s\n";
  EXPECT_EQ(stats.fields_computed, 1U);
  EXPECT_EQ(cold, 1) << "one call filled; the others waited for it or hit the cache";
  EXPECT_EQ(stats.entries, 1U);
  EXPECT_EQ(stats.hits + stats.misses, static_cast<std::uint64_t>(kCalls));
  EXPECT_LE(stats.hits + stats.shared_waits, static_cast<std::uint64_t>(kCalls - 1));
  EXPECT_GT(stats.compute_seconds, 0.0);
  EXPECT_EQ(stats.bytes, static_cast<std::uint64_t>(cache_.bytes()));
  EXPECT_GE(stats.bytes, std::uint64_t{2} * kWidth * kHeight);
}

TEST_F(FindPathServiceTest, AColdCallExpiredBeforeItRunsEndsDeadlineExceededAndStartsNoFill) {
  start({.compute_threads = 2});
  pb::FindPathResponse response;
  const grpc::Status expired =
      find(request(0, 0, kWidth - 1, kHeight - 1), response, std::chrono::milliseconds(1));
  EXPECT_EQ(expired.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << expired.error_message();

  // The server is healthy: a cold call on another goal completes.
  const grpc::Status ok = find(request(0, 0, kWidth - 2, kHeight - 1), response);
  ASSERT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_TRUE(response.found());
  EXPECT_FALSE(response.cache_hit());
  // A 1 ms call is gone before the pool runs it (a call gives up 20 ms
  // before its deadline), so it never starts a fill: only the second field
  // was computed and kept.
  wait_for_computed(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const FieldCacheStats stats = cache_.stats();
  std::cout << "fills interrupted " << stats.fills_interrupted << ", computed "
            << stats.fields_computed << "\n";
  EXPECT_EQ(stats.fields_computed, 1U);
  EXPECT_EQ(stats.entries, 1U);
  EXPECT_LE(stats.fills_interrupted, 1U);
  // The same request again is a miss: nothing of the expired fill was kept.
  const grpc::Status again = find(request(0, 0, kWidth - 1, kHeight - 1), response);
  ASSERT_TRUE(again.ok()) << again.error_message();
  EXPECT_FALSE(response.cache_hit());
  EXPECT_EQ(response.cost(), (kWidth - 1) + (kHeight - 1));
}

TEST_F(FindPathServiceTest, ACancelledColdCallLeavesItsFillToFinishForTheCache) {
  start({.compute_threads = 2});
  pb::FindPathRequest r = request(0, 0, kWidth - 1, kHeight - 1);
  r.set_connectivity(pb::CONNECTIVITY_EIGHT);  // the slower octile fill
  grpc::ClientContext ctx;
  pb::FindPathResponse response;
  grpc::Status status;
  std::thread caller([&] { status = stub_->FindPath(&ctx, r, &response); });
  // Cancel once the call has missed the cache and its fill (8M pixels, on an
  // idle pool) has had time to start.
  for (int i = 0; i < 3000 && cache_.stats().misses == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ctx.TryCancel();
  caller.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status.error_message();
  // The fill goes on to the end and is cached (bounded wait).
  const FieldCacheStats stats = wait_for_computed(1);
  EXPECT_EQ(stats.fields_computed, 1U);
  EXPECT_EQ(stats.fills_interrupted, 0U);
  // Asked again, the same call is a cache hit.
  ASSERT_TRUE(find(r, response).ok());
  EXPECT_TRUE(response.cache_hit());
  EXPECT_TRUE(response.found());
}

TEST_F(FindPathServiceTest, WarmCallsAreAnsweredWhileColdOnesWaitForTheComputePool) {
  start({.compute_threads = 1});
  pb::FindPathResponse response;
  const pb::FindPathRequest warm = request(5, 5, 100, 50);
  ASSERT_TRUE(find(warm, response).ok());
  // Cached once its fill has finished after the answer (else the first warm
  // call below could queue for the compute thread behind the burst).
  wait_for_computed(1);
  constexpr int kCold = 12;
  std::atomic<int> cold_done{0};
  std::vector<std::thread> threads;
  std::vector<grpc::Status> statuses(kCold);
  for (int i = 0; i < kCold; ++i) {
    threads.emplace_back([&, i] {
      pb::FindPathResponse cold_response;
      statuses[i] = find(request(0, 0, kWidth - 1 - i, kHeight - 1), cold_response);
      ++cold_done;
    });
  }
  // Warm calls go on while the burst is being filled one at a time.
  int warm_during_burst = 0;
  for (int i = 0; i < 2000 && cold_done.load() < kCold; ++i) {
    pb::FindPathResponse warm_response;
    ASSERT_TRUE(find(warm, warm_response).ok());
    EXPECT_TRUE(warm_response.cache_hit());
    if (cold_done.load() < kCold) ++warm_during_burst;
  }
  for (auto& thread : threads) thread.join();
  for (const auto& status : statuses) EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_GT(warm_during_burst, 0);
  EXPECT_EQ(wait_for_computed(kCold + 1).fields_computed, static_cast<std::uint64_t>(kCold + 1));
}

TEST_F(FindPathServiceTest, AFullQueueRefusesColdCallsWithResourceExhausted) {
  start({.compute_threads = 1, .compute_queue = 2});
  constexpr int kCold = 24;
  std::vector<grpc::Status> statuses(kCold);
  std::latch go(kCold);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCold; ++i) {
    threads.emplace_back([&, i] {
      pb::FindPathResponse response;
      go.arrive_and_wait();
      statuses[i] = find(request(0, 0, kWidth - 1 - i, kHeight - 1), response);
    });
  }
  for (auto& thread : threads) thread.join();
  int ok = 0;
  int refused = 0;
  for (const auto& status : statuses) {
    if (status.ok()) ++ok;
    if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
      EXPECT_NE(status.error_message().find("server busy"), std::string::npos);
    }
  }
  EXPECT_EQ(ok + refused, kCold) << "nothing but OK and RESOURCE_EXHAUSTED";
  EXPECT_GE(ok, 2);  // the queue's two at least (the running one may be among them)
  EXPECT_GE(refused, 1);
}

}  // namespace
}  // namespace pathserver
