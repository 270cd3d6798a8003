// `pathfind` upload, get, list, delete and patch: the commands that store,
// describe and change masks on the server.

#include "mask_commands.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli_errors.h"
#include "cli_format.h"
#include "cli_options.h"
#include "pathcore/codec.h"
#include "prepare_command.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

struct UploadArgs {
  std::string name;
  std::string file;
  DecodeArgs decode;
  std::string prepare;  // --prepare LIST: PrepareMask the new revision after the upload
};

struct GetArgs {
  std::string name;
  bool areas = false;  // fetch the area grid (GetMask include_areas)
  std::string output;  // write the grid there as a PNG
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
  DecodeArgs decode;                     // --rule, --palette for --png
  std::uint64_t expected_revision = 0;
};

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
  const pathfinder::UploadOptions options = to_upload_options(args.decode);
  std::string bytes = pathfinder::read_file(args.file);
  // --rule auto reads a colour image as NONZERO: art in several colours
  // becomes one area, which is rarely what the level meant.
  const bool colour_under_auto =
      options.rule == pb::PIXEL_RULE_UNSPECIFIED &&
      (options.format == pb::MASK_FORMAT_UNSPECIFIED || options.format == pb::MASK_FORMAT_PNG) &&
      is_colour_png(bytes);
  // Checked before the upload: a bad list must not leave an unprepared upload behind.
  pb::PrepareMaskRequest prepare;
  if (!args.prepare.empty()) parse_prepare_list(args.prepare, prepare);
  const auto result = client.upload_mask_bytes(args.name, std::move(bytes), options);
  // Area 0 is the black walls, not one of the art's colours.
  const std::uint64_t walkable_areas = result.value.areas_present() & ~std::uint64_t{1};
  if (result.ok() && colour_under_auto && std::popcount(walkable_areas) == 1) {
    print_warning(args.file + " is a colour image, and --rule auto (nonzero) mapped all its "
                  "non-black colours to one area (area " +
                      std::to_string(std::countr_zero(walkable_areas)) +
                      "); to give colours their own areas use --rule palette --palette "
                      "0xRRGGBB=AREA (once per colour), or --rule blue-bit7 for blue-channel masks",
                  json);
  }
  const int uploaded =
      report(client, result, json, [](const pb::MaskInfo& info) { return format_mask_info(info); });
  if (uploaded != kExitOk || args.prepare.empty()) return uploaded;
  prepare.set_mask(args.name);
  prepare.set_expected_revision(result.value.revision());
  return run_prepare_with_progress(client, prepare, json);
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
      print_error("INTERNAL",
                  "the server sent " + std::to_string(info.areas().size()) +
                      " bytes of area grid for " + std::to_string(info.width()) + "x" +
                      std::to_string(info.height()) + " mask '" + args.name +
                      "': does it support GetMask include_areas?",
                  json);
      return kExitRpcError;
    }
    const pathcore::Mask mask(info.width(), info.height(),
                              std::vector<std::uint8_t>(info.areas().begin(), info.areas().end()));
    write_binary_file(args.output, pathcore::encode_png_areas(mask));
    if (!json) {
      std::cout << format_mask_info(info) << "\nwrote " << args.output << " (" << info.width()
                << "x" << info.height() << ", grey value = area id)\n";
      return kExitOk;
    }
    result.value.clear_areas();  // in the file; not again as base64
  }
  return report(client, result, json, [](const pb::MaskInfo& info) { return format_mask_info(info); });
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
    DecodeArgs decode = args.decode;
    decode.format = "png";
    const pathcore::Mask image = decode_mask_file(args.png, decode);
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
  return report(client, client.patch_mask(request), json,
                [](const pb::MaskInfo& info) { return format_mask_info(info); });
}

}  // namespace

Command add_upload_command(CLI::App& app) {
  auto [upload, args, command] =
      add_command(app, "upload", "Create or replace mask NAME from an image FILE", run_upload);
  upload->add_option("NAME", args->name, "Mask name")->required();
  upload->add_option("FILE", args->file, "Image file (PNG, PGM, PBM, .map, raw)")->required();
  add_decode_options(*upload, args->decode);
  upload
      ->add_option("--prepare", args->prepare,
                   "Then build what queries will need (PrepareMask), showing progress: a "
                   "comma list of any-angle, labels, nearest, corner-cutting, clearance=R, "
                   "areas=LIST")
      ->type_name("LIST");
  return command;
}

Command add_get_command(CLI::App& app) {
  auto [get, args, command] =
      add_command(app, "get", "Describe mask NAME (with --areas -o FILE, save its grid)", run_get);
  get->add_option("NAME", args->name, "Mask name")->required();
  get->add_flag("--areas", args->areas, "Fetch the area grid too (GetMask include_areas)");
  get->add_option("-o,--output", args->output,
                  "With --areas: write the grid as an 8-bit grey PNG whose grey value is the area "
                  "id (upload reads it back as the same grid)")
      ->type_name("FILE");
  return command;
}

Command add_list_command(CLI::App& app) {
  auto* command = app.add_subcommand("list", "Describe every mask, ordered by name");
  return {command, [](Client& client, bool json) {
            return report(client, client.list_masks(), json, [](const pb::ListMasksResponse& response) {
              std::string text;
              for (const auto& info : response.masks()) {
                text += (text.empty() ? "" : "\n") + format_mask_info(info);
              }
              return text;
            });
          }};
}

Command add_delete_command(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto* command = app.add_subcommand("delete", "Delete mask NAME");
  command->add_option("NAME", *name, "Mask name")->required();
  return {command, [name](Client& client, bool json) {
            return report(client, client.delete_mask(*name), json,
                          [&](const pb::DeleteMaskResponse&) { return "deleted " + *name; });
          }};
}

Command add_patch_command(CLI::App& app) {
  auto [patch, args, command] =
      add_command(app, "patch", "Overwrite a rectangle of mask NAME", run_patch);
  patch->add_option("NAME", args->name, "Mask name")->required();
  patch->add_option("X Y W H AREAS_FILE", args->positionals,
                    "The rectangle at (X,Y), W x H, gets AREAS_FILE's bytes: W*H area ids, one "
                    "byte each, row-major");
  patch->add_option("--fill", args->fill, "Area id 0..63 to fill --rect with")
      ->type_name("AREA")
      ->check(flags::whole_number(0, pathcore::kMaxAreaId));
  patch->add_option("--rect", args->rect, "The rectangle for --fill")->type_name("X,Y,W,H");
  patch
      ->add_option("--png", args->png,
                   "A PNG whose pixels (decoded as upload would, see --rule) replace the "
                   "rectangle of its size at --at")
      ->type_name("FILE");
  patch->add_option("--at", args->at, "Top-left corner for --png")->type_name("X,Y");
  add_rule_options(*patch, args->decode);
  add_expected_revision_option(*patch, args->expected_revision,
                               "Refuse unless the mask is at this revision (default any)");
  patch->footer(
      "Three forms: patch NAME X Y W H AREAS_FILE | patch NAME --fill AREA --rect X,Y,W,H | "
      "patch NAME --png FILE --at X,Y [--rule ...] [--palette ...] [--block-unmapped].");
  return command;
}

}  // namespace pathfinder::cli
