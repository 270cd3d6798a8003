// pathfind: a command-line client for the pathfinder service.
//
//   pathfind [--server HOST:PORT] [--json] [--timeout SECONDS]
//            [--tls-ca FILE [--tls-cert FILE --tls-key FILE]] <command> ...
//
// Exit codes: 0 success; 1 the server (or the connection) reported an error,
// printed as "error: <STATUS_CODE>: <message>", or `health` found it not
// serving; 2 a usage error or unreadable local input; 3 `find` found no path.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli_format.h"
#include "cli_options.h"
#include "cli_suggest.h"
#include "pathcore/codec.h"
#include "pathfinder/client.h"
#include "render_command.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::cli::kExitNoPath;
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

struct GetArgs {
  std::string name;
  bool areas = false;  // fetch the area grid (GetMask include_areas)
  std::string output;  // write the grid there as a PNG
};

struct FindArgs {
  std::string mask;
  std::int32_t sx = 0, sy = 0, gx = 0, gy = 0;
  pathfinder::cli::PathArgs path;
  std::uint64_t expected_revision = 0;
};

struct ReachableArgs {
  std::string mask;
  std::vector<std::int32_t> coordinates;
  std::string areas;
  bool eight = false;
  std::uint64_t expected_revision = 0;
};

struct StandardMoveArgs {
  std::string mask;
  std::int32_t sx = 0, sy = 0, gx = 0, gy = 0;
  std::uint32_t max_moves = 0;
  bool forbid_corner_cutting = false;
  std::string areas;
  std::uint64_t expected_revision = 0;
};

// Three ways to say what goes where: X Y W H AREAS_FILE (raw bytes), --fill
// AREA --rect X,Y,W,H, or --png FILE --at X,Y.
struct PatchArgs {
  std::string name;
  std::vector<std::string> positionals;  // X Y W H AREAS_FILE
  std::int32_t fill = -1;                // --fill AREA, or -1
  std::string rect;                      // --rect X,Y,W,H
  std::string png;                       // --png FILE
  std::string at;                        // --at X,Y
  pathfinder::cli::DecodeArgs decode;    // --rule, --palette for --png
  std::uint64_t expected_revision = 0;
};

