#include "range_command.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>

#include "cli_errors.h"
#include "cli_format.h"
#include "cli_json.h"
#include "cli_options.h"
#include "cli_obstacles.h"
#include "pathcore/codec.h"
#include "pathcore/render.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

// Ranges up to this size are drawn as text.
constexpr std::uint32_t kMaxPictureWidth = 100;
constexpr std::uint32_t kMaxPictureHeight = 60;

// Pixels out of range in the PNG: transparent.
constexpr pathcore::Rgba kOutOfRange{0, 0, 0, 0};
constexpr pathcore::Rgba kStartColour{255, 0, 0, 255};

// 'S' the start, '#' in range, '.' not, one line per row of the bounds.
std::string picture(const Range& range, std::int32_t sx, std::int32_t sy) {
  std::ostringstream out;
  for (std::uint32_t r = 0; r < range.height; ++r) {
    for (std::uint32_t c = 0; c < range.width; ++c) {
      const std::int64_t x = std::int64_t{range.x} + c;
      const std::int64_t y = std::int64_t{range.y} + r;
      out << (x == sx && y == sy ? 'S' : range.contains(x, y) ? '#' : '.');
    }
    out << "\n";
  }
  return out.str();
}

// The bounds as an image: each pixel in range coloured by its cost (the
// field's heat ramp: bright at the start, dark at the budget), the start
// red, the rest transparent.
std::vector<std::uint8_t> range_png(const Range& range, double max_cost, std::int32_t sx,
                                    std::int32_t sy) {
  std::vector<std::uint8_t> rgba(std::size_t{range.width} * range.height * 4);
  for (std::uint32_t r = 0; r < range.height; ++r) {
    for (std::uint32_t c = 0; c < range.width; ++c) {
      const std::size_t i = std::size_t{r} * range.width + c;
      pathcore::Rgba colour = kOutOfRange;
      if (range.in_range[i] != 0) {
        colour = pathcore::heatmap_colour(std::clamp(range.costs[i] / max_cost, 0.0, 1.0));
      }
      if (std::int64_t{range.x} + c == sx && std::int64_t{range.y} + r == sy) colour = kStartColour;
      rgba[i * 4] = colour.r;
      rgba[i * 4 + 1] = colour.g;
      rgba[i * 4 + 2] = colour.b;
      rgba[i * 4 + 3] = colour.a;
    }
  }
  return pathcore::encode_png_rgba(range.width, range.height, rgba);
}

}  // namespace

Command add_range_command(CLI::App& app) {
  auto [command_app, args, command] = add_command(
      app, "range", "Where a unit at X,Y can move within --max-cost (GetRange)", run_range);
  command_app->footer(
      "Prints how many pixels are in range and their bounding rectangle, and draws a range of "
      "up to 100x60 pixels as text ('S' the start, '#' in range). A pixel is in range when the "
      "cheapest grid path to it from X,Y costs at most --max-cost (find's step costs: each step "
      "the area cost of the pixel it enters, times sqrt 2 when diagonal). --costs also prints "
      "the highest cost in range (with --json, every cost: row-major over the bounds, null out "
      "of range). --png FILE writes the bounds as an image: pixels in range by cost (bright "
      "near the start), the start red, the rest transparent.");
  command_app->add_option("MASK", args->mask, "Mask name")->required();
  command_app->add_option("START", args->start, "Where the unit stands: X,Y")->required();
  command_app->add_option("--max-cost", args->max_cost, "The budget (above 0)")
      ->required()
      ->check(flags::number_above(0, kMaxCost));
  add_fill_options(*command_app, args->path, "With --eight, allow diagonal steps past blocked corners",
                   "Agent clearance in pixels: only pixels whose centre is at least this far "
                   "from every blocked pixel and the mask edge (0: every walkable pixel)");
  command_app->add_flag("--costs", args->costs, "Also ask for each pixel's cost");
  command_app->add_option("--png", args->png, "Write the range as an image")->type_name("FILE");
  add_obstacle_option(*command_app, args->obstacles);
  add_expected_revision_option(*command_app, args->expected_revision);
  return command;
}

int run_range(Client& client, const RangeArgs& args, bool json) {
  const pb::Point start = parse_xy(args.start, "range", "the start as X,Y");
  const std::int32_t sx = start.x();
  const std::int32_t sy = start.y();
  check_path_flags(args.path, /*any_angle_allowed=*/false);
  pb::FindPathRequest options;  // the path options, parsed as find parses them
  fill_path_request(args.path, options);
  pb::GetRangeRequest request;
  request.set_mask(args.mask);
  *request.mutable_start() = start;
  request.set_max_cost(args.max_cost);
  request.set_enabled_areas(options.enabled_areas());
  request.set_connectivity(options.connectivity());
  request.set_allow_corner_cutting(options.allow_corner_cutting());
  *request.mutable_area_costs() = options.area_costs();
  request.set_clearance(options.clearance());
  request.set_expected_revision(args.expected_revision);
  request.set_include_costs(args.costs || !args.png.empty());
  *request.mutable_obstacles() = parse_obstacles(args.obstacles);

  const Result<Range> result = client.get_range(request);
  if (!result.ok()) {
    return report_status(client, result.status, json);
  }
  const Range& range = result.value;
  if (!args.png.empty() && range.pixel_count > 0) {
    write_binary_file(args.png, range_png(range, args.max_cost, sx, sy));
  }
  float highest = 0;
  for (const float cost : range.costs) {
    if (std::isfinite(cost)) highest = std::max(highest, cost);
  }
  if (json) {
    // The response's keys and forms (RangeChunk), then the CLI's own.
    pb::Rect bounds;
    bounds.set_x(range.x);
    bounds.set_y(range.y);
    bounds.set_width(range.width);
    bounds.set_height(range.height);
    JsonObject summary;
    summary.add_message("bounds", bounds)
        .add_uint64("pixel_count", range.pixel_count)
        .add_uint64("mask_revision", range.mask_revision);
    if (args.costs) {
      std::string costs = "[";
      for (std::size_t i = 0; i < range.costs.size(); ++i) {
        if (i > 0) costs += ",";
        char digits[32];
        const float cost = range.costs[i];
        // The shortest digits that read back as the same float32.
        const auto end = std::to_chars(digits, digits + sizeof digits, cost).ptr;
        costs += std::isfinite(cost) ? std::string(digits, end) : std::string("null");
      }
      summary.add_json("costs", costs + "]");
    }
    if (!args.png.empty() && range.pixel_count > 0) summary.add_string("png", args.png);
    std::cout << summary.str() << "\n";
    return kExitOk;
  }
  if (range.pixel_count == 0) {
    std::cout << "empty range: (" << sx << "," << sy
              << ") is not walkable (or not usable with --clearance)  revision "
              << range.mask_revision << "\n";
    return kExitOk;
  }
  std::cout << range.pixel_count << " pixels in range, bounds x " << range.x << ".."
            << range.x + range.width - 1 << " y " << range.y << ".." << range.y + range.height - 1
            << " (" << range.width << "x" << range.height << ")  revision " << range.mask_revision;
  if (args.costs) std::cout << "  highest cost " << highest;
  if (!args.png.empty()) std::cout << "  wrote " << args.png;
  std::cout << "\n";
  if (range.width <= kMaxPictureWidth && range.height <= kMaxPictureHeight) {
    std::cout << picture(range, sx, sy);
  }
  return kExitOk;
}

}  // namespace pathfinder::cli
