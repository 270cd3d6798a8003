#include "pathcore/distance_field.h"

namespace pathcore {

DistanceField::DistanceField(std::uint32_t width, std::uint32_t height, Point goal,
                             FieldOptions options, std::vector<Distance> distances)
    : width_(width), height_(height), goal_(goal), options_(options), distances_(std::move(distances)) {
  if (distances_.size() != static_cast<std::size_t>(width) * height) {
    throw InvalidArgument("distance field size does not match its dimensions");
  }
}

// Placeholder until the flood fill lands.
DistanceField compute_distance_field(const Mask&, Point, const FieldOptions&) {
  throw InvalidArgument("distance fields are not implemented yet");
}

}  // namespace pathcore
