// StandardMove searches: single moves, and two-move stitching on a 22x18
// tile room (target under 50 us) and a 256x256 mask (target under 20 ms);
// three moves on a full-HD random mask (no target yet).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench_masks.h"
#include "pathcore/mask.h"
#include "pathcore/standard_move.h"

namespace {

using pathcore::Mask;
using pathcore::Point;

// A room with a wall across it that leaves gaps at both ends: no single move
// crosses it, two moves do.
Mask walled_room(std::uint32_t width, std::uint32_t height, std::uint32_t wall_x,
                 std::uint32_t gap) {
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 1);
  for (std::uint32_t y = gap; y + gap < height; ++y) {
    areas[std::size_t{y} * width + wall_x] = 0;
    areas[std::size_t{y} * width + wall_x + 1] = 0;
  }
  return Mask(width, height, std::move(areas));
}

void run(benchmark::State& state, const Mask& mask, Point start, Point goal, int max_moves,
         int expected_moves) {
  pathcore::StandardMoveOptions options;
  options.max_moves = max_moves;
  const auto check = pathcore::find_standard_move(mask, start, goal, options);
  if (!check.found || check.move_count != expected_moves) {
    state.SkipWithError("unexpected route shape for this benchmark");
    return;
  }
  for (auto _ : state) {
    auto result = pathcore::find_standard_move(mask, start, goal, options);
    benchmark::DoNotOptimize(result.moves.data());
  }
}

void BM_SingleMove22x18(benchmark::State& state) {
  static const Mask mask = pathbench::open_mask(22, 18);
  run(state, mask, {1, 2}, {20, 15}, 2, 1);
}

void BM_TwoMoves22x18(benchmark::State& state) {
  static const Mask mask = walled_room(22, 18, 8, 3);
  run(state, mask, {2, 9}, {17, 12}, 2, 2);
}

void BM_TwoMoves256x256(benchmark::State& state) {
  static const Mask mask = walled_room(256, 256, 127, 20);
  run(state, mask, {10, 128}, {245, 140}, 2, 2);
}

void BM_TwoMoves256x256Random(benchmark::State& state) {
  // 10% scattered obstacles plus the wall; the route shape is checked above.
  static const Mask mask = [] {
    Mask random = pathbench::random_obstacle_mask(256, 256, 0.10, 7);
    std::vector<std::uint8_t> areas = random.areas();
    for (std::uint32_t y = 20; y < 236; ++y) {
      areas[std::size_t{y} * 256 + 127] = 0;
      areas[std::size_t{y} * 256 + 128] = 0;
    }
    areas[std::size_t{128} * 256 + 10] = 1;
    areas[std::size_t{140} * 256 + 245] = 1;
    return Mask(256, 256, std::move(areas));
  }();
  pathcore::StandardMoveOptions options;
  options.max_moves = 3;
  for (auto _ : state) {
    auto result = pathcore::find_standard_move(mask, {10, 128}, {245, 140}, options);
    benchmark::DoNotOptimize(result.moves.data());
  }
}

// Three moves on a full-HD mask with 30% scattered obstacles (the mask of
// components_bench): between two nearby tiles that need three moves, and
// between far corners that no three moves join. Both sweep the whole mask
// (no target yet; the profile of these is where to start optimising).
const Mask& random30_hd() {
  static const Mask mask = pathbench::random_obstacle_mask(1920, 1080, 0.30, 42);
  return mask;
}

void BM_ThreeMovesFullHdRandom30(benchmark::State& state) {
  run(state, random30_hd(), {960, 540}, {1000, 560}, 3, 3);
}

void BM_ThreeMovesFullHdRandom30NoRoute(benchmark::State& state) {
  pathcore::StandardMoveOptions options;
  options.max_moves = 3;
  if (pathcore::find_standard_move(random30_hd(), {10, 10}, {1900, 1070}, options).found) {
    state.SkipWithError("expected no route for this benchmark");
    return;
  }
  for (auto _ : state) {
    auto result = pathcore::find_standard_move(random30_hd(), {10, 10}, {1900, 1070}, options);
    benchmark::DoNotOptimize(result.moves.data());
  }
}

}  // namespace

BENCHMARK(BM_SingleMove22x18)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoMoves22x18)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoMoves256x256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoMoves256x256Random)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreeMovesFullHdRandom30)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreeMovesFullHdRandom30NoRoute)->Unit(benchmark::kMillisecond);
