// Temporary obstacles in process, on obstacles_rpc_bench's workload (full HD,
// 20 % random obstacles, corner to corner, ten circles of radius 4 along the
// route): path_around_obstacles on the cached field of the goal against the
// plain trace on that field (warm FindPath's core), and against filling the
// patched mask (cold), with the pixels the detour walked and expanded.
// Plain timing loop: one table of ratios from one run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "pathcore/detour.h"
#include "pathcore/distance_field.h"
#include "pathcore/obstacles.h"
#include "pathcore/path.h"

namespace {

using Clock = std::chrono::steady_clock;

template <typename Work>
double elapsed_ms(Work&& work) {
  const auto begin = Clock::now();
  work();
  return std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
}

double median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  // Optional: "four" or "eight" alone (for a profile).
  const std::string only = argc > 1 ? argv[1] : "";
  using namespace pathcore;
  constexpr std::uint32_t kWidth = 1920;
  constexpr std::uint32_t kHeight = 1080;
  const Mask mask = pathbench::random_obstacle_mask(kWidth, kHeight, 0.20, 42);
  const Point start = pathbench::walkable_near(mask, {40, 40});
  const Point goal = pathbench::walkable_near(mask, {kWidth - 40, kHeight - 40});
  std::printf(
      "| connectivity | plain trace ms | detour ms | ratio | patched fill ms | walked | dead | "
      "expanded | same answer |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const Connectivity connectivity : {Connectivity::kFour, Connectivity::kEight}) {
    if (!only.empty() && only != (connectivity == Connectivity::kFour ? "four" : "eight")) continue;
    FindPathOptions options;
    options.field.connectivity = connectivity;
    const DistanceField field = compute_distance_field(mask, goal, options.field);
    FindPathOptions none = options;
    none.smoothing = Smoothing::kNone;
    const PathResult route = path_from_field(mask, field, start, none);
    std::vector<Obstacle> shapes;
    for (std::size_t i = 1; i <= 10; ++i) {
      const Point p = route.points[route.points.size() * i / 11];
      shapes.push_back(CircleObstacle{p.x + 0.5, p.y + 0.5, 4});
    }
    const ObstacleSet blocked(kWidth, kHeight, shapes);
    const Mask blocked_mask = with_obstacles(mask, blocked);
    // The plain trace and the detour alternated, so both see the same load.
    DetourWork work;
    DetourScratch scratch;
    std::optional<PathResult> detour;
    std::vector<double> plain_times;
    std::vector<double> detour_times;
    const int runs = only.empty() ? 51 : 401;
    for (int i = 0; i < runs; ++i) {
      plain_times.push_back(
          elapsed_ms([&] { (void)path_from_field(mask, field, start, options); }));
      detour_times.push_back(elapsed_ms([&] {
        scratch.clear();  // a new request: nothing learnt, the memory kept
        detour = path_around_obstacles(blocked_mask, field, blocked, start, options, 1U << 30, {},
                                       &work, &scratch);
      }));
    }
    const double plain = median(plain_times);
    const double around = median(detour_times);
    PathResult reference;
    std::vector<double> fill_times;
    for (int i = 0; i < 5; ++i) {
      fill_times.push_back(elapsed_ms([&] {
        const DistanceField patched = compute_distance_field(blocked_mask, goal, options.field);
        reference = path_from_field(blocked_mask, patched, start, options);
      }));
    }
    const double fill = median(fill_times);
    const bool same =
        detour && detour->points == reference.points && detour->cost == reference.cost;
    std::printf("| %s | %.3f | %.3f | %.1fx | %.2f | %zu | %zu | %zu | %s |\n",
                connectivity == Connectivity::kFour ? "four" : "eight", plain, around,
                around / plain, fill, work.walked, work.dead, work.expanded, same ? "yes" : "NO");
  }
}
