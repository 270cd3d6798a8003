#include "cli_options.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <span>

#include "cli_format.h"
#include "pathcore/codec.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

pathcore::MaskFormat to_core(pb::MaskFormat format) {
  switch (format) {
    case pb::MASK_FORMAT_PNG:
      return pathcore::MaskFormat::kPng;
    case pb::MASK_FORMAT_PGM:
      return pathcore::MaskFormat::kPgm;
    case pb::MASK_FORMAT_PBM:
      return pathcore::MaskFormat::kPbm;
    case pb::MASK_FORMAT_MOVINGAI:
      return pathcore::MaskFormat::kMovingAi;
    case pb::MASK_FORMAT_RAW:
      return pathcore::MaskFormat::kRaw;
    default:
      return pathcore::MaskFormat::kAuto;
  }
}

pathcore::PixelRule to_core(pb::PixelRule rule) {
  switch (rule) {
    case pb::PIXEL_RULE_INDEX:
      return pathcore::PixelRule::kIndex;
    case pb::PIXEL_RULE_NONZERO:
      return pathcore::PixelRule::kNonZero;
    case pb::PIXEL_RULE_BLUE_BIT7:
      return pathcore::PixelRule::kBlueBit7;
    case pb::PIXEL_RULE_PALETTE:
      return pathcore::PixelRule::kPalette;
    default:
      return pathcore::PixelRule::kAuto;
  }
}

}  // namespace

void add_rule_options(CLI::App& command, DecodeArgs& args) {
  command.add_option("--rule", args.rule, "How pixels become area ids")
      ->check(CLI::IsMember({"auto", "index", "nonzero", "blue-bit7", "palette"}))
      ->capture_default_str();
  command.add_option("--palette", args.palette,
                     "Colour to area for --rule palette, 0xRRGGBB=AREA (repeatable)");
  command.add_flag("--block-unmapped", args.block_unmapped,
                   "With --rule palette: store colours the palette does not list as area 0 "
                   "(blocked) instead of refusing the image");
}

void add_decode_options(CLI::App& command, DecodeArgs& args) {
  command.add_option("--format", args.format, "Image format (auto sniffs)")
      ->check(CLI::IsMember({"auto", "png", "pgm", "pbm", "movingai", "raw"}))
      ->capture_default_str();
  add_rule_options(command, args);
  command.add_option("--width", args.width, "Width in pixels (--format raw)")
      ->check(flags::whole_number(1, pathcore::kDefaultMaxPixels));
  command.add_option("--height", args.height, "Height in pixels (--format raw)")
      ->check(flags::whole_number(1, pathcore::kDefaultMaxPixels));
}

UploadOptions to_upload_options(const DecodeArgs& args) {
  UploadOptions options;
  options.format = parse_format(args.format);
  options.rule = parse_rule(args.rule);
  for (const auto& entry : args.palette) {
    const auto [colour, area] = parse_key_value(entry, "--palette");
    if (colour > 0xffffff) {
      throw UsageError("--palette: colour '" + entry + "' is not 0xRRGGBB");
    }
    options.palette[colour] = area;
  }
  options.block_unmapped = args.block_unmapped;
  options.width = args.width;
  options.height = args.height;
  return options;
}

pathcore::Mask decode_mask_file(const std::string& path, const DecodeArgs& args) {
  const std::string bytes = read_file(path);  // throws FileError
  const UploadOptions upload = to_upload_options(args);
  pathcore::DecodeOptions options;
  options.format = to_core(upload.format);
  options.rule = to_core(upload.rule);
  options.palette = upload.palette;
  options.block_unmapped = upload.block_unmapped;
  options.raw_width = upload.width;
  options.raw_height = upload.height;
  try {
    return pathcore::decode_mask(
        std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), options);
  } catch (const pathcore::DecodeError& error) {
    throw FileError(path + ": " + cli_message(error.what()));
  }
}

