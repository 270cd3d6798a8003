// The field options FindPath, GetField and GetRange requests share (mask
// name, connectivity, corner rule, area costs, clearance, enabled areas),
// checked and turned into core options in one decoding step.

#pragma once

#include <grpcpp/support/status.h>

#include <cstdint>
#include <string_view>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace pathserver {

// A request's field options, checked.
struct CheckedFieldOptions {
  // enabled: the effective set the request asks for, not yet narrowed to a
  // mask's areas (on()); corner cutting only with eight-connectivity (a
  // four-connected walker cannot squeeze between diagonal neighbours).
  pathcore::FieldOptions field;
  double clearance_key = 0;  // normalised (clearance_key(): 0 excludes no pixel)

  // `field` on `mask`: its enabled areas narrowed to those the mask uses.
  [[nodiscard]] pathcore::FieldOptions on(const pathcore::Mask& mask) const;
};

// Checks, in this order, the mask name, connectivity, area costs, clearance
// and enabled areas of a request: INVALID_ARGUMENT naming the first field
// that is wrong, else OK with `out` filled.
[[nodiscard]] grpc::Status decode_field_options(
    std::string_view mask, pathfinding::v1::Connectivity connectivity,
    const google::protobuf::Map<std::uint32_t, std::uint32_t>& area_costs, double clearance,
    std::uint64_t enabled_areas, bool allow_corner_cutting, CheckedFieldOptions& out);

// decode_field_options for a request that carries those fields
// (FindPathRequest, GetFieldRequest, GetRangeRequest).
template <typename Request>
[[nodiscard]] grpc::Status decode_field_options(const Request& request, CheckedFieldOptions& out) {
  return decode_field_options(request.mask(), request.connectivity(), request.area_costs(),
                              request.clearance(), request.enabled_areas(),
                              request.allow_corner_cutting(), out);
}

}  // namespace pathserver
