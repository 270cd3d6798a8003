// End-to-end tests of TLS and mutual TLS: the real server started with
// --tls-cert/--tls-key (and --tls-client-ca), driven by the C++ client and
// the `pathfind` CLI. The certificates (a CA, a server certificate for
// 127.0.0.1 and localhost, client certificates, and a second, unrelated CA)
// are made by the `openssl` command-line tool in a temp dir of the test.
// Servers bind 127.0.0.1 only.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
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

std::string code_name(grpc::StatusCode code) { return pathfinder::status_code_name(code); }

// A 4x3 RAW mask, all area 1.
pb::UploadMaskRequest upload_request(const std::string& name) {
  return pathtest::open_raw_upload(name, 4, 3);
}

// One call of each RPC class (in this order they also leave mask "m").
std::vector<std::pair<std::string, std::function<grpc::Status(Client&)>>> all_rpcs() {
  return {
      {"UploadMask", [](Client& c) { return c.upload_mask(upload_request("m")).status; }},
      {"UploadMask gone", [](Client& c) { return c.upload_mask(upload_request("gone")).status; }},
      {"PatchMask",
       [](Client& c) {
         pb::PatchMaskRequest request;
         request.set_name("m");
         request.set_width(1);
         request.set_height(1);
         request.set_areas(std::string(1, '\x02'));
         return c.patch_mask(request).status;
       }},
      {"DeleteMask", [](Client& c) { return c.delete_mask("gone").status; }},
      {"GetMask", [](Client& c) { return c.get_mask("m").status; }},
      {"ListMasks", [](Client& c) { return c.list_masks().status; }},
      {"FindPath",
       [](Client& c) {
         pb::FindPathRequest request;
         request.set_mask("m");
         *request.mutable_start() = pathfinder::make_point(0, 0);
         *request.mutable_goal() = pathfinder::make_point(3, 2);
         return c.find_path(request).status;
       }},
      {"Reachable",
       [](Client& c) {
         pb::ReachableRequest request;
         request.set_mask("m");
         auto* pair = request.add_pairs();
         *pair->mutable_a() = pathfinder::make_point(0, 0);
         *pair->mutable_b() = pathfinder::make_point(3, 2);
         return c.reachable(request).status;
       }},
      {"StandardMove",
       [](Client& c) {
         pb::StandardMoveRequest request;
         request.set_mask("m");
         *request.mutable_start() = pathfinder::make_point(0, 0);
         *request.mutable_goal() = pathfinder::make_point(3, 2);
         return c.standard_move(request).status;
       }},
      {"Health",
       [](Client& c) {
         const auto health = c.health_check();
         if (health.ok() && health.value != pathfinder::ServingStatus::kServing) {
           return grpc::Status(grpc::StatusCode::INTERNAL, "not SERVING");
         }
         return health.status;
       }},
  };
}

