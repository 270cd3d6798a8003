// End-to-end tests of bearer-token authentication: the real server started
// with token files (or $PATHFINDER_ADMIN_TOKEN), driven by the C++ client and
// the `pathfind` CLI. Servers bind 127.0.0.1 only; the non-loopback policy is
// tested through its refusal, which happens before anything is bound.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pathfinder/client.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathfinder::ClientOptions;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;
using ::testing::AllOf;
using ::testing::StartsWith;

constexpr const char* kAdminToken = "admin-secret-0123456789";
constexpr const char* kClientToken = "client-secret-9876543210";

// A 4x3 RAW mask, all area 1.
pb::UploadMaskRequest upload_request(const std::string& name) {
  return pathtest::open_raw_upload(name, 4, 3);
}

// One call of each RPC, as a function of a client returning the status.
struct Rpc {
  std::string name;
  bool write;
  std::function<grpc::Status(Client&)> call;
};

std::vector<Rpc> all_rpcs() {
  return {
      {"UploadMask", true, [](Client& c) { return c.upload_mask(upload_request("up")).status; }},
      {"PatchMask", true,
       [](Client& c) {
         pb::PatchMaskRequest request;
         request.set_name("m");
         request.set_width(1);
         request.set_height(1);
         request.set_areas(std::string(1, '\x02'));
         return c.patch_mask(request).status;
       }},
      {"DeleteMask", true,
       [](Client& c) {
         // Deletes "gone" when it exists; NOT_FOUND once it does not: both
         // mean the call got past authentication.
         const auto status = c.delete_mask("gone").status;
         return status.error_code() == grpc::StatusCode::NOT_FOUND ? grpc::Status::OK : status;
       }},
      {"GetMask", false, [](Client& c) { return c.get_mask("m").status; }},
      {"ListMasks", false, [](Client& c) { return c.list_masks().status; }},
      {"FindPath", false,
       [](Client& c) {
         pb::FindPathRequest request;
         request.set_mask("m");
         *request.mutable_start() = pathfinder::make_point(0, 0);
         *request.mutable_goal() = pathfinder::make_point(3, 2);
         return c.find_path(request).status;
       }},
      {"Reachable", false,
       [](Client& c) {
         pb::ReachableRequest request;
         request.set_mask("m");
         auto* pair = request.add_pairs();
         *pair->mutable_a() = pathfinder::make_point(0, 0);
         *pair->mutable_b() = pathfinder::make_point(3, 2);
         return c.reachable(request).status;
       }},
      {"StandardMove", false,
       [](Client& c) {
         pb::StandardMoveRequest request;
         request.set_mask("m");
         *request.mutable_start() = pathfinder::make_point(0, 0);
         *request.mutable_goal() = pathfinder::make_point(3, 2);
         return c.standard_move(request).status;
       }},
      {"GetField", false,
       [](Client& c) {
         pb::GetFieldRequest request;
         request.set_mask("m");
         *request.mutable_goal() = pathfinder::make_point(3, 2);
         return c.get_field(request).status;
       }},
      {"GetRange", false,
       [](Client& c) {
         pb::GetRangeRequest request;
         request.set_mask("m");
         *request.mutable_start() = pathfinder::make_point(0, 0);
         request.set_max_cost(3);
         return c.get_range(request).status;
       }},
      {"LineOfSight", false,
       [](Client& c) {
         pb::LineOfSightRequest request;
         request.set_mask("m");
         auto* pair = request.add_pairs();
         *pair->mutable_a() = pathfinder::make_point(0, 0);
         *pair->mutable_b() = pathfinder::make_point(3, 2);
         return c.line_of_sight(request).status;
       }},
      {"NearestWalkable", false,
       [](Client& c) {
         pb::NearestWalkableRequest request;
         request.set_mask("m");
         *request.add_points() = pathfinder::make_point(3, 2);
         *request.mutable_reachable_from() = pathfinder::make_point(0, 0);
         return c.nearest_walkable(request).status;
       }},
      {"BatchFindPaths", false,
       [](Client& c) {
         pb::BatchFindPathsRequest request;
         request.set_mask("m");
         *request.add_starts() = pathfinder::make_point(0, 0);
         *request.add_starts() = pathfinder::make_point(1, 1);
         *request.mutable_goal() = pathfinder::make_point(3, 2);
         return c.batch_find_paths(request).status;
       }},
  };
}

