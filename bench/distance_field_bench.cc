// Distance-field and path benchmarks. Every mask is measured with our field
// and with the seed article's reference fill in the same run, so the ratio
// between them is what to read (the machines are shared and noisy).
//
// Full-HD masks (open, 30% random obstacles, one-pixel spiral) and the Moving
// AI maps: seed reference fill, our four-connected field, our eight-connected
// octile field; the warm path (field cached: trace + simplify + beautify) of a
// path across the full-HD masks. The bytes_per_px counter is the finished
// field's memory per pixel (what the cache holds).
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "pathcore/clearance.h"
#include "pathcore/codec.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "seed_reference.h"
#include "strict_seed_fill.h"

namespace {

using pathcore::Mask;
using pathcore::Point;
using pathbench::walkable_near;

constexpr std::uint32_t kWidth = 1920;
constexpr std::uint32_t kHeight = 1080;

struct BenchCase {
  Mask mask;
  Point goal;
  Point start;  // for path benchmarks: far from the goal
};

Mask movingai_map(const std::string& relative) {
  const std::filesystem::path path = std::filesystem::path(PATHFINDER_MOVINGAI_DIR) / relative;
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                        std::istreambuf_iterator<char>()};
  pathcore::DecodeOptions options;
  options.format = pathcore::MaskFormat::kMovingAi;
  return pathcore::decode_mask(bytes, options);
}

const BenchCase& bench_case(const std::string& name) {
  static std::map<std::string, BenchCase> cases;
  auto it = cases.find(name);
  if (it != cases.end()) {
    return it->second;
  }
  if (name.ends_with(".map")) {
    Mask mask = movingai_map(name);
    const Point goal = walkable_near(mask, {static_cast<std::int32_t>(mask.width() / 2),
                                            static_cast<std::int32_t>(mask.height() / 2)});
    const Point start = walkable_near(mask, {1, 1});
    return cases.emplace(name, BenchCase{std::move(mask), goal, start}).first->second;
  }
  Mask mask = name == "open"       ? pathbench::open_mask(kWidth, kHeight)
              : name == "random30" ? pathbench::random_obstacle_mask(kWidth, kHeight, 0.30, 42)
                                   : pathbench::spiral_mask(kWidth, kHeight);
  // Spiral: the goal at the corridor's outer end, so the fill runs its whole length.
  const Point goal =
      name == "spiral" ? Point{0, 0} : walkable_near(mask, {kWidth / 2, kHeight / 2});
  const Point start = walkable_near(mask, {2, 2});
  return cases.emplace(name, BenchCase{std::move(mask), goal, start}).first->second;
}

pathcore::FieldOptions field_options(pathcore::Connectivity connectivity) {
  pathcore::FieldOptions options;
  options.connectivity = connectivity;
  return options;
}

