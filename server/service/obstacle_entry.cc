#include "service/obstacle_entry.h"

#include <utility>

#include "service/obstacles_wire.h"

namespace pathserver {

MaskEntryPtr patched_entry(const MaskEntry& stored, const pathcore::ObstacleSet& obstacles) {
  auto patched = std::make_shared<MaskEntry>();
  patched->name = stored.name;
  patched->revision = stored.revision;
  patched->mask =
      std::make_shared<const pathcore::Mask>(pathcore::with_obstacles(*stored.mask, obstacles));
  patched->sha256 = stored.sha256;
  return patched;
}

grpc::Status decode_patched_entry(
    const google::protobuf::RepeatedPtrField<pathfinding::v1::Obstacle>& wire,
    const MaskEntry& stored, int limit, MaskEntryPtr& patched) {
  pathcore::ObstacleSet obstacles;
  if (grpc::Status decoded = decode_obstacles(wire, *stored.mask, limit, obstacles);
      !decoded.ok()) {
    return decoded;
  }
  patched = patched_entry(stored, obstacles);
  return grpc::Status::OK;
}

UsableEntry private_usable_entry(const MaskEntry& walked, pathcore::AreaSet enabled,
                                 double clearance) {
  auto grid = std::make_shared<const UsableGrid>(*walked.mask, enabled, clearance);
  // Aliasing pointers, as usable_entry's: the mask and map live as long as the grid.
  MaskEntry usable{walked.name, walked.revision,
                   std::shared_ptr<const pathcore::Mask>(grid, &grid->usable.mask()),
                   walked.sha256,
                   std::shared_ptr<const pathcore::ClearanceMap>(grid, &grid->segment_map)};
  return {std::move(grid), std::move(usable)};
}

}  // namespace pathserver
