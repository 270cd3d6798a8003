// `pathfind health`: grpc.health.v1.Health/Check.

#include "health_command.h"

#include <iostream>
#include <memory>
#include <string>

#include "cli_errors.h"
#include "cli_format.h"

namespace pathfinder::cli {

namespace {

struct HealthArgs {
  std::string service;  // "" = the whole server
};

int run_health(pathfinder::Client& client, const HealthArgs& args, bool json) {
  const auto result = client.health_check(args.service);
  if (!result.ok()) {
    return report_status(client, result.status, json);
  }
  const char* status = pathfinder::serving_status_name(result.value);
  if (json) {
    std::cout << "{\"status\":\"" << status << "\"}\n";
  } else {
    std::cout << status << "\n";
  }
  return result.value == pathfinder::ServingStatus::kServing ? kExitOk : kExitRpcError;
}

}  // namespace

Command add_health_command(CLI::App& app) {
  auto [health, args, command] =
      add_command(app, "health",
                  "Ask grpc.health.v1.Health/Check; prints SERVING (exit 0) or the status (exit 1)",
                  run_health);
  health->add_option("SERVICE", args->service, "Service name (default: the whole server)");
  return command;
}

}  // namespace pathfinder::cli
