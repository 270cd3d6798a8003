#pragma once

// Who a call comes from, also when it came over HTTP. The HTTP gateway
// (server/http) forwards each call in-process, where ctx.peer() is the
// in-process channel for every caller; it attaches the HTTP client's
// address and transport as metadata, with a secret generated at start-up
// that only this process knows. The service believes that metadata only
// when the secret matches, so a gRPC client cannot pass itself off as
// another peer (it never sees the secret: nothing sends it out).

#include <grpcpp/client_context.h>
#include <grpcpp/server_context.h>

#include <string>
#include <string_view>

#include "runtime/transport.h"

namespace pathserver {

struct CallOrigin {
  std::string peer;  // "ipv4:10.0.0.7:51234", as gRPC's ctx.peer() spells it
  Transport transport = Transport::kGrpc;
};

// The call's origin: the gateway's metadata when it carries this process's
// secret, else ctx.peer() over gRPC.
[[nodiscard]] CallOrigin call_origin(const grpc::ServerContextBase& ctx);

// The call's transport alone (no copy of the peer's address): what the
// metrics need of every call.
[[nodiscard]] Transport call_transport(const grpc::ServerContextBase& ctx);

// Attaches `peer` and `transport` (with the secret) to an in-process call
// the gateway makes.
void attach_call_origin(grpc::ClientContext& ctx, std::string_view peer, Transport transport);

// The metadata keys; the gateway drops any a client sent.
inline constexpr std::string_view kOriginPeerKey = "x-pathfinder-origin-peer";
inline constexpr std::string_view kOriginTransportKey = "x-pathfinder-origin-transport";
inline constexpr std::string_view kOriginSecretKey = "x-pathfinder-origin-secret";

}  // namespace pathserver
