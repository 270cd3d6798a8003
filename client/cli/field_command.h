#pragma once

// `pathfind field`: downloads a distance field (GetField) and writes it as a
// heat map PNG, or as raw float32 with --raw; --flow writes the flow bytes.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.h"
#include "command.h"
#include "pathfinder/client.h"

namespace pathfinder::cli {

struct FieldArgs {
  std::string mask;
  std::vector<std::int32_t> to;     // X Y, or empty with goals
  std::vector<std::string> goals;   // --goals X,Y ...: the field to the nearest
  PathArgs path;                    // only the field's options are used
  std::vector<std::uint32_t> crop;  // X Y W H, or empty
  std::uint32_t downsample = 1;
  bool raw = false;
  std::string flow_output;
  std::string output;
};

// Registers the `field` subcommand on app.
[[nodiscard]] Command add_field_command(CLI::App& app);

// Downloads the field, writes the files and prints what it wrote (a JSON
// object with json). Returns the exit code: 1 with "error: STATUS: message"
// on stderr when the call fails. Throws UsageError or FileError for bad
// arguments or an unwritable output (exit code 2).
[[nodiscard]] int run_field(Client& client, const FieldArgs& args, bool json);

}  // namespace pathfinder::cli
