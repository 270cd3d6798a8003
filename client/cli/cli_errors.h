#pragma once

// How `pathfind` reports what went wrong, one rule for every command: on
// stderr, as "error: CODE: message" text, or under --json as one JSON object
// {"code":"CODE","message":"..."}. CODE is the gRPC status name of a failed
// call (INVALID_ARGUMENT for a usage error the CLI found itself), WARNING for
// a warning and NO_ANSWER when a query was answered without a result.
//
// Exit codes: 0 done; 1 the server or the connection reported an error;
// 2 a usage error, including the server's INVALID_ARGUMENT (it refused a
// value the command line gave); 3 no answer (find, standard-move, render:
// no path; batch: a start without one; field: no sample reaches the goal).

#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

#include "pathfinder/client.h"

namespace pathfinder::cli {

// The exit code of a failed call: kExitUsage for INVALID_ARGUMENT, else kExitRpcError.
[[nodiscard]] int exit_code_for(const grpc::Status& status);

// Prints one error (code as the gRPC docs name it, e.g. "NOT_FOUND") on stderr.
void print_error(std::string_view code, const std::string& message, bool json);

// Prints the failed call's status in the CLI's words (format_status), saying
// "is the server running at HOST:PORT?" when it could not connect. Returns
// exit_code_for(status).
[[nodiscard]] int report_status(const Client& client, const grpc::Status& status, bool json);

// Prints a usage error (code INVALID_ARGUMENT). Returns kExitUsage.
[[nodiscard]] int report_usage_error(const std::string& message, bool json);

// "warning: message", or under json {"code":"WARNING","message":...}.
void print_warning(const std::string& message, bool json);

// Why the answer holds no result. The text answer on stdout already says
// why; under json, whose stdout is the answer object alone, the reason goes
// to stderr as {"code":"NO_ANSWER","message":reason}. Returns kExitNoPath.
[[nodiscard]] int report_no_answer(const std::string& reason, bool json);

}  // namespace pathfinder::cli
