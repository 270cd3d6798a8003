#include "cli_format.h"

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

// Integers without decimals, anything else with three.
std::string number_text(double value) {
  if (std::isfinite(value) && std::fabs(value) < 1e15 && value == std::floor(value)) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
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

std::string format_status(const grpc::Status& status) {
  std::string text = "error: " + pathfinder::status_code_name(status.error_code());
  if (!status.error_message().empty()) text += ": " + status.error_message();
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

std::string format_find_path(const pb::FindPathResponse& response) {
  return std::string("found ") + bool_text(response.found()) + "  length " +
         number_text(response.length()) + "  cost " + number_text(response.cost()) + "  goal " +
         point_text(response.goal()) + "  revision " + std::to_string(response.mask_revision()) +
         "  cache_hit " + bool_text(response.cache_hit()) + "\n" +
         points_text("points", response.points());
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
  throw UsageError("--smoothing: unknown smoothing '" + text + "'");
}

}  // namespace pathfinder::cli