// Certificates made once for the whole suite.
class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new pathtest::TempDir("pathfinder-tls");
    make_ca("ca");
    make_ca("other-ca");
    make_leaf("server", "ca", "/CN=localhost",
              "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
              "extendedKeyUsage=serverAuth\n");
    make_leaf("client", "ca", "/CN=pathfinder-test-client",
              "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n");
    make_leaf("stranger", "other-ca", "/CN=pathfinder-test-stranger",
              "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n");
  }
  static void TearDownTestSuite() {
    delete certs_;
    certs_ = nullptr;
  }

  static std::string file(const std::string& name) { return certs_->file(name); }

  static void openssl(std::vector<std::string> args) {
    args.insert(args.begin(), "openssl");
    const auto result = pathtest::run_command(args);
    ASSERT_EQ(result.exit_code, 0) << "openssl " << args[1] << " failed:\n"
                                   << result.out << result.err;
  }

  // A self-signed CA: NAME.pem, NAME.key.
  static void make_ca(const std::string& name) {
    openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", file(name + ".key"), "-out", file(name + ".pem"), "-days", "2", "-subj",
             "/CN=pathfinder-test-" + name});
  }

  // A certificate NAME.pem (key NAME.key) signed by CA with the extensions.
  static void make_leaf(const std::string& name, const std::string& ca, const std::string& subject,
                        const std::string& extensions) {
    openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", file(name + ".key"), "-out", file(name + ".csr"), "-subj", subject});
    pathtest::write_file(file(name + ".ext"), extensions);
    static int serial = 1000;
    openssl({"x509", "-req", "-in", file(name + ".csr"), "-CA", file(ca + ".pem"), "-CAkey",
             file(ca + ".key"), "-set_serial", std::to_string(++serial), "-out",
             file(name + ".pem"), "-days", "2", "-extfile", file(name + ".ext")});
  }

  static std::unique_ptr<ServerProcess> start_server(bool mutual) {
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    options.log_level = "info";
    options.extra_args = {"--tls-cert", file("server.pem"), "--tls-key", file("server.key")};
    if (mutual) {
      options.extra_args.insert(options.extra_args.end(), {"--tls-client-ca", file("ca.pem")});
    }
    return std::make_unique<ServerProcess>(std::move(options));
  }

  // A TLS client trusting ca; with the client certificate `cert` unless empty.
  static Client tls_client(const ServerProcess& server, const std::string& ca,
                           const std::string& cert = "") {
    ClientOptions options;
    options.deadline = std::chrono::seconds(10);
    pathfinder::load_tls_files(options, file(ca + ".pem"), cert.empty() ? "" : file(cert + ".pem"),
                               cert.empty() ? "" : file(cert + ".key"));
    return Client(server.target(), options);
  }

  static void expect_all_ok(Client& client, const std::string& label) {
    for (const auto& [name, call] : all_rpcs()) {
      const grpc::Status status = call(client);
      EXPECT_TRUE(status.ok()) << name << " over " << label << ": "
                               << code_name(status.error_code()) << ": " << status.error_message();
    }
  }

  static void expect_unavailable(Client& client, const std::string& label) {
    const auto status = client.list_masks().status;
    EXPECT_EQ(code_name(status.error_code()), "UNAVAILABLE")
        << label << ": " << status.error_message();
    EXPECT_FALSE(client.health_check().ok()) << label;
  }

  static pathtest::TempDir* certs_;
};

pathtest::TempDir* TlsTest::certs_ = nullptr;

TEST_F(TlsTest, TlsClientWithTheRightCaMakesEveryCall) {
  const auto server = start_server(false);
  EXPECT_THAT(server->log(), HasSubstr("transport: TLS"));
  Client client = tls_client(*server, "ca");
  expect_all_ok(client, "TLS");

  // The name checked can be overridden (e.g. an address the certificate
  // does not list): "localhost" is in the certificate.
  ClientOptions options;
  pathfinder::load_tls_files(options, file("ca.pem"), "", "");
  options.tls_target_name_override = "localhost";
  Client overridden(server->target(), options);
  EXPECT_TRUE(overridden.list_masks().ok());
  options.tls_target_name_override = "not-in-the-certificate.example";
  Client mismatched(server->target(), options);
  expect_unavailable(mismatched, "a target name the certificate does not list");
}

TEST_F(TlsTest, PlaintextClientAgainstTlsServerFails) {
  const auto server = start_server(false);
  Client plaintext(server->target());
  expect_unavailable(plaintext, "plaintext");
}

TEST_F(TlsTest, TlsClientWithTheWrongCaFails) {
  const auto server = start_server(false);
  Client wrong = tls_client(*server, "other-ca");
  expect_unavailable(wrong, "the wrong CA");
}

TEST_F(TlsTest, TlsClientAgainstPlaintextServerFails) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  const ServerProcess server(std::move(options));
  Client client = tls_client(server, "ca");
  expect_unavailable(client, "TLS to a plaintext server");
}

