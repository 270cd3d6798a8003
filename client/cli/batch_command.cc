// `pathfind batch`: BatchFindPaths, the paths from many starts to one goal.

#include "batch_command.h"

#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_errors.h"
#include "cli_format.h"
#include "cli_goals.h"
#include "cli_obstacles.h"
#include "cli_options.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

struct BatchArgs {
  std::string mask;
  // GX GY then the starts as "X,Y"; with --goals only the starts.
  std::vector<std::string> positionals;
  std::vector<std::string> goals;  // --goals X,Y ...
  std::string starts_file;          // one "X,Y" a line; "-" = stdin
  PathArgs path;
  std::vector<std::string> obstacles;
  std::uint64_t expected_revision = 0;
};

// The starts of a file or stdin: one "X,Y" a line, blank lines skipped.
void read_starts(std::istream& in, const std::string& name, pb::BatchFindPathsRequest& request) {
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (trimmed(line).empty()) continue;
    *request.add_starts() = parse_xy(line, name + " line " + std::to_string(number), "a start as X,Y");
  }
  if (in.bad()) throw FileError("cannot read " + name);
}

int run_batch(pathfinder::Client& client, const BatchArgs& args, bool json) {
  pb::BatchFindPathsRequest request;
  request.set_mask(args.mask);
  std::size_t first_start = 0;
  if (args.goals.empty()) {
    std::int32_t gx = 0;
    std::int32_t gy = 0;
    if (args.positionals.size() < 2 || !parse_int(args.positionals[0], gx) ||
        !parse_int(args.positionals[1], gy)) {
      throw UsageError("batch: expected the goal as GX GY (two integers) before the starts, or "
                       "--goals X,Y ...");
    }
    *request.mutable_goal() = pathfinder::make_point(gx, gy);
    first_start = 2;
  } else {
    for (const pb::Point& goal : parse_goals(args.goals)) *request.add_goals() = goal;
  }
  for (std::size_t i = first_start; i < args.positionals.size(); ++i) {
    *request.add_starts() = parse_xy(args.positionals[i], "START", "a start as X,Y");
  }
  if (args.starts_file == "-") {
    read_starts(std::cin, "stdin", request);
  } else if (!args.starts_file.empty()) {
    std::ifstream file(args.starts_file);
    if (!file) throw FileError("cannot open " + args.starts_file);
    read_starts(file, args.starts_file, request);
  }
  if (request.starts_size() == 0) {
    throw UsageError("batch: no starts (give X,Y arguments or --starts-file)");
  }
  // FindPath's options, set as find sets them, then copied field by field.
  check_path_flags(args.path, /*any_angle_allowed=*/true);
  pb::FindPathRequest options;
  fill_path_request(args.path, options);
  request.set_enabled_areas(options.enabled_areas());
  request.set_connectivity(options.connectivity());
  request.set_allow_corner_cutting(options.allow_corner_cutting());
  request.set_smoothing(options.smoothing());
  request.set_snap_to_reachable(options.snap_to_reachable());
  *request.mutable_area_costs() = options.area_costs();
  request.set_clearance(options.clearance());
  *request.mutable_obstacles() = parse_obstacles(args.obstacles);
  request.set_expected_revision(args.expected_revision);

  const auto result = client.batch_find_paths(request);
  const int code = report(client, result, json, [&](const pb::BatchFindPathsResponse& response) {
    std::string text;
    pb::FindPathRequest single = options;  // each start's FindPath, for the wording
    single.set_mask(request.mask());
    if (request.has_goal()) *single.mutable_goal() = request.goal();
    *single.mutable_goals() = request.goals();
    for (int i = 0; i < response.paths_size() && i < request.starts_size(); ++i) {
      *single.mutable_start() = request.starts(i);
      if (i > 0) text += "\n";
      text += "start " + std::to_string(i) + " (" + std::to_string(request.starts(i).x()) + "," +
              std::to_string(request.starts(i).y()) + ")\n" +
              format_find_path(single, response.paths(i));
    }
    return text;
  });
  if (code != kExitOk) return code;
  int missing = 0;
  for (const auto& path : result.value.paths()) missing += path.found() ? 0 : 1;
  if (missing > 0) {
    return report_no_answer("no path for " + std::to_string(missing) + " of " +
                                std::to_string(request.starts_size()) + " starts",
                            json);
  }
  return kExitOk;
}

}  // namespace

Command add_batch_command(CLI::App& app) {
  auto [batch, args, command] =
      add_command(app, "batch",
                  "Find the paths on MASK from many starts to (GX,GY), or each to the nearest "
                  "of --goals",
                  run_batch);
  batch->add_option("MASK", args->mask, "Mask name")->required();
  batch->add_option("GX GY START", args->positionals,
                    "The goal's column and row (not with --goals), then the starts as X,Y (e.g. "
                    "3,4 10,2)");
  add_goals_option(*batch, args->goals, "GX GY (each start goes to its nearest)");
  batch
      ->add_option("--starts-file", args->starts_file,
                   "Also the starts of FILE, one X,Y a line (blank lines skipped); - reads stdin")
      ->type_name("FILE");
  add_path_options(*batch, args->path);
  add_obstacle_option(*batch, args->obstacles);
  add_expected_revision_option(*batch, args->expected_revision);
  batch->footer(
      "One BatchFindPaths call: the starts of the arguments, then those of --starts-file, in that "
      "order, at most the server's --max-batch-starts (10,000 by default). Prints, per start, "
      "'start I (X,Y)' and what find prints for it; with --json the whole answer as one JSON "
      "object. Exits 3 when at least one start has no path (each says why; with --json the "
      "count goes to stderr). With --goals, give the starts before it (it takes every X,Y that "
      "follows): pathfind batch MASK 3,4 10,2 --goals 60,40 5,40; each answer says which goal "
      "it took.");
  return command;
}

}  // namespace pathfinder::cli
