#include "server_address.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace pathfinder::flags {

namespace {

// Target schemes gRPC itself resolves ("dns:///host:port", "unix:/path", ...).
constexpr std::array<std::string_view, 5> kGrpcSchemes = {"dns:", "ipv4:", "ipv6:", "unix:",
                                                          "unix-abstract:"};

constexpr const char* kExample = "127.0.0.1:50051";

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::optional<std::string> server_address_problem(std::string_view flag, std::string_view address) {
  const std::string quoted = std::string(flag) + " '" + std::string(address) + "'";
  const std::string expected = ": expected HOST:PORT, e.g. " + std::string(kExample);
  if (address.empty()) return quoted + expected + "; it is empty";
  for (const std::string_view scheme : kGrpcSchemes) {
    if (address.starts_with(scheme)) return std::nullopt;
  }
  if (const auto at = address.find("://"); at != std::string_view::npos) {
    const std::string scheme = lowered(address.substr(0, at));
    std::string rest(address.substr(at + 3));
    if (rest.ends_with('/')) rest.pop_back();
    std::string text = quoted + ": expected HOST:PORT without a URL scheme, e.g. " +
                       (rest.empty() ? std::string(kExample) : rest);
    if (scheme == "https" || scheme == "grpcs") {
      text += " (for TLS add --tls-ca FILE)";
    }
    return text;
  }
  const auto colon = address.rfind(':');
  const bool bracketed_without_port = address.starts_with('[') && address.ends_with(']');
  if (colon == std::string_view::npos || bracketed_without_port) {
    return quoted + expected + "; the port is missing";
  }
  const std::string_view host = address.substr(0, colon);
  const std::string_view port = address.substr(colon + 1);
  if (host.empty()) return quoted + expected + "; HOST is empty";
  if (host.find(':') != std::string_view::npos && !(host.starts_with('[') && host.ends_with(']'))) {
    return quoted + expected + "; an IPv6 HOST goes in brackets, e.g. [::1]:50051";
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoul(std::string(port)) == 0 || std::stoul(std::string(port)) > 65535) {
    return quoted + expected + "; PORT must be a number 1..65535";
  }
  return std::nullopt;
}

std::string connection_hint(const grpc::Status& status, std::string_view target) {
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return {};
  const std::string message = lowered(status.error_message());
  const bool not_connected = message.find("failed to connect") != std::string::npos ||
                             message.find("connection refused") != std::string::npos;
  if (!not_connected) return {};
  return " (is the server running at " + std::string(target) + "?)";
}

}  // namespace pathfinder::flags
