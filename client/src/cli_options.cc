#include "cli_options.h"

#include "cli_format.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

void add_decode_options(CLI::App& command, DecodeArgs& args) {
  command.add_option("--format", args.format, "Image format (auto sniffs)")
      ->check(CLI::IsMember({"auto", "png", "pgm", "pbm", "movingai", "raw"}))
      ->capture_default_str();
  command.add_option("--rule", args.rule, "How pixels become area ids")
      ->check(CLI::IsMember({"auto", "index", "nonzero", "blue-bit7", "palette"}))
      ->capture_default_str();
  command.add_option("--palette", args.palette,
                     "Colour to area for --rule palette, 0xRRGGBB=AREA (repeatable)");
  command.add_flag("--block-unmapped", args.block_unmapped,
                   "With --rule palette: store colours the palette does not list as area 0 "
                   "(blocked) instead of refusing the image");
  command.add_option("--width", args.width, "Width in pixels (--format raw)");
  command.add_option("--height", args.height, "Height in pixels (--format raw)");
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

void add_path_options(CLI::App& command, PathArgs& args) {
  command.add_option("--areas", args.areas, "Walkable area ids, e.g. 1,2,5 (default all)");
  command.add_flag("--eight", args.eight, "Eight neighbours (default four)");
  command.add_flag("--corner-cutting", args.corner_cutting,
                   "With --eight, allow diagonal steps past blocked corners");
  command.add_option("--smoothing", args.smoothing, "Path straightening")
      ->check(CLI::IsMember({"beautify", "simplify", "none"}))
      ->capture_default_str();
  command.add_flag("--snap", args.snap, "Snap unusable ends to the nearest reachable pixel");
  command.add_option("--cost", args.costs, "Step cost of an area, AREA=COST (repeatable)");
}

void fill_path_request(const PathArgs& args, pb::FindPathRequest& request) {
  request.set_enabled_areas(parse_areas(args.areas));
  request.set_connectivity(args.eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
  request.set_allow_corner_cutting(args.corner_cutting);
  request.set_smoothing(parse_smoothing(args.smoothing));
  request.set_snap_to_reachable(args.snap);
  for (const auto& entry : args.costs) {
    const auto [area, cost] = parse_key_value(entry, "--cost");
    (*request.mutable_area_costs())[area] = cost;
  }
}

}  // namespace pathfinder::cli
