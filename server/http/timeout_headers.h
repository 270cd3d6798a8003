#pragma once

// The call timeouts a client may send: Connect's Connect-Timeout-Ms and
// gRPC's (and gRPC-Web's) grpc-timeout.

#include <chrono>
#include <optional>
#include <string_view>

namespace pathserver::http {

// Connect-Timeout-Ms: 1 to 10 ASCII digits, milliseconds. nullopt when
// malformed (the caller answers invalid_argument).
[[nodiscard]] std::optional<std::chrono::milliseconds> parse_connect_timeout(
    std::string_view value);

// grpc-timeout: 1 to 8 ASCII digits and a unit, H (hours), M (minutes),
// S (seconds), m (milliseconds), u (microseconds) or n (nanoseconds).
// nullopt when malformed.
[[nodiscard]] std::optional<std::chrono::nanoseconds> parse_grpc_timeout(std::string_view value);

}  // namespace pathserver::http
