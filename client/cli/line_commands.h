#pragma once

// `pathfind` los and nearest: LineOfSight and NearestWalkable on a mask the
// server stores, for coordinates given as arguments or read from a file or
// stdin. Each add_*_command registers its subcommand on app.

#include <CLI/CLI.hpp>

#include "command.h"

namespace pathfinder::cli {

[[nodiscard]] Command add_line_of_sight_command(CLI::App& app);
[[nodiscard]] Command add_nearest_command(CLI::App& app);

}  // namespace pathfinder::cli
