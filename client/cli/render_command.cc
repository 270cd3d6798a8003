#include "render_command.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>

#include "cli_errors.h"
#include "cli_format.h"
#include "cli_json.h"
#include "pathcore/agent_clearance.h"
#include "pathcore/any_angle.h"
#include "pathcore/codec.h"
#include "pathcore/components.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"
#include "pathcore/render.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

// The request's path options as core's, checked as the server checks them.
pathcore::FindPathOptions to_core_options(const pb::FindPathRequest& request) {
  pathcore::FindPathOptions options;
  options.field.enabled = pathcore::effective_areas(request.enabled_areas());
  options.field.connectivity = request.connectivity() == pb::CONNECTIVITY_EIGHT
                                   ? pathcore::Connectivity::kEight
                                   : pathcore::Connectivity::kFour;
  options.field.allow_corner_cutting = request.allow_corner_cutting();
  for (const auto& [area, cost] : request.area_costs()) {
    if (area < 1 || area > static_cast<std::uint32_t>(pathcore::kMaxAreaId)) {
      throw UsageError("--cost: area id " + std::to_string(area) + " is outside 1..63");
    }
    if (cost < 1 || cost > 255) {
      throw UsageError("--cost: cost " + std::to_string(cost) + " for area " +
                       std::to_string(area) + " is outside 1..255");
    }
    options.field.area_costs[area] = static_cast<std::uint8_t>(cost);
  }
  if (request.smoothing() == pb::SMOOTHING_ANY_ANGLE && !request.area_costs().empty()) {
    throw UsageError("--cost: not used with --smoothing any-angle (its paths are the shortest "
                     "in Euclidean length)");
  }
  switch (request.smoothing()) {
    case pb::SMOOTHING_SIMPLIFY:
      options.smoothing = pathcore::Smoothing::kSimplify;
      break;
    case pb::SMOOTHING_NONE:
      options.smoothing = pathcore::Smoothing::kNone;
      break;
    default:
      options.smoothing = pathcore::Smoothing::kBeautify;
      break;
  }
  options.snap_to_reachable = request.snap_to_reachable();
  options.clearance = request.clearance();  // checked when --clearance was parsed
  return options;
}

// [{"x":1,"y":2},...], as the response messages write their points.
template <class Points>
std::string points_json(const Points& points) {
  std::string json = "[";
  for (const auto& p : points) {
    if (json.size() > 1) json += ",";
    json += JsonObject().add_number("x", p.x).add_number("y", p.y).str();
  }
  return json + "]";
}

std::optional<pathcore::Point> point_arg(const std::vector<std::int32_t>& xy) {
  if (xy.size() != 2) return std::nullopt;
  return pathcore::Point{xy[0], xy[1]};
}

std::string point_text(pathcore::Point p) {
  return "(" + std::to_string(p.x) + "," + std::to_string(p.y) + ")";
}

void check_inside(const pathcore::Mask& mask, pathcore::Point p, const char* option) {
  if (!mask.contains(p)) {
    throw UsageError(std::string(option) + ": " + point_text(p) + " is outside the " +
                     std::to_string(mask.width()) + "x" + std::to_string(mask.height()) + " mask");
  }
}

// The path to draw: raw grid pixels and the (smoothed) answer, exact when
// the answer has precise points.
struct DrawnPath {
  bool found = false;
  pathcore::Path raw;
  pathcore::Path points;
  std::vector<pathcore::PointD> precise;
  double length = 0;
  pathcore::Point goal;  // where it ends (snapped), when found
};

pathcore::Path from_proto(const google::protobuf::RepeatedPtrField<pb::Point>& points) {
  pathcore::Path path;
  path.reserve(static_cast<std::size_t>(points.size()));
  for (const auto& p : points) path.push_back({p.x(), p.y()});
  return path;
}

std::vector<pathcore::PointD> from_proto(
    const google::protobuf::RepeatedPtrField<pb::PointF>& points) {
  std::vector<pathcore::PointD> path;
  path.reserve(static_cast<std::size_t>(points.size()));
  for (const auto& p : points) path.push_back({p.x(), p.y()});
  return path;
}

// The exact any-angle path on a local mask, as the server finds it
// (SMOOTHING_ANY_ANGLE): snapping by the reachability of four neighbours,
// or eight with corner cutting, which join what any-angle paths join.
DrawnPath local_any_angle_path(const pathcore::Mask& mask, pathcore::Point start,
                               pathcore::Point goal, const pathcore::FindPathOptions& options) {
  const bool cut = options.field.allow_corner_cutting;
  DrawnPath drawn;
  if (options.snap_to_reachable) {
    pathcore::FieldOptions reach;
    reach.enabled = options.field.enabled;
    reach.connectivity = cut ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour;
    reach.allow_corner_cutting = cut;
    const auto ends = pathcore::snap_endpoints(mask, reach, start, goal, std::nullopt);
    if (!ends) return drawn;
    start = ends->start;
    goal = ends->goal;
  }
  const pathcore::AnyAngleMesh mesh =
      pathcore::AnyAngleMesh::build(mask, options.field.enabled, cut);
  if (auto path = pathcore::find_any_angle_path(mesh, start, goal)) {
    drawn.found = true;
    drawn.points = std::move(path->pixels);
    drawn.precise = std::move(path->points);
    drawn.length = path->length;
    drawn.goal = goal;
  }
  return drawn;
}

}  // namespace

