#pragma once

// `pathfind range`: the movement range of a start within a cost budget
// (GetRange): its size and bounds, a picture of a small one, and with --png
// an image of it.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli_options.h"
#include "command.h"
#include "pathfinder/client.h"

namespace pathfinder::cli {

struct RangeArgs {
  std::string mask;
  std::string start;  // X,Y
  double max_cost = 0;
  PathArgs path;      // only the range's options are used
  bool costs = false;
  std::string png;
  std::vector<std::string> obstacles;  // --obstacle SHAPE
  std::uint64_t expected_revision = 0;
};

// Registers the `range` subcommand on app.
[[nodiscard]] Command add_range_command(CLI::App& app);

// Asks for the range and prints it (a JSON object with json). Returns the
// exit code: 1 with "error: STATUS: message" on stderr when the call fails.
// Throws UsageError (a bad X,Y) or FileError (an unwritable --png).
[[nodiscard]] int run_range(Client& client, const RangeArgs& args, bool json);

}  // namespace pathfinder::cli
