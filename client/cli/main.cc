// pathfind: a command-line client for the pathfinder service.
//
//   pathfind [--server HOST:PORT] [--json] [--timeout SECONDS] [--no-retry]
//            [--tls-ca FILE [--tls-cert FILE --tls-key FILE]] <command> ...
//
// Exit codes (cli_errors.h): 0 done; 1 the server or the connection reported
// an error, or `health` found it not serving; 2 a usage error (the server's
// INVALID_ARGUMENT included) or unusable local input; 3 no answer.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "batch_command.h"
#include "cli_errors.h"
#include "cli_format.h"
#include "client_environment.h"
#include "cli_suggest.h"
#include "command.h"
#include "field_command.h"
#include "range_command.h"
#include "health_command.h"
#include "line_commands.h"
#include "mask_commands.h"
#include "number_flags.h"
#include "pathfinder/client.h"
#include "prepare_command.h"
#include "query_commands.h"
#include "render_command.h"
#include "server_address.h"
#include "watch_command.h"

namespace {

using pathfinder::cli::kExitOk;
using pathfinder::cli::kExitRpcError;
using pathfinder::cli::kExitUsage;
using pathfinder::cli::UsageError;
namespace flags = pathfinder::flags;

// Where the CLI connects without --server and PATHFINDER_SERVER: `make run`'s server.
constexpr const char* kDefaultServer = "127.0.0.1:50051";
// The longest --timeout: a day.
constexpr double kMaxTimeoutSeconds = 24.0 * 3600;

// Whether the command line asks for --json, read before (or without) a
// successful parse, so that a usage error is printed as JSON too.
bool asks_for_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return false;
    if (arg == "--json") return true;
  }
  return false;
}

struct GlobalArgs {
  std::string server = kDefaultServer;
  bool json = false;
  double timeout_seconds = 10;
  bool no_retry = false;
  std::string token_file;
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pathfind: a command-line client for the pathfinder gRPC service.", "pathfind"};
  app.footer(
      "Exit codes, the same for every command: 0 done; 1 the server or the connection "
      "reported an error (health: not serving); 2 a usage error, including the server's "
      "INVALID_ARGUMENT for a value the command line gave, or unusable local input; 3 no "
      "answer (find, standard-move, render: no path; batch: a start without one; field: no "
      "sample reaches the goal).\n"
      "Errors go to stderr as 'error: CODE: message' ('error: message' for a usage error the "
      "CLI finds itself), with --json as one JSON object {\"code\":...,\"message\":...} "
      "(CODE a gRPC status name; INVALID_ARGUMENT for usage errors, NO_ANSWER for exit 3).\n"
      "The server is --server, else env PATHFINDER_SERVER, else " +
      std::string(kDefaultServer) +
      ". The token is --token-file, else env PATHFINDER_TOKEN (PATHFIND_TOKEN, its old name, "
      "still works with a warning).");
  app.require_subcommand(1);
  app.fallthrough();  // global options are accepted after the command too
  app.set_version_flag("--version", std::string("pathfind ") + PATHFINDER_VERSION,
                       "Print the version and exit");

  GlobalArgs global;
  app.add_option("--server", global.server,
                 "Server address HOST:PORT (default: env PATHFINDER_SERVER when set, else " +
                     std::string(kDefaultServer) + ")")
      ->envname(flags::kServerVariable);
  app.add_flag("--json", global.json,
               "Print each response as one line of JSON (the proto3 JSON mapping, proto field "
               "names), and errors as JSON objects on stderr");
  app.add_option("--timeout", global.timeout_seconds,
                 "Deadline of each call, in seconds (above 0, at most 86400)")
      ->check(flags::number_above(0, kMaxTimeoutSeconds))
      ->capture_default_str();
  app.add_flag(
      "--no-retry", global.no_retry,
      "Do not retry a call that fails with UNAVAILABLE (by default find, batch, reachable, "
      "standard-move, los, nearest, get and list are tried up to 5 times within --timeout, "
      "with backoff; upload, patch and delete never are)");
  app.add_option("--token-file", global.token_file,
                 "Send the token in FILE as 'authorization: Bearer <token>' (default: env "
                 "PATHFINDER_TOKEN when set)")
      ->type_name("FILE");
  app.add_option("--tls-ca", global.tls_ca,
                 "Connect with TLS, trusting the PEM CA certificates in FILE")
      ->type_name("FILE");
  app.add_option("--tls-cert", global.tls_cert,
                 "Connect with TLS, presenting the PEM client certificate in FILE (mutual TLS; "
                 "needs --tls-key)")
      ->type_name("FILE");
  app.add_option("--tls-key", global.tls_key, "PEM private key of --tls-cert")->type_name("FILE");

