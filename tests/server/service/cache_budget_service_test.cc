// The service in-process (loopback) with a small cache budget: Reachable's
// component labellings are charged to the budget the field cache has.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "service/server_gauges.h"
#include "store/file_mask_store.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace pb = pathfinding::v1;

// Six vertical stripes, stripe k of area k + 1, each kStripe pixels wide.
constexpr int kStripes = 6;
constexpr int kStripe = 32;
constexpr int kHeight = 128;

pathcore::Mask striped_mask() {
  std::vector<std::uint8_t> areas(std::size_t{kStripes} * kStripe * kHeight);
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kStripes * kStripe; ++x) {
      areas[static_cast<std::size_t>(y) * kStripes * kStripe + x] =
          static_cast<std::uint8_t>(x / kStripe + 1);
    }
  }
  return pathcore::Mask(kStripes * kStripe, kHeight, std::move(areas));
}

// 64 distinct Reachable calls (every non-empty set of the six areas, and 0
// for all areas), each labelling 4 bytes a pixel (96 KiB), under a budget of
// 512 KiB: about five labellings fit, not 64. Every answer is right, and the
// bytes charged stay within the budget after every call.
TEST(CacheBudgetService, ReachableWithManyAreaSetsStaysWithinTheBudget) {
  pathtest::TempDir dir("pathfinder-cache-budget-service");
  FileMaskStore store(dir.file("data"));
  store.put("stripes", striped_mask());
  FieldCache cache(std::size_t{512} << 10);
  PathfinderService service(store, cache, ServiceLimits{});
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  const auto stub = pb::Pathfinder::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));

  const CacheBudget& budget = cache.budget();
  for (std::uint64_t subset = 0; subset < 64; ++subset) {
    SCOPED_TRACE(subset);
    const std::uint64_t enabled_areas = subset << 1;  // bit k + 1: stripe k
    pb::ReachableRequest request;
    request.set_mask("stripes");
    request.set_enabled_areas(enabled_areas);
    // From the first stripe to a pixel of each stripe.
    for (int k = 0; k < kStripes; ++k) {
      auto* pair = request.add_pairs();
      pair->mutable_a()->set_x(0);
      pair->mutable_a()->set_y(0);
      pair->mutable_b()->set_x(k * kStripe + 5);
      pair->mutable_b()->set_y(kHeight - 1);
    }
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    pb::ReachableResponse response;
    const grpc::Status status = stub->Reachable(&ctx, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.reachable_size(), kStripes);
    const std::uint64_t effective = subset == 0 ? 0b111111 : subset;  // 0: all areas
    bool open_so_far = true;                                          // stripes 0..k all enabled
    for (int k = 0; k < kStripes; ++k) {
      open_so_far = open_so_far && ((effective >> k) & 1) != 0;
      EXPECT_EQ(response.reachable(k), open_so_far) << "stripe " << k;
    }
    ASSERT_LE(budget.used_bytes(), budget.total_bytes());
  }

  const ServerGauges gauges = read_gauges(store, cache, service);
  EXPECT_EQ(gauges.cache_budget_bytes, budget.total_bytes());
  std::uint64_t charged = 0;
  std::uint64_t label_bytes = 0;
  for (const CacheUsage& usage : gauges.caches) {
    charged += usage.bytes;
    if (usage.name == "labels") label_bytes = usage.bytes;
  }
  EXPECT_EQ(charged, budget.used_bytes());
  EXPECT_GT(label_bytes, 0U) << "labellings are still cached";
  EXPECT_LE(label_bytes, budget.total_bytes());
  EXPECT_GE(gauges.component_cache_entries, 1U);
  EXPECT_LT(gauges.component_cache_entries, 8U);

  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

}  // namespace
}  // namespace pathserver
