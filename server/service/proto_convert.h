#pragma once

#include <optional>
#include <string>

#include "pathcore/any_angle.h"
#include "pathcore/codec.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"
#include "pathcore/standard_move.h"
#include "pathfinding/v1/pathfinding.pb.h"
#include "store/mask_store.h"

// Translation between the wire types (pathfinding::v1) and core's (pathcore).
// Enum conversions return std::nullopt for a number the proto does not define
// (proto3 enums are open: a client can send any integer).
namespace pathserver {

[[nodiscard]] std::optional<pathcore::MaskFormat> to_core(pathfinding::v1::MaskFormat format);
[[nodiscard]] std::optional<pathcore::PixelRule> to_core(pathfinding::v1::PixelRule rule);
[[nodiscard]] std::optional<pathcore::Connectivity> to_core(
    pathfinding::v1::Connectivity connectivity);
[[nodiscard]] std::optional<pathcore::Smoothing> to_core(pathfinding::v1::Smoothing smoothing);

[[nodiscard]] inline pathcore::Point to_core(const pathfinding::v1::Point& p) {
  return {p.x(), p.y()};
}
inline void to_proto(pathcore::Point p, pathfinding::v1::Point* out) {
  out->set_x(p.x);
  out->set_y(p.y);
}
inline void to_proto(pathcore::PointD p, pathfinding::v1::PointF* out) {
  out->set_x(p.x);
  out->set_y(p.y);
}

// name, revision, size, areas_present, walkable_pixels, sha256.
void to_proto(const MaskEntry& entry, pathfinding::v1::MaskInfo* out);

// found, points, precise_points (the centres of points), length, cost, goal,
// reason and the snap fields (not mask_revision / cache_hit).
void to_proto(const pathcore::PathResult& result, pathfinding::v1::FindPathResponse* out);

// lacks_clearance (PathResult's): a not-walkable reason becomes its
// LACKS_CLEARANCE counterpart.
[[nodiscard]] pathfinding::v1::PathReason to_proto(pathcore::PathReason reason,
                                                   bool lacks_clearance = false);

// found, moves, waypoints, node(s), search_truncated (not mask_revision / cache_hit).
void to_proto(const pathcore::StandardMoveResult& result,
              pathfinding::v1::StandardMoveResponse* out);

// "(x, y)" for messages.
[[nodiscard]] std::string point_text(pathcore::Point p);

}  // namespace pathserver
