#include "http/timeout_headers.h"

#include <cstdint>

namespace pathserver::http {
namespace {

std::optional<std::int64_t> digits(std::string_view text, std::size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  std::int64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_connect_timeout(std::string_view value) {
  const auto ms = digits(value, 10);
  if (!ms) return std::nullopt;
  return std::chrono::milliseconds(*ms);
}

std::optional<std::chrono::nanoseconds> parse_grpc_timeout(std::string_view value) {
  if (value.size() < 2) return std::nullopt;
  const auto amount = digits(value.substr(0, value.size() - 1), 8);
  if (!amount) return std::nullopt;
  using std::chrono::nanoseconds;
  switch (value.back()) {
    case 'H':
      return std::chrono::duration_cast<nanoseconds>(std::chrono::hours(*amount));
    case 'M':
      return std::chrono::duration_cast<nanoseconds>(std::chrono::minutes(*amount));
    case 'S':
      return std::chrono::duration_cast<nanoseconds>(std::chrono::seconds(*amount));
    case 'm':
      return std::chrono::duration_cast<nanoseconds>(std::chrono::milliseconds(*amount));
    case 'u':
      return std::chrono::duration_cast<nanoseconds>(std::chrono::microseconds(*amount));
    case 'n':
      return nanoseconds(*amount);
    default:
      return std::nullopt;
  }
}

}  // namespace pathserver::http
