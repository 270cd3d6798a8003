#include "cli_errors.h"

#include <iostream>

#include "cli_format.h"
#include "cli_json.h"
#include "server_address.h"

namespace pathfinder::cli {

namespace {

void print_json_line(std::string_view code, const std::string& message) {
  std::cerr << JsonObject().add_string("code", code).add_string("message", message).str() << "\n";
}

}  // namespace

int exit_code_for(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ? kExitUsage : kExitRpcError;
}

void print_error(std::string_view code, const std::string& message, bool json) {
  if (json) {
    print_json_line(code, message);
  } else {
    std::cerr << "error: " << code << (message.empty() ? "" : ": " + message) << "\n";
  }
}

int report_status(const Client& client, const grpc::Status& status, bool json) {
  const std::string message =
      cli_message(status.error_message()) + flags::connection_hint(status, client.target());
  print_error(status_code_name(status.error_code()), message, json);
  return exit_code_for(status);
}

int report_usage_error(const std::string& message, bool json) {
  if (json) {
    print_json_line("INVALID_ARGUMENT", message);
  } else {
    std::cerr << "error: " << message << "\n";
  }
  return kExitUsage;
}

void print_warning(const std::string& message, bool json) {
  if (json) {
    print_json_line("WARNING", message);
  } else {
    std::cerr << "warning: " << message << "\n";
  }
}

int report_no_answer(const std::string& reason, bool json) {
  if (json) print_json_line("NO_ANSWER", reason);
  return kExitNoPath;
}

}  // namespace pathfinder::cli
