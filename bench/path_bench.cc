// Issue 20's path work, from a prebuilt field (the cached or just-settled
// field a FindPath traces on), so only the trace and the smoothing are timed:
//
// - the full-HD one-pixel spiral, four-connected, from the corridor's inner
//   end to its outer end (0,0) (as wire_ratio_masks.cc picks them): a path
//   of about 1,000,000 steps. Trace alone (SMOOTHING_NONE), trace + simplify
//   (SMOOTHING_SIMPLIFY) and beautify of the simplified path;
// - fresh paths on a 512x512 mask with 20% random obstacles: a field to one
//   goal, 256 random reachable starts, the default request
//   (four-connected, SMOOTHING_BEAUTIFY), with the mask's clearance map and a
//   reused scratch as the server passes them, 256 paths per iteration.
//
// Issue 21's costs: the README's demo request (assets/demo.png, (20,20) to
// (600,340), four-connected, beautify) with unit costs and with area 1
// four times dearer than the road; and beeline answers (eight-connected, no
// corner cutting, unit costs) on an open 512x512 mask, which now also carry
// the grid cost.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "pathcore/clearance.h"
#include "pathcore/codec.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"

namespace {

using pathcore::Mask;
using pathcore::Point;

struct SpiralCase {
  Mask mask = pathbench::spiral_mask(1920, 1080);
  Point goal{0, 0};
  pathcore::DistanceField field =
      pathcore::compute_distance_field(mask, goal, pathcore::FieldOptions{});
  Point start = farthest();

  // The reachable pixel farthest from the goal: the corridor's inner end.
  [[nodiscard]] Point farthest() const {
    Point best = goal;
    for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
      for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
        if (field.reachable({x, y}) && field.at({x, y}) > field.at(best)) {
          best = {x, y};
        }
      }
    }
    return best;
  }
};

const SpiralCase& spiral() {
  static const SpiralCase c;
  return c;
}

void spiral_path_bench(benchmark::State& state, pathcore::Smoothing smoothing) {
  const SpiralCase& c = spiral();
  pathcore::FindPathOptions options;
  options.smoothing = smoothing;
  std::size_t points = 0;
  for (auto _ : state) {
    auto result = pathcore::path_from_field(c.mask, c.field, c.start, options);
    benchmark::DoNotOptimize(result.points.data());
    points = result.points.size();
  }
  state.counters["steps"] = static_cast<double>(c.field.at(c.start));
  state.counters["points"] = static_cast<double>(points);
}

void BM_SpiralTrace(benchmark::State& state) {
  spiral_path_bench(state, pathcore::Smoothing::kNone);
}
void BM_SpiralTraceSimplify(benchmark::State& state) {
  spiral_path_bench(state, pathcore::Smoothing::kSimplify);
}

// Beautify alone, of the simplified spiral path (what kBeautify adds).
void BM_SpiralBeautify(benchmark::State& state) {
  const SpiralCase& c = spiral();
  pathcore::FindPathOptions options;
  options.smoothing = pathcore::Smoothing::kSimplify;
  const pathcore::Path simplified =
      pathcore::path_from_field(c.mask, c.field, c.start, options).points;
  const pathcore::ClearanceMap map(c.mask, pathcore::kAllAreas);
  pathcore::SmoothingScratch scratch;
  std::size_t points = 0;
  for (auto _ : state) {
    auto smoothed = pathcore::beautify(simplified, c.mask, pathcore::kAllAreas,
                                       pathcore::LineRule::kNoCornerCutting,
                                       pathcore::unit_area_costs(), &map, &scratch);
    benchmark::DoNotOptimize(smoothed.data());
    points = smoothed.size();
  }
  state.counters["points_in"] = static_cast<double>(simplified.size());
  state.counters["points"] = static_cast<double>(points);
}

struct FreshCase {
  Mask mask = pathbench::random_obstacle_mask(512, 512, 0.20, 7);
  Point goal = pathbench::walkable_near(mask, {256, 256});
  pathcore::DistanceField field =
      pathcore::compute_distance_field(mask, goal, pathcore::FieldOptions{});
  pathcore::ClearanceMap clearance{mask, pathcore::kAllAreas};
  std::vector<Point> starts = random_starts(256);