std::string code_name(grpc::StatusCode code) { return pathfinder::status_code_name(code); }

// Token files in a temp dir of the test; each test starts its own server.
class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pathtest::write_file(tokens_.file("admin"), std::string(kAdminToken) + "\n");
    pathtest::write_file(tokens_.file("client"), std::string(kClientToken) + "  \r\n");
  }

  std::unique_ptr<ServerProcess> start_server(std::vector<std::string> extra_args,
                                              std::vector<std::string> env = {}) {
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    options.extra_args = std::move(extra_args);
    options.env = std::move(env);
    options.log_level = "info";  // refused calls are logged at info
    return std::make_unique<ServerProcess>(std::move(options));
  }

  static Client client(const ServerProcess& server, const std::string& token) {
    ClientOptions options;
    options.bearer_token = token;
    options.deadline = std::chrono::seconds(20);
    return Client(server.target(), options);
  }

  // Stores mask "m" (and "gone") with the admin token.
  static void seed(const ServerProcess& server) {
    Client admin = client(server, kAdminToken);
    ASSERT_TRUE(admin.upload_mask(upload_request("m")).ok());
    ASSERT_TRUE(admin.upload_mask(upload_request("gone")).ok());
  }

  // Every RPC with token: writes answer `write_code`, queries `query_code`.
  static void expect_matrix(const ServerProcess& server, const std::string& token,
                            grpc::StatusCode write_code, grpc::StatusCode query_code,
                            const std::string& label) {
    Client c = client(server, token);
    for (const Rpc& rpc : all_rpcs()) {
      const grpc::Status status = rpc.call(c);
      const grpc::StatusCode expected = rpc.write ? write_code : query_code;
      EXPECT_EQ(code_name(status.error_code()), code_name(expected))
          << rpc.name << " with " << label << ": " << status.error_message();
    }
  }

  pathtest::TempDir tokens_{"pathfinder-auth"};
};

TEST_F(AuthTest, MatrixWithAdminAndClientTokens) {
  const auto server = start_server(
      {"--admin-token-file", tokens_.file("admin"), "--client-token-file", tokens_.file("client")});
  seed(*server);
  using grpc::StatusCode;
  expect_matrix(*server, "", StatusCode::UNAUTHENTICATED, StatusCode::UNAUTHENTICATED, "no token");
  expect_matrix(*server, "wrong-token", StatusCode::UNAUTHENTICATED, StatusCode::UNAUTHENTICATED,
                "a wrong token");
  // A prefix of the admin token is just as wrong.
  expect_matrix(*server, std::string(kAdminToken).substr(0, 10), StatusCode::UNAUTHENTICATED,
                StatusCode::UNAUTHENTICATED, "a prefix of the admin token");
  expect_matrix(*server, kClientToken, StatusCode::PERMISSION_DENIED, StatusCode::OK,
                "the client token");
  seed(*server);  // "gone" again
  expect_matrix(*server, kAdminToken, StatusCode::OK, StatusCode::OK, "the admin token");

  // Not "Bearer <token>": UNAUTHENTICATED.
  {
    Client raw(server->target());
    grpc::ClientContext context;
    context.AddMetadata("authorization", std::string("Basic ") + kAdminToken);
    pb::ListMasksResponse response;
    const auto stub = pb::Pathfinder::NewStub(raw.channel());
    const auto status = stub->ListMasks(&context, pb::ListMasksRequest{}, &response);
    EXPECT_EQ(code_name(status.error_code()), "UNAUTHENTICATED") << status.error_message();
  }
  // The scheme in any case and spaces before the token, as RFC 7235 allows.
  for (const std::string scheme : {"bearer ", "BEARER   "}) {
    Client raw(server->target());
    grpc::ClientContext context;
    context.AddMetadata("authorization", scheme + kAdminToken);
    pb::ListMasksResponse response;
    const auto stub = pb::Pathfinder::NewStub(raw.channel());
    const auto status = stub->ListMasks(&context, pb::ListMasksRequest{}, &response);
    EXPECT_EQ(code_name(status.error_code()), "OK") << scheme << status.error_message();
  }
  // Health stays open.
  Client anonymous = client(*server, "");
  const auto health = anonymous.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(health.value, pathfinder::ServingStatus::kServing);
  // Each failure is logged once, with its code.
  EXPECT_THAT(server->log(), HasSubstr("UploadMask failed: PERMISSION_DENIED"));
  EXPECT_THAT(server->log(), HasSubstr("FindPath failed: UNAUTHENTICATED"));
}

