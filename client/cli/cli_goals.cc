#include "cli_goals.h"

#include <charconv>
#include <cstdint>

#include "cli_format.h"

namespace pathfinder::cli {
namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

bool parse_int(std::string_view text, std::int32_t& value) {
  text = trimmed(text);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

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

pathfinding::v1::Point parse_xy(std::string_view text, const std::string& where) {
  const auto comma = text.find(',');
  std::int32_t x = 0;
  std::int32_t y = 0;
  if (comma == std::string_view::npos || !parse_int(text.substr(0, comma), x) ||
      !parse_int(text.substr(comma + 1), y)) {
    throw UsageError(where + ": expected X,Y (two integers), got '" + std::string(text) + "'");
  }
  return pathfinder::make_point(x, y);
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
