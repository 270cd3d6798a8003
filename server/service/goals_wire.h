#pragma once

#include <google/protobuf/repeated_ptr_field.h>
#include <grpcpp/support/status.h>

#include <vector>

#include "pathcore/mask.h"
#include "pathfinding/v1/pathfinding.pb.h"
#include "store/mask_store.h"

namespace pathserver {

// A request's goals (FindPath, BatchFindPaths, GetField): INVALID_ARGUMENT
// naming goals when goal is set too (has_goal), RESOURCE_EXHAUSTED naming
// goals and --max-goals for more than `limit`, INVALID_ARGUMENT naming
// goals[i] for one outside entry's mask. Empty when the request has none.
// O(goals).
[[nodiscard]] grpc::Status decode_goals(
    const google::protobuf::RepeatedPtrField<pathfinding::v1::Point>& wire, bool has_goal,
    const MaskEntry& entry, int limit, std::vector<pathcore::Point>& out);

// The checks decode_goals makes before the mask is known (both set, the
// limit): callers check them first, so that a request naming a missing mask
// with too many goals is refused for its goals as FindPath refuses other
// options before the lookup.
[[nodiscard]] grpc::Status check_goal_count(
    const google::protobuf::RepeatedPtrField<pathfinding::v1::Point>& wire, bool has_goal,
    int limit);

}  // namespace pathserver