Command add_render_command(CLI::App& app) {
  auto [render, args, command] = add_command(
      app, "render", "Draw a mask (MASK on the server, or --mask-file FILE) as a PNG, with a path",
      run_render);
  render->footer(
      "Areas get distinct colours (area 0 near black). With --from and --to: the raw grid path "
      "faint, the (smoothed) path bold white (with --smoothing any-angle the exact path, "
      "through the blocked corners it bends at), start a green disc, goal a red one. --heatmap: the "
      "distance field to --to, bright yellow at the goal to dark purple far away, pixels it does "
      "not reach dimmed. --components: one colour per connected component (their number is "
      "printed). A goal that snapping moved (--snap) is drawn where it was asked too, as a red "
      "ring. For a server mask "
      "the area grid comes from GetMask (include_areas) and the path is the server's FindPath "
      "answer; the heatmap and components are computed locally from the grid. A local file is "
      "decoded as upload would, and its path computed locally (no server needed). A legend under "
      "the map (--no-legend leaves it out) shows the colour and id of each area drawn in its "
      "colour (with --heatmap, those the field does not reach everywhere, dimmed as drawn), and "
      "with --heatmap the ramp from near to far with the highest distance. Exits 3 when --from "
      "and --to have no path between them (the picture is still written).");
  render->add_option("MASK", args->mask, "Mask name on the server (or give --mask-file)");
  render
      ->add_option(
          "--mask-file", args->mask_file,
          "Render this local image file (decoded as upload would) instead of a server mask")
      ->type_name("FILE");
  add_decode_options(*render, args->decode);
  render->add_option("--from", args->from, "Start of the path: X Y")->expected(2)->type_name("INT");
  render->add_option("--to", args->to, "Goal of the path (and of the heatmap's field): X Y")
      ->expected(2)
      ->type_name("INT");
  add_path_options(*render, args->path);
  render->add_flag("--heatmap", args->heatmap, "Colour the distance field to --to");
  render->add_flag("--components", args->components,
                   "Colour each connected component (under the heatmap, if both)");
  render->add_option("--scale", args->scale, "Picture pixels per mask pixel, 1..64")
      ->check(flags::whole_number(1, 64))
      ->capture_default_str();
  render->add_flag("--no-legend", args->no_legend,
                   "Leave out the legend strip (area colours, heat scale) under the map");
  render->add_option("-o,--output", args->output, "The PNG file to write")
      ->required()
      ->type_name("FILE");
  return command;
}

