#pragma once

#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

#include "mask_store.h"
#include "pathcore/mask.h"
#include "proto_convert.h"

// The statuses every handler answers with, worded one way.
namespace pathserver {

[[nodiscard]] inline grpc::Status invalid(const std::string& message) {
  return {grpc::StatusCode::INVALID_ARGUMENT, message};
}

[[nodiscard]] inline grpc::Status mask_not_found(std::string_view name) {
  return {grpc::StatusCode::NOT_FOUND, "mask '" + std::string(name) + "' not found"};
}

// "<field>: (x, y) is outside mask 'name' of WxH", for INVALID_ARGUMENT.
[[nodiscard]] inline std::string outside(std::string_view field, pathcore::Point p,
                                         const MaskEntry& entry) {
  return std::string(field) + ": " + point_text(p) + " is outside mask '" + entry.name + "' of " +
         std::to_string(entry.mask->width()) + "x" + std::to_string(entry.mask->height());
}

}  // namespace pathserver