  [[nodiscard]] std::vector<Point> random_starts(std::size_t count) const {
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<std::int32_t> coordinate(0, 511);
    std::vector<Point> found;
    while (found.size() < count) {
      const Point p{coordinate(rng), coordinate(rng)};
      if (field.reachable(p) && p != goal) {
        found.push_back(p);
      }
    }
    return found;
  }
};

// Fresh paths, default options (four-connected, beautify): each iteration
// traces and smooths one path from each of kFreshBatch starts (the same
// starts every iteration, so callgrind's count for one iteration is
// comparable between builds).
constexpr std::size_t kFreshBatch = 256;

void BM_FreshPath512(benchmark::State& state) {
  static const FreshCase c;
  const pathcore::FindPathOptions options;
  pathcore::SmoothingScratch scratch;
  std::size_t points = 0;
  for (auto _ : state) {
    for (std::size_t k = 0; k < kFreshBatch; ++k) {
      auto result = pathcore::path_from_field(c.mask, c.field, c.starts[k], options,
                                              &c.clearance, &scratch);
      benchmark::DoNotOptimize(result.points.data());
      points += result.points.size();
    }
  }
  const auto paths = static_cast<double>(state.iterations()) * kFreshBatch;
  state.counters["points_per_path"] = static_cast<double>(points) / paths;
  state.counters["paths_per_s"] = benchmark::Counter(paths, benchmark::Counter::kIsRate);
}

struct DemoCase {
  Mask mask = load();
  Point start{20, 20};
  Point goal{600, 340};

  static Mask load() {
    std::ifstream in(PATHFINDER_DEMO_MASK, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return pathcore::decode_mask(
        {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()},
        pathcore::DecodeOptions{});
  }
};

// Trace and beautify of the README's demo request from a prebuilt field;
// area_cost: area 1's cost (the road, area 2, costs 1).
void demo_path_bench(benchmark::State& state, std::uint8_t area_cost) {
  static const DemoCase c;
  pathcore::FindPathOptions options;
  options.field.area_costs[1] = area_cost;
  const pathcore::DistanceField field = pathcore::compute_distance_field(c.mask, c.goal, options.field);
  const pathcore::ClearanceMap clearance(c.mask, pathcore::kAllAreas);
  pathcore::SmoothingScratch scratch;
  pathcore::PathResult result;
  for (auto _ : state) {
    result = pathcore::path_from_field(c.mask, field, c.start, options, &clearance, &scratch);
    benchmark::DoNotOptimize(result.points.data());
  }
  state.counters["points"] = static_cast<double>(result.points.size());
  state.counters["length"] = result.length;
  state.counters["cost"] = result.cost;
}

void BM_DemoBeautifyUnitCosts(benchmark::State& state) { demo_path_bench(state, 1); }
void BM_DemoBeautifyGrass4x(benchmark::State& state) { demo_path_bench(state, 4); }

// Beeline answers, eight-connected without corner cutting, unit costs: 256
// start/goal pairs (up to 128 pixels apart) whose beeline is walkable.
void BM_Beeline512Eight(benchmark::State& state) {
  static const Mask mask = pathbench::random_obstacle_mask(512, 512, 0.002, 5);
  static const pathcore::ClearanceMap clearance(mask, pathcore::kAllAreas);
  pathcore::FindPathOptions options;
  options.field.connectivity = pathcore::Connectivity::kEight;
  static const std::vector<std::pair<Point, Point>> pairs = [&] {
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<std::int32_t> coordinate(0, 511);
    std::uniform_int_distribution<std::int32_t> offset(-128, 128);
    std::vector<std::pair<Point, Point>> found;
    while (found.size() < kFreshBatch) {
      const Point a{coordinate(rng), coordinate(rng)};
      const Point b{a.x + offset(rng), a.y + offset(rng)};
      if (mask.contains(b) && pathcore::beeline_answer(mask, a, b, options, &clearance)) {
        found.emplace_back(a, b);
      }
    }
    return found;
  }();
  for (auto _ : state) {
    for (const auto& [a, b] : pairs) {
      auto answer = pathcore::beeline_answer(mask, a, b, options, &clearance);
      benchmark::DoNotOptimize(answer);
    }
  }
}

}  // namespace

BENCHMARK(BM_SpiralTrace)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SpiralTraceSimplify)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SpiralBeautify)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FreshPath512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DemoBeautifyUnitCosts)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DemoBeautifyGrass4x)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Beeline512Eight)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