int run_render(Client& client, const RenderArgs& args, bool json) {
  if (args.mask.empty() == args.mask_file.empty()) {
    throw UsageError("render: give a mask name or --mask-file FILE (exactly one)");
  }
  const std::optional<pathcore::Point> from = point_arg(args.from);
  const std::optional<pathcore::Point> to = point_arg(args.to);
  if (from && !to) throw UsageError("render: --from needs --to");
  if (args.heatmap && !to) throw UsageError("render: --heatmap needs --to (the field's goal)");
  check_path_flags(args.path, /*any_angle_allowed=*/true);
  require_flag(args.path.snap, from.has_value(), "--snap", "--from and --to (a path)");
  pb::FindPathRequest request;
  fill_path_request(args.path, request);
  const pathcore::FindPathOptions options = to_core_options(request);
  if (options.field.enabled == 0) throw UsageError("--areas: no walkable area");

  const bool local = !args.mask_file.empty();
  std::optional<pathcore::Mask> mask;
  std::uint64_t revision = 0;
  if (local) {
    mask.emplace(decode_mask_file(args.mask_file, args.decode));
  } else {
    const auto info = client.get_mask(args.mask, /*include_areas=*/true);
    if (!info.ok()) {
      return report_status(client, info.status, json);
    }
    const std::uint64_t pixels = std::uint64_t{info.value.width()} * info.value.height();
    if (pixels == 0 || info.value.areas().size() != pixels) {
      print_error("INTERNAL",
                  "the server sent " + std::to_string(info.value.areas().size()) +
                      " bytes of area grid for mask '" + args.mask + "' (" +
                      std::to_string(info.value.width()) + "x" +
                      std::to_string(info.value.height()) +
                      "): does it support GetMask include_areas?",
                  json);
      return kExitRpcError;
    }
    const auto& areas = info.value.areas();
    mask.emplace(info.value.width(), info.value.height(),
                 std::vector<std::uint8_t>(areas.begin(), areas.end()));
    revision = info.value.revision();
  }

  DrawnPath path;
  if (from) {
    if (local) {
      check_inside(*mask, *from, "--from");
      check_inside(*mask, *to, "--to");
      const bool any_angle = request.smoothing() == pb::SMOOTHING_ANY_ANGLE;
      if (any_angle && pathcore::clearance_excludes_pixels(options.clearance)) {
        // As the server does: the any-angle path over the usable pixels.
        const pathcore::UsableMask usable(*mask, options.field.enabled, options.clearance);
        path = local_any_angle_path(usable.mask(), *from, *to, options);
      } else if (any_angle) {
        path = local_any_angle_path(*mask, *from, *to, options);
      } else {
        const pathcore::PathResult answer = pathcore::find_path(*mask, *from, *to, options);
        path.found = answer.found;
        path.points = answer.points;
        path.length = answer.length;
        path.goal = answer.goal;
      }
      if (path.found && (any_angle || options.smoothing != pathcore::Smoothing::kNone)) {
        pathcore::FindPathOptions raw_options = options;
        raw_options.smoothing = pathcore::Smoothing::kNone;
        path.raw = pathcore::find_path(*mask, *from, *to, raw_options).points;
      } else {
        path.raw = path.points;
      }
    } else {
      request.set_mask(args.mask);
      *request.mutable_start() = make_point(from->x, from->y);
      *request.mutable_goal() = make_point(to->x, to->y);
      const auto answer = client.find_path(request);
      if (!answer.ok()) {
        return report_status(client, answer.status, json);
      }
      if (answer.value.mask_revision() != revision) {
        print_warning("mask '" + args.mask + "' changed while rendering (revision " +
                          std::to_string(revision) + " drawn, path from revision " +
                          std::to_string(answer.value.mask_revision()) + ")",
                      json);
      }
      path.found = answer.value.found();
      path.points = from_proto(answer.value.points());
      path.precise = from_proto(answer.value.precise_points());
      path.length = answer.value.length();
      path.goal = {answer.value.goal().x(), answer.value.goal().y()};
      path.raw = path.points;
      if (path.found && request.smoothing() != pb::SMOOTHING_NONE) {
        request.set_smoothing(pb::SMOOTHING_NONE);
        const auto raw = client.find_path(request);
        if (!raw.ok()) {
          return report_status(client, raw.status, json);
        }
        path.raw = from_proto(raw.value.points());
      }
    }
  }

  pathcore::RenderLayers layers;
  layers.scale = args.scale;
  layers.legend = !args.no_legend;
  if (from) {
    layers.start = path.found ? path.points.front() : *from;
    layers.raw_path = path.raw;
    // Servers before precise_points send only points.
    if (!path.precise.empty()) {
      layers.precise_polyline = path.precise;
    } else {
      layers.polyline = path.points;
    }
  }
  if (to) layers.goal = path.found ? path.goal : *to;
  // Snapped: the goal asked for shows too, as a ring.
  if (to && layers.goal != *to) layers.asked_goal = *to;

  std::optional<pathcore::DistanceField> field;
  if (args.heatmap) {
    check_inside(*mask, *layers.goal, "--to");
    field.emplace(pathcore::compute_distance_field(*mask, *layers.goal, options.field));
    layers.field = &*field;
  }
  std::optional<pathcore::Components> components;
  if (args.components) {
    components.emplace(pathcore::label_components(
        *mask, {.enabled = options.field.enabled,
                .connectivity = options.field.connectivity,
                .allow_corner_cutting = options.field.allow_corner_cutting}));
    layers.components = &*components;
  }

  pathcore::Image image;
  try {
    image = pathcore::render(*mask, layers);
  } catch (const pathcore::InvalidArgument& error) {
    throw UsageError(std::string("render: ") + error.what());
  }
  write_binary_file(args.output, pathcore::encode_png_rgba(image.width, image.height, image.rgba));

  if (json) {
    // The keys of the answers drawn (MaskInfo, FindPathResponse), in their forms.
    JsonObject summary;
    summary.add_string("output", args.output)
        .add_number("width", image.width)
        .add_number("height", image.height);
    if (!local) summary.add_uint64("mask_revision", revision);
    if (from) {
      summary.add_bool("found", path.found)
          .add_number("length", path.length)
          .add_json("points", points_json(path.points));
      if (!path.precise.empty()) summary.add_json("precise_points", points_json(path.precise));
    }
    if (components) summary.add_number("components", static_cast<double>(components->count()));
    std::cout << summary.str() << "\n";
  } else {
    std::cout << "wrote " << args.output << " (" << image.width << "x" << image.height << ")";
    if (from) {
      std::cout << "  found " << (path.found ? "true" : "false") << "  points "
                << path.points.size() << "  length " << path.length;
    }
    if (components) std::cout << "  components " << components->count();
    std::cout << "\n";
  }
  if (from && !path.found) {
    return report_no_answer("no path from " + point_text(*from) + " to " + point_text(*to), json);
  }
  return kExitOk;
}

}  // namespace pathfinder::cli
