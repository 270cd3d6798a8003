// Writes the masks scripts/wire-ratios sends to the real server, as raw area
// files, and prints one JSON line per measurement with what to ask:
//
// kind "cold": the three full-HD benchmark masks (bench_masks.h: open, 30%
// random, one-pixel spiral):
//   {"kind":"cold","name":..., "file":..., "width":..., "height":...,
//    "bench_goal":[x,y], "start":[x,y], "goals":[[x,y],...]}
// bench_goal is BM_StrictSeedFill's goal (as distance_field_bench.cc picks it:
// the first walkable pixel from the centre in scan order; (0,0), the
// corridor's outer end, on the spiral). The goals are the N distinct pixels
// nearest to it by grid distance (it first), so each cold call fills from
// about where the benchmark does; the start is the reachable pixel farthest
// from it (the far corner; the corridor's inner end on the spiral).
//
// kind "fresh": a 512x512 mask with 20% scattered obstacles and four goals
// in its east half (the walkable pixels nearest to (7/8 w, k/8 h), k = 1, 3,
// 5, 7): many characters, few destinations.
//
// kind "standard_move": start/goal pairs on the full-HD 30%-random mask
// whose StandardMove (max_moves 3) route has exactly `moves` moves (1, 2, 3),
// found in process by find_standard_move among random walkable pairs 2 to
// 60 tiles apart (fixed seed; exact answers only, never a truncated search):
//   {"kind":"standard_move","mask":"random30","moves":M,"pairs":[[sx,sy,gx,gy],...]}
// The search for pairs stops after MOVE_SECONDS; a bucket may then be short.
//
//   wire_ratio_masks DIR GOALS MOVE_PAIRS [MOVE_SECONDS]
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "pathcore/standard_move.h"
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

bool write_areas(const Mask& mask, const std::string& file) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(mask.areas().data()),
            static_cast<std::streamsize>(mask.areas().size()));
  if (!out) std::cerr << "wire_ratio_masks: cannot write " << file << "\n";
  return static_cast<bool>(out);
}

// Up to `per_bucket` pairs for each route length 1, 2, 3 (index moves - 1).
// Each try aims at the first bucket not yet full, with a distance typical of
// it (single moves are short on a 30% random mask), and asks only as many
// moves as that bucket needs: three-move searches are the slow ones.
std::array<std::vector<std::array<Point, 2>>, 3> standard_move_pairs(const Mask& mask,
                                                                   std::size_t per_bucket,
                                                                   double seconds) {
  std::array<std::vector<std::array<Point, 2>>, 3> buckets;
  constexpr std::array<std::array<std::int32_t, 2>, 3> kReach{{{2, 6}, {6, 30}, {10, 60}}};
  std::mt19937_64 random(20261126);
  const auto uniform = [&](std::int32_t low, std::int32_t high) {
    return std::uniform_int_distribution<std::int32_t>(low, high)(random);
  };
  const auto stop = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < stop) {
    const auto open_bucket = std::find_if(buckets.begin(), buckets.end(), [&](const auto& bucket) {
      return bucket.size() < per_bucket;
    });
    if (open_bucket == buckets.end()) break;
    const auto target = static_cast<std::size_t>(open_bucket - buckets.begin());
    const Point start{uniform(200, static_cast<std::int32_t>(mask.width()) - 201),
                      uniform(200, static_cast<std::int32_t>(mask.height()) - 201)};
    // Chebyshev distance `far` exactly: one coordinate at +-far, the other within it.
    const std::int32_t far = uniform(kReach[target][0], kReach[target][1]);
    const std::int32_t across = uniform(-far, far);
    const std::int32_t sign = uniform(0, 1) == 0 ? 1 : -1;
    const Point goal = uniform(0, 1) == 0 ? Point{start.x + sign * far, start.y + across}
                                          : Point{start.x + across, start.y + sign * far};
    if (!mask.walkable(start, pathcore::kAllAreas) || !mask.walkable(goal, pathcore::kAllAreas)) {
      continue;
    }
    pathcore::StandardMoveOptions options;
    options.max_moves = static_cast<int>(target) + 1;
    const auto route = pathcore::find_standard_move(mask, start, goal, options);
    if (!route.found || route.search_truncated || route.move_count < 1) continue;
    auto& bucket = buckets[static_cast<std::size_t>(route.move_count - 1)];
    if (bucket.size() < per_bucket) bucket.push_back({start, goal});
  }
  return buckets;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::cerr << "usage: wire_ratio_masks DIR GOALS MOVE_PAIRS [MOVE_SECONDS]\n";
    return 2;
  }
  const std::string dir = argv[1];
  const long goal_count = std::strtol(argv[2], nullptr, 10);
  const long move_pairs = std::strtol(argv[3], nullptr, 10);
  const double move_seconds = argc == 5 ? std::strtod(argv[4], nullptr) : 60.0;
  if (goal_count < 1 || move_pairs < 0 || !(move_seconds > 0)) {
    std::cerr << "wire_ratio_masks: GOALS must be at least 1, MOVE_PAIRS at least 0, "
                 "MOVE_SECONDS above 0\n";
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
    if (!write_areas(mask, file)) return 1;
    std::string goals;
    for (std::size_t k = 0; k < count; ++k) {
      goals += (k == 0 ? "" : ",") + point_json(point_at(mask, reached[k]));
    }
    std::cout << "{\"kind\":\"cold\",\"name\":\"" << name << "\",\"file\":\"" << file << "\",\"width\":" << kWidth
              << ",\"height\":" << kHeight << ",\"bench_goal\":" << point_json(bench_goal)
              << ",\"start\":" << point_json(point_at(mask, far))
              << ",\"start_steps\":" << field[far] << ",\"reached_px\":" << reached.size()
              << ",\"goals\":[" << goals << "]}\n";
    if (name == "random30" && move_pairs > 0) {
      const auto buckets =
          standard_move_pairs(mask, static_cast<std::size_t>(move_pairs), move_seconds);
      for (std::size_t b = 0; b < buckets.size(); ++b) {
        std::string pairs;
        for (const auto& [start, goal] : buckets[b]) {
          pairs += std::string(pairs.empty() ? "" : ",") + "[" + std::to_string(start.x) + "," +
                   std::to_string(start.y) + "," + std::to_string(goal.x) + "," +
                   std::to_string(goal.y) + "]";
        }
        std::cout << "{\"kind\":\"standard_move\",\"mask\":\"random30\",\"moves\":" << b + 1
                  << ",\"pairs\":[" << pairs << "]}\n";
      }
    }
  }

  constexpr std::uint32_t kFreshSide = 512;
  const Mask fresh = pathbench::random_obstacle_mask(kFreshSide, kFreshSide, 0.20, 512);
  const std::string fresh_file = dir + "/random512_20.raw";
  if (!write_areas(fresh, fresh_file)) return 1;
  std::string fresh_goals;
  for (const std::int32_t eighth : {1, 3, 5, 7}) {
    const Point goal = walkable_near(fresh, {static_cast<std::int32_t>(kFreshSide * 7 / 8),
                                             static_cast<std::int32_t>(kFreshSide) * eighth / 8});
    fresh_goals += (fresh_goals.empty() ? "" : ",") + point_json(goal);
  }
  std::cout << "{\"kind\":\"fresh\",\"name\":\"random512_20\",\"file\":\"" << fresh_file
            << "\",\"width\":" << kFreshSide << ",\"height\":" << kFreshSide << ",\"goals\":["
            << fresh_goals << "]}\n";
  return 0;
}
