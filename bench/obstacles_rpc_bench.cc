// Temporary obstacles over the wire on an in-process server, the product
// owner's workload: a full-HD mask with 20 % random obstacles, one long path
// (corner to corner), and 10 unit-sized obstacles (circles of radius 4)
// placed along that path's route. FindPath with the obstacles against the
// same FindPath without them, side by side, twice: on a server whose cache holds the
// goal's obstacle-free field (warm) and on one that caches nothing (cold:
// every plain call fills). Path answers are not cached (path_cache_entries
// = 0): every plain call traces. Four- and eight-connected, beautified.
// Read the ratios within one run (bench/README.md).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "bench_server.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"

namespace {

namespace pb = pathfinding::v1;

constexpr std::uint32_t kWidth = 1920;
constexpr std::uint32_t kHeight = 1080;
constexpr int kObstacles = 10;
constexpr double kUnitRadius = 4;

// One in-process server over the store, with its own cache.
std::unique_ptr<pathbench::BenchServer> start_server(pathserver::MaskStore& store,
                                                     std::size_t cache_bytes) {
  pathbench::BenchServerOptions options;
  options.cache_bytes = cache_bytes;
  options.limits.path_cache_entries = 0;  // every call traces
  return std::make_unique<pathbench::BenchServer>(store, options);
}

struct Fixture {
  pathbench::BenchStore files{"obstacles-bench"};
  pathserver::MaskStore* store = &files.store();
  std::unique_ptr<pathbench::BenchServer> warm;  // caches the goal's field
  std::unique_ptr<pathbench::BenchServer> cold;  // caches nothing
  pb::Point start;
  pb::Point goal;
  // Per connectivity (0 four, 1 eight): circles along that request's plain path.
  std::vector<pb::Obstacle> obstacles[2];

  Fixture() {
    const pathcore::Mask mask = pathbench::random_obstacle_mask(kWidth, kHeight, 0.20, 42);
    store->put("random20", mask);
    warm = start_server(*store, std::size_t{1} << 30);
    cold = start_server(*store, 0);
    const pathcore::Point s = pathbench::walkable_near(mask, {40, 40});
    const pathcore::Point g = pathbench::walkable_near(mask, {kWidth - 40, kHeight - 40});
    start = pathfinder::make_point(s.x, s.y);
    goal = pathfinder::make_point(g.x, g.y);
    for (int eight = 0; eight < 2; ++eight) {
      pb::FindPathRequest request = plain(eight != 0);
      request.set_smoothing(pb::SMOOTHING_NONE);
      const auto route = warm->client().find_path(request);
      if (!route.ok() || !route.value.found()) throw std::runtime_error("no route for the bench");
      const int n = route.value.points_size();
      for (int i = 1; i <= kObstacles; ++i) {
        // Evenly along the route, none on its ends.
        const pb::Point& p = route.value.points(n * i / (kObstacles + 1));
        obstacles[eight].push_back(
            pathfinder::make_circle_obstacle(p.x() + 0.5, p.y() + 0.5, kUnitRadius));
      }
    }
  }
  ~Fixture() {  // the servers stop before the store goes
    warm.reset();
    cold.reset();
  }

  pb::FindPathRequest plain(bool eight) const {
    pb::FindPathRequest request;
    request.set_mask("random20");
    *request.mutable_start() = start;
    *request.mutable_goal() = goal;
    request.set_connectivity(eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
    return request;
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

// range(0): 0 four-connected, 1 eight; range(1): 0 the warm server (the
// goal's obstacle-free field cached, filled by a first unmeasured call), 1
// the cold one. Each iteration asks the same FindPath twice, side by side
// (the host's noise falls on both alike): without obstacles, then with the
// ten. Counters: each call's mean time and their ratio.
void BM_FindPathObstacles(benchmark::State& state) {
  auto& f = fixture();
  const bool eight = state.range(0) != 0;
  pathfinder::Client& client = state.range(1) == 0 ? f.warm->client() : f.cold->client();
  const pb::FindPathRequest plain = f.plain(eight);
  pb::FindPathRequest blocked = plain;
  for (const pb::Obstacle& o : f.obstacles[eight ? 1 : 0]) *blocked.add_obstacles() = o;
  if (!client.find_path(plain).ok()) state.SkipWithError("warming failed");
  using Clock = std::chrono::steady_clock;
  Clock::duration plain_time{};
  Clock::duration blocked_time{};
  double plain_length = 0;
  double blocked_length = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const auto a = client.find_path(plain);
    const auto t1 = Clock::now();
    const auto b = client.find_path(blocked);
    const auto t2 = Clock::now();
    if (!a.ok() || !b.ok() || !a.value.found() || !b.value.found()) {
      state.SkipWithError("find path failed");
      break;
    }
    plain_time += t1 - t0;
    blocked_time += t2 - t1;
    plain_length = a.value.length();
    blocked_length = b.value.length();
  }
  const double n = static_cast<double>(state.iterations());
  const auto ms = [n](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count() / n;
  };
  state.counters["plain_ms"] = ms(plain_time);
  state.counters["obstacles_ms"] = ms(blocked_time);
  state.counters["ratio"] = ms(blocked_time) / ms(plain_time);
  state.counters["plain_length"] = plain_length;
  state.counters["obstacles_length"] = blocked_length;
}

BENCHMARK(BM_FindPathObstacles)
    ->ArgNames({"eight", "cold"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
