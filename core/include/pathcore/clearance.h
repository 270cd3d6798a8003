#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pathcore/mask.h"
#include "pathcore/line.h"

namespace pathcore {

// Per pixel, how far the nearest pixel that is not walkable lies: the
// Chebyshev distance (max of |dx|, |dy|) to the nearest pixel of a disabled
// area or outside the mask, capped at kMaxClearance; 0 on pixels that are not
// walkable. A pixel of clearance c has every pixel within Chebyshev distance
// c - 1 walkable, so a line-of-sight walk may skip c - 1 steps at once where
// the mask is open (see segment_walkable below). One byte per pixel, built in
// two passes over the mask, plus a walkability bit per pixel by rows and by
// columns (a quarter byte per pixel) for short segments on cluttered masks; immutable, so it can be shared between threads.
// Built once per mask and area set by whoever owns the mask (the server keeps
// one per stored mask revision, for the default area set).
class ClearanceMap {
 public:
  static constexpr std::uint8_t kMaxClearance = 255;

  // O(pixels). enabled is an effective set (see effective_areas).
  ClearanceMap(const Mask& mask, AreaSet enabled);

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  [[nodiscard]] AreaSet enabled() const { return enabled_; }
  // The clearance at p; p must be inside.
  [[nodiscard]] std::uint8_t at(Point p) const {
    return values_[static_cast<std::size_t>(p.y) * width_ + static_cast<std::size_t>(p.x)];
  }
  // Row-major values, width*height bytes.
  [[nodiscard]] const std::vector<std::uint8_t>& values() const { return values_; }
  // Walkability bits (1: walkable), for segment_walkable's span tests on
  // cluttered masks: bit x of row y is bit x % 8 of row_bits(y)[x / 8], bit
  // y of column x is bit y % 8 of column_bits(x)[y / 8]. At least 8 readable
  // bytes follow the last byte holding a pixel, so a test may load 8 bytes at
  // once from any byte of a row or column.
  [[nodiscard]] const std::uint8_t* row_bits(std::uint32_t y) const {
    return row_bits_.data() + static_cast<std::size_t>(y) * row_stride_;
  }
  [[nodiscard]] const std::uint8_t* column_bits(std::uint32_t x) const {
    return column_bits_.data() + static_cast<std::size_t>(x) * column_stride_;
  }
  [[nodiscard]] std::size_t memory_bytes() const {
    return values_.capacity() + row_bits_.capacity() + column_bits_.capacity() + sizeof(*this);
  }

  // True when this map describes `mask` walked with `enabled`: same size, as
  // many pixels of a non-zero area, and the areas enabled here and there
  // agree on every area the mask contains. The count tells a mask from a
  // UsableMask made from it (pathcore/agent_clearance.h), which zeroes pixels
  // and keeps areas, whenever the two differ.
  [[nodiscard]] bool serves(const Mask& mask, AreaSet enabled) const;

 private:
  std::uint32_t width_;
  std::uint32_t height_;
  AreaSet enabled_;
  AreaSet present_;  // the mask's areas_present()
  std::uint64_t walkable_pixels_;  // the mask's walkable_pixels()
  std::vector<std::uint8_t> values_;
  std::size_t row_stride_;     // bytes per row of row_bits_
  std::size_t column_stride_;  // bytes per column of column_bits_
  std::vector<std::uint8_t> row_bits_;
  std::vector<std::uint8_t> column_bits_;
};

// segment_walkable(mask, map.enabled(), a, b, rule) for the mask the map was
// built from, answered from the map alone: the same answer for every segment,
// in fewer steps. kNoCornerCutting: a segment within 8x8 pixels is tested as
// one 8x8 board of walkability bits against its supercover's; one at most 64
// pixels across on its shorter axis one row (or column) span at a time on the
// walkability bits, min(|dx|, |dy|) + 1 word tests; a longer one is walked,
// jumping clearance - 1 steps along its longer axis where the clearance is
// high. kBresenham walks every pixel. False when a or b is outside.
[[nodiscard]] bool segment_walkable(const ClearanceMap& map, Point a, Point b, LineRule rule);

}  // namespace pathcore
