#pragma once

// Temporary obstacles: shapes one request treats as blocked (other units, a
// closed door, a building being placed), without a new mask revision.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

// Pixels x .. x+width-1, y .. y+height-1; may reach past the mask's edge.
struct RectObstacle {
  std::int64_t x = 0;
  std::int64_t y = 0;
  std::int64_t width = 0;   // >= 1
  std::int64_t height = 0;  // >= 1
};

// Every pixel whose centre (x + 0.5, y + 0.5) is at most radius from the
// centre; may reach past the mask's edge.
struct CircleObstacle {
  double centre_x = 0;
  double centre_y = 0;
  double radius = 0;  // finite, > 0
};

// Single pixels, each inside the mask.
struct PixelsObstacle {
  std::vector<Point> pixels;
};

using Obstacle = std::variant<RectObstacle, CircleObstacle, PixelsObstacle>;

// The pixels a request's obstacles block, clipped to the mask: a bitmap
// over their bounding box, so building it costs the pixels the shapes
// cover (at most the mask's) and asking costs O(1).
class ObstacleSet {
 public:
  // Blocks nothing.
  ObstacleSet() = default;
  // Throws InvalidArgument, the message starting "obstacles[i]", for a
  // rectangle without area, a circle with a centre or radius that is not
  // finite or a radius <= 0, or a listed pixel outside the mask.
  ObstacleSet(std::uint32_t mask_width, std::uint32_t mask_height,
              std::span<const Obstacle> obstacles);

  [[nodiscard]] bool empty() const { return blocked_count_ == 0; }
  // Distinct pixels blocked (inside the mask).
  [[nodiscard]] std::size_t pixel_count() const { return blocked_count_; }
  // True when p is inside the mask and under an obstacle.
  [[nodiscard]] bool blocks(Point p) const {
    if (p.x < min_x_ || p.y < min_y_ || p.x >= end_x_ || p.y >= end_y_) return false;
    const std::size_t bit = static_cast<std::size_t>(p.y - min_y_) * box_width() +
                            static_cast<std::size_t>(p.x - min_x_);
    return ((bits_[bit / 64] >> (bit % 64)) & 1U) != 0;
  }
  // Calls visit(Point) for every blocked pixel, in row-major order. Skips
  // 64 pixels of the bounding box at a time where none is blocked (a few
  // shapes far apart have a box of most of the mask).
  template <typename Visit>
  void for_each(Visit&& visit) const {
    const std::size_t width = box_width();
    for (std::size_t word = 0; word < bits_.size(); ++word) {
      for (std::uint64_t left = bits_[word]; left != 0; left &= left - 1) {
        const std::size_t bit = word * 64 + static_cast<std::size_t>(std::countr_zero(left));
        visit(Point{min_x_ + static_cast<std::int32_t>(bit % width),
                    min_y_ + static_cast<std::int32_t>(bit / width)});
      }
    }
  }
  // Bytes held.
  [[nodiscard]] std::size_t memory_bytes() const { return bits_.capacity() * 8; }
  // The pixels an agent with this clearance may not use because of these
  // obstacles (the UsableMask rule, pathcore/agent_clearance.h): every
  // blocked pixel, and every pixel of the mask whose centre is closer than
  // clearance to a blocked pixel's square. So the usable pixels of
  // with_obstacles(mask, *this) for a clearance are exactly the usable
  // pixels of mask that the grown set does not block, without patching or
  // transforming the mask: O(box * clearance) for the box the grown set
  // covers. clearance must be valid (require_valid_clearance).
  [[nodiscard]] ObstacleSet grown_by(double clearance, std::uint32_t mask_width,
                                     std::uint32_t mask_height) const;

 private:
  [[nodiscard]] std::size_t box_width() const { return static_cast<std::size_t>(end_x_ - min_x_); }

  std::int32_t min_x_ = 0;  // bounding box of the blocked pixels: [min, end)
  std::int32_t min_y_ = 0;
  std::int32_t end_x_ = 0;
  std::int32_t end_y_ = 0;
  std::vector<std::uint64_t> bits_;
  std::size_t blocked_count_ = 0;
};

// A copy of mask with every pixel of obstacles set to area 0, blocked for
// every request: the mask a request with those obstacles is answered on
// (its clearance, snapping and fills all see them). O(mask pixels).
// obstacles must have been built for this mask's size.
[[nodiscard]] Mask with_obstacles(const Mask& mask, const ObstacleSet& obstacles);
// The same, written into `into` (any mask) in the memory it has: a buffer
// kept from call to call is copied into without a fresh one's page faults.
void with_obstacles(const Mask& mask, const ObstacleSet& obstacles, Mask& into);

}  // namespace pathcore