void BM_SeedReferenceFill(benchmark::State& state, const std::string& name) {
  const BenchCase& c = bench_case(name);
  for (auto _ : state) {
    auto field = pathbench::seed_reference_field(c.mask, c.goal, pathcore::kAllAreas);
    benchmark::DoNotOptimize(field.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(c.mask.pixel_count()));
}

// Issue 20's baseline: the strict seed fill (strict_seed_fill.h), its buffer
// and lists allocated once before the loop, as the article's program does.
// scripts/wire-ratios divides its median by cold FindPath's over gRPC.
void BM_StrictSeedFill(benchmark::State& state, const std::string& name) {
  const BenchCase& c = bench_case(name);
  pathbench::StrictSeedFill fill(c.mask.width(), c.mask.height());
  for (auto _ : state) {
    const auto& field = fill.run(c.mask, c.goal);
    benchmark::DoNotOptimize(field.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(c.mask.pixel_count()));
  // Pixels the fill reached (the last run's), so a goal in a pocket shows.
  const auto& field = fill.run(c.mask, c.goal);
  state.counters["reached_px"] = static_cast<double>(
      std::count_if(field.begin(), field.end(), [](std::int32_t d) { return d >= 0; }));
}

void field_bench(benchmark::State& state, const std::string& name,
                 pathcore::Connectivity connectivity) {
  const BenchCase& c = bench_case(name);
  const pathcore::FieldOptions options = field_options(connectivity);
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto field = pathcore::compute_distance_field(c.mask, c.goal, options);
    benchmark::DoNotOptimize(&field);
    bytes = field.memory_bytes();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(c.mask.pixel_count()));
  state.counters["bytes_per_px"] =
      static_cast<double>(bytes) / static_cast<double>(c.mask.pixel_count());
}

void BM_DistanceFieldFour(benchmark::State& state, const std::string& name) {
  field_bench(state, name, pathcore::Connectivity::kFour);
}

void BM_DistanceFieldEight(benchmark::State& state, const std::string& name) {
  field_bench(state, name, pathcore::Connectivity::kEight);
}

// Issue 3's two field ratios measured side by side: every iteration runs the
// seed reference, our four-connected field and our eight-connected field on
// the mask one after the other, so a change in the host's speed (these
// machines are shared) falls on all three alike, where the separate cases
// above run seconds apart. Counters: each fill's median thread CPU time over
// the iterations (ms) and the ratios of those medians.
void BM_FillRatios(benchmark::State& state, const std::string& name) {
  const BenchCase& c = bench_case(name);
  const pathcore::FieldOptions four_options = field_options(pathcore::Connectivity::kFour);
  const pathcore::FieldOptions eight_options = field_options(pathcore::Connectivity::kEight);
  std::vector<double> seed_ms;
  std::vector<double> four_ms;
  std::vector<double> eight_ms;
  const auto cpu_ms = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
  };
  for (auto _ : state) {
    const double start = cpu_ms();
    {
      auto field = pathbench::seed_reference_field(c.mask, c.goal, pathcore::kAllAreas);
      benchmark::DoNotOptimize(field.data());
    }
    const double seed_done = cpu_ms();
    {
      auto field = pathcore::compute_distance_field(c.mask, c.goal, four_options);
      benchmark::DoNotOptimize(&field);
    }
    const double four_done = cpu_ms();
    {
      auto field = pathcore::compute_distance_field(c.mask, c.goal, eight_options);
      benchmark::DoNotOptimize(&field);
    }
    const double eight_done = cpu_ms();
    seed_ms.push_back(seed_done - start);
    four_ms.push_back(four_done - seed_done);
    eight_ms.push_back(eight_done - four_done);
  }
  const auto median = [](std::vector<double>& values) {
    std::nth_element(values.begin(),
                     values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
    return values[values.size() / 2];
  };
  const double seed = median(seed_ms);
  const double four = median(four_ms);
  const double eight = median(eight_ms);
  state.counters["seed_ms"] = seed;
  state.counters["four_ms"] = four;
  state.counters["eight_ms"] = eight;
  state.counters["seed_per_four"] = seed / four;    // target: at least 3 on full HD
  state.counters["eight_per_four"] = eight / four;  // target: at most 3
}

// Warm FindPath work: the field is cached, so only trace + simplify + beautify
// of a path from near one corner to the goal (the centre; the spiral's end).
// As in the server, the mask's clearance map (built with the stored mask)
// answers the line-of-sight checks, and smoothing reuses one thread's
// scratch; `clearance` false measures without the map.
void warm_path_bench(benchmark::State& state, const std::string& name,
                     pathcore::Connectivity connectivity, bool clearance = true) {
  const BenchCase& c = bench_case(name);
  pathcore::FindPathOptions options;
  options.field = field_options(connectivity);
  const auto field = pathcore::compute_distance_field(c.mask, c.goal, options.field);
  const pathcore::ClearanceMap map(c.mask, pathcore::kAllAreas);
  pathcore::SmoothingScratch scratch;
  std::size_t points = 0;
  for (auto _ : state) {
    auto result = pathcore::path_from_field(c.mask, field, c.start, options,
                                            clearance ? &map : nullptr, &scratch);
    benchmark::DoNotOptimize(result.points.data());
    points = result.points.size();
  }
  state.counters["grid_cost"] = field.cost_at(c.start);
  state.counters["points"] = static_cast<double>(points);
}

void BM_WarmPathBeautifyFour(benchmark::State& state, const std::string& name) {
  warm_path_bench(state, name, pathcore::Connectivity::kFour);
}

void BM_WarmPathBeautifyEight(benchmark::State& state, const std::string& name) {
  warm_path_bench(state, name, pathcore::Connectivity::kEight);
}

void BM_WarmPathBeautifyFourNoClearance(benchmark::State& state, const std::string& name) {
  warm_path_bench(state, name, pathcore::Connectivity::kFour, false);
}

void BM_WarmPathBeautifyEightNoClearance(benchmark::State& state, const std::string& name) {
  warm_path_bench(state, name, pathcore::Connectivity::kEight, false);
}

// What the clearance map costs to build (once per stored mask revision).
void BM_ClearanceMap(benchmark::State& state, const std::string& name) {
  const BenchCase& c = bench_case(name);
  for (auto _ : state) {
    const pathcore::ClearanceMap map(c.mask, pathcore::kAllAreas);
    benchmark::DoNotOptimize(map.values().data());
  }
}

// Cold FindPath work: fill until the start is settled, then trace and smooth.
void BM_ColdPathBeautifyEight(benchmark::State& state, const std::string& name) {
  const BenchCase& c = bench_case(name);
  pathcore::FindPathOptions options;
  options.field = field_options(pathcore::Connectivity::kEight);
  for (auto _ : state) {
    pathcore::FieldBuilder builder(c.mask, c.goal, options.field);
    (void)builder.run_until_settled(c.start);
    auto result = pathcore::path_from_field(c.mask, builder.field(), c.start, options);
    benchmark::DoNotOptimize(result.points.data());
  }
}

}  // namespace

