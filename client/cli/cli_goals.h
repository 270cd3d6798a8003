#pragma once
// --goals X,Y X,Y ...: the several goals of find, batch and field (the
// nearest is taken), and how the taken one is printed.

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "pathfinder/client.h"

namespace pathfinder::cli {

// Adds --goals to command (one or more X,Y values), mutually exclusive with
// the goal form the command names in `instead` (for the help text).
void add_goals_option(CLI::App& command, std::vector<std::string>& goals,
                      const std::string& instead);

// Every --goals value as a point (UsageError naming goals[i] for a bad one).
[[nodiscard]] std::vector<pathfinding::v1::Point> parse_goals(
    const std::vector<std::string>& goals);

// "goal 2 of 3 (x,y)": which of the request's goals a path took; empty when
// the request had no goals list.
[[nodiscard]] std::string goal_taken_text(int goal_count,
                                          const pathfinding::v1::FindPathResponse& response);

}  // namespace pathfinder::cli
