#pragma once

// `pathfind` find, reachable and standard-move: FindPath, Reachable and
// StandardMove on a mask the server stores. Each add_*_command registers its
// subcommand on app (in the order of the calls, which is the order of --help).

#include <CLI/CLI.hpp>

#include "command.h"

namespace pathfinder::cli {

[[nodiscard]] Command add_find_command(CLI::App& app);
[[nodiscard]] Command add_reachable_command(CLI::App& app);
[[nodiscard]] Command add_standard_move_command(CLI::App& app);

}  // namespace pathfinder::cli
