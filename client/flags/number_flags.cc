#include "number_flags.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

namespace pathfinder::flags {

namespace {

// 86400, 0.5, 1e+30: integers in full, other values to six significant digits.
std::string bound_text(double value) {
  char buffer[64];
  if (std::fabs(value) < 1e15 && value == std::floor(value)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%g", value);
  }
  return buffer;
}

std::string got(const std::string& text) { return ", got '" + text + "'"; }

// text as a finite double, the whole of it.
bool parse_finite(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const auto [used, error] = std::from_chars(text.data(), end, value);
  return !text.empty() && error == std::errc() && used == end && std::isfinite(value);
}

}  // namespace

CLI::Validator whole_number(std::int64_t min, std::uint64_t max) {
  const std::string wanted =
      max == std::numeric_limits<std::uint64_t>::max()
          ? "must be a whole number, " + std::to_string(min) + " or more"
          : "must be a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, wanted](std::string& text) -> std::string {
        const std::string_view digits(text);
        const char* end = digits.data() + digits.size();
        bool in_range = false;
        if (digits.starts_with('-')) {
          std::int64_t value = 0;
          const auto [used, error] = std::from_chars(digits.data(), end, value);
          in_range = error == std::errc() && used == end && value >= min;
        } else {
          std::uint64_t value = 0;
          const auto [used, error] = std::from_chars(digits.data(), end, value);
          in_range = !digits.empty() && error == std::errc() && used == end && value <= max &&
                     (min <= 0 || value >= static_cast<std::uint64_t>(min));
        }
        return in_range ? std::string() : wanted + got(text);
      },
      "", "");
}

CLI::Validator number_from(double min, double max) {
  const std::string wanted = "must be a number from " + bound_text(min) + " to " + bound_text(max);
  return CLI::Validator(
      [min, max, wanted](std::string& text) -> std::string {
        double value = 0;
        if (!parse_finite(text, value) || value < min || value > max) return wanted + got(text);
        return {};
      },
      "", "");
}

CLI::Validator number_above(double min, double max) {
  const std::string wanted =
      "must be a number above " + bound_text(min) + ", at most " + bound_text(max);
  return CLI::Validator(
      [min, max, wanted](std::string& text) -> std::string {
        double value = 0;
        if (!parse_finite(text, value) || value <= min || value > max) return wanted + got(text);
        return {};
      },
      "", "");
}

}  // namespace pathfinder::flags
