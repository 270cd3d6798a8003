#pragma once

// Cross-origin access for browsers (--http-allow-origin): which origins may
// call, and the headers a preflight and an answer carry for them. An origin
// not allowed gets no CORS header at all, so the browser refuses the answer.

#include <string>
#include <string_view>
#include <vector>

namespace pathserver::http {

inline constexpr std::string_view kCorsAllowMethods = "POST, GET, OPTIONS";
inline constexpr std::string_view kCorsAllowHeaders =
    "Content-Type, Connect-Protocol-Version, Connect-Timeout-Ms, Connect-Accept-Encoding, "
    "Connect-Content-Encoding, Grpc-Timeout, X-Grpc-Web, X-User-Agent, Authorization, "
    "X-Pathfinder-Mask";
inline constexpr std::string_view kCorsExposeHeaders =
    "Grpc-Status, Grpc-Message, Grpc-Status-Details-Bin, Connect-Content-Encoding, "
    "Connect-Accept-Encoding";
inline constexpr std::string_view kCorsMaxAgeSeconds = "7200";

class CorsPolicy {
 public:
  // `origins` as given ("https://viewer.example", or "*": any origin).
  explicit CorsPolicy(std::vector<std::string> origins) : origins_(std::move(origins)) {}

  // True when a request with this Origin header may be answered with CORS
  // headers (never for an empty origin).
  [[nodiscard]] bool allows(std::string_view origin) const;

 private:
  std::vector<std::string> origins_;
};

}  // namespace pathserver::http
