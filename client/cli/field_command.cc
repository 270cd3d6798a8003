#include "field_command.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iostream>
#include <optional>
#include <span>
#include <vector>

#include "cli_errors.h"
#include "cli_format.h"
#include "cli_goals.h"
#include "cli_json.h"
#include "pathcore/codec.h"
#include "pathcore/render.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

// The largest --crop coordinate or size and --downsample: more than any mask's side.
constexpr std::uint64_t kMaxFieldSide = 65536;

// Which mask pixels the field's samples are: from (x, y), every step-th
// pixel of every step-th row.
struct Sampling {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t step = 1;

  // The sample of mask pixel p, when p is inside the width x height samples.
  [[nodiscard]] std::optional<pathcore::Point> sample_of(pathcore::Point p, std::uint32_t width,
                                                         std::uint32_t height) const {
    if (p.x < static_cast<std::int64_t>(x) || p.y < static_cast<std::int64_t>(y)) return {};
    const std::uint32_t sx = (static_cast<std::uint32_t>(p.x) - x) / step;
    const std::uint32_t sy = (static_cast<std::uint32_t>(p.y) - y) / step;
    if (sx >= width || sy >= height) return {};
    return pathcore::Point{static_cast<std::int32_t>(sx), static_cast<std::int32_t>(sy)};
  }
};

// The area of each sample, from the mask's whole area grid.
pathcore::Mask sampled_areas(const pb::MaskInfo& info, const Field& field, const Sampling& at) {
  std::vector<std::uint8_t> areas(static_cast<std::size_t>(field.width) * field.height, 0);
  for (std::uint32_t sy = 0; sy < field.height; ++sy) {
    for (std::uint32_t sx = 0; sx < field.width; ++sx) {
      const std::uint64_t x = at.x + std::uint64_t{sx} * at.step;
      const std::uint64_t y = at.y + std::uint64_t{sy} * at.step;
      if (x < info.width() && y < info.height()) {
        areas[std::size_t{sy} * field.width + sx] =
            static_cast<std::uint8_t>(info.areas()[y * info.width() + x]);
      }
    }
  }
  return pathcore::Mask(field.width, field.height, std::move(areas));
}

// The PNG, one pixel per sample, drawn as `render --heatmap` draws a field:
// the heat ramp where the goal is reached, each area's colour dimmed where it
// is not (walls near black, cut-off walkable pixels their area's colour),
// the goals as red discs, and render's legend under it.
std::vector<std::uint8_t> heat_map_png(const Field& field, const pathcore::Mask& samples,
                                       std::span<const pathcore::Point> goals) {
  pathcore::RenderLayers layers;
  layers.costs = field.distances;
  layers.goals = goals;
  layers.legend = true;
  const pathcore::Image image = pathcore::render(samples, layers);
  return pathcore::encode_png_rgba(image.width, image.height, image.rgba);
}

// The distances as little-endian float32, as GetField sent them.
std::vector<std::uint8_t> raw_float32(const Field& field) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(field.distances.size() * 4);
  for (const float value : field.distances) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    for (int shift = 0; shift < 32; shift += 8) {
      bytes.push_back(static_cast<std::uint8_t>(bits >> shift));
    }
  }
  return bytes;
}

}  // namespace

Command add_field_command(CLI::App& app) {
  auto [command_app, args, command] = add_command(
      app, "field",
      "Download the distance field toward a goal (GetField) as a heat map PNG, or raw float32",
      run_field);
  command_app->footer(
      "The field is the cost of the cheapest grid path from each pixel to --to (or to the "
      "nearest of --goals) under the path "
      "options (as find computes it; the server's field cache serves it when it holds it). The "
      "PNG has one pixel per sample, drawn as render --heatmap draws a field: bright yellow at the "
      "goal to dark purple at the highest cost; where the goal cannot be reached, each area's "
      "colour dimmed (walls near black, pixels cut off from the goal their area's colour); the "
      "goals as red discs; and a legend under it (the dimmed areas, the ramp with the highest "
      "cost). It reads the mask's area grid too (GetMask). --raw writes width x "
      "height little-endian float32 values instead (row-major, +infinity where unreachable). "
      "--flow FILE also writes one byte per sample: the direction of the first step toward the "
      "goal (1 = N, 2 = NE, ... 8 = NW; 0 at the goal and where unreachable). The size is "
      "printed (with --json: width, height, mask_revision and cache_hit as GetField's chunks "
      "name them, then reachable, output and flow). Exits 3 when no sample reaches the goal "
      "(it is not walkable, or the crop is cut off from it).");
  command_app->add_option("MASK", args->mask, "Mask name on the server")->required();
  command_app->add_option("--to", args->to, "The field's goal: X Y (or --goals)")
      ->expected(2)
      ->type_name("INT");
  add_goals_option(*command_app, args->goals,
                   "--to (the field to the nearest goal: distance to the nearest exit)");
  add_fill_options(*command_app, args->path, "With --eight, allow diagonal steps past blocked corners",
                   "Agent clearance in pixels: the field of the pixels whose centre is at "
                   "least this far from every blocked pixel and the mask edge (0: every "
                   "walkable pixel)");
  command_app->add_option("--crop", args->crop, "Only this rectangle of the mask: X Y W H")
      ->expected(4)
      ->type_name("UINT")
      ->check(flags::whole_number(0, kMaxFieldSide));
  command_app
      ->add_option("--downsample", args->downsample,
                   "Keep every N-th pixel of every N-th row (from the crop's top-left pixel), "
                   "1..65536")
      ->check(flags::whole_number(1, kMaxFieldSide))
      ->capture_default_str();
  command_app->add_flag("--raw", args->raw,
                        "Write raw little-endian float32 distances instead of a PNG");
  command_app->add_option("--flow", args->flow_output, "Also write the flow bytes to this file")
      ->type_name("FILE");
  command_app->add_option("-o,--output", args->output, "The file to write (PNG, or raw with --raw)")
      ->required()
      ->type_name("FILE");
  return command;
}

