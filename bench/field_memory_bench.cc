// What new memory costs a full-HD fill: the same four-connected (or
// eight-connected) field built in memory never touched before, as a fill
// meets it while the server's field cache grows (each field kept, so each
// fill's grid is a new mapping whose pages fault in as the fill first writes
// them), and built in the storage of the field before
// (FieldBuilder's recycled argument, what the server's FieldStoragePool
// hands out). Read the ratio of the two rows of one mask, within one run.
// Its own binary: it fixes glibc's mmap threshold (mallopt), so every grid
// is a fresh mapping and every free an munmap, which would change the other
// benchmarks' allocations.

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <string>
#include <utility>

#include "bench_masks.h"
#include "pathcore/distance_field.h"

namespace {

const pathcore::Mask& mask_named(const std::string& name) {
  static const pathcore::Mask open = pathbench::open_mask(1920, 1080);
  static const pathcore::Mask random30 = pathbench::random_obstacle_mask(1920, 1080, 0.3, 42);
  return name == "open" ? open : random30;
}

pathcore::Point goal_of(const pathcore::Mask& mask) {
  return pathbench::walkable_near(mask, {static_cast<std::int32_t>(mask.width() / 2),
                                         static_cast<std::int32_t>(mask.height() / 2)});
}

void new_memory(benchmark::State& state, const std::string& name,
                pathcore::Connectivity connectivity) {
  // A fixed threshold: glibc would otherwise raise it past a freed grid's
  // size and serve the next grid from memory paged in already.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  const pathcore::Mask& mask = mask_named(name);
  pathcore::FieldOptions options;
  options.connectivity = connectivity;
  const pathcore::Point goal = goal_of(mask);
  for (auto _ : state) {
    pathcore::DistanceField field = pathcore::compute_distance_field(mask, goal, options);
    benchmark::DoNotOptimize(&field);
    state.PauseTiming();  // the munmap is not the fill's (a cache frees later, elsewhere)
    field = pathcore::DistanceField(1, 1, {0, 0}, {}, {0});
    state.ResumeTiming();
  }
}

void recycled_memory(benchmark::State& state, const std::string& name,
                     pathcore::Connectivity connectivity) {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  const pathcore::Mask& mask = mask_named(name);
  pathcore::FieldOptions options;
  options.connectivity = connectivity;
  const pathcore::Point goal = goal_of(mask);
  pathcore::FieldStorage storage =
      pathcore::compute_distance_field(mask, goal, options).release_storage();
  for (auto _ : state) {
    pathcore::FieldBuilder builder(mask, goal, options, std::move(storage));
    builder.finish();
    pathcore::DistanceField field = builder.take();
    benchmark::DoNotOptimize(&field);
    storage = field.release_storage();
  }
}

void BM_FieldNewMemoryFour(benchmark::State& state, const std::string& name) {
  new_memory(state, name, pathcore::Connectivity::kFour);
}
void BM_FieldRecycledMemoryFour(benchmark::State& state, const std::string& name) {
  recycled_memory(state, name, pathcore::Connectivity::kFour);
}
void BM_FieldNewMemoryEight(benchmark::State& state, const std::string& name) {
  new_memory(state, name, pathcore::Connectivity::kEight);
}
void BM_FieldRecycledMemoryEight(benchmark::State& state, const std::string& name) {
  recycled_memory(state, name, pathcore::Connectivity::kEight);
}

#define MEMORY_CASES(mask)                                                     \
  BENCHMARK_CAPTURE(BM_FieldNewMemoryFour, mask, std::string(#mask))           \
      ->Unit(benchmark::kMillisecond);                                         \
  BENCHMARK_CAPTURE(BM_FieldRecycledMemoryFour, mask, std::string(#mask))      \
      ->Unit(benchmark::kMillisecond);                                         \
  BENCHMARK_CAPTURE(BM_FieldNewMemoryEight, mask, std::string(#mask))          \
      ->Unit(benchmark::kMillisecond);                                         \
  BENCHMARK_CAPTURE(BM_FieldRecycledMemoryEight, mask, std::string(#mask))     \
      ->Unit(benchmark::kMillisecond);

MEMORY_CASES(open)
MEMORY_CASES(random30)

}  // namespace

BENCHMARK_MAIN();
