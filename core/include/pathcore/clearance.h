#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pathcore/mask.h"
#include "pathcore/path.h"

namespace pathcore {

// Per pixel, how far the nearest pixel that is not walkable lies: the
// Chebyshev distance (max of |dx|, |dy|) to the nearest pixel of a disabled
// area or outside the mask, capped at kMaxClearance; 0 on pixels that are not
// walkable. A pixel of clearance c has every pixel within Chebyshev distance
// c - 1 walkable, so a line-of-sight walk may skip c - 1 steps at once where
// the mask is open (see segment_walkable below). One byte per pixel, built in
// two passes over the mask; immutable, so it can be shared between threads.
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
  [[nodiscard]] std::size_t memory_bytes() const { return values_.capacity() + sizeof(*this); }

  // True when this map describes `mask` walked with `enabled`: same size, and
  // the areas enabled here and there agree on every area the mask contains.
  [[nodiscard]] bool serves(const Mask& mask, AreaSet enabled) const;

 private:
  std::uint32_t width_;
  std::uint32_t height_;
  AreaSet enabled_;
  AreaSet present_;  // the mask's areas_present()
  std::vector<std::uint8_t> values_;
};

// segment_walkable(mask, map.enabled(), a, b, rule) for the mask the map was
// built from, answered from the map alone: the same answer for every segment,
// in fewer steps where the clearance is high (a kNoCornerCutting walk jumps
// clearance - 1 steps along the segment's longer axis; kBresenham walks every
// pixel). False when a or b is outside.
[[nodiscard]] bool segment_walkable(const ClearanceMap& map, Point a, Point b, LineRule rule);

}  // namespace pathcore
