// Movement ranges and budgeted paths cost what the budget covers, not the
// mask, over the wire on an in-process server. GetRange with one budget
// (60, costs included) from the centre of a 512x512 and of a 2048x2048
// mask with 20 % random obstacles: the same work, so about the same time.
// FindPath toward a far goal on the 2048x2048 mask with max_cost 40 (a
// unit's turn: BUDGET_REACHED, the path to the pixel within 40 nearest to
// the goal) against the same FindPath without it, cold (a field cache too
// small to keep a field: every call fills). In process, compute_range on
// both masks. The compute pool runs at normal priority here. Read the
// ratios within one run (bench/README.md).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "bench_server.h"
#include "pathcore/movement_range.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"

namespace {

namespace pb = pathfinding::v1;

constexpr double kRangeBudget = 60;
constexpr double kTurnBudget = 40;

// The walkable pixel nearest (in scan order from p) to p.
pb::Point walkable_near(const pathcore::Mask& mask, std::int32_t x, std::int32_t y) {
  std::size_t at = mask.index({x, y});
  while (mask.areas()[at] == 0) ++at;
  return pathfinder::make_point(static_cast<std::int32_t>(at % mask.width()),
                                static_cast<std::int32_t>(at / mask.width()));
}

// One server for the whole run (started on first use, never stopped).
struct Fixture {
  pathbench::BenchStore files{"range-bench"};
  pathserver::MaskStore* store = &files.store();
  std::unique_ptr<pathbench::BenchServer> server;
  pathfinder::Client* client = nullptr;
  pathcore::Mask small = pathbench::random_obstacle_mask(512, 512, 0.20, 5);
  pathcore::Mask large = pathbench::random_obstacle_mask(2048, 2048, 0.20, 5);

  Fixture() {
    store->put("small", small);
    store->put("large", large);
    pathbench::BenchServerOptions options;
    options.cache_bytes = std::size_t{1} << 20;  // keeps no field
    options.limits.path_cache_entries = 0;       // every call traces
    // The pool at the callers' priority: on a shared, busy machine a niced
    // pool thread waits for the CPU longer than it works, which hides the ratios.
    options.limits.compute_niceness = 0;
    server = std::make_unique<pathbench::BenchServer>(*store, options);
    client = &server->client();
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

// range(0): the mask's side (512 or 2048).
void BM_GetRange(benchmark::State& state) {
  auto& f = fixture();
  const bool large = state.range(0) == 2048;
  const pathcore::Mask& mask = large ? f.large : f.small;
  pb::GetRangeRequest request;
  request.set_mask(large ? "large" : "small");
  const auto centre = static_cast<std::int32_t>(mask.width() / 2);
  *request.mutable_start() = walkable_near(mask, centre, centre);
  request.set_max_cost(kRangeBudget);
  request.set_include_costs(true);
  std::uint64_t pixels = 0;
  for (auto _ : state) {
    const auto range = f.client->get_range(request);
    if (!range.ok()) state.SkipWithError("GetRange failed");
    pixels = range.value.pixel_count;
  }
  state.counters["pixels_in_range"] = static_cast<double>(pixels);
}
BENCHMARK(BM_GetRange)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond)->UseRealTime();

// range(0): 0 FindPath cold (a fill of the goal's field each call), 1 the
// same with max_cost 40.
void BM_FarGoalOn2048(benchmark::State& state) {
  auto& f = fixture();
  pb::FindPathRequest request;
  request.set_mask("large");
  *request.mutable_start() = walkable_near(f.large, 100, 100);
  *request.mutable_goal() = walkable_near(f.large, 1900, 1900);
  if (state.range(0) == 1) request.set_max_cost(kTurnBudget);
  for (auto _ : state) {
    const auto path = f.client->find_path(request);
    if (!path.ok()) state.SkipWithError("FindPath failed");
    if (state.range(0) == 1 && path.value.reason() != pb::PATH_REASON_BUDGET_REACHED) {
      state.SkipWithError("expected the budget to be reached");
    }
  }
}
BENCHMARK(BM_FarGoalOn2048)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

// In process: compute_range with the same budget; range(0): the mask's side.
void BM_ComputeRange(benchmark::State& state) {
  auto& f = fixture();
  const bool large = state.range(0) == 2048;
  const pathcore::Mask& mask = large ? f.large : f.small;
  const auto centre = static_cast<std::int32_t>(mask.width() / 2);
  const pb::Point start = walkable_near(mask, centre, centre);
  for (auto _ : state) {
    const pathcore::MovementRange range =
        pathcore::compute_range(mask, {start.x(), start.y()}, kRangeBudget, {});
    benchmark::DoNotOptimize(range.pixel_count());
  }
}
BENCHMARK(BM_ComputeRange)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond);

}  // namespace
