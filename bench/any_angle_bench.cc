// Exact any-angle paths (SMOOTHING_ANY_ANGLE) on every map class, against
// pathcore's default FindPath on the same queries, in one run:
//   mesh ms, mesh MB  the per-mask preprocessing (AnyAngleMesh::build) and
//                     what the server's cache is charged for it;
//   aa mean/p99 us    find_any_angle_path per query (nothing per goal is
//                     cached, so a query is as cold as it gets once the
//                     mesh exists);
//   def mean/p99 us   find_path with default options and no field cached
//                     (flood fill + trace + beautify): a cold FindPath;
//   mean x, p99 x     aa mean / def mean, aa p99 / def p99.
// Maps: the Moving AI maps in tests/data (their scenarios, spread over each
// file), and generated ones: random obstacles 5-40% at 512 and 1024, mazes
// with corridors 1-32 pixels wide, rooms, and full-HD and 2048x2048 clutter
// (half random pairs, half long pairs between opposite corners). Each
// query's time is the median of `repetitions` runs.
// Usage: any_angle_bench [queries per map (default 60)] [repetitions (3)]
//                        [only maps whose name contains this]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_masks.h"
#include "pathcore/any_angle.h"
#include "pathcore/codec.h"
#include "pathcore/path.h"

namespace {

using pathcore::Mask;
using pathcore::Point;
using Clock = std::chrono::steady_clock;

const std::filesystem::path kDataDir = PATHFINDER_MOVINGAI_DIR;

Mask load_map(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                        std::istreambuf_iterator<char>()};
  pathcore::DecodeOptions options;
  options.format = pathcore::MaskFormat::kMovingAi;
  return pathcore::decode_mask(bytes, options);
}

struct Query {
  Point start;
  Point goal;
};

// Every scenario line's start and goal (fields 5..8, tab or space separated).
std::vector<Query> load_queries(const std::filesystem::path& scen) {
  std::ifstream in(scen);
  std::string line;
  std::getline(in, line);  // version
  std::vector<Query> queries;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string bucket, map;
    std::int32_t width = 0, height = 0;
    Query q;
    if (fields >> bucket >> map >> width >> height >> q.start.x >> q.start.y >> q.goal.x >>
        q.goal.y) {
      queries.push_back(q);
    }
  }
  return queries;
}

// `count` of them, spread over the whole list (scenario files grow longer
// toward their end).
std::vector<Query> spread(const std::vector<Query>& all, std::size_t count) {
  if (all.size() <= count) return all;
  std::vector<Query> picked;
  for (std::size_t i = 0; i < count; ++i) picked.push_back(all[i * all.size() / count]);
  return picked;
}

// Pairs joined by a path: half anywhere, half between boxes at opposite
// corners (a tenth of each side), the long paths across the whole map.
std::vector<Query> generated_queries(const Mask& mask, const pathcore::AnyAngleMesh& mesh,
                                     std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto in_box = [&](std::uint32_t x0, std::uint32_t y0, std::uint32_t w, std::uint32_t h) {
    for (int tries = 0; tries < 1000; ++tries) {
      const Point p{static_cast<std::int32_t>(x0 + rng() % w),
                    static_cast<std::int32_t>(y0 + rng() % h)};
      if (mask.walkable(p, pathcore::kAllAreas)) return p;
    }
    return Point{-1, -1};
  };
  const std::uint32_t bw = std::max(1U, mask.width() / 10);
  const std::uint32_t bh = std::max(1U, mask.height() / 10);
  std::vector<Query> queries;
  for (int tries = 0; queries.size() < count && tries < 100000; ++tries) {
    const bool long_pair = queries.size() % 2 == 1;
    const Query q = long_pair ? Query{in_box(0, 0, bw, bh), in_box(mask.width() - bw,
                                                                   mask.height() - bh, bw, bh)}
                              : Query{in_box(0, 0, mask.width(), mask.height()),
                                      in_box(0, 0, mask.width(), mask.height())};
    if (q.start.x < 0 || q.goal.x < 0) continue;
    const std::uint32_t a = mesh.rect_at(q.start);
    const std::uint32_t b = mesh.rect_at(q.goal);
    if (mesh.component(a) == mesh.component(b)) queries.push_back(q);
  }
  return queries;
}

