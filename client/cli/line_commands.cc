// `pathfind` los and nearest: batches of segments or points, from the command
// line or a file of whitespace-separated integers.

#include "line_commands.h"

#include <cstdint>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli_coordinates.h"
#include "cli_format.h"
#include "cli_obstacles.h"
#include "cli_options.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

struct LineOfSightArgs {
  std::string mask;
  std::vector<std::int32_t> coordinates;
  std::string file;
  std::string areas;
  bool corner_cutting = false;
  double clearance = 0;
  std::vector<std::string> obstacles;
  std::uint64_t expected_revision = 0;
};

struct NearestArgs {
  std::string mask;
  std::vector<std::int32_t> coordinates;
  std::string file;
  std::string areas;
  bool eight = false;
  bool corner_cutting = false;
  double clearance = 0;
  std::vector<std::int32_t> from;
  std::uint64_t expected_revision = 0;
};

std::string point_text(const pb::Point& p) {
  return "(" + std::to_string(p.x()) + "," + std::to_string(p.y()) + ")";
}

std::string distance_text(double distance) {
  std::ostringstream text;
  text.precision(6);
  text << distance;
  return text.str();
}

int run_line_of_sight(pathfinder::Client& client, const LineOfSightArgs& args, bool json) {
  const std::vector<std::int32_t> values = all_coordinates(args.coordinates, args.file);
  if (values.empty() || values.size() % 4 != 0) {
    throw UsageError("los: expected AX AY BX BY, four numbers per pair, got " +
                     std::to_string(values.size()) + " numbers");
  }
  pb::LineOfSightRequest request;
  request.set_mask(args.mask);
  for (std::size_t i = 0; i < values.size(); i += 4) {
    auto* pair = request.add_pairs();
    *pair->mutable_a() = pathfinder::make_point(values[i], values[i + 1]);
    *pair->mutable_b() = pathfinder::make_point(values[i + 2], values[i + 3]);
  }
  request.set_enabled_areas(parse_areas(args.areas));
  request.set_allow_corner_cutting(args.corner_cutting);
  request.set_clearance(args.clearance);
  *request.mutable_obstacles() = parse_obstacles(args.obstacles);
  request.set_expected_revision(args.expected_revision);
  return report(client, client.line_of_sight(request), json, [&](const pb::LineOfSightResponse& response) {
    std::string text = "revision " + std::to_string(response.mask_revision());
    for (int i = 0; i < response.results_size() && i < request.pairs_size(); ++i) {
      const pb::LineOfSightResult& result = response.results(i);
      const char* verdict = result.clear()                            ? "clear"
                            : result.first_blocked_lacks_clearance() ? "lacks clearance at "
                                                                     : "blocked at ";
      text += "\n" + point_text(request.pairs(i).a()) + " -> " + point_text(request.pairs(i).b()) +
              ": " + verdict + (result.clear() ? "" : point_text(result.first_blocked()));
    }
    return text;
  });
}

int run_nearest(pathfinder::Client& client, const NearestArgs& args, bool json) {
  require_flag(args.eight, !args.from.empty(), "--eight", "--from");
  require_flag(args.corner_cutting, !args.from.empty() && args.eight, "--corner-cutting",
               "--from and --eight");
  const std::vector<std::int32_t> values = all_coordinates(args.coordinates, args.file);
  if (values.empty() || values.size() % 2 != 0) {
    throw UsageError("nearest: expected X Y, two numbers per point, got " +
                     std::to_string(values.size()) + " numbers");
  }
  pb::NearestWalkableRequest request;
  request.set_mask(args.mask);
  for (std::size_t i = 0; i < values.size(); i += 2) {
    *request.add_points() = pathfinder::make_point(values[i], values[i + 1]);
  }
  request.set_enabled_areas(parse_areas(args.areas));
  request.set_connectivity(args.eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
  request.set_allow_corner_cutting(args.corner_cutting);
  request.set_clearance(args.clearance);
  if (!args.from.empty()) {
    *request.mutable_reachable_from() = pathfinder::make_point(args.from[0], args.from[1]);
  }
  request.set_expected_revision(args.expected_revision);
  return report(client, client.nearest_walkable(request), json,
                [&](const pb::NearestWalkableResponse& response) {
                  std::string text = "revision " + std::to_string(response.mask_revision());
                  for (int i = 0; i < response.results_size() && i < request.points_size(); ++i) {
                    const pb::NearestWalkableResult& result = response.results(i);
                    text += "\n" + point_text(request.points(i)) + ": ";
                    text += result.found() ? point_text(result.point()) + " at " +
                                                 distance_text(result.distance())
                                           : "none";
                  }
                  return text;
                });
}

}  // namespace

Command add_line_of_sight_command(CLI::App& app) {
  auto [los, args, command] = add_command(
      app, "los", "Is the straight segment (AX,AY)-(BX,BY) walkable? One answer per quad",
      run_line_of_sight);
  los->add_option("MASK", args->mask, "Mask name")->required();
  los->add_option("COORDS", args->coordinates, "AX AY BX BY [AX AY BX BY ...] (or --file)");
  add_file_option(*los, args->file, "AX AY BX BY quads");
  los->add_option("--areas", args->areas, "Walkable area ids (default all)");
  los->add_flag("--corner-cutting", args->corner_cutting,
                "Test the segment's Bresenham pixels, which may pass between blocked pixels "
                "whose corners touch (default: every pixel the segment touches, corners included)");
  add_clearance_option(*los, args->clearance,
                       "Agent clearance in pixels: only pixels whose centre is at least this far "
                       "from every blocked pixel and the mask edge count (as find --clearance)");
  add_obstacle_option(*los, args->obstacles);
  add_expected_revision_option(*los, args->expected_revision);
  los->footer(
      "Prints one line per pair: 'clear', or 'blocked at (x,y)', the first blocked pixel walking "
      "from (AX,AY), or 'lacks clearance at (x,y)' when that pixel is walkable but an agent of "
      "--clearance does not fit there.");
  return command;
}

Command add_nearest_command(CLI::App& app) {
  auto [nearest, args, command] = add_command(
      app, "nearest",
      "The nearest walkable pixel (with --clearance: usable) to each (X,Y), by FindPath's "
      "snapping rule",
      run_nearest);
  nearest->add_option("MASK", args->mask, "Mask name")->required();
  nearest->add_option("COORDS", args->coordinates, "X Y [X Y ...] (or --file)");
  add_file_option(*nearest, args->file, "X Y points");
  nearest->add_option("--areas", args->areas, "Walkable area ids (default all)");
  nearest->add_option("--from", args->from,
                      "Only pixels reachable from (X,Y) count (an unwalkable X Y first moves to "
                      "its nearest walkable pixel, as find --snap does)")
      ->expected(2)
      ->type_name("X Y");
  nearest->add_flag("--eight", args->eight, "With --from: eight neighbours (default four)");
  nearest->add_flag("--corner-cutting", args->corner_cutting,
                    "With --from and --eight: diagonal steps may pass blocked corners that touch");
  add_clearance_option(*nearest, args->clearance,
                       "Agent clearance in pixels: only pixels whose centre is at least this far "
                       "from every blocked pixel and the mask edge count (as find --clearance)");
  add_expected_revision_option(*nearest, args->expected_revision);
  nearest->footer(
      "Prints one line per point: the nearest pixel (Euclidean distance between pixel centres, "
      "ties to the first in row-major order) and its distance, or 'none' when no pixel "
      "qualifies.");
  return command;
}

}  // namespace pathfinder::cli
