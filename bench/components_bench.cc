// Component labelling (Reachable) against the four-connected distance field
// on the same full-HD masks, in one run: read the ratio, not the absolutes.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <string>

#include "bench_masks.h"
#include "pathcore/components.h"
#include "pathcore/distance_field.h"

namespace {

using pathcore::Mask;
using pathcore::Point;

const Mask& hd_mask(const std::string& name) {
  static std::map<std::string, Mask> masks;
  auto it = masks.find(name);
  if (it == masks.end()) {
    Mask mask = name == "open"       ? pathbench::open_mask(1920, 1080)
                : name == "random30" ? pathbench::random_obstacle_mask(1920, 1080, 0.30, 42)
                                     : pathbench::spiral_mask(1920, 1080);
    it = masks.emplace(name, std::move(mask)).first;
  }
  return it->second;
}

Point first_walkable(const Mask& mask, std::size_t from) {
  for (std::size_t i = from; i < mask.pixel_count(); ++i) {
    if (mask.areas()[i] != 0) {
      return {static_cast<std::int32_t>(i % mask.width()),
              static_cast<std::int32_t>(i / mask.width())};
    }
  }
  return {0, 0};
}

void BM_LabelComponentsFour(benchmark::State& state, const std::string& name) {
  const Mask& mask = hd_mask(name);
  const pathcore::ComponentOptions options{};
  for (auto _ : state) {
    auto components = pathcore::label_components(mask, options);
    benchmark::DoNotOptimize(components.labels().data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(mask.pixel_count()));
}

void BM_LabelComponentsEightCornerCutting(benchmark::State& state, const std::string& name) {
  const Mask& mask = hd_mask(name);
  pathcore::ComponentOptions options{};
  options.connectivity = pathcore::Connectivity::kEight;
  options.allow_corner_cutting = true;
  for (auto _ : state) {
    auto components = pathcore::label_components(mask, options);
    benchmark::DoNotOptimize(components.labels().data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(mask.pixel_count()));
}

// The baseline: a cold four-connected field from the middle of the mask.
void BM_FieldFourBaseline(benchmark::State& state, const std::string& name) {
  const Mask& mask = hd_mask(name);
  const Point goal =
      name == "spiral" ? Point{0, 0} : first_walkable(mask, mask.pixel_count() / 2 + 960);
  const pathcore::FieldOptions options{};
  for (auto _ : state) {
    auto field = pathcore::compute_distance_field(mask, goal, options);
    benchmark::DoNotOptimize(&field);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(mask.pixel_count()));
}

// A warm Reachable request's core work: 10,000 pairs, two lookups each.
void BM_ConnectedPairs(benchmark::State& state) {
  const Mask& mask = hd_mask("random30");
  const auto components = pathcore::label_components(mask, {});
  std::vector<std::pair<Point, Point>> pairs;
  std::uint64_t seed = 1;
  for (int i = 0; i < 10000; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    pairs.push_back({{static_cast<std::int32_t>((seed >> 33) % 1920),
                      static_cast<std::int32_t>((seed >> 13) % 1080)},
                     {static_cast<std::int32_t>((seed >> 40) % 1920),
                      static_cast<std::int32_t>((seed >> 20) % 1080)}});
  }
  for (auto _ : state) {
    std::size_t reachable = 0;
    for (const auto& [a, b] : pairs) reachable += components.connected(a, b) ? 1 : 0;
    benchmark::DoNotOptimize(reachable);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(pairs.size()));
}

}  // namespace

BENCHMARK_CAPTURE(BM_FieldFourBaseline, open, std::string("open"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LabelComponentsFour, open, std::string("open"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FieldFourBaseline, random30, std::string("random30"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LabelComponentsFour, random30, std::string("random30"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LabelComponentsEightCornerCutting, random30, std::string("random30"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FieldFourBaseline, spiral, std::string("spiral"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LabelComponentsFour, spiral, std::string("spiral"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConnectedPairs)->Unit(benchmark::kMicrosecond);
