// `pathfind` find, reachable and standard-move: the queries on a stored mask.

#include "query_commands.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_coordinates.h"
#include "cli_errors.h"
#include "cli_format.h"
#include "cli_goals.h"
#include "cli_obstacles.h"
#include "cli_options.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

struct FindArgs {
  std::string mask;
  std::int32_t sx = 0, sy = 0;
  std::optional<std::int32_t> gx, gy;
  std::vector<std::string> goals;  // --goals X,Y ...
  PathArgs path;
  double max_cost = 0;
  bool partial = false;
  std::vector<std::string> obstacles;
  std::uint64_t expected_revision = 0;
};

struct ReachableArgs {
  std::string mask;
  std::vector<std::int32_t> coordinates;
  std::string file;
  std::string areas;
  bool eight = false;
  std::vector<std::string> obstacles;
  std::uint64_t expected_revision = 0;
};

struct StandardMoveArgs {
  std::string mask;
  std::int32_t sx = 0, sy = 0, gx = 0, gy = 0;
  std::uint32_t max_moves = 0;
  bool forbid_corner_cutting = false;
  std::string areas;
  std::uint64_t expected_revision = 0;
};

int run_find(pathfinder::Client& client, const FindArgs& args, bool json) {
  pb::FindPathRequest request;
  request.set_mask(args.mask);
  *request.mutable_start() = pathfinder::make_point(args.sx, args.sy);
  const bool goal_given = args.gx.has_value() || args.gy.has_value();
  if (goal_given == !args.goals.empty()) {
    throw UsageError("find: give the goal as GX GY or as --goals X,Y ..., one of the two");
  }
  if (goal_given) {
    if (!args.gx || !args.gy) throw UsageError("find: GY is missing");
    *request.mutable_goal() = pathfinder::make_point(*args.gx, *args.gy);
  }
  for (const pb::Point& goal : parse_goals(args.goals)) *request.add_goals() = goal;
  check_path_flags(args.path, /*any_angle_allowed=*/true);
  fill_path_request(args.path, request);
  request.set_max_cost(args.max_cost);
  request.set_partial(args.partial);
  *request.mutable_obstacles() = parse_obstacles(args.obstacles);
  request.set_expected_revision(args.expected_revision);
  const auto result = client.find_path(request);
  const int code = report(client, result, json, [&](const pb::FindPathResponse& response) {
    return format_find_path(request, response);
  });
  if (code == kExitOk && !result.value.found()) {
    return report_no_answer("no path: " + find_path_reason_text(request, result.value), json);
  }
  return code;
}

int run_reachable(pathfinder::Client& client, const ReachableArgs& args, bool json) {
  const std::vector<std::int32_t> values = all_coordinates(args.coordinates, args.file);
  if (values.empty() || values.size() % 4 != 0) {
    throw UsageError("reachable: expected AX AY BX BY, four numbers per pair, got " +
                     std::to_string(values.size()) + " numbers");
  }
  pb::ReachableRequest request;
  request.set_mask(args.mask);
  for (std::size_t i = 0; i < values.size(); i += 4) {
    auto* pair = request.add_pairs();
    *pair->mutable_a() = pathfinder::make_point(values[i], values[i + 1]);
    *pair->mutable_b() = pathfinder::make_point(values[i + 2], values[i + 3]);
  }
  request.set_enabled_areas(parse_areas(args.areas));
  request.set_connectivity(args.eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
  *request.mutable_obstacles() = parse_obstacles(args.obstacles);
  request.set_expected_revision(args.expected_revision);
  return report(client, client.reachable(request), json, [&](const pb::ReachableResponse& response) {
    return format_reachable(request, response);
  });
}

int run_standard_move(pathfinder::Client& client, const StandardMoveArgs& args, bool json) {
  pb::StandardMoveRequest request;
  request.set_mask(args.mask);
  *request.mutable_start() = pathfinder::make_point(args.sx, args.sy);
  *request.mutable_goal() = pathfinder::make_point(args.gx, args.gy);
  request.set_enabled_areas(parse_areas(args.areas));
  request.set_max_moves(args.max_moves);
  request.set_forbid_corner_cutting(args.forbid_corner_cutting);
  request.set_expected_revision(args.expected_revision);
  const auto result = client.standard_move(request);
  const int code = report(client, result, json, [](const pb::StandardMoveResponse& response) {
    return format_standard_move(response);
  });
  if (code == kExitOk && !result.value.found()) {
    return report_no_answer("no route of at most " +
                                std::to_string(args.max_moves == 0 ? 2 : args.max_moves) +
                                " standard moves" +
                                (result.value.search_truncated() ? " found (the search was cut short)"
                                                                  : ""),
                            json);
  }
  return code;
}

// SX SY GX GY, the positionals of find and standard-move after MASK.
void add_start_goal(CLI::App& command, std::int32_t& sx, std::int32_t& sy, std::int32_t& gx,
                    std::int32_t& gy) {
  command.add_option("SX", sx, "Start column")->required();
  command.add_option("SY", sy, "Start row")->required();
  command.add_option("GX", gx, "Goal column")->required();
  command.add_option("GY", gy, "Goal row")->required();
}

}  // namespace

