// Exact any-angle paths (issue 21) on the Moving AI maps: the cost of each
// level (per-mask graph, per-goal table, per-start query) against pathcore's
// default FindPath on the same queries, in one run, as ratios:
//   cold ratio = (search toward the start + query) / find_path with default
//                options (flood fill + trace + beautify, no field cached),
//                what a goal's first call costs (the server builds the
//                complete table after answering; "table us" is its cost, and
//                "table+q x" the cold ratio when the first call built it),
//   warm ratio = query with the table cached / beeline_answer +
//                path_from_field with the field cached.
// The per-mask graph is built once per map (cached per mask revision by the
// server); its cost and size are reported beside. Times are the median of
// several repetitions per scenario; the ratios are per map, then averaged.
// Usage: any_angle_bench [scenarios per map (default 24)] [repetitions (5)]
//                        [only maps whose name contains this]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pathcore/any_angle.h"
#include "pathcore/codec.h"
#include "pathcore/distance_field.h"
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

volatile double sink = 0;

}  // namespace

int main(int argc, char** argv) {
  const std::size_t per_map = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 24;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string only = argc > 3 ? argv[3] : "";
  std::vector<std::filesystem::path> scens;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kDataDir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".map.scen") && name.find(only) != std::string::npos) {
      scens.push_back(entry.path());
    }
  }
  std::sort(scens.begin(), scens.end());
  const pathcore::FindPathOptions options;  // FindPath's defaults
  std::printf("%-16s %7s %8s %9s %9s | %9s %9s %9s | %9s %9s %9s %9s | %6s %6s %9s %8s\n", "map", "corners",
              "edges", "graph ms", "graph MB", "cold us", "table us", "query us", "default", "warm",
              "table KB", "paths", "cold x", "warm x", "table+q x", "searched");
  double cold_ratio_sum = 0;
  double warm_ratio_sum = 0;
  double table_cold_ratio_sum = 0;
  int maps = 0;
  for (const auto& scen : scens) {
    const Mask mask = load_map(scen.parent_path() / scen.stem());  // x.map.scen -> x.map
    const std::vector<Query> all = load_queries(scen);
    std::vector<Query> queries;
    for (std::size_t i = 0; i < per_map && !all.empty(); ++i) {
      queries.push_back(all[(i * all.size()) / per_map + all.size() / (2 * per_map)]);
    }
    std::optional<pathcore::AnyAngleGraph> graph;
    const double graph_us = median_micros(1, [&] {
      graph.emplace(pathcore::AnyAngleGraph::build(mask, options.field.enabled,
                                                   options.field.allow_corner_cutting));
    });
    double cold_default = 0, warm_default = 0, cold_any = 0, table_only = 0, warm_any = 0;
    double table_bytes = 0;
    double settled_share = 0;  // of the corners, by the search toward the start
    int found = 0;
    for (const Query& q : queries) {
      cold_default += median_micros(repetitions, [&] {
        sink = sink + pathcore::find_path(mask, q.start, q.goal, options).length;
      });
      const pathcore::DistanceField field =
          pathcore::compute_distance_field(mask, q.goal, options.field);
      warm_default += median_micros(repetitions, [&] {
        const auto beeline = pathcore::beeline_answer(mask, q.start, q.goal, options);
        sink = sink + (beeline ? beeline->length
                               : pathcore::path_from_field(mask, field, q.start, options).length);
      });
      table_only += median_micros(repetitions, [&] {
        sink = sink + pathcore::AnyAngleGoalTable::build(*graph, q.goal).distance(0);
      });
      cold_any += median_micros(repetitions, [&] {
        const auto toward = pathcore::AnyAngleGoalTable::build_toward(*graph, q.goal, q.start);
        const auto path = pathcore::find_any_angle_path(*graph, toward, q.start);
        sink = sink + (path ? path->length : 0);
      });
      {
        // How much of the graph a goal's first call searches.
        const auto toward = pathcore::AnyAngleGoalTable::build_toward(*graph, q.goal, q.start);
        std::size_t finite = 0;
        for (std::uint32_t c = 0; c < toward.corner_count(); ++c) {
          finite += std::isfinite(toward.distance(c)) ? 1 : 0;
        }
        settled_share += graph->corner_count() == 0
                             ? 0
                             : static_cast<double>(finite) /
                                   static_cast<double>(graph->corner_count());
      }
      const auto table = pathcore::AnyAngleGoalTable::build(*graph, q.goal);
      table_bytes += static_cast<double>(table.memory_bytes());
      warm_any += median_micros(repetitions, [&] {
        const auto path = pathcore::find_any_angle_path(*graph, table, q.start);
        sink = sink + (path ? path->length : 0);
      });
      found += pathcore::find_any_angle_path(*graph, table, q.start).has_value() ? 1 : 0;
    }
    const double n = static_cast<double>(queries.size());
    const double cold_ratio = cold_any / cold_default;
    const double warm_ratio = warm_any / warm_default;
    // The cold call as it was before the search toward the start: the
    // complete table, then the query.
    const double table_cold_ratio = (table_only + warm_any) / cold_default;
    table_cold_ratio_sum += table_cold_ratio;
    cold_ratio_sum += cold_ratio;
    warm_ratio_sum += warm_ratio;
    ++maps;
    std::printf(
        "%-16s %7zu %8zu %9.1f %9.2f | %9.0f %9.0f %9.1f | %9.0f %9.1f %9.0f %9d | %6.2f %6.2f %9.2f %7.1f%%\n",
        scen.stem().stem().string().c_str(), graph->corner_count(), graph->edge_count(),
        graph_us / 1000, static_cast<double>(graph->memory_bytes()) / 1e6, cold_any / n,
        table_only / n, warm_any / n, cold_default / n, warm_default / n, table_bytes / n / 1e3,
        found, cold_ratio, warm_ratio, table_cold_ratio, 100 * settled_share / n);
    std::fflush(stdout);
  }
  std::printf(
      "mean over %d maps: cold any-angle / cold FindPath = %.2f, warm / warm = %.2f, "
      "complete table + query / cold FindPath = %.2f\n",
      maps, cold_ratio_sum / maps, warm_ratio_sum / maps, table_cold_ratio_sum / maps);
  return 0;
}
