// The start-up checks of --listen and --metrics-address: HOST:PORT syntax,
// a metrics address beyond loopback, and whether the port can be bound.

#include "runtime/listen_address.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "runtime/config.h"
#include "runtime/startup_error.h"
#include "support/held_port.h"

namespace {

using pathserver::bind_problem;
using pathserver::check_listen_addresses;
using pathserver::host_port_problem;
using pathserver::is_loopback_address;
using pathserver::ServerConfig;
using pathserver::StartupError;
using ::testing::HasSubstr;

TEST(HostPortProblem, AcceptsHostPort) {
  for (const char* address : {"127.0.0.1:50051", "0.0.0.0:0", "localhost:65535", "[::1]:8080",
                              "[::]:1", "pathfinder.example:443", "unix:/tmp/pathfinder.sock"}) {
    EXPECT_EQ(host_port_problem("--listen", address), std::nullopt) << address;
  }
}

TEST(HostPortProblem, ABarePortGetsItsOwnExample) {
  const auto problem = host_port_problem("--listen", "50113");
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(*problem, HasSubstr("--listen '50113': expected HOST:PORT, e.g. 127.0.0.1:50113"));
}

TEST(HostPortProblem, RefusesWhatIsNotHostPort) {
  for (const char* address :
       {"", "localhost", ":50051", "127.0.0.1:", "127.0.0.1:70000", "127.0.0.1:5005x",
        "127.0.0.1:-1", "[::1:50051", "[]:50051", "127.0.0.1:000000050051"}) {
    const auto problem = host_port_problem("--metrics-address", address);
    ASSERT_TRUE(problem.has_value()) << address;
    EXPECT_THAT(*problem, HasSubstr("--metrics-address '" + std::string(address) + "'"));
    EXPECT_THAT(*problem, HasSubstr("expected HOST:PORT"));
  }
}

TEST(BindProblem, APortInUseIsNamed) {
  const pathtest::HeldPort held;
  const std::string address = "127.0.0.1:" + std::to_string(held.port());
  const auto problem = bind_problem("--listen", address);
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(*problem,
              HasSubstr("--listen '" + address + "': cannot listen: address already in use"));
}

TEST(BindProblem, AFreePortAndPortZeroAreFine) {
  int free_port = 0;
  {
    const pathtest::HeldPort held;  // a port that was free a moment ago
    free_port = held.port();
  }
  EXPECT_EQ(bind_problem("--listen", "127.0.0.1:" + std::to_string(free_port)), std::nullopt);
  EXPECT_EQ(bind_problem("--listen", "127.0.0.1:0"), std::nullopt);
  // bind_problem leaves nothing bound behind: the port is still free after it.
  EXPECT_EQ(bind_problem("--listen", "127.0.0.1:" + std::to_string(free_port)), std::nullopt);
}

TEST(BindProblem, AnAddressNotOnThisMachineIsNamed) {
  // 192.0.2.0/24 is reserved for documentation: never a local address.
  const auto problem = bind_problem("--listen", "192.0.2.1:50051");
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(*problem, HasSubstr("--listen '192.0.2.1:50051': cannot listen: "));
}

TEST(IsLoopbackAddress, OnlyLoopbackHosts) {
  for (const char* address :
       {"127.0.0.1:9464", "127.1.2.3:0", "localhost:9464", "[::1]:9464", "::1:9464"}) {
    EXPECT_TRUE(is_loopback_address(address)) << address;
  }
  for (const char* address : {"0.0.0.0:9464", "192.0.2.1:9464", "[::]:9464", "127.example:9464",
                              "localhost.example:9464", "1.127.0.0:9464"}) {
    EXPECT_FALSE(is_loopback_address(address)) << address;
  }
}

// The metrics endpoint has no authentication: beyond loopback only when asked.
TEST(CheckListenAddresses, ANonLoopbackMetricsAddressNeedsTheFlag) {
  ServerConfig config;
  config.listen = "127.0.0.1:0";
  for (const std::string address : {"0.0.0.0:0", "192.0.2.1:9464"}) {
    config.metrics_address = address;
    try {
      check_listen_addresses(config);
      ADD_FAILURE() << address << " was accepted";
    } catch (const StartupError& e) {
      EXPECT_THAT(e.what(), HasSubstr("--metrics-address '" + address + "'"));
      EXPECT_THAT(e.what(), HasSubstr("--metrics-allow-remote"));
    }
  }
  config.metrics_allow_remote = true;
  config.metrics_address = "0.0.0.0:0";
  EXPECT_NO_THROW(check_listen_addresses(config));
  // Loopback needs no flag.
  config.metrics_allow_remote = false;
  for (const char* address : {"127.0.0.1:0", "127.0.0.2:0", "localhost:0"}) {
    config.metrics_address = address;
    EXPECT_NO_THROW(check_listen_addresses(config)) << address;
  }
  // A malformed address is still named as such first.
  config.metrics_address = "0.0.0.0";
  try {
    check_listen_addresses(config);
    ADD_FAILURE() << "0.0.0.0 was accepted";
  } catch (const StartupError& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected HOST:PORT"));
  }
}

}  // namespace