int run_field(Client& client, const FieldArgs& args, bool json) {
  check_path_flags(args.path, /*any_angle_allowed=*/false);
  pb::FindPathRequest options;  // the path options, parsed as find parses them
  fill_path_request(args.path, options);
  pb::GetFieldRequest request;
  request.set_mask(args.mask);
  if (args.to.empty() == args.goals.empty()) {
    throw UsageError("field: give the goal as --to X Y or as --goals X,Y ..., one of the two");
  }
  if (!args.to.empty()) *request.mutable_goal() = make_point(args.to[0], args.to[1]);
  for (const pb::Point& goal : parse_goals(args.goals)) *request.add_goals() = goal;
  request.set_enabled_areas(options.enabled_areas());
  request.set_connectivity(options.connectivity());
  request.set_allow_corner_cutting(options.allow_corner_cutting());
  *request.mutable_area_costs() = options.area_costs();
  request.set_clearance(options.clearance());
  if (args.crop.size() == 4) {
    pb::Rect& crop = *request.mutable_crop();
    crop.set_x(args.crop[0]);
    crop.set_y(args.crop[1]);
    crop.set_width(args.crop[2]);
    crop.set_height(args.crop[3]);
    if (crop.width() == 0 || crop.height() == 0) {
      throw UsageError("--crop: width and height must be at least 1");
    }
  }
  request.set_downsample(args.downsample);
  request.set_include_flow(!args.flow_output.empty());

  const Result<Field> result = client.get_field(request);
  if (!result.ok()) {
    return report_status(client, result.status, json);
  }
  const Field& field = result.value;
  if (args.raw) {
    write_binary_file(args.output, raw_float32(field));
  } else {
    // Walls and cut-off pixels are both unreachable in the field: the area
    // grid tells them apart.
    const auto info = client.get_mask(args.mask, /*include_areas=*/true);
    if (!info.ok()) return report_status(client, info.status, json);
    if (info.value.areas().size() != std::uint64_t{info.value.width()} * info.value.height()) {
      return report_status(client,
                           grpc::Status(grpc::StatusCode::INTERNAL,
                                        "the server sent no area grid for mask '" + args.mask +
                                            "': does it support GetMask include_areas?"),
                           json);
    }
    if (info.value.revision() != field.mask_revision) {
      print_warning("mask '" + args.mask + "' changed while drawing (field of revision " +
                        std::to_string(field.mask_revision) + ", areas of revision " +
                        std::to_string(info.value.revision()) + ")",
                    json);
    }
    Sampling at;
    at.step = std::max<std::uint32_t>(1, args.downsample);
    if (args.crop.size() == 4) {
      at.x = args.crop[0];
      at.y = args.crop[1];
    }
    std::vector<pathcore::Point> goals;
    for (const pb::Point& goal : request.has_goal() ? std::vector<pb::Point>{request.goal()}
                                                    : std::vector<pb::Point>(
                                                          request.goals().begin(),
                                                          request.goals().end())) {
      if (const auto sample = at.sample_of({goal.x(), goal.y()}, field.width, field.height)) {
        goals.push_back(*sample);
      }
    }
    write_binary_file(args.output,
                      heat_map_png(field, sampled_areas(info.value, field, at), goals));
  }
  if (!args.flow_output.empty()) write_binary_file(args.flow_output, field.flow);

  std::size_t reachable = 0;
  for (const float value : field.distances) reachable += std::isfinite(value) ? 1 : 0;
  if (json) {
    // The response's keys and forms (FieldChunk), then the CLI's own.
    JsonObject summary;
    summary.add_number("width", field.width)
        .add_number("height", field.height)
        .add_uint64("mask_revision", field.mask_revision)
        .add_bool("cache_hit", field.cache_hit)
        .add_number("reachable", static_cast<double>(reachable))
        .add_string("output", args.output);
    if (!args.flow_output.empty()) summary.add_string("flow", args.flow_output);
    std::cout << summary.str() << "\n";
  } else {
    std::cout << "wrote " << args.output << " (" << field.width << "x" << field.height
              << (args.raw ? " float32" : " PNG") << ")  reachable " << reachable << "  revision "
              << field.mask_revision << "  cache_hit " << (field.cache_hit ? "true" : "false");
    if (!args.flow_output.empty()) std::cout << "  flow " << args.flow_output;
    std::cout << "\n";
  }
  if (reachable == 0) {
    const std::string reason =
        request.goals_size() > 0
            ? "no sample reaches any goal (none is walkable, or the crop is cut off from them)"
            : "no sample reaches the goal (" + std::to_string(request.goal().x()) + "," +
                  std::to_string(request.goal().y()) +
                  "): it is not walkable, or the crop is cut off from it";
    if (!json) std::cout << "no answer: " << reason << "\n";
    return report_no_answer(reason, json);
  }
  return kExitOk;
}

}  // namespace pathfinder::cli
