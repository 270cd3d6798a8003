// A warm Reachable request against the transport: the same in-process server
// on loopback answers a no-op RPC (the health check) and Reachable on a
// full-HD mask whose labels are cached. Read the ratio within one run: the
// handler's own work (validation plus two lookups per pair) should cost no
// more than the transport does.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "bench_masks.h"
#include "bench_server.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"

namespace {

namespace pb = pathfinding::v1;

// One server for the whole run (started on first use, never stopped).
pathbench::ServedMask& fixture() {
  static pathbench::ServedMask f("reachable-bench", "hd",
                                 pathbench::random_obstacle_mask(1920, 1080, 0.30, 42));
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
    auto result = f.client().health_check();
    if (!result.ok()) state.SkipWithError("health check failed");
  }
}

// A cheap RPC of the same service (one map lookup), for comparison.
void BM_GetMask(benchmark::State& state) {
  auto& f = fixture();
  for (auto _ : state) {
    auto result = f.client().get_mask("hd");
    if (!result.ok()) state.SkipWithError("get mask failed");
  }
}

void BM_WarmReachable(benchmark::State& state) {
  auto& f = fixture();
  const pb::ReachableRequest request = request_with(static_cast<int>(state.range(0)));
  if (!f.client().reachable(request).ok()) {  // labels the mask once (cold)
    state.SkipWithError("reachable failed");
    return;
  }
  for (auto _ : state) {
    auto result = f.client().reachable(request);
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
