#include "cli_format.h"

#include "cli_goals.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "pathfinder/client.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

std::string point_text(const pb::Point& point) {
  return "(" + std::to_string(point.x()) + "," + std::to_string(point.y()) + ")";
}

// Exact points: up to three decimals, trailing zeros dropped ("(12.5,3)").
std::string coordinate_text(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
  std::string text = buffer;
  while (text.ends_with('0')) text.pop_back();
  if (text.ends_with('.')) text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

std::string point_text(const pb::PointF& point) {
  return "(" + coordinate_text(point.x()) + "," + coordinate_text(point.y()) + ")";
}

// Integers without decimals, anything else with three.
std::string number_text(double value) {
  if (std::isfinite(value) && std::fabs(value) < 1e15 && value == std::floor(value)) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
  return buffer;
}

// Distances of snapped ends: one decimal ("3.2").
std::string distance_text(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

const char* bool_text(bool value) { return value ? "true" : "false"; }

template <class Points>
std::string points_text(const char* label, const Points& points) {
  std::string text = std::string(label) + " " + std::to_string(points.size());
  if (!points.empty()) {
    text += ":";
  }
  for (const auto& point : points) {
    text += " " + point_text(point);
  }
  return text;
}

const char* direction_text(pb::Direction direction) {
  switch (direction) {
    case pb::DIRECTION_N:
      return "N";
    case pb::DIRECTION_NE:
      return "NE";
    case pb::DIRECTION_E:
      return "E";
    case pb::DIRECTION_SE:
      return "SE";
    case pb::DIRECTION_S:
      return "S";
    case pb::DIRECTION_SW:
      return "SW";
    case pb::DIRECTION_W:
      return "W";
    case pb::DIRECTION_NW:
      return "NW";
    default:
      return "?";
  }
}

std::uint32_t parse_uint32(const std::string& text, const std::string& what) {
  std::string digits = text;
  int base = 10;
  if (!digits.empty() && digits[0] == '#') {
    digits = digits.substr(1);
    base = 16;
  } else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits = digits.substr(2);
    base = 16;
  }
  if (digits.empty() || digits.size() > 10) {
    throw UsageError(what + ": '" + text + "' is not a number");
  }
  std::uint64_t value = 0;
  for (const char c : digits) {
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      throw UsageError(what + ": '" + text + "' is not a number");
    }
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
  }
  if (value > 0xffffffffULL) {
    throw UsageError(what + ": '" + text + "' is too large");
  }
  return static_cast<std::uint32_t>(value);
}

}  // namespace

namespace {

// Proto enum values (and a field) and the flag (with its value) that sets each.
constexpr std::pair<const char*, const char*> kEnumFlags[] = {
    {"MASK_FORMAT_UNSPECIFIED", "--format auto"},
    {"MASK_FORMAT_PNG", "--format png"},
    {"MASK_FORMAT_PGM", "--format pgm"},
    {"MASK_FORMAT_PBM", "--format pbm"},
    {"MASK_FORMAT_MOVINGAI", "--format movingai"},
    {"MASK_FORMAT_RAW", "--format raw"},
    {"PIXEL_RULE_UNSPECIFIED", "--rule auto"},
    {"PIXEL_RULE_INDEX", "--rule index"},
    {"PIXEL_RULE_NONZERO", "--rule nonzero"},
    {"PIXEL_RULE_BLUE_BIT7", "--rule blue-bit7"},
    {"PIXEL_RULE_PALETTE", "--rule palette"},
    {"CONNECTIVITY_UNSPECIFIED", "four neighbours (no --eight)"},
    {"CONNECTIVITY_FOUR", "four neighbours (no --eight)"},
    {"CONNECTIVITY_EIGHT", "--eight"},
    {"SMOOTHING_UNSPECIFIED", "--smoothing beautify"},
    {"SMOOTHING_BEAUTIFY", "--smoothing beautify"},
    {"SMOOTHING_SIMPLIFY", "--smoothing simplify"},
    {"SMOOTHING_NONE", "--smoothing none"},
    {"SMOOTHING_ANY_ANGLE", "--smoothing any-angle"},
    {"block_unmapped", "--block-unmapped"},  // a field, named mid-sentence by the decoder
};

// Core's decoder names rules without the prefix ("rule PALETTE", "use INDEX or NONZERO").
constexpr std::pair<const char*, const char*> kCoreRuleFlags[] = {
    {"AUTO", "--rule auto"},           {"INDEX", "--rule index"},     {"NONZERO", "--rule nonzero"},
    {"BLUE_BIT7", "--rule blue-bit7"}, {"PALETTE", "--rule palette"},
};

// Request fields that name themselves at the start of a server message, and their flags.
constexpr std::pair<const char*, const char*> kFieldFlags[] = {
    {"format", "--format"},       {"rule", "--rule"},
    {"palette", "--palette"},     {"width", "--width/--height"},
    {"area_costs", "--cost"},     {"enabled_areas", "--areas"},
    {"smoothing", "--smoothing"}, {"connectivity", "--eight"},
    {"max_moves", "--max-moves"}, {"expected_revision", "--expected-revision"},
    {"reachable_from", "--from"},
};

bool is_word_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string cli_message(const std::string& server_message) {
  std::string text = server_message;
  for (const auto& [field, flag] : kFieldFlags) {
    const std::string prefix = std::string(field) + ": ";
    if (text.starts_with(prefix)) {
      text = std::string(flag) + ": " + text.substr(prefix.size());
      break;
    }
  }
  // Whole words only, so PIXEL_RULE_INDEX is not read as INDEX.
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word_char(text[i])) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_word_char(text[end])) ++end;
    const std::string word = text.substr(i, end - i);
    std::string replacement = word;
    for (const auto& [name, flag] : kEnumFlags) {
      if (word == name) replacement = flag;
    }
    for (const auto& [name, flag] : kCoreRuleFlags) {
      if (word == name) {
        replacement = flag;
        // "rule PALETTE" -> "--rule palette", not "rule --rule palette".
        if (out.ends_with("rule ")) out.resize(out.size() - 5);
      }
    }
    out += replacement;
    i = end;
  }
  return out;
}

