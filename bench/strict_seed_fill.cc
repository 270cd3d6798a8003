#include "strict_seed_fill.h"

#include <algorithm>
#include <utility>

namespace pathbench {

StrictSeedFill::StrictSeedFill(std::uint32_t width, std::uint32_t height)
    : width_(static_cast<std::int32_t>(width)),
      height_(static_cast<std::int32_t>(height)),
      buffer_(std::size_t{width} * height, -1) {
  // A level of a four-connected fill is at most about width + height points
  // on open ground; more on rough masks, where the lists grow once and keep it.
  current_.reserve(std::size_t{width} + height);
  next_.reserve(std::size_t{width} + height);
}

const std::vector<std::int32_t>& StrictSeedFill::run(const pathcore::Mask& mask,
                                                     pathcore::Point goal) {
  if (static_cast<std::int32_t>(mask.width()) != width_ ||
      static_cast<std::int32_t>(mask.height()) != height_) {
    throw pathcore::InvalidArgument("strict seed fill: mask size differs from the buffer's");
  }
  if (!mask.contains(goal)) {
    throw pathcore::InvalidArgument("strict seed fill: goal outside the mask");
  }
  // Refilled from the mask: -1 walkable (not reached yet), kBlocked blocked,
  // so a neighbour needs one load and one compare.
  const std::uint8_t* walk = mask.areas().data();
  std::int32_t* buffer = buffer_.data();
  for (std::size_t i = 0; i < buffer_.size(); ++i) {
    buffer[i] = walk[i] != 0 ? -1 : kBlocked;
  }
  current_.clear();
  next_.clear();
  const std::int32_t width = width_;
  const std::int32_t height = height_;
  const auto index = [width](std::int32_t x, std::int32_t y) {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
           static_cast<std::size_t>(x);
  };
  if (buffer[index(goal.x, goal.y)] == kBlocked) {
    return buffer_;
  }
  buffer[index(goal.x, goal.y)] = 0;
  current_.push_back(goal);
  constexpr pathcore::Point kSteps[] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  std::int32_t distance = 0;
  while (!current_.empty()) {
    ++distance;
    for (const pathcore::Point p : current_) {
      for (const pathcore::Point step : kSteps) {
        const std::int32_t x = p.x + step.x;
        const std::int32_t y = p.y + step.y;
        if (x < 0 || y < 0 || x >= width || y >= height) {
          continue;
        }
        const std::size_t i = index(x, y);
        if (buffer[i] == -1) {
          buffer[i] = distance;
          next_.push_back({x, y});
        }
      }
    }
    current_.clear();
    std::swap(current_, next_);
  }
  return buffer_;
}

}  // namespace pathbench
