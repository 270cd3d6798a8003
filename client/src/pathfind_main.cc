// pathfind: a command-line client for the pathfinder service.
//
//   pathfind [--server HOST:PORT] [--json] [--timeout SECONDS]
//            [--tls-ca FILE [--tls-cert FILE --tls-key FILE]] <command> ...
//
// Exit codes: 0 success; 1 the server (or the connection) reported an error,
// printed as "error: <STATUS_CODE>: <message>"; 2 a usage error or unreadable
// local input.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli_format.h"
#include "cli_options.h"
#include "pathfinder/client.h"
#include "render_command.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::cli::kExitOk;
using pathfinder::cli::kExitRpcError;
using pathfinder::cli::kExitUsage;
using pathfinder::cli::UsageError;

struct GlobalArgs {
  std::string server = "127.0.0.1:50051";
  bool json = false;
  double timeout_seconds = 10;
  std::string token_file;
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
};

struct UploadArgs {
  std::string name;
  std::string file;
  pathfinder::cli::DecodeArgs decode;
};

struct FindArgs {
  std::string mask;
  std::int32_t sx = 0, sy = 0, gx = 0, gy = 0;
  pathfinder::cli::PathArgs path;
};

struct ReachableArgs {
  std::string mask;
  std::vector<std::int32_t> coordinates;
  std::string areas;
  bool eight = false;
};

struct StandardMoveArgs {
  std::string mask;
  std::int32_t sx = 0, sy = 0, gx = 0, gy = 0;
  std::uint32_t max_moves = 0;
  bool forbid_corner_cutting = false;
  std::string areas;
};

struct PatchArgs {
  std::string name;
  std::uint32_t x = 0, y = 0, width = 0, height = 0;
  std::string areas_file;
  std::uint64_t expected_revision = 0;
};

// Prints an RPC result: the JSON or human text on stdout when OK, else the
// status on stderr. Returns the exit code.
template <class T, class Human>
int report(const pathfinder::Result<T>& result, bool json, Human human) {
  if (!result.ok()) {
    std::cerr << pathfinder::cli::format_status(result.status) << "\n";
    return kExitRpcError;
  }
  if (json) {
    std::cout << pathfinder::cli::to_json(result.value) << "\n";
  } else {
    const std::string text = human(result.value);
    if (!text.empty()) {
      std::cout << text << "\n";
    }
  }
  return kExitOk;
}

int run_upload(pathfinder::Client& client, const UploadArgs& args, bool json) {
  const pathfinder::UploadOptions options = pathfinder::cli::to_upload_options(args.decode);
  return report(client.upload_mask_file(args.name, args.file, options), json,
                [](const pb::MaskInfo& info) { return pathfinder::cli::format_mask_info(info); });
}

int run_find(pathfinder::Client& client, const FindArgs& args, bool json) {
  pb::FindPathRequest request;
  request.set_mask(args.mask);
  *request.mutable_start() = pathfinder::make_point(args.sx, args.sy);
  *request.mutable_goal() = pathfinder::make_point(args.gx, args.gy);
  pathfinder::cli::fill_path_request(args.path, request);
  return report(client.find_path(request), json, [](const pb::FindPathResponse& response) {
    return pathfinder::cli::format_find_path(response);
  });
}

