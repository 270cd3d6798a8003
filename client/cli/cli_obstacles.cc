#include "cli_obstacles.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include "cli_format.h"
#include "cli_options.h"
#include "pathfinder/client.h"

namespace pathfinder::cli {

namespace pb = pathfinding::v1;

namespace {

constexpr const char* kShapes = "rect:X,Y,W,H, circle:X,Y,R or pixels:X,Y;X,Y;...";

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(separator);
    parts.push_back(trimmed(text.substr(0, at)));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

template <typename Number>
bool parse_number(std::string_view text, Number& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw UsageError("--obstacle '" + std::string(text) + "': " + why);
}

}  // namespace

void add_obstacle_option(CLI::App& command, std::vector<std::string>& obstacles) {
  command
      .add_option("--obstacle", obstacles,
                  "A shape blocked for this request only (repeatable): rect:X,Y,W,H (pixels "
                  "X..X+W-1, Y..Y+H-1), circle:X,Y,R (every pixel whose centre is within R of "
                  "(X,Y)) or pixels:X,Y;X,Y;... (quote it: ';' ends a shell command)")
      ->type_name("SHAPE")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            try {
              (void)parse_obstacle(text);
            } catch (const UsageError& error) {
              // CLI11 names the option itself.
              std::string why = error.what();
              if (why.starts_with("--obstacle ")) why.erase(0, 11);
              return why;
            }
            return {};
          },
          ""));
}

pb::Obstacle parse_obstacle(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) bad(text, std::string("expected ") + kShapes);
  const std::string_view kind = trimmed(text.substr(0, colon));
  const std::string_view values = text.substr(colon + 1);
  if (kind == "rect") {
    const auto parts = split(values, ',');
    std::uint32_t n[4] = {};
    if (parts.size() != 4 || !parse_number(parts[0], n[0]) || !parse_number(parts[1], n[1]) ||
        !parse_number(parts[2], n[2]) || !parse_number(parts[3], n[3])) {
      bad(text, "expected rect:X,Y,W,H (four integers, at least 0)");
    }
    if (n[2] == 0 || n[3] == 0) bad(text, "a rectangle's W and H must be at least 1");
    return make_rect_obstacle(n[0], n[1], n[2], n[3]);
  }
  if (kind == "circle") {
    const auto parts = split(values, ',');
    double n[3] = {};
    if (parts.size() != 3 || !parse_number(parts[0], n[0]) || !parse_number(parts[1], n[1]) ||
        !parse_number(parts[2], n[2]) || !std::isfinite(n[0]) || !std::isfinite(n[1]) ||
        !std::isfinite(n[2])) {
      bad(text, "expected circle:X,Y,R (three finite numbers)");
    }
    if (!(n[2] > 0)) bad(text, "a circle's R must be more than 0");
    return make_circle_obstacle(n[0], n[1], n[2]);
  }
  if (kind == "pixels") {
    std::vector<pb::Point> pixels;
    for (const std::string_view pixel : split(values, ';')) {
      if (pixel.empty()) continue;  // a trailing ';'
      const auto parts = split(pixel, ',');
      std::int32_t x = 0;
      std::int32_t y = 0;
      if (parts.size() != 2 || !parse_number(parts[0], x) || !parse_number(parts[1], y)) {
        bad(text, "expected pixels:X,Y;X,Y;... (pairs of integers), got '" + std::string(pixel) +
                      "'");
      }
      pixels.push_back(make_point(x, y));
    }
    if (pixels.empty()) bad(text, "pixels: lists no pixel");
    return make_pixels_obstacle(pixels);
  }
  bad(text, "unknown shape '" + std::string(kind) + "': expected " + kShapes);
}

google::protobuf::RepeatedPtrField<pb::Obstacle> parse_obstacles(
    const std::vector<std::string>& texts) {
  google::protobuf::RepeatedPtrField<pb::Obstacle> obstacles;
  for (const std::string& text : texts) *obstacles.Add() = parse_obstacle(text);
  return obstacles;
}

}  // namespace pathfinder::cli
