#include "runtime/auth.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <system_error>
#include <utility>

namespace pathserver {
namespace {

constexpr std::string_view kBearer = "Bearer ";

std::array<std::uint8_t, 32> digest(std::string_view text) {
  std::array<std::uint8_t, 32> out{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), out.data());
  return out;
}

std::string trim_trailing(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                           text.back() == '\r' || text.back() == '\f' || text.back() == '\v')) {
    text.pop_back();
  }
  return text;
}

}  // namespace

std::string read_token_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw TokenError("cannot open token file '" + path +
                     "': " + std::generic_category().message(errno));
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw TokenError("cannot read token file '" + path + "'");
  text = trim_trailing(std::move(text));
  if (text.empty()) throw TokenError("token file '" + path + "' is empty");
  return text;
}

Authorizer::Authorizer(std::optional<std::string> admin_token,
                       std::optional<std::string> client_token) {
  if (admin_token) {
    if (admin_token->empty()) throw TokenError("the admin token is empty");
    admin_ = digest(*admin_token);
  }
  if (client_token) {
    if (client_token->empty()) throw TokenError("the client token is empty");
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
  if (!authorization || !authorization->starts_with(kBearer)) return "none";
  const Digest presented = digest(authorization->substr(kBearer.size()));
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
  if (!authorization->starts_with(kBearer)) {
    return {grpc::StatusCode::UNAUTHENTICATED, "authorization metadata is not 'Bearer <token>'"};
  }
  const Digest presented = digest(authorization->substr(kBearer.size()));
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