struct HealthArgs {
  std::string service;  // "" = the whole server
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

// True for a PNG of colour type RGB (2) or RGBA (6): the byte after width,
// height and bit depth in the IHDR chunk, which a PNG must start with.
bool is_colour_png(const std::string& bytes) {
  constexpr std::size_t kColourTypeOffset =
      8 + 4 + 4 + 4 + 4 + 1;  // signature, length, "IHDR", w, h, depth
  if (bytes.size() <= kColourTypeOffset || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 ||
      bytes.compare(12, 4, "IHDR") != 0) {
    return false;
  }
  const auto colour_type = static_cast<unsigned char>(bytes[kColourTypeOffset]);
  return colour_type == 2 || colour_type == 6;
}

int run_upload(pathfinder::Client& client, const UploadArgs& args, bool json) {
  const pathfinder::UploadOptions options = pathfinder::cli::to_upload_options(args.decode);
  std::string bytes = pathfinder::read_file(args.file);
  // --rule auto reads a colour image as NONZERO: art in several colours
  // becomes one area, which is rarely what the level meant.
  const bool colour_under_auto =
      options.rule == pb::PIXEL_RULE_UNSPECIFIED &&
      (options.format == pb::MASK_FORMAT_UNSPECIFIED || options.format == pb::MASK_FORMAT_PNG) &&
      is_colour_png(bytes);
  const auto result = client.upload_mask_bytes(args.name, std::move(bytes), options);
  if (result.ok() && colour_under_auto && std::popcount(result.value.areas_present()) == 1) {
    std::cerr << "warning: " << args.file << " is a colour image, and --rule auto (nonzero) "
              << "mapped all its colours to one area (area "
              << std::countr_zero(result.value.areas_present())
              << "); to give colours their own areas use --rule palette --palette "
                 "0xRRGGBB=AREA (once per colour), or --rule blue-bit7 for blue-channel masks\n";
  }
  return report(result, json,
                [](const pb::MaskInfo& info) { return pathfinder::cli::format_mask_info(info); });
}

int run_get(pathfinder::Client& client, const GetArgs& args, bool json) {
  if (!args.output.empty() && !args.areas) {
    throw UsageError("get: -o writes the area grid: add --areas");
  }
  if (args.areas && args.output.empty() && !json) {
    throw UsageError("get: --areas needs -o FILE.png (or --json, which prints the grid in base64)");
  }
  auto result = client.get_mask(args.name, args.areas);
  if (result.ok() && !args.output.empty()) {
    const pb::MaskInfo& info = result.value;
    const std::uint64_t pixels = std::uint64_t{info.width()} * info.height();
    if (pixels == 0 || info.areas().size() != pixels) {
      std::cerr << "error: the server sent " << info.areas().size() << " bytes of area grid for "
                << info.width() << "x" << info.height() << " mask '" << args.name
                << "': does it support GetMask include_areas?\n";
      return kExitRpcError;
    }
    const pathcore::Mask mask(info.width(), info.height(),
                              std::vector<std::uint8_t>(info.areas().begin(), info.areas().end()));
    pathfinder::cli::write_binary_file(args.output, pathcore::encode_png_areas(mask));
    if (!json) {
      std::cout << pathfinder::cli::format_mask_info(info) << "\nwrote " << args.output << " ("
                << info.width() << "x" << info.height() << ", grey value = area id)\n";
      return kExitOk;
    }
    result.value.clear_areas();  // in the file; not again as base64
  }
  return report(result, json,
                [](const pb::MaskInfo& info) { return pathfinder::cli::format_mask_info(info); });
}

int run_find(pathfinder::Client& client, const FindArgs& args, bool json) {
  pb::FindPathRequest request;
  request.set_mask(args.mask);
  *request.mutable_start() = pathfinder::make_point(args.sx, args.sy);
  *request.mutable_goal() = pathfinder::make_point(args.gx, args.gy);
  pathfinder::cli::fill_path_request(args.path, request);
  request.set_expected_revision(args.expected_revision);
  const auto result = client.find_path(request);
  const int code = report(result, json, [&](const pb::FindPathResponse& response) {
    return pathfinder::cli::format_find_path(request, response);
  });
  if (code == kExitOk && !result.value.found()) {
    if (json) {  // stdout stays one JSON object; the reason goes to stderr
      std::cerr << "no path: " << pathfinder::cli::find_path_reason_text(request, result.value)
                << "\n";
    }
    return kExitNoPath;
  }
  return code;
}

int run_health(pathfinder::Client& client, const HealthArgs& args, bool json) {
  const auto result = client.health_check(args.service);
  if (!result.ok()) {
    std::cerr << pathfinder::cli::format_status(result.status) << "\n";
    return kExitRpcError;
  }
  const char* status = pathfinder::serving_status_name(result.value);
  if (json) {
    std::cout << "{\"status\":\"" << status << "\"}\n";
  } else {
    std::cout << status << "\n";
  }
  return result.value == pathfinder::ServingStatus::kServing ? kExitOk : kExitRpcError;
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
  request.set_expected_revision(args.expected_revision);
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
  request.set_expected_revision(args.expected_revision);
  return report(client.standard_move(request), json, [](const pb::StandardMoveResponse& response) {
    return pathfinder::cli::format_standard_move(response);
  });
}

// "1,2,3" -> {1, 2, 3}: exactly `count` unsigned numbers, for option `what`.
std::vector<std::uint32_t> parse_numbers(const std::string& text, std::size_t count,
                                         const std::string& what, const std::string& shape) {
  std::vector<std::uint32_t> numbers;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    if (item.empty() || item.size() > 9 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      throw UsageError(what + ": expected " + shape + " (numbers from 0), got '" + text + "'");
    }
    numbers.push_back(static_cast<std::uint32_t>(std::stoul(item)));
    begin = end + 1;
  }
  if (numbers.size() != count) {
    throw UsageError(what + ": expected " + shape + ", got '" + text + "'");
  }
  return numbers;
}

