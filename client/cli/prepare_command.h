#pragma once

// `pathfind prepare` and upload's --prepare: PrepareMask, its progress shown
// as a bar on a terminal and as plain lines otherwise.

#include <CLI/CLI.hpp>
#include <string>

#include "command.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace pathfinder::cli {

[[nodiscard]] Command add_prepare_command(CLI::App& app);

// Reads upload's --prepare list ("any-angle,labels,nearest,corner-cutting,
// clearance=R,areas=LIST", any of them) into request (mask left as it is).
// Throws UsageError naming a bad item.
void parse_prepare_list(const std::string& text, pathfinding::v1::PrepareMaskRequest& request);

// Runs PrepareMask, showing its progress on stdout (a bar on a terminal,
// plain lines otherwise; with json, one JSON object per message). Returns
// the exit code (kExitRpcError with the status on stderr when it fails).
int run_prepare_with_progress(Client& client, const pathfinding::v1::PrepareMaskRequest& request,
                              bool json);

}  // namespace pathfinder::cli
