// Snapping at the cost of a lookup, over the wire on an in-process server:
// on a 3000x3000 mask, 100 FindPath calls from blocked starts with
// snap_to_reachable against 100 from walkable starts (the blocked starts'
// own nearest walkable pixels, so the paths are the same), once the
// snapping tables and the goal's field are cached; and one BatchFindPaths
// of 10,000 random starts (blocked ones included) with snapping against
// without. FindPath answers are not cached (path_cache_entries = 0): every
// call traces. And, in process, one start snapped by the scan against by the
// lookups, and the tables' build. Read the ratios within one run
// (bench/README.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "bench_server.h"
#include "pathcore/components.h"
#include "pathcore/nearest_pixels.h"
#include "pathcore/path.h"
#include "pathcore/snap_lookup.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"

namespace {

namespace pb = pathfinding::v1;

constexpr std::uint32_t kSide = 3000;
constexpr int kSingleCalls = 100;
constexpr int kBatchStarts = 10000;
constexpr int kMaxMessageBytes = 256 << 20;

// A deterministic stream of numbers.
struct Random {
  std::uint64_t seed;
  std::uint32_t next(std::uint32_t bound) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>((seed >> 33) % bound);
  }
};

// Open ground with about 30 % covered by random rectangles of 8 to 80
// pixels a side (buildings on a map): a blocked start lies inside one.
pathcore::Mask blocks_mask() {
  std::vector<std::uint8_t> areas(std::size_t{kSide} * kSide, 1);
  Random random{7};
  std::size_t blocked = 0;
  while (blocked < areas.size() * 3 / 10) {
    const std::uint32_t w = 8 + random.next(73);
    const std::uint32_t h = 8 + random.next(73);
    const std::uint32_t x0 = random.next(kSide - w);
    const std::uint32_t y0 = random.next(kSide - h);
    for (std::uint32_t y = y0; y < y0 + h; ++y) {
      for (std::uint32_t x = x0; x < x0 + w; ++x) {
        std::uint8_t& pixel = areas[std::size_t{y} * kSide + x];
        blocked += pixel;
        pixel = 0;
      }
    }
  }
  return pathcore::Mask(kSide, kSide, std::move(areas));
}

// What the cases ask of one mask: a goal in its largest component, blocked
// starts and their nearest walkable pixels, random starts for the batch.
struct Scenario {
  std::string name;
  pb::Point goal;
  std::vector<pb::Point> blocked_starts;
  std::vector<pb::Point> walkable_starts;  // blocked_starts[i]'s nearest walkable pixel
  std::vector<pb::Point> batch_starts;
  std::vector<pb::Point> batch_walkable_starts;  // batch_starts[i]'s nearest walkable pixel
};

