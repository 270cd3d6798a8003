#pragma once

// Checks of the server's listening addresses (--listen, --metrics-address, --http-listen)
// made before anything else starts, so a mistake gets a sentence naming the
// flag instead of a gRPC or civetweb error dump later.

#include <optional>
#include <string>
#include <string_view>

namespace pathserver {

struct ServerConfig;

// Why `address`, the value of `flag`, is not HOST:PORT, or nullopt when it
// is. HOST must be non-empty (a name, a dotted IPv4 address or a bracketed
// IPv6 one); PORT a decimal number 0..65535. The message names the flag and
// the value and gives an example, e.g. for "--listen" and "50113":
//   --listen '50113': expected HOST:PORT, e.g. 127.0.0.1:50113 (...)
// gRPC's "unix:PATH" addresses pass unchecked (gRPC parses those).
[[nodiscard]] std::optional<std::string> host_port_problem(std::string_view flag,
                                                           std::string_view address);

// Binds a TCP socket to every address HOST resolves to at PORT, as the
// server will, and closes it again. nullopt when that works (or PORT is 0,
// or the address is gRPC's "unix:"), else why not, naming the flag, e.g.
//   --listen '127.0.0.1:50113': cannot listen: address already in use
// Call with an address host_port_problem accepted.
[[nodiscard]] std::optional<std::string> bind_problem(std::string_view flag,
                                                      std::string_view address);

// True when the HOST of HOST:PORT is a loopback address: 127.x.x.x,
// localhost, ::1 or [::1]. Anything else (0.0.0.0, [::], a LAN address, a
// host name) may be reachable from other machines.
[[nodiscard]] bool is_loopback_address(std::string_view address);

// Checks --listen and, when set, --metrics-address and --http-listen: first that they are
// HOST:PORT (host_port_problem), then that the metrics address is on
// loopback unless --metrics-allow-remote (the endpoint has no
// authentication), then that their ports are free (bind_problem), so a
// mistake is one sentence and nothing was opened. Throws StartupError with
// the first problem.
void check_listen_addresses(const ServerConfig& config);

}  // namespace pathserver
