#pragma once

// A request's temporary obstacles (FindPathRequest.obstacles and the same
// field of BatchFindPaths, LineOfSight and Reachable) as the entry such a
// request is answered on: the stored mask with the obstacles' pixels blocked.
// Never handed to a shared cache: its name and revision are the stored
// entry's (the answer reports that revision), so any cache keyed by them
// would mix it up with the stored mask. Requests on it use
// PrivateFieldSource, private_usable_entry and scans instead.

#include <google/protobuf/repeated_ptr_field.h>
#include <grpcpp/support/status.h>

#include <memory>

#include "pathcore/mask.h"
#include "pathcore/obstacles.h"
#include "pathfinding/v1/pathfinding.pb.h"
#include "service/usable_entry.h"
#include "store/mask_store.h"

namespace pathserver {

// `stored` with the pixels of `obstacles` blocked (area 0): its name,
// revision and digest, a patched copy of its mask (O(pixels)) and no
// ClearanceMap (optional for every reader: the same answers).
[[nodiscard]] MaskEntryPtr patched_entry(const MaskEntry& stored,
                                         const pathcore::ObstacleSet& obstacles);

// decode_obstacles, then patched_entry: the errors decode_obstacles
// answers, else `patched` set. O(pixels): for the compute pool.
[[nodiscard]] grpc::Status decode_patched_entry(
    const google::protobuf::RepeatedPtrField<pathfinding::v1::Obstacle>& wire,
    const MaskEntry& stored, int limit, MaskEntryPtr& patched);

// The usable entry of `walked` for effective areas `enabled` and a
// clearance that excludes pixels, built here and cached nowhere
// (usable_entry without its cache): O(pixels).
[[nodiscard]] UsableEntry private_usable_entry(const MaskEntry& walked, pathcore::AreaSet enabled,
                                               double clearance);

}  // namespace pathserver
