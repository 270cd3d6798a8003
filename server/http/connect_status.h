#pragma once

// gRPC status codes as the Connect protocol names them and answers them over
// HTTP (connectrpc.com/docs/protocol, "Error Codes"; the HTTP statuses as
// amended by Connect's RFC 003: canceled 499, deadline_exceeded 504,
// failed_precondition 400, unimplemented 501).

#include <grpcpp/support/status_code_enum.h>

#include <string>
#include <string_view>

namespace pathserver::http {

// "invalid_argument", "not_found", ... ("canceled" with one l, as Connect
// spells it). Codes out of range are "unknown".
[[nodiscard]] std::string_view connect_code_name(grpc::StatusCode code);

// The HTTP status of a Connect unary error of `code` (OK: 200).
[[nodiscard]] int connect_http_status(grpc::StatusCode code);

// The JSON body of a Connect unary error, which is also the "error" member
// of a stream's end: {"code":"not_found","message":"..."}.
[[nodiscard]] std::string connect_error_json(grpc::StatusCode code, std::string_view message);

// `text` as a JSON string literal, quotes included.
[[nodiscard]] std::string json_quote(std::string_view text);

// gRPC-Web's grpc-message: percent-encoding of every byte outside printable
// ASCII (0x20..0x7E) and of '%' itself, as gRPC's HTTP/2 transport does.
[[nodiscard]] std::string percent_encode_grpc_message(std::string_view message);

}  // namespace pathserver::http
