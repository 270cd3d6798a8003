// StandardMove searches: single moves, and two-move stitching on a 22x18
// tile room (target under 50 us) and a 256x256 mask (target under 20 ms);
// one, two and three moves on a full-HD mask with 30% random obstacles
// (issue 20: one and two moves under 5 ms, three under 50 ms).
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

// expected_moves: the move count of the route, or kNoRoute.
constexpr int kNoRoute = -1;

void run(benchmark::State& state, const Mask& mask, Point start, Point goal, int max_moves,
         int expected_moves) {
  pathcore::StandardMoveOptions options;
  options.max_moves = max_moves;
  const auto check = pathcore::find_standard_move(mask, start, goal, options);
  const int moves = check.found ? check.move_count : kNoRoute;
  if (moves != expected_moves || check.search_truncated) {
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

// The full-HD mask with 30% scattered obstacles (the mask of
// components_bench). Runs there are short (a step is blocked 3 times in 10),
// so one and two moves join tiles a few to a few dozen apart; tiles a few
// hundred apart or at far corners are not joined, and the search must say
// so quickly.
const Mask& random30_hd() {
  static const Mask mask = pathbench::random_obstacle_mask(1920, 1080, 0.30, 42);
  return mask;
}

void BM_OneMoveFullHdRandom30(benchmark::State& state) {
  run(state, random30_hd(), {960, 540}, {966, 543}, 1, 1);
}

void BM_OneMoveFullHdRandom30Apart(benchmark::State& state) {
  run(state, random30_hd(), {900, 500}, {1200, 700}, 1, kNoRoute);
}

void BM_OneMoveFullHdRandom30Far(benchmark::State& state) {
  run(state, random30_hd(), {10, 10}, {1900, 1070}, 1, kNoRoute);
}

void BM_TwoMovesFullHdRandom30(benchmark::State& state) {
  run(state, random30_hd(), {960, 540}, {975, 548}, 2, 2);
}

void BM_TwoMovesFullHdRandom30Apart(benchmark::State& state) {
  run(state, random30_hd(), {900, 500}, {1200, 700}, 2, kNoRoute);
}

void BM_TwoMovesFullHdRandom30Far(benchmark::State& state) {
  run(state, random30_hd(), {10, 10}, {1900, 1070}, 2, kNoRoute);
}

// Three moves: between two nearby tiles that need three moves, between tiles
// a few hundred apart, and between far corners (no three moves join either).
void BM_ThreeMovesFullHdRandom30(benchmark::State& state) {
  run(state, random30_hd(), {960, 540}, {1000, 560}, 3, 3);
}

void BM_ThreeMovesFullHdRandom30Apart(benchmark::State& state) {
  run(state, random30_hd(), {900, 500}, {1200, 700}, 3, kNoRoute);
}

void BM_ThreeMovesFullHdRandom30NoRoute(benchmark::State& state) {
  run(state, random30_hd(), {10, 10}, {1900, 1070}, 3, kNoRoute);
}

}  // namespace

BENCHMARK(BM_SingleMove22x18)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoMoves22x18)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoMoves256x256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoMoves256x256Random)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneMoveFullHdRandom30)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneMoveFullHdRandom30Apart)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneMoveFullHdRandom30Far)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoMovesFullHdRandom30)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoMovesFullHdRandom30Apart)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoMovesFullHdRandom30Far)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreeMovesFullHdRandom30)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreeMovesFullHdRandom30Apart)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreeMovesFullHdRandom30NoRoute)->Unit(benchmark::kMillisecond);
