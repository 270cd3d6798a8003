// The usable pixels of a request with agent clearance (agent_clearance.h).
#include <cmath>
#include <string>
#include <vector>

#include "agent_clearance/distance_rows.h"
#include "pathcore/agent_clearance.h"

namespace pathcore {

void require_valid_clearance(double clearance) {
  if (!std::isfinite(clearance) || clearance < 0) {
    throw InvalidArgument("clearance must be a finite number of pixels, at least 0 (got " +
                          std::to_string(clearance) + ")");
  }
}

std::uint64_t required_squared_half_pixels(double clearance) {
  const double twice = 2 * clearance;  // exact
  // Past 2^26 half pixels the threshold passes 2^52, beyond every mask's
  // distances, and integers near it are no longer all doubles.
  if (twice > 0x1p26) return std::uint64_t{1} << 63;
  // fma(-t, t, n) is n - t^2 rounded once, so its sign is exact.
  auto n = static_cast<std::uint64_t>(std::ceil(twice * twice));
  while (n > 0 && std::fma(-twice, twice, static_cast<double>(n - 1)) >= 0) --n;
  while (std::fma(-twice, twice, static_cast<double>(n)) < 0) ++n;
  return n;
}

namespace {

std::vector<std::uint8_t> usable_areas(const Mask& mask, AreaSet enabled, double clearance) {
  require_valid_clearance(clearance);
  const std::size_t w = mask.width();
  const std::uint8_t* const areas = mask.areas().data();
  std::vector<std::uint8_t> usable(mask.pixel_count());
  const std::uint64_t required = required_squared_half_pixels(clearance);
  if (required <= 1) {
    // Every walkable centre is at least half a pixel (1 in half pixels
    // squared) from anything blocked: no distance pass.
    for (std::size_t i = 0; i < usable.size(); ++i) {
      usable[i] = ((enabled >> areas[i]) & 1U) != 0 ? areas[i] : 0;
    }
    return usable;
  }
  // Blocked pixels are at 0 < required, so the distance alone decides.
  for_each_distance_row(mask, enabled, [&](std::uint32_t y, const std::uint32_t* row) {
    const std::size_t start = static_cast<std::size_t>(y) * w;
    for (std::size_t x = 0; x < w; ++x) {
      usable[start + x] = row[x] >= required ? areas[start + x] : 0;
    }
  });
  return usable;
}

}  // namespace

UsableMask::UsableMask(const Mask& mask, AreaSet enabled, double clearance)
    : enabled_(enabled & kAllAreas),
      clearance_(clearance),
      usable_(mask.width(), mask.height(),
              usable_areas(mask, enabled & kAllAreas, clearance)) {}

}  // namespace pathcore
