#pragma once

// `pathfind render`: a PNG of a mask (a local file, or a mask on the server)
// with its areas, optionally a path, the distance field to the goal as a
// heatmap and the component labels. Drawing is pathcore::render.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.h"
#include "command.h"
#include "pathfinder/client.h"

namespace pathfinder::cli {

struct RenderArgs {
  std::string mask;                // a mask on the server, or
  std::string mask_file;           // a local image file
  DecodeArgs decode;               // how mask_file is decoded
  std::vector<std::int32_t> from;  // X Y, or empty
  std::vector<std::int32_t> to;    // X Y, or empty
  PathArgs path;
  bool heatmap = false;
  bool components = false;
  std::uint32_t scale = 1;
  bool no_legend = false;  // leave out the legend strip under the map
  std::string output;
};

// Registers the `render` subcommand on app.
[[nodiscard]] Command add_render_command(CLI::App& app);

// Renders and writes the PNG; prints what it wrote (a JSON object with json).
// Returns the exit code: 1 with "error: STATUS: message" on stderr when a call
// fails. Throws UsageError or FileError for bad arguments, local input or an
// unwritable output (exit code 2).
[[nodiscard]] int run_render(Client& client, const RenderArgs& args, bool json);

}  // namespace pathfinder::cli
