// FindPath to the nearest of N goals (N = 1, 16, 256) on a full-HD mask with
// 20% random obstacles, against FindPath to one goal, on an in-process
// server over loopback. Cold: a server whose cache keeps nothing, so every
// call fills (one multi-source fill for N goals; the one-goal fill stops
// when the start is settled). Warm: the field is cached (a first call
// fills it), every call traces and smooths on it. The answer cache is off
// in both, so every call traces. Read the ratios within one run.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_masks.h"
#include "cache/field_cache.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"

namespace {

namespace pb = pathfinding::v1;

constexpr int kWidth = 1920;
constexpr int kHeight = 1080;

// One server per cache size (started on first use, never stopped).
struct Fixture {
  std::filesystem::path dir;
  std::unique_ptr<pathserver::MaskStore> store;
  std::unique_ptr<pathserver::FieldCache> cache;
  std::unique_ptr<pathserver::PathfinderService> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<pathfinder::Client> client;
  std::vector<pb::Point> walkable;  // random walkable pixels: goals and starts

  explicit Fixture(std::size_t cache_bytes) {
    spdlog::set_level(spdlog::level::warn);
    std::string templ = (std::filesystem::temp_directory_path() / "goals-bench-XXXXXX").string();
    dir = ::mkdtemp(templ.data());
    store = std::make_unique<pathserver::FileMaskStore>(dir);
    pathcore::Mask mask = pathbench::random_obstacle_mask(kWidth, kHeight, 0.20, 42);
    std::mt19937_64 rng(7);
    while (walkable.size() < 4096) {
      const pathcore::Point p{static_cast<std::int32_t>(rng() % kWidth),
                              static_cast<std::int32_t>(rng() % kHeight)};
      if (mask.walkable(p, pathcore::kAllAreas)) walkable.push_back(pathfinder::make_point(p.x, p.y));
    }
    store->put("hd", std::move(mask));
    cache = std::make_unique<pathserver::FieldCache>(cache_bytes);
    pathserver::ServiceLimits limits;
    limits.path_cache_entries = 0;  // every call traces
    service = std::make_unique<pathserver::PathfinderService>(*store, *cache, limits);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service.get());
    server = builder.BuildAndStart();
    pathfinder::ClientOptions options;
    options.deadline = std::chrono::seconds(120);
    client = std::make_unique<pathfinder::Client>("127.0.0.1:" + std::to_string(port), options);
  }
  ~Fixture() {
    server->Shutdown();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
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
