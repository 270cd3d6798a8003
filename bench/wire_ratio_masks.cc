// Writes the three full-HD benchmark masks (bench_masks.h: open, 30% random,
// one-pixel spiral) as raw area files for scripts/wire-ratios, and prints one
// JSON line per mask with what to ask the real server:
//   {"name":..., "file":..., "width":..., "height":..., "bench_goal":[x,y],
//    "start":[x,y], "goals":[[x,y],...]}
// bench_goal is BM_StrictSeedFill's goal (as distance_field_bench.cc picks it:
// the first walkable pixel from the centre in scan order; (0,0), the
// corridor's outer end, on the spiral). The goals are the N distinct pixels
// nearest to it by grid distance (it first), so each cold call fills from
// about where the benchmark does; the start is the reachable pixel farthest
// from it (the far corner; the corridor's inner end on the spiral).
//
//   wire_ratio_masks DIR N
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "strict_seed_fill.h"

namespace {

using pathcore::Mask;
using pathcore::Point;
using pathbench::walkable_near;

constexpr std::uint32_t kWidth = 1920;
constexpr std::uint32_t kHeight = 1080;

std::string point_json(Point p) {
  return "[" + std::to_string(p.x) + "," + std::to_string(p.y) + "]";
}

Point point_at(const Mask& mask, std::size_t i) {
  return {static_cast<std::int32_t>(i % mask.width()), static_cast<std::int32_t>(i / mask.width())};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: wire_ratio_masks DIR GOALS\n";
    return 2;
  }
  const std::string dir = argv[1];
  const long goal_count = std::strtol(argv[2], nullptr, 10);
  if (goal_count < 1) {
    std::cerr << "wire_ratio_masks: GOALS must be at least 1\n";
    return 2;
  }
  for (const std::string name : {"open", "random30", "spiral"}) {
    const Mask mask = name == "open" ? pathbench::open_mask(kWidth, kHeight)
                      : name == "random30"
                          ? pathbench::random_obstacle_mask(kWidth, kHeight, 0.30, 42)
                          : pathbench::spiral_mask(kWidth, kHeight);
    const Point bench_goal = name == "spiral"
                                 ? Point{0, 0}
                                 : walkable_near(mask, {static_cast<std::int32_t>(kWidth / 2),
                                                        static_cast<std::int32_t>(kHeight / 2)});
    pathbench::StrictSeedFill fill(kWidth, kHeight);
    const std::vector<std::int32_t>& field = fill.run(mask, bench_goal);

    std::vector<std::size_t> reached;
    for (std::size_t i = 0; i < field.size(); ++i) {
      if (field[i] >= 0) reached.push_back(i);
    }
    const auto nearer = [&](std::size_t a, std::size_t b) {
      return field[a] != field[b] ? field[a] < field[b] : a < b;
    };
    const std::size_t far = *std::max_element(reached.begin(), reached.end(), nearer);
    const std::size_t count = std::min(reached.size(), static_cast<std::size_t>(goal_count));
    std::partial_sort(reached.begin(), reached.begin() + static_cast<std::ptrdiff_t>(count),
                      reached.end(), nearer);

    const std::string file = dir + "/" + name + ".raw";
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(mask.areas().data()),
              static_cast<std::streamsize>(mask.areas().size()));
    if (!out) {
      std::cerr << "wire_ratio_masks: cannot write " << file << "\n";
      return 1;
    }
    std::string goals;
    for (std::size_t k = 0; k < count; ++k) {
      goals += (k == 0 ? "" : ",") + point_json(point_at(mask, reached[k]));
    }
    std::cout << "{\"name\":\"" << name << "\",\"file\":\"" << file << "\",\"width\":" << kWidth
              << ",\"height\":" << kHeight << ",\"bench_goal\":" << point_json(bench_goal)
              << ",\"start\":" << point_json(point_at(mask, far))
              << ",\"start_steps\":" << field[far] << ",\"reached_px\":" << reached.size()
              << ",\"goals\":[" << goals << "]}\n";
  }
  return 0;
}
