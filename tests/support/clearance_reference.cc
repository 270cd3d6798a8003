#include "support/clearance_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pathtest {

namespace {

using pathcore::AreaSet;
using pathcore::Mask;
using pathcore::Point;

// 128 bits hold a 53-bit mantissa squared exactly (a GCC and Clang extension).
__extension__ using Wide = unsigned __int128;

bool blocked(const Mask& mask, AreaSet enabled, std::int64_t x, std::int64_t y) {
  return !mask.walkable({static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)}, enabled);
}

// Four times the squared distance from p's centre to the square of (bx, by).
std::uint64_t squared_to_square(Point p, std::int64_t bx, std::int64_t by) {
  // Doubled coordinates: the centre is at 2x + 1, the square spans [2bx, 2bx + 2].
  const std::int64_t cx = 2 * std::int64_t{p.x} + 1;
  const std::int64_t cy = 2 * std::int64_t{p.y} + 1;
  const std::int64_t dx = cx - std::clamp(cx, 2 * bx, 2 * bx + 2);
  const std::int64_t dy = cy - std::clamp(cy, 2 * by, 2 * by + 2);
  return static_cast<std::uint64_t>(dx * dx + dy * dy);
}

}  // namespace

std::uint64_t reference_squared_half_pixels(const Mask& mask, AreaSet enabled, Point p) {
  if (!mask.walkable(p, enabled)) return 0;
  std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
  const std::int64_t w = mask.width();
  const std::int64_t h = mask.height();
  for (std::int64_t by = -1; by <= h; ++by) {
    for (std::int64_t bx = -1; bx <= w; ++bx) {
      if (blocked(mask, enabled, bx, by)) best = std::min(best, squared_to_square(p, bx, by));
    }
  }
  return best;
}

bool reference_far_enough(std::uint64_t squared_half_pixels, double clearance) {
  if (clearance == 0) return true;
  int exponent = 0;
  const double fraction = std::frexp(clearance, &exponent);  // clearance = fraction * 2^exponent
  if (exponent > 40) return false;                           // beyond any test mask
  // clearance = m * 2^(exponent - 53), so (2 clearance)^2 = m^2 * 2^(2 exponent - 104).
  const auto m = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
  const Wide m_squared = static_cast<Wide>(m) * m;
  const int shift = 104 - 2 * exponent;  // 24 .. 124 for the clearances allowed
  const Wide whole = m_squared >> shift;
  const bool fraction_left = (m_squared & ((static_cast<Wide>(1) << shift) - 1)) != 0;
  return squared_half_pixels >= whole + (fraction_left ? 1 : 0);
}

std::vector<bool> reference_usable(const Mask& mask, AreaSet enabled, double clearance) {
  const std::int64_t w = mask.width();
  const std::int64_t h = mask.height();
  const std::int64_t reach = static_cast<std::int64_t>(std::ceil(std::min(clearance, 1e6))) + 1;
  std::vector<bool> usable(mask.pixel_count());
  for (std::int64_t y = 0; y < h; ++y) {
    for (std::int64_t x = 0; x < w; ++x) {
      const Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      if (!mask.walkable(p, enabled)) continue;
      bool ok = true;
      for (std::int64_t by = y - reach; ok && by <= y + reach; ++by) {
        for (std::int64_t bx = x - reach; ok && bx <= x + reach; ++bx) {
          // Squares beyond the ring outside the mask are farther than the ring.
          const std::int64_t cx = std::clamp<std::int64_t>(bx, -1, w);
          const std::int64_t cy = std::clamp<std::int64_t>(by, -1, h);
          if (blocked(mask, enabled, cx, cy) &&
              !reference_far_enough(squared_to_square(p, cx, cy), clearance)) {
            ok = false;
          }
        }
      }
      usable[static_cast<std::size_t>(y * w + x)] = ok;
    }
  }
  return usable;
}

Mask mask_of_usable(const Mask& mask, const std::vector<bool>& usable) {
  std::vector<std::uint8_t> areas = mask.areas();
  for (std::size_t i = 0; i < areas.size(); ++i) {
    if (!usable[i]) areas[i] = 0;
  }
  return Mask(mask.width(), mask.height(), std::move(areas));
}

}  // namespace pathtest
