#pragma once

#include <cstdint>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

// A read-only view of a mask's blocked pixels with a one-pixel blocked border,
// so that the line tests can look one pixel beyond the mask without bounds
// checks. Cheap to copy.
class BlockedGrid {
 public:
  BlockedGrid(const std::vector<std::uint8_t>& padded, std::uint32_t width, std::uint32_t height)
      : cells_(padded.data()), width_(width), height_(height), stride_(width + 2) {}

  // The padded cells of `mask` for `enabled` (an effective set).
  [[nodiscard]] static std::vector<std::uint8_t> padded_cells(const Mask& mask, AreaSet enabled);

  [[nodiscard]] std::int64_t width() const { return width_; }
  [[nodiscard]] std::int64_t height() const { return height_; }

  // Pixel (i, j) blocked; -1 <= i <= width and -1 <= j <= height.
  [[nodiscard]] bool blocked(std::int64_t i, std::int64_t j) const {
    return cells_[(j + 1) * stride_ + (i + 1)] != 0;
  }
  // Any pixel (i, j): outside the mask is blocked.
  [[nodiscard]] bool blocked_anywhere(std::int64_t i, std::int64_t j) const {
    if (i < 0 || j < 0 || i >= width_ || j >= height_) return true;
    return blocked(i, j);
  }
  // Square corner (i, j), 0 <= i <= width, 0 <= j <= height: two diagonally
  // opposite pixels blocked and the other two walkable.
  [[nodiscard]] bool pinch(std::int64_t i, std::int64_t j) const {
    const bool up_left = blocked(i - 1, j - 1);
    const bool up_right = blocked(i, j - 1);
    const bool down_left = blocked(i - 1, j);
    const bool down_right = blocked(i, j);
    return up_left == down_right && up_right == down_left && up_left != up_right;
  }
  // How many of the four pixels around square corner (i, j) are blocked.
  [[nodiscard]] int blocked_around(std::int64_t i, std::int64_t j) const {
    return int{blocked(i - 1, j - 1)} + int{blocked(i, j - 1)} + int{blocked(i - 1, j)} +
           int{blocked(i, j)};
  }

 private:
  const std::uint8_t* cells_;
  std::int64_t width_;
  std::int64_t height_;
  std::int64_t stride_;
};

}  // namespace pathcore
