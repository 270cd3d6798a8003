#pragma once

#include <google/protobuf/repeated_ptr_field.h>
#include <grpcpp/support/status.h>

#include "pathcore/obstacles.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace pathserver {

// RESOURCE_EXHAUSTED naming obstacles and --max-obstacles when a request
// carries more than `limit` shapes, else OK: the check decode_obstacles
// starts with, cheap enough for gRPC's threads (decoding is not: it costs
// the pixels the shapes cover).
[[nodiscard]] grpc::Status check_obstacle_count(int count, int limit);

// A request's temporary obstacles as the pixels they block on `mask`:
// RESOURCE_EXHAUSTED naming obstacles and --max-obstacles for more than
// `limit` shapes, INVALID_ARGUMENT naming obstacles[i] for a shape that is
// unset or bad (see pathcore::ObstacleSet). Costs the pixels the shapes cover.
[[nodiscard]] grpc::Status decode_obstacles(
    const google::protobuf::RepeatedPtrField<pathfinding::v1::Obstacle>& wire,
    const pathcore::Mask& mask, int limit, pathcore::ObstacleSet& out);

}  // namespace pathserver