#define FULL_HD_FIELDS(mask)                                            \
  BENCHMARK_CAPTURE(BM_SeedReferenceFill, mask, std::string(#mask))     \
      ->Unit(benchmark::kMillisecond);                                  \
  BENCHMARK_CAPTURE(BM_StrictSeedFill, mask, std::string(#mask))        \
      ->Unit(benchmark::kMillisecond);                                  \
  BENCHMARK_CAPTURE(BM_DistanceFieldFour, mask, std::string(#mask))     \
      ->Unit(benchmark::kMillisecond);                                  \
  BENCHMARK_CAPTURE(BM_DistanceFieldEight, mask, std::string(#mask))    \
      ->Unit(benchmark::kMillisecond);                                  \
  BENCHMARK_CAPTURE(BM_WarmPathBeautifyFour, mask, std::string(#mask))  \
      ->Unit(benchmark::kMicrosecond);                                  \
  BENCHMARK_CAPTURE(BM_WarmPathBeautifyEight, mask, std::string(#mask)) \
      ->Unit(benchmark::kMicrosecond);                                  \
  BENCHMARK_CAPTURE(BM_ColdPathBeautifyEight, mask, std::string(#mask)) \
      ->Unit(benchmark::kMillisecond);

FULL_HD_FIELDS(open)
FULL_HD_FIELDS(random30)
FULL_HD_FIELDS(spiral)

#define FILL_RATIOS(label, mask) \
  BENCHMARK_CAPTURE(BM_FillRatios, label, std::string(mask))->Unit(benchmark::kMillisecond);

FILL_RATIOS(open, "open")
FILL_RATIOS(random30, "random30")
FILL_RATIOS(spiral, "spiral")
FILL_RATIOS(arena, "dao/arena.map")
FILL_RATIOS(brc202d, "dao/brc202d.map")
FILL_RATIOS(den312d, "dao/den312d.map")
FILL_RATIOS(hrt201n, "dao/hrt201n.map")
FILL_RATIOS(AR0011SR, "bg512/AR0011SR.map")
FILL_RATIOS(AR0205SR, "bg512/AR0205SR.map")
FILL_RATIOS(maze512, "maze/maze512-1-0.map")
FILL_RATIOS(random512, "random/random512-25-0.map")
FILL_RATIOS(room32, "room/32room_000.map")
FILL_RATIOS(berlin256, "street/Berlin_0_256.map")

// The warm path without the clearance map, and the map's own cost.
#define FULL_HD_CLEARANCE(mask)                                                    \
  BENCHMARK_CAPTURE(BM_WarmPathBeautifyFourNoClearance, mask, std::string(#mask))  \
      ->Unit(benchmark::kMicrosecond);                                             \
  BENCHMARK_CAPTURE(BM_WarmPathBeautifyEightNoClearance, mask, std::string(#mask)) \
      ->Unit(benchmark::kMicrosecond);                                             \
  BENCHMARK_CAPTURE(BM_ClearanceMap, mask, std::string(#mask))->Unit(benchmark::kMillisecond);

FULL_HD_CLEARANCE(open)
FULL_HD_CLEARANCE(random30)
FULL_HD_CLEARANCE(spiral)

#define MOVINGAI_FIELDS(label, file)                                    \
  BENCHMARK_CAPTURE(BM_SeedReferenceFill, label, std::string(file))     \
      ->Unit(benchmark::kMicrosecond);                                  \
  BENCHMARK_CAPTURE(BM_DistanceFieldFour, label, std::string(file))     \
      ->Unit(benchmark::kMicrosecond);                                  \
  BENCHMARK_CAPTURE(BM_DistanceFieldEight, label, std::string(file))    \
      ->Unit(benchmark::kMicrosecond);                                  \
  BENCHMARK_CAPTURE(BM_ColdPathBeautifyEight, label, std::string(file)) \
      ->Unit(benchmark::kMicrosecond);

MOVINGAI_FIELDS(arena, "dao/arena.map")
MOVINGAI_FIELDS(brc202d, "dao/brc202d.map")
MOVINGAI_FIELDS(den312d, "dao/den312d.map")
MOVINGAI_FIELDS(hrt201n, "dao/hrt201n.map")
MOVINGAI_FIELDS(AR0011SR, "bg512/AR0011SR.map")
MOVINGAI_FIELDS(AR0205SR, "bg512/AR0205SR.map")
MOVINGAI_FIELDS(maze512, "maze/maze512-1-0.map")
MOVINGAI_FIELDS(random512, "random/random512-25-0.map")
MOVINGAI_FIELDS(room32, "room/32room_000.map")
MOVINGAI_FIELDS(berlin256, "street/Berlin_0_256.map")

// Warm paths on game maps (start near a corner, goal near the centre).
#define MOVINGAI_WARM_PATHS(label, file)                                           \
  BENCHMARK_CAPTURE(BM_WarmPathBeautifyEight, label, std::string(file))            \
      ->Unit(benchmark::kMicrosecond);                                             \
  BENCHMARK_CAPTURE(BM_WarmPathBeautifyEightNoClearance, label, std::string(file)) \
      ->Unit(benchmark::kMicrosecond);

MOVINGAI_WARM_PATHS(brc202d, "dao/brc202d.map")
MOVINGAI_WARM_PATHS(hrt201n, "dao/hrt201n.map")
MOVINGAI_WARM_PATHS(AR0011SR, "bg512/AR0011SR.map")
MOVINGAI_WARM_PATHS(random512, "random/random512-25-0.map")
MOVINGAI_WARM_PATHS(room32, "room/32room_000.map")
MOVINGAI_WARM_PATHS(berlin256, "street/Berlin_0_256.map")

BENCHMARK_MAIN();
