#include "cli_goals.h"

#include "cli_options.h"

namespace pathfinder::cli {
void add_goals_option(CLI::App& command, std::vector<std::string>& goals,
                      const std::string& instead) {
  command
      .add_option("--goals", goals,
                  "Several goals as X,Y (e.g. --goals 3,4 10,2): the nearest is taken (equal "
                  "costs: the first listed); instead of " +
                      instead)
      ->type_name("X,Y ...")
      ->expected(1, -1);
}

std::vector<pathfinding::v1::Point> parse_goals(const std::vector<std::string>& goals) {
  std::vector<pathfinding::v1::Point> points;
  points.reserve(goals.size());
  for (std::size_t i = 0; i < goals.size(); ++i) {
    points.push_back(parse_xy(goals[i], "--goals[" + std::to_string(i) + "]"));
  }
  return points;
}

std::string goal_taken_text(int goal_count, const pathfinding::v1::FindPathResponse& response) {
  if (goal_count == 0 || !response.found()) return {};
  return "goal " + std::to_string(response.goal_index()) + " of " + std::to_string(goal_count) +
         " (" + std::to_string(response.goal().x()) + "," + std::to_string(response.goal().y()) +
         ") taken";
}

}  // namespace pathfinder::cli
