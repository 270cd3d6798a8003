// Unit tests of the Authorizer's decisions and of token files.

#include "runtime/auth.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "support/server_process.h"

namespace {

using pathserver::Access;
using pathserver::Authorizer;
using Code = grpc::StatusCode;

Code code(const Authorizer& auth, std::optional<std::string_view> header, Access access) {
  return auth.check(header, access).error_code();
}

TEST(AuthorizerTest, NoTokensAllowEverything) {
  const Authorizer auth;
  EXPECT_EQ(code(auth, std::nullopt, Access::kWrite), Code::OK);
  EXPECT_EQ(code(auth, "Bearer junk", Access::kQuery), Code::OK);
}

TEST(AuthorizerTest, BothTokens) {
  const Authorizer auth(std::string("admin"), std::string("client"));
  for (const Access access : {Access::kWrite, Access::kQuery}) {
    EXPECT_EQ(code(auth, std::nullopt, access), Code::UNAUTHENTICATED);
    EXPECT_EQ(code(auth, "", access), Code::UNAUTHENTICATED);
    EXPECT_EQ(code(auth, "Bearer ", access), Code::UNAUTHENTICATED);
    EXPECT_EQ(code(auth, "Bearer admi", access), Code::UNAUTHENTICATED);
    EXPECT_EQ(code(auth, "Bearer admin2", access), Code::UNAUTHENTICATED);
    EXPECT_EQ(code(auth, "admin", access), Code::UNAUTHENTICATED);
    EXPECT_EQ(code(auth, "Bearer admin", access), Code::OK);
  }
  EXPECT_EQ(code(auth, "Bearer client", Access::kWrite), Code::PERMISSION_DENIED);
  EXPECT_EQ(code(auth, "Bearer client", Access::kQuery), Code::OK);
}

// RFC 7235: the auth scheme is case-insensitive and 1*SP separates it from
// the credentials.
TEST(AuthorizerTest, TheSchemeIsCaseInsensitiveAndSpacesMayRepeat) {
  const Authorizer auth(std::string("admin"), std::string("client"));
  for (const char* header :
       {"bearer admin", "BEARER admin", "bEaReR admin", "Bearer  admin", "bearer     admin"}) {
    EXPECT_EQ(code(auth, header, Access::kWrite), Code::OK) << header;
    EXPECT_EQ(auth.token_used(header), "admin") << header;
  }
  EXPECT_EQ(code(auth, "bearer   client", Access::kQuery), Code::OK);
  EXPECT_EQ(code(auth, "BEARER client", Access::kWrite), Code::PERMISSION_DENIED);
  EXPECT_EQ(auth.token_used("bearer  client"), "client");
  // Still refused: no space, a tab, no token, another scheme, a token of
  // another case (only the scheme is case-insensitive), a space inside.
  for (const char* header : {"bearer", "bearer ", "Bearer    ", "Bearer\tadmin", "Beareradmin",
                             "Bearer-admin", "Basic admin", "Bearer ADMIN", "Bearer ad min",
                             " Bearer admin", "Bear admin", "bearerx admin"}) {
    EXPECT_EQ(code(auth, header, Access::kWrite), Code::UNAUTHENTICATED) << header;
    EXPECT_EQ(code(auth, header, Access::kQuery), Code::UNAUTHENTICATED) << header;
    EXPECT_EQ(auth.token_used(header), "none") << header;
  }
}

TEST(AuthorizerTest, ATokenStartingWithASpaceIsRefused) {
  // It could never match: the spaces after "Bearer" are dropped.
  EXPECT_THROW(Authorizer(std::string(" admin"), std::nullopt), pathserver::TokenError);
  EXPECT_THROW(Authorizer(std::nullopt, std::string(" client")), pathserver::TokenError);
  // Spaces inside are part of the token.
  const Authorizer auth(std::string("ad min"), std::nullopt);
  EXPECT_EQ(code(auth, "bearer  ad min", Access::kWrite), Code::OK);
}

TEST(AuthorizerTest, AdminOnlyLeavesQueriesOpen) {
  const Authorizer auth(std::string("admin"), std::nullopt);
  EXPECT_EQ(code(auth, std::nullopt, Access::kQuery), Code::OK);
  EXPECT_EQ(code(auth, std::nullopt, Access::kWrite), Code::UNAUTHENTICATED);
  EXPECT_EQ(code(auth, "Bearer admin", Access::kWrite), Code::OK);
}

TEST(AuthorizerTest, ClientOnlyLeavesWritesOpen) {
  const Authorizer auth(std::nullopt, std::string("client"));
  EXPECT_EQ(code(auth, std::nullopt, Access::kWrite), Code::OK);
  EXPECT_EQ(code(auth, std::nullopt, Access::kQuery), Code::UNAUTHENTICATED);
  EXPECT_EQ(code(auth, "Bearer client", Access::kQuery), Code::OK);
}

TEST(AuthorizerTest, TokenUsedNamesTheTokenNeverItsValue) {
  const Authorizer both(std::string("s3cret-admin"), std::string("s3cret-client"));
  EXPECT_EQ(both.token_used("Bearer s3cret-admin"), "admin");
  EXPECT_EQ(both.token_used("Bearer s3cret-client"), "client");
  for (const std::optional<std::string_view> header :
       {std::optional<std::string_view>{}, std::optional<std::string_view>{""},
        std::optional<std::string_view>{"s3cret-admin"},
        std::optional<std::string_view>{"Bearer s3cret-admin2"},
        std::optional<std::string_view>{"Bearers3cret-admin"}}) {
    EXPECT_EQ(both.token_used(header), "none") << header.value_or("(absent)");
  }
  // Only the configured tokens are recognised.
  const Authorizer admin_only(std::string("a"), std::nullopt);
  EXPECT_EQ(admin_only.token_used("Bearer a"), "admin");
  EXPECT_EQ(admin_only.token_used("Bearer c"), "none");
  EXPECT_EQ(Authorizer().token_used("Bearer a"), "none");
}

TEST(AuthorizerTest, EmptyTokenIsRejected) {
  EXPECT_THROW(Authorizer(std::string(), std::nullopt), pathserver::TokenError);
  EXPECT_THROW(Authorizer(std::nullopt, std::string()), pathserver::TokenError);
}

TEST(TokenFileTest, TrimsTrailingWhitespaceOnly) {
  const pathtest::TempDir dir("pathfinder-auth-unit");
  pathtest::write_file(dir.file("t"), " tok en\t \r\n\n");
  EXPECT_EQ(pathserver::read_token_file(dir.file("t")), " tok en");
  pathtest::write_file(dir.file("empty"), "\n \n");
  EXPECT_THROW((void)pathserver::read_token_file(dir.file("empty")), pathserver::TokenError);
  EXPECT_THROW((void)pathserver::read_token_file(dir.file("missing")), pathserver::TokenError);
}

}  // namespace
