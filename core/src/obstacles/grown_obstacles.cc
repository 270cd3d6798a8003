// ObstacleSet::grown_by: the pixels an agent with clearance loses to a
// request's obstacles, by an exact separable distance pass over the
// obstacles' box grown by the clearance (the mask is neither patched nor
// transformed, so its cached usable pixels stay usable as they are).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/obstacles.h"

namespace pathcore {
namespace {

// Half pixels, squared, from a pixel centre to the square of a pixel d rows
// (or columns) away along one axis: max(0, 2|d| - 1)^2 (agent_clearance's rule).
std::uint64_t axis_term(std::int64_t d) {
  const std::int64_t half = std::max<std::int64_t>(0, 2 * std::abs(d) - 1);
  return static_cast<std::uint64_t>(half * half);
}

}  // namespace

ObstacleSet ObstacleSet::grown_by(double clearance, std::uint32_t mask_width,
                                  std::uint32_t mask_height) const {
  require_valid_clearance(clearance);
  if (empty()) return {};
  const std::uint64_t required = required_squared_half_pixels(clearance);
  // A pixel more than `reach` rows or columns from every blocked pixel is
  // at least (2 reach + 1) / 2 > clearance away along that axis alone.
  const auto reach = static_cast<std::int64_t>(
      std::min(std::ceil(clearance), static_cast<double>(std::max(mask_width, mask_height))));
  const std::int64_t x0 = std::max<std::int64_t>(0, min_x_ - reach);
  const std::int64_t y0 = std::max<std::int64_t>(0, min_y_ - reach);
  const std::int64_t x1 = std::min<std::int64_t>(mask_width, end_x_ + reach);
  const std::int64_t y1 = std::min<std::int64_t>(mask_height, end_y_ + reach);
  const auto width = static_cast<std::size_t>(x1 - x0);
  const auto height = static_cast<std::size_t>(y1 - y0);
  constexpr std::uint64_t kFar = std::numeric_limits<std::uint64_t>::max() / 4;

  // Column pass: the nearest blocked pixel of each column, within reach rows.
  std::vector<std::uint64_t> column(width * height, kFar);
  for (std::size_t c = 0; c < width; ++c) {
    const auto x = static_cast<std::int32_t>(x0 + static_cast<std::int64_t>(c));
    if (x < min_x_ || x >= end_x_) continue;
    for (std::size_t r = 0; r < height; ++r) {
      const std::int64_t y = y0 + static_cast<std::int64_t>(r);
      std::uint64_t best = kFar;
      for (std::int64_t d = -reach; d <= reach; ++d) {
        const std::int64_t by = y + d;
        if (by < min_y_ || by >= end_y_) continue;
        if (blocks({x, static_cast<std::int32_t>(by)})) best = std::min(best, axis_term(d));
      }
      column[r * width + c] = best;
    }
  }

  ObstacleSet grown;
  grown.min_x_ = static_cast<std::int32_t>(x0);
  grown.min_y_ = static_cast<std::int32_t>(y0);
  grown.end_x_ = static_cast<std::int32_t>(x1);
  grown.end_y_ = static_cast<std::int32_t>(y1);
  grown.bits_.assign((width * height + 63) / 64, 0);
  // Row pass: the nearest over the columns within reach; a blocked pixel
  // itself (0 away) is always in.
  for (std::size_t r = 0; r < height; ++r) {
    for (std::size_t c = 0; c < width; ++c) {
      std::uint64_t best = kFar;
      const auto lo = static_cast<std::int64_t>(c) - reach;
      const auto hi = static_cast<std::int64_t>(c) + reach;
      for (std::int64_t k = std::max<std::int64_t>(0, lo);
           k <= std::min<std::int64_t>(static_cast<std::int64_t>(width) - 1, hi); ++k) {
        const std::uint64_t g = column[r * width + static_cast<std::size_t>(k)];
        if (g == kFar) continue;
        best = std::min(best, g + axis_term(k - static_cast<std::int64_t>(c)));
      }
      if (best == 0 || best < required) {
        const std::size_t bit = r * width + c;
        grown.bits_[bit / 64] |= std::uint64_t{1} << (bit % 64);
        ++grown.blocked_count_;
      }
    }
  }
  return grown;
}

}  // namespace pathcore
