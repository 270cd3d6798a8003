#include "runtime/call_origin.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <stdexcept>

namespace pathserver {
namespace {

// 32 random bytes as hex, made on first use (the gateway's start-up).
const std::string& origin_secret() {
  static const std::string secret = [] {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
      throw std::runtime_error("no random bytes for the call origin secret");
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (const unsigned char b : bytes) {
      hex += kHex[b >> 4];
      hex += kHex[b & 0xF];
    }
    return hex;
  }();
  return secret;
}

std::string_view metadata_value(const grpc::ServerContextBase& ctx, std::string_view key) {
  const auto& metadata = ctx.client_metadata();
  const auto found = metadata.find(grpc::string_ref(key.data(), key.size()));
  if (found == metadata.end()) return {};
  return {found->second.data(), found->second.size()};
}

// True when the call carries this process's secret: the gateway made it.
bool from_gateway(const grpc::ServerContextBase& ctx) {
  const std::string_view secret = metadata_value(ctx, kOriginSecretKey);
  if (secret.empty()) return false;
  const std::string& expected = origin_secret();
  return secret.size() == expected.size() &&
         CRYPTO_memcmp(secret.data(), expected.data(), expected.size()) == 0;
}

Transport gateway_transport(const grpc::ServerContextBase& ctx) {
  const std::string_view transport = metadata_value(ctx, kOriginTransportKey);
  return transport == "grpc-web"  ? Transport::kGrpcWeb
         : transport == "connect" ? Transport::kConnect
                                  : Transport::kGrpc;
}

}  // namespace

CallOrigin call_origin(const grpc::ServerContextBase& ctx) {
  if (from_gateway(ctx)) {
    return {.peer = std::string(metadata_value(ctx, kOriginPeerKey)),
            .transport = gateway_transport(ctx)};
  }
  return {.peer = ctx.peer(), .transport = Transport::kGrpc};
}

Transport call_transport(const grpc::ServerContextBase& ctx) {
  return from_gateway(ctx) ? gateway_transport(ctx) : Transport::kGrpc;
}

void attach_call_origin(grpc::ClientContext& ctx, std::string_view peer, Transport transport) {
  ctx.AddMetadata(std::string(kOriginPeerKey), std::string(peer));
  ctx.AddMetadata(std::string(kOriginTransportKey), std::string(transport_name(transport)));
  ctx.AddMetadata(std::string(kOriginSecretKey), origin_secret());
}

}  // namespace pathserver