  namespace cli = pathfinder::cli;
  const std::vector<cli::Command> commands = [&app] {
    std::vector<cli::Command> list;
    list.push_back(cli::add_upload_command(app));
    list.push_back(cli::add_get_command(app));
    list.push_back(cli::add_list_command(app));
    list.push_back(cli::add_delete_command(app));
    list.push_back(cli::add_find_command(app));
    list.push_back(cli::add_batch_command(app));
    list.push_back(cli::add_reachable_command(app));
    list.push_back(cli::add_standard_move_command(app));
    list.push_back(cli::add_line_of_sight_command(app));
    list.push_back(cli::add_nearest_command(app));
    list.push_back(cli::add_patch_command(app));
    list.push_back(cli::add_health_command(app));
    list.push_back(cli::add_render_command(app));
    list.push_back(cli::add_field_command(app));
    list.push_back(cli::add_range_command(app));
    list.push_back(cli::add_prepare_command(app));
    list.push_back(cli::add_watch_command(app));
    return list;
  }();

  bool json = asks_for_json(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version are "errors" with exit code 0; real ones become 2.
    if (error.get_exit_code() == 0) return app.exit(error);
    const auto hints =
        pathfinder::cli::suggestions(app, std::vector<std::string>(argv + 1, argv + argc));
    if (json) {
      std::string message = error.what();
      for (const auto& line : hints) message += "; " + line;
      return pathfinder::cli::report_usage_error(message, true);
    }
    (void)pathfinder::cli::report_usage_error(error.what(), false);
    for (const auto& line : hints) std::cerr << line << "\n";
    std::cerr << "Run with --help for more information.\n";
    return kExitUsage;
  }

  json = global.json;
  try {
    if (global.server.empty()) global.server = kDefaultServer;  // PATHFINDER_SERVER= (empty)
    if (const auto problem = flags::server_address_problem("--server", global.server)) {
      return pathfinder::cli::report_usage_error(*problem, json);
    }
    pathfinder::ClientOptions options;
    options.retry.enabled = !global.no_retry;
    options.deadline = std::chrono::milliseconds(
        static_cast<std::int64_t>(global.timeout_seconds * 1000.0 + 0.5));
    const flags::EnvironmentToken environment = flags::token_from_environment();
    if (!environment.warning.empty()) pathfinder::cli::print_warning(environment.warning, json);
    if (!global.token_file.empty()) {
      options.bearer_token = pathfinder::read_token_file(global.token_file);
    } else {
      options.bearer_token = environment.token;
    }
    if (!global.tls_ca.empty() || !global.tls_cert.empty() || !global.tls_key.empty()) {
      pathfinder::load_tls_files(options, global.tls_ca, global.tls_cert, global.tls_key);
    }
    pathfinder::Client client(global.server, options);
    for (const auto& command : commands) {
      if (*command.app) {
        return command.run(client, json);
      }
    }
    return pathfinder::cli::report_usage_error("no command", json);
  } catch (const UsageError& error) {
    return pathfinder::cli::report_usage_error(error.what(), json);
  } catch (const pathfinder::FileError& error) {
    return pathfinder::cli::report_usage_error(error.what(), json);
  } catch (const std::exception& error) {
    pathfinder::cli::print_error("UNKNOWN", error.what(), json);
    return kExitRpcError;
  }
}
