#pragma once

// The server address of `--server` (or PATHFINDER_SERVER), checked before a
// channel is made: gRPC would otherwise dial "127.0.0.1" at port 0, or look
// "http" up in DNS, and report something far from the mistake.

#include <grpcpp/support/status.h>

#include <optional>
#include <string>
#include <string_view>

namespace pathfinder::flags {

// Why `address`, the value of `flag`, is not a server address, or nullopt
// when it is. Accepted: HOST:PORT (HOST a name, a dotted IPv4 address or a
// bracketed IPv6 one; PORT 1..65535), and gRPC's own target forms, which
// start with a scheme gRPC knows (dns:, ipv4:, ipv6:, unix:, unix-abstract:)
// and pass unchecked. The message names the flag and the value, e.g.
//   --server '127.0.0.1': expected HOST:PORT, e.g. 127.0.0.1:50051; the port is missing
//   --server 'http://127.0.0.1:50051': expected HOST:PORT without a URL scheme, e.g. 127.0.0.1:50051
[[nodiscard]] std::optional<std::string> server_address_problem(std::string_view flag,
                                                                std::string_view address);

// " (is the server running at TARGET?)" when status is a connection that
// could not be made (UNAVAILABLE: refused, or no address answered), else "".
[[nodiscard]] std::string connection_hint(const grpc::Status& status, std::string_view target);

}  // namespace pathfinder::flags
