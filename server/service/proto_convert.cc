#include "service/proto_convert.h"

namespace pathserver {

namespace v1 = pathfinding::v1;

std::optional<pathcore::MaskFormat> to_core(v1::MaskFormat format) {
  switch (format) {
    case v1::MASK_FORMAT_UNSPECIFIED:
      return pathcore::MaskFormat::kAuto;
    case v1::MASK_FORMAT_PNG:
      return pathcore::MaskFormat::kPng;
    case v1::MASK_FORMAT_PGM:
      return pathcore::MaskFormat::kPgm;
    case v1::MASK_FORMAT_PBM:
      return pathcore::MaskFormat::kPbm;
    case v1::MASK_FORMAT_MOVINGAI:
      return pathcore::MaskFormat::kMovingAi;
    case v1::MASK_FORMAT_RAW:
      return pathcore::MaskFormat::kRaw;
    default:
      return std::nullopt;
  }
}

std::optional<pathcore::PixelRule> to_core(v1::PixelRule rule) {
  switch (rule) {
    case v1::PIXEL_RULE_UNSPECIFIED:
      return pathcore::PixelRule::kAuto;
    case v1::PIXEL_RULE_INDEX:
      return pathcore::PixelRule::kIndex;
    case v1::PIXEL_RULE_NONZERO:
      return pathcore::PixelRule::kNonZero;
    case v1::PIXEL_RULE_BLUE_BIT7:
      return pathcore::PixelRule::kBlueBit7;
    case v1::PIXEL_RULE_PALETTE:
      return pathcore::PixelRule::kPalette;
    default:
      return std::nullopt;
  }
}

std::optional<pathcore::Connectivity> to_core(v1::Connectivity connectivity) {
  switch (connectivity) {
    case v1::CONNECTIVITY_UNSPECIFIED:
    case v1::CONNECTIVITY_FOUR:
      return pathcore::Connectivity::kFour;
    case v1::CONNECTIVITY_EIGHT:
      return pathcore::Connectivity::kEight;
    default:
      return std::nullopt;
  }
}

std::optional<pathcore::Smoothing> to_core(v1::Smoothing smoothing) {
  switch (smoothing) {
    case v1::SMOOTHING_UNSPECIFIED:
    case v1::SMOOTHING_BEAUTIFY:
      return pathcore::Smoothing::kBeautify;
    case v1::SMOOTHING_SIMPLIFY:
      return pathcore::Smoothing::kSimplify;
    case v1::SMOOTHING_NONE:
      return pathcore::Smoothing::kNone;
    default:
      return std::nullopt;
  }
}

void to_proto(const MaskEntry& entry, v1::MaskInfo* out) {
  out->set_name(entry.name);
  out->set_revision(entry.revision);
  out->set_width(entry.mask->width());
  out->set_height(entry.mask->height());
  out->set_areas_present(entry.mask->areas_present());
  out->set_walkable_pixels(entry.mask->walkable_pixels());
  out->set_sha256(entry.sha256);
}

void to_proto(const pathcore::PathResult& result, v1::FindPathResponse* out) {
  out->set_found(result.found);
  out->mutable_points()->Reserve(static_cast<int>(result.points.size()));
  for (const pathcore::Point p : result.points) to_proto(p, out->add_points());
  // Every smoothing's answer in PointF's frame too, so a client can always
  // read precise_points (SMOOTHING_ANY_ANGLE replaces them with its own).
  out->mutable_precise_points()->Reserve(static_cast<int>(result.points.size()));
  for (const pathcore::Point p : result.points) {
    to_proto(pathcore::PointD{p.x + 0.5, p.y + 0.5}, out->add_precise_points());
  }
  out->set_length(result.length);
  out->set_cost(result.cost);
  if (result.grid_cost.has_value()) out->set_grid_cost(*result.grid_cost);
  to_proto(result.goal, out->mutable_goal());
  out->set_reason(to_proto(result.reason, result.lacks_clearance));
  out->set_goal_snapped(result.goal_snapped);
  out->set_goal_snap_distance(result.goal_snap_distance);
  out->set_start_snapped(result.start_snapped);
  out->set_goal_index(result.goal_index);
}

v1::PathReason to_proto(pathcore::PathReason reason, bool lacks_clearance) {
  if (lacks_clearance) {
    // Core flags a walkable end that is not usable on the not-walkable reasons.
    if (reason == pathcore::PathReason::kStartNotWalkable) {
      return v1::PATH_REASON_START_LACKS_CLEARANCE;
    }
    if (reason == pathcore::PathReason::kGoalNotWalkable) return v1::PATH_REASON_GOAL_LACKS_CLEARANCE;
  }
  switch (reason) {
    case pathcore::PathReason::kFound: return v1::PATH_REASON_FOUND;
    case pathcore::PathReason::kGoalSnapped: return v1::PATH_REASON_GOAL_SNAPPED;
    case pathcore::PathReason::kStartSnapped: return v1::PATH_REASON_START_SNAPPED;
    case pathcore::PathReason::kStartNotWalkable: return v1::PATH_REASON_START_NOT_WALKABLE;
    case pathcore::PathReason::kGoalNotWalkable: return v1::PATH_REASON_GOAL_NOT_WALKABLE;
    case pathcore::PathReason::kNoRoute: return v1::PATH_REASON_NO_ROUTE;
  }
  return v1::PATH_REASON_UNSPECIFIED;
}

std::string point_text(pathcore::Point p) {
  return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ")";
}

namespace {

// core Direction (N = 0, clockwise) -> proto Direction (N = 1, clockwise).
pathfinding::v1::Direction direction_to_proto(pathcore::Direction d) {
  return static_cast<pathfinding::v1::Direction>(static_cast<int>(d) + 1);
}

}  // namespace

void to_proto(const pathcore::StandardMoveResult& result,
              pathfinding::v1::StandardMoveResponse* out) {
  out->set_found(result.found);
  for (const pathcore::Move& move : result.moves) {
    auto* m = out->add_moves();
    m->set_direction(direction_to_proto(move.direction));
    m->set_steps(move.steps);
  }
  for (const pathcore::Point p : result.waypoints) to_proto(p, out->add_waypoints());
  for (const pathcore::Point p : result.nodes) to_proto(p, out->add_nodes());
  if (!result.nodes.empty()) to_proto(result.nodes.front(), out->mutable_node());
  out->set_search_truncated(result.search_truncated);
}

}  // namespace pathserver
