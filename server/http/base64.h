#pragma once

// Base64 (RFC 4648, standard alphabet, padded) for gRPC-Web's text bodies
// (application/grpc-web-text: the framed body base64-encoded, both ways) and
// for binary metadata headers (-bin).

#include <optional>
#include <string>
#include <string_view>

namespace pathserver::http {

[[nodiscard]] std::string base64_encode(std::string_view bytes);

// Decodes padded or unpadded base64. Also accepts several padded pieces one
// after the other ("AA==AQ=="), as a gRPC-Web text body may be sent in
// chunks each encoded on its own, and skips whitespace (line breaks).
// nullopt on any other character or a dangling single character.
[[nodiscard]] std::optional<std::string> base64_decode(std::string_view text);

}  // namespace pathserver::http