std::uint32_t parse_coordinate(const std::string& text, const char* what) {
  return parse_numbers(text, 1, what, "a number").front();
}

// Fills the rectangle and area bytes of request from whichever form args uses.
void fill_patch_request(const PatchArgs& args, pb::PatchMaskRequest& request) {
  const bool raw = !args.positionals.empty();
  const bool fill = args.fill >= 0 || !args.rect.empty();
  const bool png = !args.png.empty() || !args.at.empty();
  if (int{raw} + int{fill} + int{png} != 1) {
    throw UsageError(
        "patch: give one of X Y W H AREAS_FILE, --fill AREA --rect X,Y,W,H, or --png FILE --at "
        "X,Y");
  }
  const bool decode_options =
      args.decode.rule != "auto" || !args.decode.palette.empty() || args.decode.block_unmapped;
  if (decode_options && !png) {
    throw UsageError("patch: --rule, --palette and --block-unmapped go with --png");
  }
  if (raw) {
    if (args.positionals.size() != 5) {
      throw UsageError("patch: expected X Y W H AREAS_FILE, got " +
                       std::to_string(args.positionals.size()) + " arguments");
    }
    request.set_x(parse_coordinate(args.positionals[0], "X"));
    request.set_y(parse_coordinate(args.positionals[1], "Y"));
    request.set_width(parse_coordinate(args.positionals[2], "W"));
    request.set_height(parse_coordinate(args.positionals[3], "H"));
    request.set_areas(pathfinder::read_file(args.positionals[4]));
  } else if (fill) {
    if (args.fill < 0) throw UsageError("patch: --rect needs --fill AREA");
    if (args.rect.empty()) throw UsageError("patch: --fill needs --rect X,Y,W,H");
    if (args.fill > pathcore::kMaxAreaId) {
      throw UsageError("--fill: area id " + std::to_string(args.fill) + " is outside 0..63");
    }
    const auto rect = parse_numbers(args.rect, 4, "--rect", "X,Y,W,H");
    if (rect[2] == 0 || rect[3] == 0) throw UsageError("--rect: W and H must be at least 1");
    const std::uint64_t pixels = std::uint64_t{rect[2]} * rect[3];
    if (pixels > pathcore::kDefaultMaxPixels) {
      throw UsageError("--rect: " + std::to_string(rect[2]) + "x" + std::to_string(rect[3]) +
                       " is larger than any mask (" + std::to_string(pathcore::kDefaultMaxPixels) +
                       " pixels)");
    }
    request.set_x(rect[0]);
    request.set_y(rect[1]);
    request.set_width(rect[2]);
    request.set_height(rect[3]);
    request.set_areas(std::string(pixels, static_cast<char>(args.fill)));
  } else {
    if (args.png.empty()) throw UsageError("patch: --at needs --png FILE");
    if (args.at.empty()) throw UsageError("patch: --png needs --at X,Y");
    const auto at = parse_numbers(args.at, 2, "--at", "X,Y");
    pathfinder::cli::DecodeArgs decode = args.decode;
    decode.format = "png";
    const pathcore::Mask image = pathfinder::cli::decode_mask_file(args.png, decode);
    request.set_x(at[0]);
    request.set_y(at[1]);
    request.set_width(image.width());
    request.set_height(image.height());
    request.set_areas(std::string(image.areas().begin(), image.areas().end()));
  }
}

