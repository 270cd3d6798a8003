// What FieldBuilder::set_interrupt costs a full-HD fill: the same fill with
// no check, and with a check (an atomic load behind a std::function, as the
// server's deadline poll is reached) called about every 16,384 pixels.
// Read the ratio of the two rows of one mask, within one run.

#include <benchmark/benchmark.h>

#include <atomic>
#include <string>

#include "bench_masks.h"
#include "pathcore/distance_field.h"

namespace {

const pathcore::Mask& mask_named(const std::string& name) {
  static const pathcore::Mask open = pathbench::open_mask(1920, 1080);
  static const pathcore::Mask random30 = pathbench::random_obstacle_mask(1920, 1080, 0.3, 1);
  static const pathcore::Mask spiral = pathbench::spiral_mask(1920, 1080);
  if (name == "open") return open;
  if (name == "random30") return random30;
  return spiral;
}

void fill(benchmark::State& state, const std::string& name, pathcore::Connectivity connectivity,
          bool checked) {
  const pathcore::Mask& mask = mask_named(name);
  pathcore::FieldOptions options;
  options.connectivity = connectivity;
  // The spiral's open end (0,0); elsewhere the first walkable pixel of the middle row.
  pathcore::Point goal{0, 0};
  if (name != "spiral") {
    goal = {0, static_cast<int>(mask.height() / 2)};
    while (!mask.walkable(goal, options.enabled) && goal.x + 1 < static_cast<int>(mask.width())) {
      ++goal.x;
    }
  }
  std::atomic<bool> stop{false};
  std::size_t checks = 0;
  for (auto _ : state) {
    pathcore::FieldBuilder builder(mask, goal, options);
    if (checked) {
      builder.set_interrupt([&] {
        ++checks;
        return stop.load(std::memory_order_relaxed);
      });
    }
    builder.finish();
    benchmark::DoNotOptimize(builder.field().bytes_per_pixel());
  }
  state.counters["checks_per_fill"] =
      static_cast<double>(checks) / static_cast<double>(state.iterations());
}

void BM_FillFour(benchmark::State& state, const std::string& name) {
  fill(state, name, pathcore::Connectivity::kFour, false);
}
void BM_FillFourChecked(benchmark::State& state, const std::string& name) {
  fill(state, name, pathcore::Connectivity::kFour, true);
}
void BM_FillEight(benchmark::State& state, const std::string& name) {
  fill(state, name, pathcore::Connectivity::kEight, false);
}
void BM_FillEightChecked(benchmark::State& state, const std::string& name) {
  fill(state, name, pathcore::Connectivity::kEight, true);
}

}  // namespace

#define INTERRUPT_FILLS(mask)                                                                     \
  BENCHMARK_CAPTURE(BM_FillFour, mask, std::string(#mask))->Unit(benchmark::kMillisecond);        \
  BENCHMARK_CAPTURE(BM_FillFourChecked, mask, std::string(#mask))->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(BM_FillEight, mask, std::string(#mask))->Unit(benchmark::kMillisecond);       \
  BENCHMARK_CAPTURE(BM_FillEightChecked, mask, std::string(#mask))->Unit(benchmark::kMillisecond);

INTERRUPT_FILLS(open)
INTERRUPT_FILLS(random30)
INTERRUPT_FILLS(spiral)

BENCHMARK_MAIN();
