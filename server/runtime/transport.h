#pragma once

// The transports a call may arrive by: gRPC itself, or over HTTP/1.1
// through the gateway (server/http) as Connect or gRPC-Web. The metrics'
// `transport` label and the call logs' `transport` field name them.

#include <cstddef>
#include <string_view>

namespace pathserver {

enum class Transport { kGrpc = 0, kConnect = 1, kGrpcWeb = 2 };
inline constexpr std::size_t kTransportCount = 3;

[[nodiscard]] constexpr std::string_view transport_name(Transport transport) {
  switch (transport) {
    case Transport::kConnect:
      return "connect";
    case Transport::kGrpcWeb:
      return "grpc-web";
    case Transport::kGrpc:
      break;
  }
  return "grpc";
}

}  // namespace pathserver
