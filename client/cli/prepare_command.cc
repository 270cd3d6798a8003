// `pathfind prepare MASK --any-angle ...`: builds what queries will need into
// the server's caches (PrepareMask), showing each stage's progress.

#include "prepare_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include "cli_errors.h"
#include "cli_format.h"
#include "cli_options.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

struct PrepareArgs {
  std::string mask;
  bool any_angle = false;
  bool labels = false;
  bool nearest = false;
  std::string areas;
  bool eight = false;
  bool corner_cutting = false;
  double clearance = 0;
  std::uint64_t expected_revision = 0;
};

std::string stage_name(pb::PrepareStage stage) {
  switch (stage) {
    case pb::PREPARE_STAGE_USABLE_MASK:
      return "usable mask";
    case pb::PREPARE_STAGE_ANY_ANGLE:
      return "any-angle";
    case pb::PREPARE_STAGE_LABELS:
      return "labels";
    case pb::PREPARE_STAGE_NEAREST:
      return "nearest";
    default:
      return "stage " + std::to_string(static_cast<int>(stage));
  }
}

int percent(double fraction) { return static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100.0); }

// "[3/4] any-angle  [##########..........]  50%": one line, redrawn in place.
std::string bar_line(const pb::PrepareProgress& progress) {
  constexpr int kWidth = 30;
  const int filled = percent(progress.fraction_done()) * kWidth / 100;
  std::ostringstream line;
  line << "[" << std::min(progress.stages_done() + 1, progress.stage_count()) << "/"
       << progress.stage_count() << "] " << stage_name(progress.stage()) << "  ["
       << std::string(static_cast<std::size_t>(filled), '#')
       << std::string(static_cast<std::size_t>(kWidth - filled), '.') << "] " << std::setw(3)
       << percent(progress.fraction_done()) << "%";
  return line.str();
}

int run_prepare(Client& client, const PrepareArgs& args, bool json) {
  require_flag(args.eight, args.labels || args.nearest, "--eight", "--labels or --nearest");
  require_flag(args.corner_cutting, args.any_angle || args.eight, "--corner-cutting",
               "--any-angle, or --eight with --labels or --nearest");
  pb::PrepareMaskRequest request;
  request.set_mask(args.mask);
  request.set_any_angle(args.any_angle);
  request.set_labels(args.labels);
  request.set_nearest(args.nearest);
  if (!args.areas.empty()) request.set_enabled_areas(parse_areas(args.areas));
  request.set_connectivity(args.eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
  request.set_allow_corner_cutting(args.corner_cutting);
  request.set_clearance(args.clearance);
  request.set_expected_revision(args.expected_revision);
  return run_prepare_with_progress(client, request, json);
}

}  // namespace

void parse_prepare_list(const std::string& text, pb::PrepareMaskRequest& request) {
  std::istringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item == "any-angle") {
      request.set_any_angle(true);
    } else if (item == "labels") {
      request.set_labels(true);
    } else if (item == "nearest") {
      request.set_nearest(true);
    } else if (item == "corner-cutting") {
      request.set_allow_corner_cutting(true);
    } else if (item.rfind("clearance=", 0) == 0) {
      const std::string value = item.substr(10);
      std::size_t used = 0;
      double clearance = -1;
      try {
        clearance = std::stod(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != value.size() || !(clearance >= 0) || clearance > 1e6) {
        throw UsageError("--prepare: clearance=" + value + " is not a number of pixels >= 0");
      }
      request.set_clearance(clearance);
    } else if (item.rfind("areas=", 0) == 0) {
      request.set_enabled_areas(parse_areas(item.substr(6)));
    } else {
      throw UsageError("--prepare: unknown item '" + item +
                       "' (any-angle, labels, nearest, corner-cutting, clearance=R, areas=LIST)");
    }
  }
}

int run_prepare_with_progress(Client& client, const pb::PrepareMaskRequest& request, bool json) {
  const bool terminal = !json && isatty(STDOUT_FILENO) != 0;
  bool line_open = false;  // a bar drawn without its newline yet
  const auto result = client.prepare_mask(request, [&](const pb::PrepareProgress& progress) {
    if (json) {
      std::cout << to_json(progress) << "\n";
    } else if (terminal) {
      std::cout << "\r" << bar_line(progress) << "\x1b[K";
      const bool stage_end = progress.fraction_done() >= 1.0;
      if (stage_end && !progress.done()) {
        std::cout << (progress.cache_hit() ? "  (cached)" : "") << "\n";
        line_open = false;
      } else {
        line_open = !progress.done();
      }
    } else if (!progress.done()) {
      std::cout << stage_name(progress.stage()) << " " << percent(progress.fraction_done()) << "%"
                << (progress.fraction_done() >= 1.0 && progress.cache_hit() ? " (cached)" : "")
                << (progress.detail().empty() ? "" : "  " + progress.detail()) << "\n";
    }
    std::cout.flush();
  });
  if (line_open) std::cout << "\n";
  if (!result.ok()) {
    return report_status(client, result.status, json);
  }
  if (!json) {
    std::cout << (result.value.detail().empty() ? "prepared" : result.value.detail()) << "\n";
  }
  return kExitOk;
}

Command add_prepare_command(CLI::App& app) {
  auto [prepare, args, command] = add_command(
      app, "prepare",
      "Build what queries on mask MASK will need into the server's caches (PrepareMask), "
      "showing progress",
      run_prepare);
  prepare->add_option("MASK", args->mask, "Mask name")->required();
  prepare->add_flag("--any-angle", args->any_angle,
                    "Build the structure of --smoothing any-angle paths");
  prepare->add_flag("--labels", args->labels, "Build the component labels of reachable");
  prepare->add_flag("--nearest", args->nearest, "Build the transform of nearest");
  prepare->add_option("--areas", args->areas, "Walkable area ids, e.g. 1,3-5 (default: all)");
  prepare->add_flag("--eight", args->eight, "Eight neighbours (labels, nearest)");
  prepare->add_flag("--corner-cutting", args->corner_cutting,
                    "Allow passing where blocked pixels touch at a corner");
  add_clearance_option(*prepare, args->clearance,
                       "Agent clearance in pixels (builds its usable mask first)");
  add_expected_revision_option(*prepare, args->expected_revision,
                               "Prepare only this mask revision (0 = current)");
  return command;
}

}  // namespace pathfinder::cli
