// The start-up checks of --listen and --metrics-address: HOST:PORT syntax
// and whether the port can be bound.

#include "runtime/listen_address.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace {

using pathserver::bind_problem;
using pathserver::host_port_problem;
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

// A listening socket on 127.0.0.1 at a port the kernel picked.
class HeldPort {
 public:
  HeldPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd_, 1) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::runtime_error("cannot hold a port");
    }
    port_ = ntohs(address.sin_port);
  }
  ~HeldPort() { ::close(fd_); }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  [[nodiscard]] int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

TEST(BindProblem, APortInUseIsNamed) {
  const HeldPort held;
  const std::string address = "127.0.0.1:" + std::to_string(held.port());
  const auto problem = bind_problem("--listen", address);
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(*problem,
              HasSubstr("--listen '" + address + "': cannot listen: address already in use"));
}

TEST(BindProblem, AFreePortAndPortZeroAreFine) {
  int free_port = 0;
  {
    const HeldPort held;  // a port that was free a moment ago
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

}  // namespace