std::string format_status(const grpc::Status& status) {
  std::string text = "error: " + pathfinder::status_code_name(status.error_code());
  if (!status.error_message().empty()) text += ": " + cli_message(status.error_message());
  return text;
}

std::string to_json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = false;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    throw std::runtime_error("cannot print the response as JSON: " + status.ToString());
  }
  return json;
}

std::string format_mask_info(const pb::MaskInfo& info) {
  // Only the walkable area ids: area 0 is never walkable.
  const std::uint64_t walkable_areas = info.areas_present() & ~std::uint64_t{1};
  return "mask " + info.name() + "  revision " + std::to_string(info.revision()) + "  " +
         std::to_string(info.width()) + "x" + std::to_string(info.height()) + "  walkable " +
         std::to_string(info.walkable_pixels()) + "  areas " + format_areas(walkable_areas) +
         "  sha256 " + info.sha256();
}

std::string find_path_reason_text(const pb::FindPathRequest& request,
                                  const pb::FindPathResponse& response) {
  switch (response.reason()) {
    case pb::PATH_REASON_START_NOT_WALKABLE:
      return "the start " + point_text(request.start()) + " is not walkable";
    case pb::PATH_REASON_GOAL_NOT_WALKABLE:
      if (request.goals_size() > 0) return "no goal is walkable";
      return "the goal " + point_text(request.goal()) + " is not walkable";
    case pb::PATH_REASON_NO_ROUTE:
      if (request.goals_size() > 0) return "no route to any goal";
      return "no route between them";
    case pb::PATH_REASON_START_LACKS_CLEARANCE:
      return "the start " + point_text(request.start()) + " lacks clearance " +
             number_text(request.clearance()) + " (too close to something blocked)";
    case pb::PATH_REASON_GOAL_LACKS_CLEARANCE:
      if (request.goals_size() > 0) {
        return "no goal is usable with clearance " + number_text(request.clearance()) +
               " (each too close to something blocked)";
      }
      return "the goal " + point_text(request.goal()) + " lacks clearance " +
             number_text(request.clearance()) + " (too close to something blocked)";
    case pb::PATH_REASON_BUDGET_REACHED:
      return "the goal " + point_text(request.goal()) + " costs more than max_cost " +
             number_text(request.max_cost()) + "; the points lead to " +
             point_text(response.goal()) + ", the pixel within it nearest to the goal";
    case pb::PATH_REASON_PARTIAL:
      return "the goal " + point_text(request.goal()) + " cannot be reached; the points lead to " +
             point_text(response.goal()) + ", the reachable pixel nearest to it";
    default:
      return "the server gave no reason";
  }
}

std::string format_find_path(const pb::FindPathRequest& request,
                             const pb::FindPathResponse& response) {
  std::string text = std::string("found ") + bool_text(response.found()) + "  length " +
                     number_text(response.length()) + "  cost " + number_text(response.cost()) +
                     (response.has_grid_cost() ? "  grid_cost " + number_text(response.grid_cost())
                                               : std::string()) +
                     "  goal " + point_text(response.goal()) + "  revision " +
                     std::to_string(response.mask_revision()) + "  cache_hit " +
                     bool_text(response.cache_hit());
  if (const std::string taken = goal_taken_text(request.goals_size(), response); !taken.empty()) {
    text += "\n" + taken;
  }
  if (response.goal_snapped()) {
    // With several goals, a goal is snapped only toward the first (none reachable).
    const pb::Point& asked = request.goals_size() > 0 ? request.goals(0) : request.goal();
    text += "\ngoal snapped to " + point_text(response.goal()) + ", " +
            distance_text(response.goal_snap_distance()) + " px from " + point_text(asked);
  }
  if (response.start_snapped() && response.points_size() > 0) {
    const pb::Point& start = response.points(0);
    const double dx = start.x() - request.start().x();
    const double dy = start.y() - request.start().y();
    text += "\nstart snapped to " + point_text(start) + ", " + distance_text(std::hypot(dx, dy)) +
            " px from " + point_text(request.start());
  }
  if (!response.found()) {
    text += "\nno path: " + find_path_reason_text(request, response);
    // A budget or partial answer still leads somewhere.
    if (response.points_size() > 0) text += "\n" + points_text("points", response.points());
    return text;
  }
  text += "\n" + points_text("points", response.points());
  // Any-angle paths bend at square corners, which integer points cannot say.
  if (request.smoothing() == pb::SMOOTHING_ANY_ANGLE) {
    text += "\n" + points_text("precise", response.precise_points());
  }
  return text;
}

