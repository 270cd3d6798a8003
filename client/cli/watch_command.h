#pragma once

// `pathfind watch MASK`: one line per change of a mask (WatchMask).

#include <CLI/CLI.hpp>

#include "command.h"

namespace pathfinder::cli {

[[nodiscard]] Command add_watch_command(CLI::App& app);

}  // namespace pathfinder::cli
