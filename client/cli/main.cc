// pathfind: a command-line client for the pathfinder service.
//
//   pathfind [--server HOST:PORT] [--json] [--timeout SECONDS] [--no-retry]
//            [--tls-ca FILE [--tls-cert FILE --tls-key FILE]] <command> ...
//
// Exit codes: 0 success; 1 the server (or the connection) reported an error,
// printed as "error: <STATUS_CODE>: <message>", or `health` found it not
// serving; 2 a usage error or unreadable local input; 3 `find` found no path
// (`batch`: a start had none).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "batch_command.h"
#include "cli_format.h"
#include "cli_suggest.h"
#include "command.h"
#include "field_command.h"
#include "range_command.h"
#include "health_command.h"
#include "line_commands.h"
#include "mask_commands.h"
#include "pathfinder/client.h"
#include "prepare_command.h"
#include "query_commands.h"
#include "render_command.h"

namespace {

using pathfinder::cli::kExitOk;
using pathfinder::cli::kExitRpcError;
using pathfinder::cli::kExitUsage;
using pathfinder::cli::UsageError;

// Where the CLI connects without --server and PATHFINDER_SERVER: `make run`'s server.
constexpr const char* kDefaultServer = "127.0.0.1:50051";

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
      "Exit codes: 0 ok; 1 the server or the connection reported an error (or health: not "
      "serving); 2 a usage error or unusable local input; 3 find found no path (batch: a "
      "start had none).\n"
      "The server is --server, else env PATHFINDER_SERVER, else " +
      std::string(kDefaultServer) + ".");
  app.require_subcommand(1);
  app.fallthrough();  // global options are accepted after the command too
  app.set_version_flag("--version", std::string("pathfind ") + PATHFINDER_VERSION,
                       "Print the version and exit");

  GlobalArgs global;
  app.add_option("--server", global.server,
                 "Server address HOST:PORT (default: env PATHFINDER_SERVER when set, else " +
                     std::string(kDefaultServer) + ")")
      ->envname("PATHFINDER_SERVER");
  app.add_flag("--json", global.json, "Print each response as one line of JSON");
  app.add_option("--timeout", global.timeout_seconds, "Deadline of each call, in seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag(
      "--no-retry", global.no_retry,
      "Do not retry a call that fails with UNAVAILABLE (by default find, batch, reachable, "
      "standard-move, los, nearest, get and list are tried up to 5 times within --timeout, "
      "with backoff; upload, patch and delete never are)");
  app.add_option("--token-file", global.token_file,
                 "Send the token in FILE as 'authorization: Bearer <token>' (default: env "
                 "PATHFIND_TOKEN when set)")
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
    return list;
  }();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version are "errors" with exit code 0; real ones become 2.
    if (app.exit(error) == 0) return kExitOk;
    for (const auto& line :
         pathfinder::cli::suggestions(app, std::vector<std::string>(argv + 1, argv + argc))) {
      std::cerr << line << "\n";
    }
    return kExitUsage;
  }

  try {
    pathfinder::ClientOptions options;
    options.retry.enabled = !global.no_retry;
    constexpr double kMaxTimeoutSeconds = 365.0 * 24 * 3600;  // keeps the cast below defined
    options.deadline = std::chrono::milliseconds(static_cast<std::int64_t>(
        std::min(global.timeout_seconds, kMaxTimeoutSeconds) * 1000.0 + 0.5));
    if (!global.token_file.empty()) {
      options.bearer_token = pathfinder::read_token_file(global.token_file);
    } else if (const char* token = std::getenv("PATHFIND_TOKEN"); token != nullptr) {
      options.bearer_token = token;
    }
    if (!global.tls_ca.empty() || !global.tls_cert.empty() || !global.tls_key.empty()) {
      pathfinder::load_tls_files(options, global.tls_ca, global.tls_cert, global.tls_key);
    }
    pathfinder::Client client(global.server, options);
    for (const auto& command : commands) {
      if (*command.app) {
        return command.run(client, global.json);
      }
    }
    std::cerr << "error: no command\n";
    return kExitUsage;
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const pathfinder::FileError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitRpcError;
  }
}
