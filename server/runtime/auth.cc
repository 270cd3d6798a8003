#include "runtime/auth.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>
#include <utility>

#include "runtime/config_file.h"

namespace pathserver {
namespace {

constexpr std::string_view kBearerScheme = "Bearer";

std::array<std::uint8_t, 32> digest(std::string_view text) {
  std::array<std::uint8_t, 32> out{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), out.data());
  return out;
}


char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_ignoring_ascii_case(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, {}, ascii_lower, ascii_lower);
}

// The token of an authorization value "Bearer <token>", or nullopt when the
// value is not one. RFC 7235: the scheme is case-insensitive and is followed
// by 1*SP, so "bearer  TOKEN" is the same credential as "Bearer TOKEN".
std::optional<std::string_view> bearer_token(std::string_view authorization) {
  if (authorization.size() <= kBearerScheme.size() ||
      !equals_ignoring_ascii_case(authorization.substr(0, kBearerScheme.size()), kBearerScheme) ||
      authorization[kBearerScheme.size()] != ' ') {
    return std::nullopt;
  }
  const auto token_start = authorization.find_first_not_of(' ', kBearerScheme.size());
  if (token_start == std::string_view::npos) return std::nullopt;
  return authorization.substr(token_start);
}

// A configured token that starts with a space could never be presented:
// bearer_token drops the spaces before it.
void check_token(const std::string& token, std::string_view which) {
  if (token.empty()) throw TokenError("the " + std::string(which) + " token is empty");
  if (token.front() == ' ') {
    throw TokenError("the " + std::string(which) +
                     " token starts with a space, which 'authorization: Bearer <token>' cannot "
                     "carry: remove it");
  }
}

}  // namespace

std::string read_token_file(const std::string& path) {
  std::string text;
  try {
    text = trim_trailing_space(read_config_file(path));
  } catch (const ConfigFileError& e) {
    throw TokenError("token file '" + path + "': " + e.what());
  }
  if (text.empty()) throw TokenError("token file '" + path + "' is empty");
  return text;
}

Authorizer::Authorizer(std::optional<std::string> admin_token,
                       std::optional<std::string> client_token) {
  if (admin_token) {
    check_token(*admin_token, "admin");
    admin_ = digest(*admin_token);
  }
  if (client_token) {
    check_token(*client_token, "client");
    client_ = digest(*client_token);
  }
}

namespace {

std::optional<std::string_view> authorization_header(const grpc::CallbackServerContext& ctx) {
  const auto& metadata = ctx.client_metadata();
  const auto it = metadata.find("authorization");
  if (it == metadata.end()) return std::nullopt;
  return std::string_view(it->second.data(), it->second.size());
}

}  // namespace

grpc::Status Authorizer::check(const grpc::CallbackServerContext& ctx, Access access) const {
  if (!admin_ && !client_) return grpc::Status::OK;
  return check(authorization_header(ctx), access);
}

std::string_view Authorizer::token_used(const grpc::CallbackServerContext& ctx) const {
  if (!admin_ && !client_) return "none";
  return token_used(authorization_header(ctx));
}

std::string_view Authorizer::token_used(std::optional<std::string_view> authorization) const {
  const std::optional<std::string_view> token =
      authorization ? bearer_token(*authorization) : std::nullopt;
  if (!token) return "none";
  const Digest presented = digest(*token);
  if (admin_ && CRYPTO_memcmp(presented.data(), admin_->data(), 32) == 0) return "admin";
  if (client_ && CRYPTO_memcmp(presented.data(), client_->data(), 32) == 0) return "client";
  return "none";
}

grpc::Status Authorizer::check(std::optional<std::string_view> authorization, Access access) const {
  const std::optional<Digest>& required = access == Access::kWrite ? admin_ : client_;
  if (!required) return grpc::Status::OK;
  if (!authorization) {
    return {grpc::StatusCode::UNAUTHENTICATED, "missing 'authorization: Bearer <token>' metadata"};
  }
  const std::optional<std::string_view> token = bearer_token(*authorization);
  if (!token) {
    return {grpc::StatusCode::UNAUTHENTICATED, "authorization metadata is not 'Bearer <token>'"};
  }
  const Digest presented = digest(*token);
  // Both comparisons always run: the time taken does not depend on which
  // token (if any) matched.
  const bool is_admin = admin_ && CRYPTO_memcmp(presented.data(), admin_->data(), 32) == 0;
  const bool is_client = client_ && CRYPTO_memcmp(presented.data(), client_->data(), 32) == 0;
  if (is_admin) return grpc::Status::OK;
  if (access == Access::kQuery && is_client) return grpc::Status::OK;
  if (access == Access::kWrite && is_client) {
    return {grpc::StatusCode::PERMISSION_DENIED, "the client token does not allow writes"};
  }
  return {grpc::StatusCode::UNAUTHENTICATED, "invalid bearer token"};
}

}  // namespace pathserver
