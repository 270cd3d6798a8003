#pragma once

// `pathfind health [SERVICE]`: prints SERVING (exit 0) or the status the
// server reports (exit 1).

#include <CLI/CLI.hpp>

#include "command.h"

namespace pathfinder::cli {

[[nodiscard]] Command add_health_command(CLI::App& app);

}  // namespace pathfinder::cli
