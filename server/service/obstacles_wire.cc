#include "service/obstacles_wire.h"

#include <string>
#include <vector>

#include "service/rpc_status.h"

namespace pathserver {

grpc::Status check_obstacle_count(int count, int limit) {
  if (count <= limit) return grpc::Status::OK;
  return {grpc::StatusCode::RESOURCE_EXHAUSTED,
          "obstacles: " + std::to_string(count) + " shapes; the limit is " +
              std::to_string(limit) + " per request (--max-obstacles)"};
}

grpc::Status decode_obstacles(
    const google::protobuf::RepeatedPtrField<pathfinding::v1::Obstacle>& wire,
    const pathcore::Mask& mask, int limit, pathcore::ObstacleSet& out) {
  out = {};
  if (wire.empty()) return grpc::Status::OK;
  if (grpc::Status counted = check_obstacle_count(wire.size(), limit); !counted.ok()) {
    return counted;
  }
  std::vector<pathcore::Obstacle> shapes;
  shapes.reserve(static_cast<std::size_t>(wire.size()));
  for (int i = 0; i < wire.size(); ++i) {
    const pathfinding::v1::Obstacle& shape = wire[i];
    switch (shape.shape_case()) {
      case pathfinding::v1::Obstacle::kRect:
        shapes.emplace_back(pathcore::RectObstacle{shape.rect().x(), shape.rect().y(),
                                                   shape.rect().width(), shape.rect().height()});
        break;
      case pathfinding::v1::Obstacle::kCircle:
        shapes.emplace_back(pathcore::CircleObstacle{shape.circle().centre().x(),
                                                     shape.circle().centre().y(),
                                                     shape.circle().radius()});
        break;
      case pathfinding::v1::Obstacle::kPixels: {
        pathcore::PixelsObstacle list;
        list.pixels.reserve(static_cast<std::size_t>(shape.pixels().pixels_size()));
        for (const auto& p : shape.pixels().pixels()) list.pixels.push_back({p.x(), p.y()});
        shapes.emplace_back(std::move(list));
        break;
      }
      default:
        return invalid("obstacles[" + std::to_string(i) +
                       "]: no shape set (set rect, circle or pixels)");
    }
  }
  try {
    out = pathcore::ObstacleSet(mask.width(), mask.height(), shapes);
  } catch (const pathcore::InvalidArgument& error) {
    return invalid(error.what());
  }
  return grpc::Status::OK;
}

}  // namespace pathserver