Command add_find_command(CLI::App& app) {
  auto [find, args, command] =
      add_command(app, "find",
                  "Find a path on MASK from (SX,SY) to (GX,GY), or to the nearest of --goals",
                  run_find);
  find->add_option("MASK", args->mask, "Mask name")->required();
  find->add_option("SX", args->sx, "Start column")->required();
  find->add_option("SY", args->sy, "Start row")->required();
  find->add_option("GX", args->gx, "Goal column (or --goals)");
  find->add_option("GY", args->gy, "Goal row (or --goals)");
  add_goals_option(*find, args->goals, "GX GY");
  add_path_options(*find, args->path);
  find->add_option("--max-cost", args->max_cost,
                   "A cost budget: beyond it, the path to the pixel within it nearest to the goal "
                   "(exit 3, reason budget reached); 0 = none")
      ->check(flags::number_from(0, kMaxCost));
  find->add_flag("--partial", args->partial,
                 "When the goal cannot be reached, the path to the reachable pixel nearest to it "
                 "(exit 3, reason partial)");
  add_obstacle_option(*find, args->obstacles);
  add_expected_revision_option(*find, args->expected_revision);
  find->footer(
      "Prints the path, with --goals which goal it took, and when an end was snapped (--snap) "
      "where to and how far. Exits 3 when "
      "there is no path, saying why (start or goal not walkable, or lacking --clearance, or no "
      "route between them); "
      "with --json the reason goes to stderr.");
  return command;
}

Command add_reachable_command(CLI::App& app) {
  auto [reachable, args, command] = add_command(
      app, "reachable", "Can (BX,BY) be reached from (AX,AY)? One answer per quad", run_reachable);
  reachable->add_option("MASK", args->mask, "Mask name")->required();
  reachable->add_option("COORDS", args->coordinates, "AX AY BX BY [AX AY BX BY ...] (or --file)");
  add_file_option(*reachable, args->file, "AX AY BX BY quads");
  reachable->add_option("--areas", args->areas, "Walkable area ids (default all)");
  reachable->add_flag("--eight", args->eight, "Eight neighbours (default four)");
  add_obstacle_option(*reachable, args->obstacles);
  add_expected_revision_option(*reachable, args->expected_revision);
  return command;
}

Command add_standard_move_command(CLI::App& app) {
  auto [standard_move, args, command] = add_command(
      app, "standard-move", "RPG-style tile route from (SX,SY) to (GX,GY)", run_standard_move);
  standard_move->add_option("MASK", args->mask, "Mask name")->required();
  add_start_goal(*standard_move, args->sx, args->sy, args->gx, args->gy);
  standard_move
      ->add_option("--max-moves", args->max_moves, "Most standard moves to stitch, 1..3 (default 2)")
      ->check(flags::whole_number(1, 3));
  standard_move->add_flag("--forbid-corner-cutting", args->forbid_corner_cutting,
                          "Diagonal steps need both side tiles walkable");
  standard_move->add_option("--areas", args->areas, "Walkable area ids (default all)");
  add_expected_revision_option(*standard_move, args->expected_revision);
  standard_move->footer("Exits 3 when there is no such route (found false).");
  return command;
}

}  // namespace pathfinder::cli