TEST_F(AuthTest, OnlyAdminTokenLeavesQueriesOpen) {
  const auto server = start_server({"--admin-token-file", tokens_.file("admin")});
  seed(*server);
  using grpc::StatusCode;
  expect_matrix(*server, "", StatusCode::UNAUTHENTICATED, StatusCode::OK, "no token");
  expect_matrix(*server, kClientToken, StatusCode::UNAUTHENTICATED, StatusCode::OK,
                "an unknown token");
  expect_matrix(*server, kAdminToken, StatusCode::OK, StatusCode::OK, "the admin token");
}

TEST_F(AuthTest, NoTokensLeaveEverythingOpenOnLoopback) {
  const auto server = start_server({});
  Client c = client(*server, "");
  ASSERT_TRUE(c.upload_mask(upload_request("m")).ok());
  ASSERT_TRUE(c.upload_mask(upload_request("gone")).ok());
  expect_matrix(*server, "", grpc::StatusCode::OK, grpc::StatusCode::OK, "no token");
}

TEST_F(AuthTest, AdminTokenFromEnvironment) {
  const auto server = start_server({}, {std::string("PATHFINDER_ADMIN_TOKEN=") + kAdminToken});
  Client anonymous = client(*server, "");
  EXPECT_EQ(code_name(anonymous.upload_mask(upload_request("m")).status.error_code()),
            "UNAUTHENTICATED");
  Client admin = client(*server, kAdminToken);
  EXPECT_TRUE(admin.upload_mask(upload_request("m")).ok());
  EXPECT_TRUE(anonymous.get_mask("m").ok());
}

TEST_F(AuthTest, AdminTokenFlagWinsOverEnvironment) {
  const auto server = start_server({"--admin-token-file", tokens_.file("admin")},
                                   {"PATHFINDER_ADMIN_TOKEN=from-the-environment"});
  Client from_env = client(*server, "from-the-environment");
  EXPECT_EQ(code_name(from_env.upload_mask(upload_request("m")).status.error_code()),
            "UNAUTHENTICATED");
  Client admin = client(*server, kAdminToken);
  EXPECT_TRUE(admin.upload_mask(upload_request("m")).ok());
}

TEST_F(AuthTest, EmptyOrMissingTokenFileIsAStartupError) {
  pathtest::write_file(tokens_.file("empty"), " \n\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--admin-token-file", tokens_.file("empty")},
           {"--client-token-file", tokens_.file("empty")},
           {"--admin-token-file", tokens_.file("no-such-file")}}) {
    const auto result =
        pathtest::run_command({PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0", "--data-dir",
                               tokens_.file("data"), args[0], args[1]});
    EXPECT_EQ(result.exit_code, 1) << args[0] << " " << args[1] << "\n" << result.err;
    EXPECT_THAT(result.err, HasSubstr(args[1])) << args[0];
  }
}