template <typename F>
double median_micros(int repetitions, F&& run) {
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    const auto begin = Clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

double p99(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(0.99 * v.size())) - 1)];
}

volatile double sink = 0;

struct MapCase {
  std::string name;
  std::function<Mask()> make;
  std::filesystem::path scen = {};  // empty: generated queries
};

}  // namespace

int main(int argc, char** argv) {
  const std::size_t per_map = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 60;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string only = argc > 3 ? argv[3] : "";
  std::vector<MapCase> cases;
  std::vector<std::filesystem::path> scens;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kDataDir)) {
    if (entry.path().filename().string().ends_with(".map.scen")) scens.push_back(entry.path());
  }
  std::sort(scens.begin(), scens.end());
  for (const auto& scen : scens) {
    const std::filesystem::path map = std::filesystem::path(scen).replace_extension();
    cases.push_back({scen.parent_path().filename().string() + "/" + map.stem().string(),
                     [map] { return load_map(map); }, scen});
  }
  using pathbench::maze_mask;
  using pathbench::random_obstacle_mask;
  using pathbench::rooms_mask;
  for (const int percent : {5, 10, 20, 30, 40}) {
    for (const std::uint32_t side : {512U, 1024U}) {
      cases.push_back({"random" + std::to_string(side) + "-" + std::to_string(percent), [=] {
                         return random_obstacle_mask(side, side, percent / 100.0, 7);
                       }});
    }
  }
  for (const std::uint32_t corridor : {1U, 4U, 16U, 32U}) {
    cases.push_back({"maze1024-" + std::to_string(corridor),
                     [=] { return maze_mask(1024, 1024, corridor, std::max(1U, corridor / 4), 3); }});
  }
  cases.push_back({"rooms1024-32", [] { return rooms_mask(1024, 1024, 32, 4, 5); }});
  cases.push_back({"fullhd-30", [] { return random_obstacle_mask(1920, 1080, 0.30, 11); }});
  cases.push_back({"random2048-10", [] { return random_obstacle_mask(2048, 2048, 0.10, 13); }});
  cases.push_back({"random2048-30", [] { return random_obstacle_mask(2048, 2048, 0.30, 17); }});
  cases.push_back({"maze2048-1", [] { return maze_mask(2048, 2048, 1, 1, 19); }});

  const pathcore::FindPathOptions options;  // FindPath's defaults
  std::printf("%-18s %9s %8s %8s %7s | %9s %9s | %9s %9s | %6s %6s\n", "map", "size", "rects",
              "mesh ms", "mesh MB", "aa mean", "aa p99", "def mean", "def p99", "mean x", "p99 x");
  for (const MapCase& c : cases) {
    if (c.name.find(only) == std::string::npos) continue;
    const Mask mask = c.make();
    std::optional<pathcore::AnyAngleMesh> mesh;
    const double mesh_us = median_micros(repetitions, [&] {
      mesh.emplace(pathcore::AnyAngleMesh::build(mask, pathcore::kAllAreas, false));
    });
    const std::vector<Query> queries = c.scen.empty()
                                           ? generated_queries(mask, *mesh, per_map, 23)
                                           : spread(load_queries(c.scen), per_map);
    std::vector<double> any_angle;
    std::vector<double> default_mode;
    for (const Query& q : queries) {
      any_angle.push_back(median_micros(repetitions, [&] {
        const auto path = pathcore::find_any_angle_path(*mesh, q.start, q.goal);
        sink = sink + (path ? path->length : 0);
      }));
      default_mode.push_back(median_micros(repetitions, [&] {
        sink = sink + pathcore::find_path(mask, q.start, q.goal, options).length;
      }));
    }
    const std::string size = std::to_string(mask.width()) + "x" + std::to_string(mask.height());
    std::printf("%-18s %9s %8zu %8.1f %7.1f | %9.0f %9.0f | %9.0f %9.0f | %6.2f %6.2f\n",
                c.name.c_str(), size.c_str(), mesh->rect_count(), mesh_us / 1000,
                static_cast<double>(mesh->memory_bytes()) / 1e6, mean(any_angle), p99(any_angle),
                mean(default_mode), p99(default_mode), mean(any_angle) / mean(default_mode),
                p99(any_angle) / p99(default_mode));
    std::fflush(stdout);
  }
  return 0;
}
