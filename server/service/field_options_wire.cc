#include "service/field_options_wire.h"

#include <string>

#include "service/cached_find_path.h"
#include "service/proto_convert.h"
#include "service/rpc_status.h"
#include "store/mask_store.h"

namespace pathserver {

pathcore::FieldOptions CheckedFieldOptions::on(const pathcore::Mask& mask) const {
  pathcore::FieldOptions options = field;
  options.enabled = mask.areas_in_use(field.enabled);
  return options;
}

grpc::Status decode_field_options(std::string_view mask, pathfinding::v1::Connectivity connectivity,
                                  const google::protobuf::Map<std::uint32_t, std::uint32_t>& area_costs,
                                  double clearance, std::uint64_t enabled_areas,
                                  bool allow_corner_cutting, CheckedFieldOptions& out) {
  if (auto problem = mask_name_problem(mask)) return invalid("mask: " + *problem);
  const auto core_connectivity = to_core(connectivity);
  if (!core_connectivity) {
    return invalid("connectivity: unknown value " + std::to_string(connectivity));
  }
  pathcore::FieldOptions& field = out.field;
  if (auto status = decode_area_costs(area_costs, field.area_costs); !status.ok()) return status;
  if (auto status = check_clearance(clearance); !status.ok()) return status;
  // Up to half a pixel no walkable pixel is excluded: no usable mask.
  out.clearance_key = clearance_key(clearance);
  field.enabled = pathcore::effective_areas(enabled_areas);
  if (field.enabled == 0) return no_walkable_area();
  field.connectivity = *core_connectivity;
  field.allow_corner_cutting =
      *core_connectivity == pathcore::Connectivity::kEight && allow_corner_cutting;
  return grpc::Status::OK;
}

}  // namespace pathserver
