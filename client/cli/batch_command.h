#pragma once

// `pathfind batch`: BatchFindPaths, the paths from many starts to one goal.

#include <CLI/CLI.hpp>

#include "command.h"

namespace pathfinder::cli {

[[nodiscard]] Command add_batch_command(CLI::App& app);

}  // namespace pathfinder::cli