TEST_F(TlsTest, MutualTlsNeedsAClientCertificateSignedByTheCa) {
  const auto server = start_server(true);
  EXPECT_THAT(server->log(), HasSubstr("transport: mutual TLS"));
  Client without_cert = tls_client(*server, "ca");
  expect_unavailable(without_cert, "mTLS without a client certificate");
  Client stranger = tls_client(*server, "ca", "stranger");
  expect_unavailable(stranger, "mTLS with a certificate of another CA");
  Client with_cert = tls_client(*server, "ca", "client");
  expect_all_ok(with_cert, "mTLS");
}

TEST_F(TlsTest, CliConnectsWithTls) {
  const auto server = start_server(true);
  Client admin = tls_client(*server, "ca", "client");
  ASSERT_TRUE(admin.upload_mask(upload_request("m")).ok());
  const std::string cli = PATHFIND_CLI_BIN;
  const auto ok = pathtest::run_command(
      {cli, "--server", server->target(), "--tls-ca", file("ca.pem"), "--tls-cert",
       file("client.pem"), "--tls-key", file("client.key"), "find", "m", "0", "0", "3", "2"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  const auto no_cert = pathtest::run_command(
      {cli, "--server", server->target(), "--tls-ca", file("ca.pem"), "get", "m"});
  EXPECT_EQ(no_cert.exit_code, 1);
  EXPECT_THAT(no_cert.err, HasSubstr("error: UNAVAILABLE"));
  const auto half =
      pathtest::run_command({cli, "--server", server->target(), "--tls-ca", file("ca.pem"),
                             "--tls-cert", file("client.pem"), "get", "m"});
  EXPECT_EQ(half.exit_code, 2) << half.err;

  // Server-only TLS: --tls-ca alone is enough.
  const auto plain_tls = start_server(false);
  Client writer = tls_client(*plain_tls, "ca");
  ASSERT_TRUE(writer.upload_mask(upload_request("m")).ok());
  const auto get = pathtest::run_command(
      {cli, "--server", plain_tls->target(), "--tls-ca", file("ca.pem"), "get", "m"});
  EXPECT_EQ(get.exit_code, 0) << get.err;
}

TEST_F(TlsTest, LoadGeneratorConnectsWithMutualTls) {
  const auto server = start_server(true);
  const auto result = pathtest::run_command(
      {PATHFINDER_LOAD_BIN, "--server", server->target(), "--tls-ca", file("ca.pem"), "--tls-cert",
       file("client.pem"), "--tls-key", file("client.key"), "--rpc", "reachable", "--requests",
       "20", "--concurrency", "2", "--channels", "1"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
}

TEST_F(TlsTest, BadTlsFlagsAreStartupErrors) {
  pathtest::TempDir scratch("pathfinder-tls-flags");
  // Flags that do not go together are a bad command line (2); files that
  // cannot be read, a failed start (1).
  const std::vector<std::tuple<std::vector<std::string>, std::string, int>> cases = {
      {{"--tls-cert", file("server.pem")}, "--tls-key", 2},
      {{"--tls-key", file("server.key")}, "--tls-cert", 2},
      {{"--tls-client-ca", file("ca.pem")}, "--tls-client-ca", 2},
      {{"--tls-cert", scratch.file("no-such-cert.pem"), "--tls-key", file("server.key")},
       scratch.file("no-such-cert.pem"), 1},
      {{"--tls-cert", file("server.pem"), "--tls-key", scratch.file("no-such-key.pem")},
       scratch.file("no-such-key.pem"), 1},
      {{"--tls-cert", file("server.pem"), "--tls-key", file("server.key"), "--tls-client-ca",
        scratch.file("no-such-ca.pem")},
       scratch.file("no-such-ca.pem"), 1},
  };
  for (const auto& [flags, expected, exit_code] : cases) {
    std::vector<std::string> argv = {PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0", "--data-dir",
                                     scratch.file("data")};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const auto result = pathtest::run_command(argv);
    EXPECT_EQ(result.exit_code, exit_code) << flags[0] << "\n" << result.err;
    EXPECT_THAT(result.err, HasSubstr(expected)) << flags[0];
  }
}

}  // namespace
