#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

enum class Connectivity { kFour, kEight };

// What a flood fill may walk on, and how.
struct FieldOptions {
  AreaSet enabled = kAllAreas;  // effective set (bit 0 clear)
  Connectivity connectivity = Connectivity::kFour;
  // kEight only: may a diagonal step pass a blocked cardinal neighbour?
  bool allow_corner_cutting = false;
};

// Grid distance from every pixel to one goal pixel (the "It's Flot" buffer).
// With kFour the distance is a count of cardinal steps. Unwalkable and
// unreachable pixels hold kUnreachable. Immutable once computed.
class DistanceField {
 public:
  using Distance = std::uint32_t;
  static constexpr Distance kUnreachable = std::numeric_limits<Distance>::max();

  DistanceField(std::uint32_t width, std::uint32_t height, Point goal, FieldOptions options,
                std::vector<Distance> distances);

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  [[nodiscard]] Point goal() const { return goal_; }
  [[nodiscard]] const FieldOptions& options() const { return options_; }
  // Distance at p; kUnreachable outside the mask.
  [[nodiscard]] Distance at(Point p) const {
    if (p.x < 0 || p.y < 0 || static_cast<std::uint32_t>(p.x) >= width_ ||
        static_cast<std::uint32_t>(p.y) >= height_) {
      return kUnreachable;
    }
    return distances_[static_cast<std::size_t>(p.y) * width_ + static_cast<std::size_t>(p.x)];
  }
  [[nodiscard]] bool reachable(Point p) const { return at(p) != kUnreachable; }
  // Bytes held, for cache accounting.
  [[nodiscard]] std::size_t memory_bytes() const {
    return sizeof(*this) + distances_.capacity() * sizeof(Distance);
  }

 private:
  std::uint32_t width_;
  std::uint32_t height_;
  Point goal_;
  FieldOptions options_;
  std::vector<Distance> distances_;
};

// Flood fills from goal over the walkable pixels. Linear in the reachable
// pixels. A goal that is not walkable gives a field where nothing is reachable.
// Area 0 is never walkable: bit 0 of options.enabled is ignored, and cleared in
// the field's options(); an empty set makes nothing walkable. Peak memory is
// about 12 bytes per pixel (the result, a padded working copy and the queue).
// Throws InvalidArgument for kEight (not supported yet), a goal outside the
// mask (the message names "goal"), or a mask of 2^32 pixels or more.
[[nodiscard]] DistanceField compute_distance_field(const Mask& mask, Point goal,
                                                   const FieldOptions& options);

}  // namespace pathcore