void write_binary_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) {
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  if (out) out.close();
  if (!out) {
    throw FileError("cannot write '" + path + "': " + std::strerror(errno));
  }
}

void add_fill_options(CLI::App& command, PathArgs& args, const std::string& corner_cutting_help,
                      const std::string& clearance_help) {
  command.add_option("--areas", args.areas, "Walkable area ids, e.g. 1,2,5 (default all)");
  command.add_flag("--eight", args.eight, "Eight neighbours (default four)");
  command.add_flag("--corner-cutting", args.corner_cutting, corner_cutting_help);
  command.add_option("--cost", args.costs, "Step cost of an area, AREA=COST (repeatable)");
  add_clearance_option(command, args.clearance, clearance_help);
}

void add_path_options(CLI::App& command, PathArgs& args) {
  add_fill_options(command, args,
                   "With --eight (or any-angle), allow passing blocked corners that touch",
                   "Agent clearance in pixels: use only pixels whose centre is at least this "
                   "far from every blocked pixel and from the mask edge (0: every walkable "
                   "pixel)");
  command.add_option("--smoothing", args.smoothing,
                   "Path straightening: beautify, simplify, none (every grid pixel), or "
                   "any-angle (the exact shortest path, bending at blocked corners; ignores "
                   "--eight, refuses --cost)")
      ->check(CLI::IsMember({"beautify", "simplify", "none", "any-angle"}))
      ->capture_default_str();
  command.add_flag("--snap", args.snap, "Snap unusable ends to the nearest reachable pixel");
}

void add_clearance_option(CLI::App& command, double& clearance, const std::string& help) {
  command.add_option("--clearance", clearance, help)
      ->type_name("PIXELS")
      ->check(flags::number_from(0, kMaxClearance))
      ->capture_default_str();
}

void add_expected_revision_option(CLI::App& command, std::uint64_t& revision,
                                  const std::string& help) {
  command.add_option("--expected-revision", revision, help)
      ->type_name("N")
      ->check(flags::whole_number(0));
}

void require_flag(bool given, bool meaningful, const std::string& flag, const std::string& needed) {
  if (given && !meaningful) throw UsageError(flag + " does nothing without " + needed);
}

void check_path_flags(const PathArgs& args, bool any_angle_allowed) {
  const bool any_angle = args.smoothing == "any-angle";
  if (any_angle && args.eight) {
    throw UsageError("--eight does nothing with --smoothing any-angle (its paths take any "
                     "direction)");
  }
  require_flag(args.corner_cutting, args.eight || (any_angle_allowed && any_angle),
               "--corner-cutting", any_angle_allowed ? "--eight or --smoothing any-angle" : "--eight");
}

void fill_path_request(const PathArgs& args, pb::FindPathRequest& request) {
  request.set_enabled_areas(parse_areas(args.areas));
  request.set_connectivity(args.eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
  request.set_allow_corner_cutting(args.corner_cutting);
  request.set_smoothing(parse_smoothing(args.smoothing));
  request.set_snap_to_reachable(args.snap);
  request.set_clearance(args.clearance);
  for (const auto& entry : args.costs) {
    const auto [area, cost] = parse_key_value(entry, "--cost");
    (*request.mutable_area_costs())[area] = cost;
  }
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

bool parse_int(std::string_view text, std::int32_t& value) {
  text = trimmed(text);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

pb::Point parse_xy(std::string_view text, const std::string& where, std::string_view expected) {
  const auto comma = text.find(',');
  std::int32_t x = 0;
  std::int32_t y = 0;
  if (comma == std::string_view::npos || !parse_int(text.substr(0, comma), x) ||
      !parse_int(text.substr(comma + 1), y)) {
    throw UsageError(where + ": expected " + std::string(expected) + " (two integers), got '" +
                     std::string(text) + "'");
  }
  return pathfinder::make_point(x, y);
}

}  // namespace pathfinder::cli