TEST_F(AuthTest, RefusesNonLoopbackWithoutAdminToken) {
  if (std::getenv("PATHFINDER_ADMIN_TOKEN") != nullptr) {
    GTEST_SKIP() << "PATHFINDER_ADMIN_TOKEN is set in the test environment";
  }
  // The refusal comes before the store is opened or anything is bound.
  for (const std::string listen : {"0.0.0.0:0", "[::]:0", "192.0.2.1:0", "example.com:0"}) {
    const auto result = pathtest::run_command({PATHFINDER_SERVER_BIN, "--listen", listen,
                                               "--data-dir", tokens_.file("data"),
                                               "--client-token-file", tokens_.file("client")});
    EXPECT_EQ(result.exit_code, 2) << listen << "\n" << result.err;  // a bad command line
    EXPECT_THAT(result.err, HasSubstr("--allow-unauthenticated-writes")) << listen;
    EXPECT_THAT(result.err, HasSubstr("--admin-token-file")) << listen;
  }
  EXPECT_FALSE(std::filesystem::exists(tokens_.file("data")));
}

TEST_F(AuthTest, HelpDescribesTheAuthFlags) {
  const auto result = pathtest::run_command({PATHFINDER_SERVER_BIN, "--help"});
  EXPECT_EQ(result.exit_code, 0);
  for (const char* flag : {"--admin-token-file", "--client-token-file",
                           "--allow-unauthenticated-writes", "PATHFINDER_ADMIN_TOKEN"}) {
    EXPECT_THAT(result.out, HasSubstr(flag));
  }
}

