// A warm Reachable request against the transport: the same in-process server
// on loopback answers a no-op RPC (the health check) and Reachable on a
// full-HD mask whose labels are cached. Read the ratio within one run: the
// handler's own work (validation plus two lookups per pair) should cost no
// more than the transport does.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "bench_masks.h"
#include "cache/field_cache.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"

namespace {

namespace pb = pathfinding::v1;

// One server for the whole run (started on first use, never stopped).
struct Fixture {
  std::filesystem::path dir;
  std::unique_ptr<pathserver::MaskStore> store;
  std::unique_ptr<pathserver::FieldCache> cache;
  std::unique_ptr<pathserver::PathfinderService> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<pathfinder::Client> client;

  Fixture() {
    spdlog::set_level(spdlog::level::warn);
    std::string templ =
        (std::filesystem::temp_directory_path() / "reachable-bench-XXXXXX").string();
    dir = ::mkdtemp(templ.data());
    store = std::make_unique<pathserver::FileMaskStore>(dir);
    store->put("hd", pathbench::random_obstacle_mask(1920, 1080, 0.30, 42));
    cache = std::make_unique<pathserver::FieldCache>(std::size_t{64} << 20);
    service = std::make_unique<pathserver::PathfinderService>(*store, *cache,
                                                              pathserver::ServiceLimits{});
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.SetMaxReceiveMessageSize(64 << 20);
    builder.RegisterService(service.get());
    server = builder.BuildAndStart();
    client = std::make_unique<pathfinder::Client>("127.0.0.1:" + std::to_string(port));
  }
  ~Fixture() {
    server->Shutdown();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

pb::ReachableRequest request_with(int pairs) {
  pb::ReachableRequest request;
  request.set_mask("hd");
  std::uint64_t seed = 1;
  for (int i = 0; i < pairs; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    auto* pair = request.add_pairs();
    pair->mutable_a()->set_x(static_cast<std::int32_t>((seed >> 33) % 1920));
    pair->mutable_a()->set_y(static_cast<std::int32_t>((seed >> 13) % 1080));
    pair->mutable_b()->set_x(static_cast<std::int32_t>((seed >> 40) % 1920));
    pair->mutable_b()->set_y(static_cast<std::int32_t>((seed >> 20) % 1080));
  }
  return request;
}

void BM_NoOpHealthCheck(benchmark::State& state) {
  auto& f = fixture();
  for (auto _ : state) {
    auto result = f.client->health_check();
    if (!result.ok()) state.SkipWithError("health check failed");
  }
}

// A cheap RPC of the same service (one map lookup), for comparison.
void BM_GetMask(benchmark::State& state) {
  auto& f = fixture();
  for (auto _ : state) {
    auto result = f.client->get_mask("hd");
    if (!result.ok()) state.SkipWithError("get mask failed");
  }
}

void BM_WarmReachable(benchmark::State& state) {
  auto& f = fixture();
  const pb::ReachableRequest request = request_with(static_cast<int>(state.range(0)));
  if (!f.client->reachable(request).ok()) {  // labels the mask once (cold)
    state.SkipWithError("reachable failed");
    return;
  }
  for (auto _ : state) {
    auto result = f.client->reachable(request);
    if (!result.ok()) state.SkipWithError("reachable failed");
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

BENCHMARK(BM_NoOpHealthCheck)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_GetMask)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_WarmReachable)
    ->Arg(1)
    ->Arg(100)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
