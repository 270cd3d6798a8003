#pragma once

#include <grpcpp/support/status.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "service/proto_convert.h"
#include "store/mask_store.h"

// The statuses every handler answers with, worded one way.
namespace pathserver {

[[nodiscard]] inline grpc::Status invalid(const std::string& message) {
  return {grpc::StatusCode::INVALID_ARGUMENT, message};
}

[[nodiscard]] inline grpc::Status mask_not_found(std::string_view name) {
  return {grpc::StatusCode::NOT_FOUND, "mask '" + std::string(name) + "' not found"};
}

// NOT_FOUND; DATA_LOSS when the store holds `name` but its file was
// unreadable at load (the message names the mask, not the file); UNAVAILABLE
// when the store cannot reach its database, so `name` may exist there.
[[nodiscard]] inline grpc::Status mask_missing(const MaskStore& store, std::string_view name) {
  if (!store.is_available()) {
    return {grpc::StatusCode::UNAVAILABLE,
            "mask '" + std::string(name) +
                "' is not held by this server and the mask store's database cannot be reached "
                "now; retry later"};
  }
  if (store.is_corrupt(name)) return {grpc::StatusCode::DATA_LOSS, corrupt_mask_message(name)};
  return mask_not_found(name);
}

// For a request whose enabled_areas leaves nothing walkable.
[[nodiscard]] inline grpc::Status no_walkable_area() {
  return invalid(
      "enabled_areas: enables only area 0, which is never walkable (0 means all areas 1..63)");
}

// INVALID_ARGUMENT naming clearance unless the request's clearance is a
// finite number of pixels, at least 0.
[[nodiscard]] inline grpc::Status check_clearance(double clearance) {
  if (std::isfinite(clearance) && clearance >= 0) return grpc::Status::OK;
  return invalid("clearance: must be a finite number of pixels, at least 0 (got " +
                 std::to_string(clearance) + ")");
}

// A request's area_costs map as core's step costs (1 where unlisted), or
// INVALID_ARGUMENT naming area_costs for an id outside 1..63 or a cost
// outside 1..255.
[[nodiscard]] inline grpc::Status decode_area_costs(
    const google::protobuf::Map<std::uint32_t, std::uint32_t>& wire, pathcore::AreaCosts& costs) {
  costs = pathcore::unit_area_costs();
  for (const auto& [area, cost] : wire) {
    if (area < 1 || area > static_cast<std::uint32_t>(pathcore::kMaxAreaId)) {
      return invalid("area_costs: area id " + std::to_string(area) + " is out of range 1.." +
                     std::to_string(pathcore::kMaxAreaId));
    }
    if (cost < 1 || cost > 255) {
      return invalid("area_costs: cost " + std::to_string(cost) + " for area " +
                     std::to_string(area) + " is out of range 1..255");
    }
    costs[area] = static_cast<std::uint8_t>(cost);
  }
  return grpc::Status::OK;
}

// "<field>: (x, y) is outside mask 'name' of WxH", for INVALID_ARGUMENT.
[[nodiscard]] inline std::string outside(std::string_view field, pathcore::Point p,
                                         const MaskEntry& entry) {
  return std::string(field) + ": " + point_text(p) + " is outside mask '" + entry.name + "' of " +
         std::to_string(entry.mask->width()) + "x" + std::to_string(entry.mask->height());
}

// FAILED_PRECONDITION unless expected is 0 or the entry's revision (the
// expected_revision of queries).
[[nodiscard]] inline grpc::Status check_revision(std::uint64_t expected, const MaskEntry& entry) {
  if (expected == 0 || expected == entry.revision) return grpc::Status::OK;
  return {grpc::StatusCode::FAILED_PRECONDITION,
          "expected_revision: expected revision " + std::to_string(expected) + " but mask '" +
              entry.name + "' is at revision " + std::to_string(entry.revision)};
}

}  // namespace pathserver
