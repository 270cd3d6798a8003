// Distance-field and path benchmarks. Every mask is measured with our field
// and with the seed article's reference fill in the same run, so the ratio
// between them is what to read (the machines are shared and noisy).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "bench_masks.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"
#include "seed_reference.h"

namespace {

using pathcore::Mask;
using pathcore::Point;

constexpr std::uint32_t kWidth = 1920;
constexpr std::uint32_t kHeight = 1080;

struct BenchCase {
  Mask mask;
  Point goal;
  Point start;  // for path benchmarks: far from the goal
};

// The nearest walkable pixel to p in scan order from p (bench masks are dense).
Point walkable_near(const Mask& mask, Point p) {
  for (std::size_t i = mask.index(p); i < mask.pixel_count(); ++i) {
    if (mask.areas()[i] != 0) {
      return {static_cast<std::int32_t>(i % mask.width()),
              static_cast<std::int32_t>(i / mask.width())};
    }
  }
  return p;
}

const BenchCase& bench_case(const std::string& name) {
  static std::map<std::string, BenchCase> cases;
  auto it = cases.find(name);
  if (it != cases.end()) {
    return it->second;
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

void BM_SeedReferenceFill(benchmark::State& state, const std::string& name) {
  const BenchCase& c = bench_case(name);
  for (auto _ : state) {
    auto field = pathbench::seed_reference_field(c.mask, c.goal, pathcore::kAllAreas);
    benchmark::DoNotOptimize(field.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(c.mask.pixel_count()));
}

void BM_DistanceFieldFour(benchmark::State& state, const std::string& name) {
  const BenchCase& c = bench_case(name);
  const pathcore::FieldOptions options{};
  for (auto _ : state) {
    auto field = pathcore::compute_distance_field(c.mask, c.goal, options);
    benchmark::DoNotOptimize(&field);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(c.mask.pixel_count()));
}

// Warm FindPath work: the field is cached, so only trace + simplify + beautify.
void BM_WarmPathBeautify(benchmark::State& state, const std::string& name) {
  const BenchCase& c = bench_case(name);
  const pathcore::FindPathOptions options{};
  const auto field = pathcore::compute_distance_field(c.mask, c.goal, options.field);
  for (auto _ : state) {
    auto result = pathcore::path_from_field(c.mask, field, c.start, options);
    benchmark::DoNotOptimize(result.points.data());
  }
}

}  // namespace

BENCHMARK_CAPTURE(BM_SeedReferenceFill, open, std::string("open"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DistanceFieldFour, open, std::string("open"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SeedReferenceFill, random30, std::string("random30"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DistanceFieldFour, random30, std::string("random30"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SeedReferenceFill, spiral, std::string("spiral"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DistanceFieldFour, spiral, std::string("spiral"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_WarmPathBeautify, random30, std::string("random30"))
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
