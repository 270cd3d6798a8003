// FindPath to the nearest of N goals (N = 1, 16, 256) on a full-HD mask with
// 20% random obstacles, against FindPath to one goal, on an in-process
// server over loopback. Cold: a server whose cache keeps nothing, so every
// call fills (one multi-source fill for N goals; the one-goal fill stops
// when the start is settled). Warm: the field is cached (a first call
// fills it), every call traces and smooths on it. The answer cache is off
// in both, so every call traces. Read the ratios within one run.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_masks.h"
#include "bench_server.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"

namespace {

namespace pb = pathfinding::v1;

constexpr int kWidth = 1920;
constexpr int kHeight = 1080;

// One server per cache size (started on first use, never stopped).
struct Fixture {
  pathbench::BenchStore files{"goals-bench"};
  pathserver::MaskStore* store = &files.store();
  std::unique_ptr<pathbench::BenchServer> server;
  pathfinder::Client* client = nullptr;
  std::vector<pb::Point> walkable;  // random walkable pixels: goals and starts

  explicit Fixture(std::size_t cache_bytes) {
    pathcore::Mask mask = pathbench::random_obstacle_mask(kWidth, kHeight, 0.20, 42);
    std::mt19937_64 rng(7);
    while (walkable.size() < 4096) {
      const pathcore::Point p{static_cast<std::int32_t>(rng() % kWidth),
                              static_cast<std::int32_t>(rng() % kHeight)};
      if (mask.walkable(p, pathcore::kAllAreas)) walkable.push_back(pathfinder::make_point(p.x, p.y));
    }
    store->put("hd", std::move(mask));
    pathbench::BenchServerOptions options;
    options.cache_bytes = cache_bytes;
    options.limits.path_cache_entries = 0;  // every call traces
    server = std::make_unique<pathbench::BenchServer>(*store, options);
    client = &server->client();
  }
};

Fixture& cold() {
  static Fixture fixture(0);
  return fixture;
}
Fixture& warm() {
  static Fixture fixture(std::size_t{1} << 30);
  return fixture;
}

// goals = 0: the one-goal form (goal); else that many goals.
pb::FindPathRequest request_for(const Fixture& fixture, int goals, std::size_t start) {
  pb::FindPathRequest request;
  request.set_mask("hd");
  *request.mutable_start() = fixture.walkable[2048 + start % 2048];
  if (goals == 0) {
    *request.mutable_goal() = fixture.walkable[0];
  } else {
    for (int j = 0; j < goals; ++j) *request.add_goals() = fixture.walkable[static_cast<std::size_t>(j)];
  }
  return request;
}

void run(benchmark::State& state, Fixture& fixture) {
  const int goals = static_cast<int>(state.range(0));
  // The warm server's field is filled before the timing.
  if (!fixture.client->find_path(request_for(fixture, goals, 0)).ok()) {
    state.SkipWithError("FindPath failed");
    return;
  }
  std::size_t start = 1;
  std::int64_t found = 0;
  for (auto _ : state) {
    const auto answer = fixture.client->find_path(request_for(fixture, goals, start++));
    if (!answer.ok()) {
      state.SkipWithError(answer.status.error_message().c_str());
      return;
    }
    found += answer.value.found() ? 1 : 0;
  }
  state.counters["found"] = benchmark::Counter(static_cast<double>(found),
                                               benchmark::Counter::kAvgIterations);
}

void BM_FindPathColdOneGoal(benchmark::State& state) { run(state, cold()); }
void BM_FindPathColdGoals(benchmark::State& state) { run(state, cold()); }
void BM_FindPathWarmOneGoal(benchmark::State& state) { run(state, warm()); }
void BM_FindPathWarmGoals(benchmark::State& state) { run(state, warm()); }

BENCHMARK(BM_FindPathColdOneGoal)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FindPathColdGoals)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_FindPathWarmOneGoal)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_FindPathWarmGoals)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