TEST_F(AuthTest, CliSendsTheTokenFile) {
  const auto server = start_server(
      {"--admin-token-file", tokens_.file("admin"), "--client-token-file", tokens_.file("client")});
  seed(*server);
  const std::string cli = PATHFIND_CLI_BIN;
  const auto ok = pathtest::run_command(
      {cli, "--server", server->target(), "--token-file", tokens_.file("client"), "get", "m"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  const auto upload = pathtest::run_command(
      {cli, "--server", server->target(), "--token-file", tokens_.file("admin"), "delete", "gone"});
  EXPECT_EQ(upload.exit_code, 0) << upload.err;
  const auto denied = pathtest::run_command(
      {cli, "--server", server->target(), "--token-file", tokens_.file("client"), "delete", "m"});
  EXPECT_EQ(denied.exit_code, 1);
  EXPECT_THAT(denied.err, HasSubstr("error: PERMISSION_DENIED: "));
  const auto missing = pathtest::run_command({cli, "--server", server->target(), "get", "m"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("error: UNAUTHENTICATED: "));
  // PATHFINDER_TOKEN when there is no --token-file; the file wins over it.
  const auto from_env =
      pathtest::run_command({"env", "-u", "PATHFIND_TOKEN",
                             std::string("PATHFINDER_TOKEN=") + kClientToken, cli, "--server",
                             server->target(), "get", "m"});
  EXPECT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_EQ(from_env.err, "");
  const auto file_wins = pathtest::run_command(
      {"env", "PATHFINDER_TOKEN=not-the-token", cli, "--server", server->target(), "--token-file",
       tokens_.file("client"), "get", "m"});
  EXPECT_EQ(file_wins.exit_code, 0) << file_wins.err;
  const auto wrong_env =
      pathtest::run_command({"env", "-u", "PATHFIND_TOKEN", "PATHFINDER_TOKEN=not-the-token", cli,
                             "--server", server->target(), "get", "m"});
  EXPECT_EQ(wrong_env.exit_code, 1) << wrong_env.err;
  EXPECT_THAT(wrong_env.err, HasSubstr("error: UNAUTHENTICATED: "));
}

TEST_F(AuthTest, CliStillReadsTheOldTokenVariableWithAWarning) {
  const auto server = start_server(
      {"--admin-token-file", tokens_.file("admin"), "--client-token-file", tokens_.file("client")});
  seed(*server);
  const std::string cli = PATHFIND_CLI_BIN;
  const auto old_name =
      pathtest::run_command({"env", "-u", "PATHFINDER_TOKEN",
                             std::string("PATHFIND_TOKEN=") + kClientToken, cli, "--server",
                             server->target(), "get", "m"});
  EXPECT_EQ(old_name.exit_code, 0) << old_name.err;
  EXPECT_THAT(old_name.err, AllOf(StartsWith("warning: PATHFIND_TOKEN is deprecated"),
                                  HasSubstr("PATHFINDER_TOKEN")));
  // Both set: the new name is used, the old one said to be ignored.
  const auto both = pathtest::run_command(
      {"env", std::string("PATHFINDER_TOKEN=") + kClientToken, "PATHFIND_TOKEN=not-the-token",
       cli, "--server", server->target(), "get", "m"});
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_THAT(both.err, HasSubstr("PATHFIND_TOKEN is ignored"));
  // Under --json the warning is a JSON object too.
  const auto json = pathtest::run_command(
      {"env", "-u", "PATHFINDER_TOKEN", std::string("PATHFIND_TOKEN=") + kClientToken, cli,
       "--server", server->target(), "--json", "get", "m"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.err, StartsWith("{\"code\":\"WARNING\",\"message\":\"PATHFIND_TOKEN is deprecated"));
  const auto empty = pathtest::run_command({cli, "--server", server->target(), "--token-file",
                                            tokens_.file("no-such-file"), "get", "m"});
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
}

TEST_F(AuthTest, LoadGeneratorTakesTheServerAndTokenFromTheEnvironment) {
  const auto server = start_server(
      {"--admin-token-file", tokens_.file("admin"), "--client-token-file", tokens_.file("client")});
  const std::vector<std::string> load = {PATHFINDER_LOAD_BIN, "--rpc",         "reachable",
                                         "--requests",        "20",            "--concurrency",
                                         "2",                 "--channels",    "1"};
  auto with_env = std::vector<std::string>{
      "env", "-u", "PATHFIND_TOKEN", "PATHFINDER_SERVER=" + server->target(),
      std::string("PATHFINDER_TOKEN=") + kAdminToken};
  with_env.insert(with_env.end(), load.begin(), load.end());
  const auto result = pathtest::run_command(with_env);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  // Without the token the setup's upload is refused: the variable was what let it in.
  auto without_token = std::vector<std::string>{"env", "-u", "PATHFIND_TOKEN", "-u",
                                                "PATHFINDER_TOKEN",
                                                "PATHFINDER_SERVER=" + server->target()};
  without_token.insert(without_token.end(), load.begin(), load.end());
  const auto refused = pathtest::run_command(without_token);
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("UNAUTHENTICATED"));
  // The old name works with a warning, as for pathfind.
  auto old_name = std::vector<std::string>{"env", "-u", "PATHFINDER_TOKEN",
                                           "PATHFINDER_SERVER=" + server->target(),
                                           std::string("PATHFIND_TOKEN=") + kAdminToken};
  old_name.insert(old_name.end(), load.begin(), load.end());
  const auto warned = pathtest::run_command(old_name);
  EXPECT_EQ(warned.exit_code, 0) << warned.out << warned.err;
  EXPECT_THAT(warned.err, HasSubstr("warning: PATHFIND_TOKEN is deprecated"));
}

TEST_F(AuthTest, LoadGeneratorSendsTheTokenFile) {
  const auto server = start_server(
      {"--admin-token-file", tokens_.file("admin"), "--client-token-file", tokens_.file("client")});
  const auto result = pathtest::run_command(
      {PATHFINDER_LOAD_BIN, "--server", server->target(), "--token-file", tokens_.file("admin"),
       "--rpc", "reachable", "--requests", "20", "--concurrency", "2", "--channels", "1"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
}

}  // namespace
