// LineOfSight and NearestWalkable batches of 10,000 queries on a full-HD mask
// (30 % random obstacles), warm (transforms and labels cached), against the
// no-op health check and a warm Reachable of 10,000 pairs on the same
// in-process server. Read the ratios within one run (bench/README.md).
#include <benchmark/benchmark.h>

#include <algorithm>
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
  static pathbench::ServedMask f("line-queries-bench", "hd",
                                 pathbench::random_obstacle_mask(1920, 1080, 0.30, 42));
  return f;
}

// A deterministic stream of coordinates on the full-HD mask.
struct Coordinates {
  std::uint64_t seed = 1;
  pathfinding::v1::Point next() {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return pathfinder::make_point(static_cast<std::int32_t>((seed >> 33) % 1920),
                                  static_cast<std::int32_t>((seed >> 13) % 1080));
  }
};

constexpr int kQueries = 10000;

void BM_NoOpHealthCheck(benchmark::State& state) {
  auto& f = fixture();
  for (auto _ : state) {
    if (!f.client().health_check().ok()) state.SkipWithError("health check failed");
  }
}

void BM_WarmReachable(benchmark::State& state) {
  auto& f = fixture();
  pb::ReachableRequest request;
  request.set_mask("hd");
  Coordinates coordinates;
  for (int i = 0; i < kQueries; ++i) {
    auto* pair = request.add_pairs();
    *pair->mutable_a() = coordinates.next();
    *pair->mutable_b() = coordinates.next();
  }
  if (!f.client().reachable(request).ok()) state.SkipWithError("reachable failed");
  for (auto _ : state) {
    if (!f.client().reachable(request).ok()) state.SkipWithError("reachable failed");
  }
  state.SetItemsProcessed(state.iterations() * kQueries);
}

// range(0): the longest side of a segment in pixels (b within it of a);
// range(1): 1 for corner cutting (Bresenham pixels).
void BM_WarmLineOfSight(benchmark::State& state) {
  auto& f = fixture();
  pb::LineOfSightRequest request;
  request.set_mask("hd");
  request.set_allow_corner_cutting(state.range(1) != 0);
  const auto reach = static_cast<std::int32_t>(state.range(0));
  Coordinates coordinates;
  for (int i = 0; i < kQueries; ++i) {
    auto* pair = request.add_pairs();
    *pair->mutable_a() = coordinates.next();
    const pb::Point offset = coordinates.next();
    pair->mutable_b()->set_x(std::clamp(pair->a().x() + offset.x() % (2 * reach + 1) - reach, 0, 1919));
    pair->mutable_b()->set_y(std::clamp(pair->a().y() + offset.y() % (2 * reach + 1) - reach, 0, 1079));
  }
  if (!f.client().line_of_sight(request).ok()) state.SkipWithError("line of sight failed");
  for (auto _ : state) {
    if (!f.client().line_of_sight(request).ok()) state.SkipWithError("line of sight failed");
  }
  state.SetItemsProcessed(state.iterations() * kQueries);
}

// range(0): 1 with reachable_from (one component of the labelling).
void BM_WarmNearestWalkable(benchmark::State& state) {
  auto& f = fixture();
  pb::NearestWalkableRequest request;
  request.set_mask("hd");
  Coordinates coordinates;
  for (int i = 0; i < kQueries; ++i) *request.add_points() = coordinates.next();
  if (state.range(0) != 0) *request.mutable_reachable_from() = pathfinder::make_point(960, 540);
  // The first call builds the transform (and labels): cold, not measured.
  if (!f.client().nearest_walkable(request).ok()) state.SkipWithError("nearest failed");
  for (auto _ : state) {
    if (!f.client().nearest_walkable(request).ok()) state.SkipWithError("nearest failed");
  }
  state.SetItemsProcessed(state.iterations() * kQueries);
}

}  // namespace

BENCHMARK(BM_NoOpHealthCheck)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_WarmReachable)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_WarmLineOfSight)
    ->Args({16, 0})
    ->Args({16, 1})
    ->Args({256, 0})
    ->Args({2000, 0})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_WarmNearestWalkable)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
