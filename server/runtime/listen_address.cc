#include "runtime/listen_address.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/config.h"
#include "runtime/startup_error.h"

namespace pathserver {
namespace {

struct HostPort {
  std::string host;  // without IPv6 brackets
  std::string port;
};

bool is_unix_address(std::string_view address) {
  return address.starts_with("unix:") || address.starts_with("unix-abstract:");
}

// HOST and PORT of a HOST:PORT that host_port_problem accepted.
HostPort split(std::string_view address) {
  const auto colon = address.rfind(':');
  std::string_view host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {std::string(host), std::string(address.substr(colon + 1))};
}

std::string quoted(std::string_view flag, std::string_view address) {
  return std::string(flag) + " '" + std::string(address) + "'";
}

}  // namespace

std::optional<std::string> host_port_problem(std::string_view flag, std::string_view address) {
  if (is_unix_address(address)) return std::nullopt;
  const auto colon = address.rfind(':');
  const bool all_digits =
      !address.empty() && address.find_first_not_of("0123456789") == std::string_view::npos;
  // A bare port is the likeliest mistake: suggest it on loopback.
  const std::string example_port =
      all_digits && address.size() <= 5 ? std::string(address) : std::string("50051");
  const std::string expected = ": expected HOST:PORT, e.g. 127.0.0.1:" + example_port +
                               " (this machine only) or 0.0.0.0:" + example_port +
                               " (every interface)";
  if (colon == std::string_view::npos) return quoted(flag, address) + expected;
  const std::string_view host = address.substr(0, colon);
  const std::string_view port = address.substr(colon + 1);
  if (host.empty()) return quoted(flag, address) + expected + "; HOST is empty";
  if (host.front() == '[' && (host.size() < 3 || host.back() != ']')) {
    return quoted(flag, address) + expected + "; an IPv6 HOST needs its closing ']'";
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoul(std::string(port)) > 65535) {
    return quoted(flag, address) + expected + "; PORT must be a number 0..65535";
  }
  return std::nullopt;
}

std::optional<std::string> bind_problem(std::string_view flag, std::string_view address) {
  if (is_unix_address(address)) return std::nullopt;
  const HostPort parts = split(address);
  if (parts.port.find_first_not_of('0') == std::string::npos) return std::nullopt;  // port 0

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int error = ::getaddrinfo(parts.host.c_str(), parts.port.c_str(), &hints, &found);
      error != 0) {
    return quoted(flag, address) + ": cannot resolve '" + parts.host +
           "': " + ::gai_strerror(error);
  }
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
  int first_error = 0;
  bool any_bound = false;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      if (first_error == 0) first_error = errno;
      continue;
    }
    // As gRPC does: a port left in TIME_WAIT by an earlier server is usable.
    const int on = 1;
    (void)::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    const bool bound = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    const int error = errno;
    ::close(fd);
    if (bound) {
      any_bound = true;
    } else if (error == EADDRINUSE) {
      // Almost surely another server: refuse rather than serve on part of HOST's addresses.
      return quoted(flag, address) + ": cannot listen: address already in use (another " +
             "process listens on port " + parts.port + ")";
    } else if (first_error == 0) {
      first_error = error;
    }
  }
  if (any_bound || first_error == 0) return std::nullopt;
  return quoted(flag, address) + ": cannot listen: " + std::strerror(first_error);
}

bool is_loopback_address(std::string_view address) {
  const auto colon = address.rfind(':');
  const std::string_view host =
      colon == std::string_view::npos ? address : address.substr(0, colon);
  const bool dotted = host.find_first_not_of("0123456789.") == std::string_view::npos;
  return (host.starts_with("127.") && dotted) || host == "localhost" || host == "[::1]" ||
         host == "::1";
}

void check_listen_addresses(const ServerConfig& config) {
  std::vector<std::pair<std::string, std::string>> addresses = {{"--listen", config.listen}};
  if (!config.metrics_address.empty()) {
    addresses.emplace_back("--metrics-address", config.metrics_address);
  }
  if (!config.http_listen.empty()) addresses.emplace_back("--http-listen", config.http_listen);
  for (const auto& [flag, address] : addresses) {
    if (auto problem = host_port_problem(flag, address)) throw UsageError(*problem);
  }
  if (!config.metrics_address.empty() && !config.metrics_allow_remote &&
      !is_loopback_address(config.metrics_address)) {
    throw UsageError(quoted("--metrics-address", config.metrics_address) +
                       ": refusing to serve the metrics beyond loopback: the endpoint has no "
                       "authentication, so anyone who can reach it reads them. Use 127.0.0.1, or "
                       "pass --metrics-allow-remote to accept that");
  }
  for (const auto& [flag, address] : addresses) {
    if (auto problem = bind_problem(flag, address)) throw StartupError(*problem);
  }
}

}  // namespace pathserver
