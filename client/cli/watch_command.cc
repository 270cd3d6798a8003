// `pathfind watch MASK [--count N] [--for SECONDS]`: prints the mask's
// current revision, then one line per change (WatchMask), until Ctrl-C,
// --count messages or --for seconds.

#include "watch_command.h"

#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "cli_errors.h"
#include "cli_format.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

struct WatchArgs {
  std::string mask;
  std::uint64_t count = 0;  // 0: no limit
  double seconds = 0;       // 0: no limit
};

std::string kind_name(pb::MaskChangeKind kind) {
  switch (kind) {
    case pb::MASK_CHANGE_KIND_CURRENT:
      return "current";
    case pb::MASK_CHANGE_KIND_UPLOAD:
      return "upload";
    case pb::MASK_CHANGE_KIND_PATCH:
      return "patch";
    case pb::MASK_CHANGE_KIND_LINKS:
      return "links";
    case pb::MASK_CHANGE_KIND_DELETE:
      return "delete";
    default:
      return "kind " + std::to_string(static_cast<int>(kind));
  }
}

// "revision 4 patch 10,20 5x3 (2 changes missed)"
std::string change_line(const pb::MaskChange& change) {
  std::ostringstream line;
  line << "revision " << change.revision() << " " << kind_name(change.kind());
  if (change.kind() == pb::MASK_CHANGE_KIND_PATCH) {
    line << " " << change.changed().x() << "," << change.changed().y() << " "
         << change.changed().width() << "x" << change.changed().height();
  } else if (change.kind() != pb::MASK_CHANGE_KIND_DELETE) {
    line << " " << change.width() << "x" << change.height();
  }
  if (!change.sha256().empty()) line << " sha256 " << change.sha256().substr(0, 12);
  if (change.missed() != 0) {
    line << " (" << change.missed() << (change.missed() == 1 ? " change" : " changes")
         << " missed)";
  }
  return line.str();
}

int run_watch(Client& client, const WatchArgs& args, bool json) {
  std::optional<std::chrono::milliseconds> duration;
  if (args.seconds > 0) {
    duration = std::chrono::milliseconds(std::llround(args.seconds * 1000));
  }
  std::uint64_t seen = 0;
  const grpc::Status status = client.watch_mask(
      args.mask,
      [&](const pb::MaskChange& change) {
        std::cout << (json ? to_json(change) : change_line(change)) << "\n";
        std::cout.flush();
        return args.count == 0 || ++seen < args.count;
      },
      duration);
  if (!status.ok()) return report_status(client, status, json);
  return kExitOk;
}

}  // namespace

Command add_watch_command(CLI::App& app) {
  auto [watch, args, command] = add_command(
      app, "watch",
      "Print mask MASK's revision, then one line per change (upload, patch, delete), until "
      "Ctrl-C (WatchMask)",
      run_watch);
  watch->add_option("MASK", args->mask, "Mask name")->required();
  watch->add_option("--count", args->count, "Stop after N messages, the first included (0: never)")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  watch->add_option("--for", args->seconds, "Stop after SECONDS (0: never)")
      ->type_name("SECONDS")
      ->check(CLI::NonNegativeNumber);
  return command;
}

}  // namespace pathfinder::cli