int run_patch(pathfinder::Client& client, const PatchArgs& args, bool json) {
  pb::PatchMaskRequest request;
  request.set_name(args.name);
  request.set_expected_revision(args.expected_revision);
  fill_patch_request(args, request);
  return report(client.patch_mask(request), json,
                [](const pb::MaskInfo& info) { return pathfinder::cli::format_mask_info(info); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pathfind: a command-line client for the pathfinder gRPC service.", "pathfind"};
  app.footer(
      "Exit codes: 0 ok; 1 the server or the connection reported an error (or health: not "
      "serving); 2 a usage error or unusable local input; 3 find found no path.\n"
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

  GetArgs get_args;
  auto* get = app.add_subcommand("get", "Describe mask NAME (with --areas -o FILE, save its grid)");
  get->add_option("NAME", get_args.name, "Mask name")->required();
  get->add_flag("--areas", get_args.areas, "Fetch the area grid too (GetMask include_areas)");
  get->add_option("-o,--output", get_args.output,
                  "With --areas: write the grid as an 8-bit grey PNG whose grey value is the area "
                  "id (upload reads it back as the same grid)")
      ->type_name("FILE");

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
  find->add_option("--expected-revision", find_args.expected_revision,
                   "Answer only from this mask revision, else FAILED_PRECONDITION (default any)");
  find->footer(
      "Prints the path, and when an end was snapped (--snap) where to and how far. Exits 3 when "
      "there is no path, saying why (start or goal not walkable, or no route between them); "
      "with --json the reason goes to stderr.");

  ReachableArgs reachable_args;
  auto* reachable =
      app.add_subcommand("reachable", "Can (BX,BY) be reached from (AX,AY)? One answer per quad");
  reachable->add_option("MASK", reachable_args.mask, "Mask name")->required();
  reachable->add_option("COORDS", reachable_args.coordinates, "AX AY BX BY [AX AY BX BY ...]")
      ->required();
  reachable->add_option("--areas", reachable_args.areas, "Walkable area ids (default all)");
  reachable->add_flag("--eight", reachable_args.eight, "Eight neighbours (default four)");
  reachable->add_option("--expected-revision", reachable_args.expected_revision,
                        "Answer only from this mask revision, else FAILED_PRECONDITION (default "
                        "any)");

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
  standard_move->add_option("--expected-revision", move_args.expected_revision,
                            "Answer only from this mask revision, else FAILED_PRECONDITION "
                            "(default any)");

  PatchArgs patch_args;
  auto* patch = app.add_subcommand("patch", "Overwrite a rectangle of mask NAME");
  patch->add_option("NAME", patch_args.name, "Mask name")->required();
  patch->add_option("X Y W H AREAS_FILE", patch_args.positionals,
                    "The rectangle at (X,Y), W x H, gets AREAS_FILE's bytes: W*H area ids, one "
                    "byte each, row-major");
  patch->add_option("--fill", patch_args.fill, "Area id 0..63 to fill --rect with")
      ->type_name("AREA");
  patch->add_option("--rect", patch_args.rect, "The rectangle for --fill")->type_name("X,Y,W,H");
  patch
      ->add_option("--png", patch_args.png,
                   "A PNG whose pixels (decoded as upload would, see --rule) replace the "
                   "rectangle of its size at --at")
      ->type_name("FILE");
  patch->add_option("--at", patch_args.at, "Top-left corner for --png")->type_name("X,Y");
  pathfinder::cli::add_rule_options(*patch, patch_args.decode);
  patch->add_option("--expected-revision", patch_args.expected_revision,
                    "Refuse unless the mask is at this revision (default any)");
  patch->footer(
      "Three forms: patch NAME X Y W H AREAS_FILE | patch NAME --fill AREA --rect X,Y,W,H | "
      "patch NAME --png FILE --at X,Y [--rule ...] [--palette ...] [--block-unmapped].");

  HealthArgs health_args;
  auto* health = app.add_subcommand(
      "health", "Ask grpc.health.v1.Health/Check; prints SERVING (exit 0) or the status (exit 1)");
  health->add_option("SERVICE", health_args.service, "Service name (default: the whole server)");

  pathfinder::cli::RenderArgs render_args;
  auto* render = pathfinder::cli::add_render_command(app, render_args);

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
      return run_get(client, get_args, json);
    }
    if (*health) {
      return run_health(client, health_args, json);
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
