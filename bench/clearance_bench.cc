// Agent clearance (issue 21): the exact distance transform and the usable
// mask against one cold four-connected distance field on the same full-HD
// masks, in one run, as ratios (a plain timing loop: one table). The usable
// mask is what a server builds once per (mask revision, areas, clearance);
// the field is what every cold FindPath pays. Times are medians of
// alternated rounds, so the shared machine's load falls on all alike.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "pathcore/agent_clearance.h"
#include "pathcore/distance_field.h"

namespace {

using Clock = std::chrono::steady_clock;
using pathcore::Mask;
using pathcore::Point;

template <typename Work>
double milliseconds(Work&& work) {
  const auto begin = Clock::now();
  work();
  return std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main() {
  constexpr int kRounds = 15;
  struct Named {
    std::string name;
    Mask mask;
  };
  const std::vector<Named> masks = {
      {"open", pathbench::open_mask(1920, 1080)},
      {"random30", pathbench::random_obstacle_mask(1920, 1080, 0.30, 42)},
      {"spiral", pathbench::spiral_mask(1920, 1080)},
  };
  std::printf("%-9s %10s %10s %10s %10s %8s %8s %12s\n", "mask", "field ms", "edt ms",
              "usable1 ms", "usable2.5", "edt/f", "use2.5/f", "usable bytes");
  for (const Named& named : masks) {
    const Mask& mask = named.mask;
    const Point goal = named.name == "spiral"
                           ? Point{0, 0}
                           : pathbench::walkable_near(mask, {960, 540});
    std::vector<double> field_ms;
    std::vector<double> edt_ms;
    std::vector<double> usable_one_ms;
    std::vector<double> usable_ms;
    std::size_t usable_bytes = 0;
    std::uint64_t sink = 0;
    for (int round = 0; round < kRounds; ++round) {
      field_ms.push_back(milliseconds([&] {
        const auto field = pathcore::compute_distance_field(mask, goal, {});
        sink += field.reachable(goal) ? 1 : 0;
      }));
      edt_ms.push_back(milliseconds([&] {
        const pathcore::ObstacleDistances distances(mask, pathcore::kAllAreas);
        sink += distances.squared_half_pixels({960, 540});
      }));
      usable_one_ms.push_back(milliseconds([&] {
        const pathcore::UsableMask usable(mask, pathcore::kAllAreas, 1.0);
        sink += usable.mask().walkable_pixels();
      }));
      usable_ms.push_back(milliseconds([&] {
        const pathcore::UsableMask usable(mask, pathcore::kAllAreas, 2.5);
        sink += usable.mask().walkable_pixels();
        usable_bytes = usable.memory_bytes();
      }));
    }
    const double field = median(field_ms);
    const double edt = median(edt_ms);
    const double usable = median(usable_ms);
    std::printf("%-9s %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f %12zu\n", named.name.c_str(), field,
                edt, median(usable_one_ms), usable, edt / field, usable / field, usable_bytes);
    if (sink == 0) std::printf("(nothing)\n");
  }
  return 0;
}