std::string format_reachable(const pb::ReachableRequest& request,
                             const pb::ReachableResponse& response) {
  std::string text = "revision " + std::to_string(response.mask_revision());
  for (int i = 0; i < response.reachable_size(); ++i) {
    text += "\n";
    if (i < request.pairs_size()) {
      text += point_text(request.pairs(i).a()) + " -> " + point_text(request.pairs(i).b()) + ": ";
    }
    text += response.reachable(i) ? "reachable" : "unreachable";
  }
  return text;
}

std::string format_standard_move(const pb::StandardMoveResponse& response) {
  std::string text = std::string("found ") + bool_text(response.found()) + "  revision " +
                     std::to_string(response.mask_revision()) + "  cache_hit " +
                     bool_text(response.cache_hit());
  if (response.nodes_size() > 0) {
    text += "  nodes";
    for (const auto& node : response.nodes()) {
      text += " " + point_text(node);
    }
  }
  if (response.search_truncated()) {
    text += "  search_truncated true (the route may not be the shortest)";
  }
  text += "\nmoves";
  for (int i = 0; i < response.moves_size(); ++i) {
    text += (i == 0 ? " " : ", ");
    text += std::string(direction_text(response.moves(i).direction())) + " " +
            std::to_string(response.moves(i).steps());
  }
  text += "\n" + points_text("waypoints", response.waypoints());
  return text;
}

std::uint64_t parse_areas(const std::string& text) {
  if (text.empty() || text == "all") {
    return 0;
  }
  std::uint64_t areas = 0;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const std::uint32_t id = parse_uint32(item, "--areas");
    if (id < 1 || id > 63) {
      throw UsageError("--areas: area id " + item + " is outside 1..63");
    }
    areas |= std::uint64_t{1} << id;
  }
  if (areas == 0) {
    throw UsageError("--areas: no area ids in '" + text + "'");
  }
  return areas;
}

std::string format_areas(std::uint64_t areas) {
  std::string text;
  for (int id = 0; id < 64; ++id) {
    if (((areas >> id) & 1U) != 0) {
      text += (text.empty() ? "" : ",") + std::to_string(id);
    }
  }
  return text.empty() ? "none" : text;
}

std::pair<std::uint32_t, std::uint32_t> parse_key_value(const std::string& text,
                                                        const std::string& what) {
  const auto equals = text.find('=');
  if (equals == std::string::npos) {
    throw UsageError(what + ": expected KEY=VALUE, got '" + text + "'");
  }
  return {parse_uint32(text.substr(0, equals), what), parse_uint32(text.substr(equals + 1), what)};
}

pb::MaskFormat parse_format(const std::string& text) {
  if (text == "auto") return pb::MASK_FORMAT_UNSPECIFIED;
  if (text == "png") return pb::MASK_FORMAT_PNG;
  if (text == "pgm") return pb::MASK_FORMAT_PGM;
  if (text == "pbm") return pb::MASK_FORMAT_PBM;
  if (text == "movingai") return pb::MASK_FORMAT_MOVINGAI;
  if (text == "raw") return pb::MASK_FORMAT_RAW;
  throw UsageError("--format: unknown format '" + text + "'");
}

pb::PixelRule parse_rule(const std::string& text) {
  if (text == "auto") return pb::PIXEL_RULE_UNSPECIFIED;
  if (text == "index") return pb::PIXEL_RULE_INDEX;
  if (text == "nonzero") return pb::PIXEL_RULE_NONZERO;
  if (text == "blue-bit7") return pb::PIXEL_RULE_BLUE_BIT7;
  if (text == "palette") return pb::PIXEL_RULE_PALETTE;
  throw UsageError("--rule: unknown rule '" + text + "'");
}

pb::Smoothing parse_smoothing(const std::string& text) {
  if (text == "beautify") return pb::SMOOTHING_BEAUTIFY;
  if (text == "simplify") return pb::SMOOTHING_SIMPLIFY;
  if (text == "none") return pb::SMOOTHING_NONE;
  if (text == "any-angle") return pb::SMOOTHING_ANY_ANGLE;
  throw UsageError("--smoothing: unknown smoothing '" + text + "'");
}

}  // namespace pathfinder::cli
