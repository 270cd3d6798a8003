#pragma once

// Bearer-token authorization of the Pathfinder RPCs.
//
// Writes (UploadMask, PatchMask, DeleteMask) need the admin token when one is
// configured; queries need the client token (or the admin token) when a
// client token is configured. Health and reflection are never checked.

#include <grpcpp/grpcpp.h>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pathserver {

enum class Access { kWrite, kQuery };

// Raised when a token cannot be loaded (unreadable or empty file).
class TokenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a token file: its contents with trailing whitespace (newlines
// included) removed. Throws TokenError when it cannot be read or the token
// is empty.
[[nodiscard]] std::string read_token_file(const std::string& path);

class Authorizer {
 public:
  // Empty optionals mean "not configured". Throws TokenError on an empty
  // token or one that starts with a space (never matched: the spaces after
  // "Bearer" are dropped).
  Authorizer(std::optional<std::string> admin_token, std::optional<std::string> client_token);
  // No tokens: every RPC is open.
  Authorizer() = default;

  [[nodiscard]] bool has_admin_token() const { return admin_.has_value(); }
  [[nodiscard]] bool has_client_token() const { return client_.has_value(); }

  // OK, UNAUTHENTICATED (missing or wrong token) or PERMISSION_DENIED (the
  // client token on a write). The header is "Bearer <token>" with the scheme
  // in any case and one or more spaces before the token (RFC 7235).
  [[nodiscard]] grpc::Status check(const grpc::CallbackServerContext& ctx, Access access) const;
  // The same decision from the raw "authorization" header (nullopt: absent).
  [[nodiscard]] grpc::Status check(std::optional<std::string_view> authorization,
                                   Access access) const;

  // Which configured token the caller sent, for the audit log: "admin",
  // "client", or "none" (no token, a malformed header, or a token that
  // matches neither). Never the token itself.
  [[nodiscard]] std::string_view token_used(const grpc::CallbackServerContext& ctx) const;
  [[nodiscard]] std::string_view token_used(std::optional<std::string_view> authorization) const;

 private:
  using Digest = std::array<std::uint8_t, 32>;
  std::optional<Digest> admin_;
  std::optional<Digest> client_;
};

}  // namespace pathserver
