#include "service/goals_wire.h"

#include <string>

#include "service/proto_convert.h"
#include "service/rpc_status.h"

namespace pathserver {

grpc::Status check_goal_count(
    const google::protobuf::RepeatedPtrField<pathfinding::v1::Point>& wire, bool has_goal,
    int limit) {
  if (wire.empty()) return grpc::Status::OK;
  if (has_goal) return invalid("goals: set goal or goals, not both");
  if (wire.size() > limit) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "goals: " + std::to_string(wire.size()) + " goals; the limit is " +
                std::to_string(limit) + " per request (--max-goals)"};
  }
  return grpc::Status::OK;
}

grpc::Status decode_goals(const google::protobuf::RepeatedPtrField<pathfinding::v1::Point>& wire,
                          bool has_goal, const MaskEntry& entry, int limit,
                          std::vector<pathcore::Point>& out) {
  out.clear();
  if (auto status = check_goal_count(wire, has_goal, limit); !status.ok()) return status;
  out.reserve(static_cast<std::size_t>(wire.size()));
  for (int i = 0; i < wire.size(); ++i) {
    const pathcore::Point p = to_core(wire[i]);
    if (!entry.mask->contains(p)) {
      return invalid(outside("goals[" + std::to_string(i) + "]", p, entry));
    }
    out.push_back(p);
  }
  return grpc::Status::OK;
}

}  // namespace pathserver
