#pragma once

// `pathfind` upload, get, list, delete and patch: the commands on masks
// themselves. Each add_*_command registers its subcommand on app (in the
// order of the calls, which is the order of --help).

#include <CLI/CLI.hpp>

#include "command.h"

namespace pathfinder::cli {

[[nodiscard]] Command add_upload_command(CLI::App& app);
[[nodiscard]] Command add_get_command(CLI::App& app);
[[nodiscard]] Command add_list_command(CLI::App& app);
[[nodiscard]] Command add_delete_command(CLI::App& app);
[[nodiscard]] Command add_patch_command(CLI::App& app);

}  // namespace pathfinder::cli
