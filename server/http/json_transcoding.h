#pragma once

// Request and answer messages between the proto3 JSON mapping and the
// binary encoding, by the generated descriptors (protobuf's own
// JsonStringToMessage / MessageToJsonString): field names in lowerCamelCase
// on output, either spelling accepted on input, unknown fields refused.

#include <google/protobuf/descriptor.h>
#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

namespace pathserver::http {

// The binary encoding of the `type` message `json` spells, or
// INVALID_ARGUMENT naming what protobuf's parser objected to (the field or
// the position), e.g. "request body is not a valid JSON
// pathfinding.v1.FindPathRequest: INVALID_ARGUMENT: ...". "" is taken as {}.
[[nodiscard]] grpc::Status json_to_binary(const google::protobuf::Descriptor& type,
                                          std::string_view json, std::string& binary);

// The JSON of the `type` message in `binary` (every field printed, defaults
// included, so clients see stable keys), or INTERNAL when the bytes do not
// parse.
[[nodiscard]] grpc::Status binary_to_json(const google::protobuf::Descriptor& type,
                                          std::string_view binary, std::string& json);

}  // namespace pathserver::http
