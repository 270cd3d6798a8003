// The clearance map (see clearance.h): a two-pass chessboard distance
// transform (Rosenfeld and Pfaltz), exact for the Chebyshev distance with
// unit steps to all eight neighbours; pixels outside the mask count as not
// walkable.
#include "pathcore/clearance.h"

#include <algorithm>

namespace pathcore {

ClearanceMap::ClearanceMap(const Mask& mask, AreaSet enabled)
    : width_(mask.width()),
      height_(mask.height()),
      enabled_(enabled & kAllAreas),
      present_(mask.areas_present()),
      walkable_pixels_(mask.walkable_pixels()),
      values_(mask.pixel_count()),
      row_stride_((static_cast<std::size_t>(width_) + 7) / 8),
      column_stride_((static_cast<std::size_t>(height_) + 7) / 8),
      row_bits_(row_stride_ * height_ + 8),
      column_bits_(column_stride_ * width_ + 8) {
  const std::size_t w = width_;
  const std::size_t h = height_;
  const std::uint8_t* const areas = mask.areas().data();
  std::uint8_t* const v = values_.data();
  const auto saturated = [](int distance) {
    return static_cast<std::uint8_t>(std::min<int>(distance, kMaxClearance));
  };
  // Forward: the nearest obstacle through the neighbours above and to the left.
  for (std::size_t y = 0; y < h; ++y) {
    for (std::size_t x = 0; x < w; ++x) {
      const std::size_t i = y * w + x;
      if (((enabled_ >> areas[i]) & 1U) == 0) {
        v[i] = 0;
        continue;
      }
      int nearest = 0;  // an edge pixel has the outside next to it
      if (y > 0 && x > 0 && x + 1 < w) {
        nearest = std::min({v[i - 1], v[i - w - 1], v[i - w], v[i - w + 1]});
      }
      v[i] = saturated(nearest + 1);
    }
  }
  // Backward: through the neighbours below and to the right.
  for (std::size_t y = h; y-- > 0;) {
    for (std::size_t x = w; x-- > 0;) {
      const std::size_t i = y * w + x;
      if (v[i] <= 1) {
        continue;  // not walkable, or already next to an obstacle
      }
      int nearest = 0;
      if (y + 1 < h && x > 0 && x + 1 < w) {
        nearest = std::min({v[i + 1], v[i + w - 1], v[i + w], v[i + w + 1]});
      }
      v[i] = std::min(v[i], saturated(nearest + 1));
    }
  }
  // The walkability bits, by rows, then by columns eight rows at a time (one
  // byte per column and block). Without branches: on a cluttered mask
  // whether a pixel is walkable is as good as random.
  for (std::size_t y = 0; y < h; ++y) {
    std::uint8_t* const row = row_bits_.data() + y * row_stride_;
    const std::uint8_t* const values = v + y * w;
    for (std::size_t x0 = 0; x0 < w; x0 += 8) {
      const std::size_t pixels = std::min<std::size_t>(8, w - x0);
      unsigned byte = 0;
      for (std::size_t i = 0; i < pixels; ++i) {
        byte |= (values[x0 + i] != 0 ? 1U : 0U) << i;
      }
      row[x0 / 8] = static_cast<std::uint8_t>(byte);
    }
  }
  for (std::size_t y0 = 0; y0 < h; y0 += 8) {
    const std::size_t rows = std::min<std::size_t>(8, h - y0);
    for (std::size_t x = 0; x < w; ++x) {
      unsigned byte = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        byte |= (v[(y0 + r) * w + x] != 0 ? 1U : 0U) << r;
      }
      column_bits_[x * column_stride_ + y0 / 8] = static_cast<std::uint8_t>(byte);
    }
  }
}

bool ClearanceMap::serves(const Mask& mask, AreaSet enabled) const {
  const AreaSet present = mask.areas_present();
  return mask.width() == width_ && mask.height() == height_ && present == present_ &&
         mask.walkable_pixels() == walkable_pixels_ &&
         ((enabled & kAllAreas) & present) == (enabled_ & present);
}

}  // namespace pathcore