int run_reachable(pathfinder::Client& client, const ReachableArgs& args, bool json) {
  if (args.coordinates.empty() || args.coordinates.size() % 4 != 0) {
    throw UsageError("reachable: expected AX AY BX BY, four numbers per pair, got " +
                     std::to_string(args.coordinates.size()) + " numbers");
  }
  pb::ReachableRequest request;
  request.set_mask(args.mask);
  for (std::size_t i = 0; i < args.coordinates.size(); i += 4) {
    auto* pair = request.add_pairs();
    *pair->mutable_a() = pathfinder::make_point(args.coordinates[i], args.coordinates[i + 1]);
    *pair->mutable_b() = pathfinder::make_point(args.coordinates[i + 2], args.coordinates[i + 3]);
  }
  request.set_enabled_areas(pathfinder::cli::parse_areas(args.areas));
  request.set_connectivity(args.eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
  return report(client.reachable(request), json, [&](const pb::ReachableResponse& response) {
    return pathfinder::cli::format_reachable(request, response);
  });
}

int run_standard_move(pathfinder::Client& client, const StandardMoveArgs& args, bool json) {
  pb::StandardMoveRequest request;
  request.set_mask(args.mask);
  *request.mutable_start() = pathfinder::make_point(args.sx, args.sy);
  *request.mutable_goal() = pathfinder::make_point(args.gx, args.gy);
  request.set_enabled_areas(pathfinder::cli::parse_areas(args.areas));
  request.set_max_moves(args.max_moves);
  request.set_forbid_corner_cutting(args.forbid_corner_cutting);
  return report(client.standard_move(request), json, [](const pb::StandardMoveResponse& response) {
    return pathfinder::cli::format_standard_move(response);
  });
}

int run_patch(pathfinder::Client& client, const PatchArgs& args, bool json) {
  pb::PatchMaskRequest request;
  request.set_name(args.name);
  request.set_expected_revision(args.expected_revision);
  request.set_x(args.x);
  request.set_y(args.y);
  request.set_width(args.width);
  request.set_height(args.height);
  request.set_areas(pathfinder::read_file(args.areas_file));
  return report(client.patch_mask(request), json,
                [](const pb::MaskInfo& info) { return pathfinder::cli::format_mask_info(info); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "pathfind: a command-line client for the pathfinder gRPC service.\n"
      "Exit codes: 0 ok, 1 server or connection error, 2 usage or local input error.",
      "pathfind"};
  app.require_subcommand(1);
  app.fallthrough();  // global options are accepted after the command too

  GlobalArgs global;
  app.add_option("--server", global.server, "Server address HOST:PORT")->capture_default_str();
  app.add_flag("--json", global.json, "Print each response as one line of JSON");
  app.add_option("--timeout", global.timeout_seconds, "Deadline of each call, in seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
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

  UploadArgs upload_args;
  auto* upload = app.add_subcommand("upload", "Create or replace mask NAME from an image FILE");
  upload->add_option("NAME", upload_args.name, "Mask name")->required();
  upload->add_option("FILE", upload_args.file, "Image file (PNG, PGM, PBM, .map, raw)")->required();
  pathfinder::cli::add_decode_options(*upload, upload_args.decode);

  std::string get_name;
  auto* get = app.add_subcommand("get", "Describe mask NAME");
  get->add_option("NAME", get_name, "Mask name")->required();

  auto* list = app.add_subcommand("list", "Describe every mask, ordered by name");

  std::string delete_name;
  auto* del = app.add_subcommand("delete", "Delete mask NAME");
  del->add_option("NAME", delete_name, "Mask name")->required();

  FindArgs find_args;
  auto* find = app.add_subcommand("find", "Find a path on MASK from (SX,SY) to (GX,GY)");
  find->add_option("MASK", find_args.mask, "Mask name")->required();
  find->add_option("SX", find_args.sx, "Start column")->required();
  find->add_option("SY", find_args.sy, "Start row")->required();
  find->add_option("GX", find_args.gx, "Goal column")->required();
  find->add_option("GY", find_args.gy, "Goal row")->required();
  pathfinder::cli::add_path_options(*find, find_args.path);

  ReachableArgs reachable_args;
  auto* reachable =
      app.add_subcommand("reachable", "Can (BX,BY) be reached from (AX,AY)? One answer per quad");
  reachable->add_option("MASK", reachable_args.mask, "Mask name")->required();
  reachable->add_option("COORDS", reachable_args.coordinates, "AX AY BX BY [AX AY BX BY ...]")
      ->required();
  reachable->add_option("--areas", reachable_args.areas, "Walkable area ids (default all)");
  reachable->add_flag("--eight", reachable_args.eight, "Eight neighbours (default four)");

  StandardMoveArgs move_args;
  auto* standard_move =
      app.add_subcommand("standard-move", "RPG-style tile route from (SX,SY) to (GX,GY)");
  standard_move->add_option("MASK", move_args.mask, "Mask name")->required();
  standard_move->add_option("SX", move_args.sx, "Start column")->required();
  standard_move->add_option("SY", move_args.sy, "Start row")->required();
  standard_move->add_option("GX", move_args.gx, "Goal column")->required();
  standard_move->add_option("GY", move_args.gy, "Goal row")->required();
  standard_move->add_option("--max-moves", move_args.max_moves,
                            "Most standard moves to stitch, 1..3 (default 2)");
  standard_move->add_flag("--forbid-corner-cutting", move_args.forbid_corner_cutting,
                          "Diagonal steps need both side tiles walkable");
  standard_move->add_option("--areas", move_args.areas, "Walkable area ids (default all)");

  PatchArgs patch_args;
  auto* patch = app.add_subcommand(
      "patch", "Overwrite the W x H rectangle at (X,Y) of mask NAME with AREAS_FILE's bytes");
  patch->add_option("NAME", patch_args.name, "Mask name")->required();
  patch->add_option("X", patch_args.x, "Left column")->required();
  patch->add_option("Y", patch_args.y, "Top row")->required();
  patch->add_option("W", patch_args.width, "Width")->required();
  patch->add_option("H", patch_args.height, "Height")->required();
  patch->add_option("AREAS_FILE", patch_args.areas_file, "W*H area ids, one byte each, row-major")
      ->required();
  patch->add_option("--expected-revision", patch_args.expected_revision,
                    "Refuse unless the mask is at this revision (default any)");

  pathfinder::cli::RenderArgs render_args;
  auto* render = pathfinder::cli::add_render_command(app, render_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version are "errors" with exit code 0; real ones become 2.
    return app.exit(error) == 0 ? kExitOk : kExitUsage;
  }

  try {
    pathfinder::ClientOptions options;
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
    const bool json = global.json;

    if (*upload) {
      return run_upload(client, upload_args, json);
    }
    if (*get) {
      return report(client.get_mask(get_name), json, [](const pb::MaskInfo& info) {
        return pathfinder::cli::format_mask_info(info);
      });
    }
    if (*list) {
      return report(client.list_masks(), json, [](const pb::ListMasksResponse& response) {
        std::string text;
        for (const auto& info : response.masks()) {
          text += (text.empty() ? "" : "\n") + pathfinder::cli::format_mask_info(info);
        }
        return text;
      });
    }
    if (*del) {
      return report(client.delete_mask(delete_name), json,
                    [&](const pb::DeleteMaskResponse&) { return "deleted " + delete_name; });
    }
    if (*find) {
      return run_find(client, find_args, json);
    }
    if (*reachable) {
      return run_reachable(client, reachable_args, json);
    }
    if (*standard_move) {
      return run_standard_move(client, move_args, json);
    }
    if (*patch) {
      return run_patch(client, patch_args, json);
    }
    if (*render) {
      return pathfinder::cli::run_render(client, render_args, json);
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