Scenario scenario_for(const std::string& name, const pathcore::Mask& mask) {
  Scenario s;
  s.name = name;
  const pathcore::Components labels = pathcore::label_components(mask, {});
  std::vector<std::uint64_t> sizes(labels.count() + 1, 0);
  for (const auto label : labels.labels()) ++sizes[label];
  sizes[0] = 0;
  const auto largest = static_cast<pathcore::Components::Label>(
      std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
  // The first pixel of the largest component from the centre on, in scan order.
  std::size_t at = std::size_t{kSide} * (kSide / 2) + kSide / 2;
  while (labels.labels()[at] != largest) at = (at + 1) % labels.labels().size();
  s.goal = pathfinder::make_point(static_cast<std::int32_t>(at % kSide),
                                  static_cast<std::int32_t>(at / kSide));
  std::vector<std::uint8_t> targets(mask.pixel_count());
  for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = mask.areas()[i] != 0 ? 1 : 0;
  const pathcore::NearestPixels nearest(kSide, kSide, std::move(targets));
  Random random{99};
  while (s.blocked_starts.size() < kSingleCalls) {
    const pathcore::Point p{static_cast<std::int32_t>(random.next(kSide)),
                            static_cast<std::int32_t>(random.next(kSide))};
    if (mask.walkable(p, pathcore::kAllAreas)) continue;
    const pathcore::Point q = *nearest.nearest(p);
    s.blocked_starts.push_back(pathfinder::make_point(p.x, p.y));
    s.walkable_starts.push_back(pathfinder::make_point(q.x, q.y));
  }
  for (int i = 0; i < kBatchStarts; ++i) {
    const pathcore::Point p{static_cast<std::int32_t>(random.next(kSide)),
                            static_cast<std::int32_t>(random.next(kSide))};
    const pathcore::Point q = *nearest.nearest(p);
    s.batch_starts.push_back(pathfinder::make_point(p.x, p.y));
    s.batch_walkable_starts.push_back(pathfinder::make_point(q.x, q.y));
  }
  return s;
}

// One server for the whole run (started on first use, never stopped).
struct Fixture {
  pathbench::BenchStore files{"snapping-bench"};
  pathserver::MaskStore* store = &files.store();
  std::unique_ptr<pathbench::BenchServer> server;
  pathfinder::Client* client = nullptr;
  std::vector<Scenario> scenarios;

  Fixture() {
    const pathcore::Mask blocks = blocks_mask();
    const pathcore::Mask random30 = pathbench::random_obstacle_mask(kSide, kSide, 0.30, 42);
    scenarios.push_back(scenario_for("blocks", blocks));
    scenarios.push_back(scenario_for("random30", random30));
    store->put("blocks", blocks);
    store->put("random30", random30);
    pathbench::BenchServerOptions options;
    options.cache_bytes = std::size_t{1} << 30;
    options.limits.path_cache_entries = 0;  // every call traces
    options.limits.max_batch_starts = kBatchStarts;
    options.limits.max_message_bytes = kMaxMessageBytes;  // 10,000 paths across random30
    options.max_message_bytes = kMaxMessageBytes;
    server = std::make_unique<pathbench::BenchServer>(*store, options);
    client = &server->client();
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

// range(0): the mask (0 blocks, 1 random30); range(1): 0 walkable starts
// without snapping, 1 the same with snapping, 2 blocked starts with
// snapping. The first round (the goal's field, the snapping tables, the
// snapped goals' fields) is not measured.
void BM_HundredFindPaths(benchmark::State& state) {
  auto& f = fixture();
  const Scenario& s = f.scenarios[static_cast<std::size_t>(state.range(0))];
  const auto kind = state.range(1);
  const std::vector<pb::Point>& starts = kind == 2 ? s.blocked_starts : s.walkable_starts;
  pb::FindPathRequest request;
  request.set_mask(s.name);
  *request.mutable_goal() = s.goal;
  request.set_snap_to_reachable(kind != 0);
  const auto round = [&] {
    for (const pb::Point& start : starts) {
      *request.mutable_start() = start;
      if (!f.client->find_path(request).ok()) state.SkipWithError("find path failed");
    }
  };
  round();
  for (auto _ : state) round();
  state.SetItemsProcessed(state.iterations() * kSingleCalls);
}

// range(0): the mask; range(1): 0 without snapping, 1 with it, 2 without
// it from the starts' nearest walkable pixels (the snapped batch's paths).
void BM_BatchOfTenThousand(benchmark::State& state) {
  auto& f = fixture();
  const Scenario& s = f.scenarios[static_cast<std::size_t>(state.range(0))];
  pb::BatchFindPathsRequest request;
  request.set_mask(s.name);
  *request.mutable_goal() = s.goal;
  request.set_snap_to_reachable(state.range(1) == 1);
  for (const pb::Point& start : state.range(1) == 2 ? s.batch_walkable_starts : s.batch_starts) {
    *request.add_starts() = start;
  }
  if (!f.client->batch_find_paths(request).ok()) state.SkipWithError("batch failed");
  for (auto _ : state) {
    if (!f.client->batch_find_paths(request).ok()) state.SkipWithError("batch failed");
  }
  state.SetItemsProcessed(state.iterations() * kBatchStarts);
}

// In process, no server: snapping one blocked start (and the goal) as the
// scan does it (pathcore::snap_endpoints on the mask, what every snapped
// call cost before the lookups) and by lookups in the tables, built once
// outside the timing. range(0): the mask; range(1): 0 scan, 1 lookups.
void BM_SnapOneStart(benchmark::State& state) {
  auto& f = fixture();
  const Scenario& s = f.scenarios[static_cast<std::size_t>(state.range(0))];
  const pathcore::Mask& mask = *f.store->get(s.name)->mask;
  const pathcore::Point goal{s.goal.x(), s.goal.y()};
  std::vector<std::uint8_t> targets(mask.pixel_count());
  for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = mask.areas()[i] != 0 ? 1 : 0;
  const pathcore::NearestPixels walkable(kSide, kSide, std::move(targets));
  const pathcore::Components labels = pathcore::label_components(mask, {});
  std::size_t next = 0;
  for (auto _ : state) {
    const pb::Point& start = s.blocked_starts[next++ % s.blocked_starts.size()];
    const pathcore::Point p{start.x(), start.y()};
    benchmark::DoNotOptimize(state.range(1) == 0
                                 ? pathcore::snap_endpoints(mask, {}, p, goal, std::nullopt)
                                 : pathcore::snap_endpoints(walkable, labels, p, goal));
  }
}

// In process: building the two tables snapping looks up (what the first
// snapping call on a mask revision pays once, on the compute pool).
// range(0): the mask.
void BM_BuildSnappingTables(benchmark::State& state) {
  auto& f = fixture();
  const pathcore::Mask& mask =
      *f.store->get(f.scenarios[static_cast<std::size_t>(state.range(0))].name)->mask;
  for (auto _ : state) {
    std::vector<std::uint8_t> targets(mask.pixel_count());
    for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = mask.areas()[i] != 0 ? 1 : 0;
    const pathcore::NearestPixels walkable(kSide, kSide, std::move(targets));
    const pathcore::Components labels = pathcore::label_components(mask, {});
    benchmark::DoNotOptimize(walkable.empty());
    benchmark::DoNotOptimize(labels.count());
  }
}

}  // namespace

BENCHMARK(BM_BuildSnappingTables)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SnapOneStart)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_HundredFindPaths)
    ->ArgsProduct({{0, 1}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BatchOfTenThousand)
    ->ArgsProduct({{0, 1}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
