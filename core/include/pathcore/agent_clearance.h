#pragma once

// Agent clearance (issue 21, core/src/agent_clearance): how far each pixel
// centre lies from the nearest pixel that is not walkable, and the pixels an
// agent of a given clearance may use. Depends only on mask.h; path.h uses it.
//
// Not to be confused with ClearanceMap (pathcore/clearance.h): that one is a
// Chebyshev count of whole pixels, capped at 255, that only speeds up
// beautify's segment walks and never changes an answer. This one is exact
// and Euclidean and decides which pixels a request may use at all. They meet
// in one place: a ClearanceMap built from UsableMask::mask() (for the same
// enabled set) speeds up beautify over the usable pixels as it does over the
// walkable ones.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

// Throws InvalidArgument naming `clearance` unless clearance is finite and
// not negative (NaN included).
void require_valid_clearance(double clearance);

// The exact Euclidean distance from every pixel centre (x + 0.5, y + 0.5) to
// the nearest point of a pixel that is not walkable for `enabled` (its closed
// unit square [bx, bx + 1] x [by, by + 1]), pixels outside the mask counting
// as not walkable (so the mask edge is at most min(x + 0.5, ...) away). 0 on
// pixels that are not walkable. Kept exact as an integer: along each axis the
// centre is max(0, 2|x - bx| - 1) half pixels from the square, so four times
// the squared distance is a sum of two squared integers. Built in linear time
// (O(pixels): a column scan, then a lower envelope of parabolas per row, as
// in Felzenszwalb and Huttenlocher's distance transform); 4 bytes per pixel.
class ObstacleDistances {
 public:
  // enabled is an effective set (see effective_areas); bit 0 is ignored.
  ObstacleDistances(const Mask& mask, AreaSet enabled);

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  // Four times the squared distance at p (the squared distance in half
  // pixels), exact; p must be inside.
  [[nodiscard]] std::uint32_t squared_half_pixels(Point p) const {
    return values_[static_cast<std::size_t>(p.y) * width_ + static_cast<std::size_t>(p.x)];
  }
  // The distance at p in pixels; p must be inside.
  [[nodiscard]] double distance(Point p) const;
  [[nodiscard]] std::size_t memory_bytes() const {
    return values_.capacity() * sizeof(std::uint32_t) + sizeof(*this);
  }

 private:
  std::uint32_t width_;
  std::uint32_t height_;
  std::vector<std::uint32_t> values_;  // row-major
};

// The pixels a request with agent clearance may use: a pixel is usable when
// it is walkable for `enabled` and its centre is at least `clearance` pixels
// from every pixel that is not (ObstacleDistances). The usable grid is a Mask
// of its own: usable pixels keep their area id (area costs still apply),
// every other pixel is area 0. Fields, tracing, every smoothing mode,
// snapping, labels and any-angle graphs then run on mask() in place of the
// request's mask, unchanged, and keep to usable pixels.
//
// Build one per (mask revision, enabled areas, clearance) and share it:
// immutable, so safe between threads. clearance 0 (or up to 0.5: a walkable
// centre is always half a pixel from anything blocked) makes every walkable
// pixel usable and costs one copy, no distance pass; find_path skips even
// that at 0. A mask built for `enabled` serves every request whose effective
// areas agree with it on the areas the source mask contains.
class UsableMask {
 public:
  // O(pixels); while building, 4 bytes per pixel of scratch besides the
  // result. enabled is an effective set. Throws InvalidArgument (naming
  // `clearance`) as require_valid_clearance does.
  UsableMask(const Mask& mask, AreaSet enabled, double clearance);

  // The usable pixels as a mask: walk it with the same enabled set.
  [[nodiscard]] const Mask& mask() const { return usable_; }
  [[nodiscard]] AreaSet enabled() const { return enabled_; }
  [[nodiscard]] double clearance() const { return clearance_; }
  // Inside and usable.
  [[nodiscard]] bool usable(Point p) const { return usable_.walkable(p, enabled_); }
  // Bytes held, for cache accounting (the distances are not kept).
  [[nodiscard]] std::size_t memory_bytes() const {
    return usable_.areas().capacity() + sizeof(*this);
  }

 private:
  AreaSet enabled_;
  double clearance_;
  Mask usable_;
};

// True when a valid clearance makes some walkable pixel unusable: above 0.5
// (a walkable centre is always half a pixel from anything blocked). Up to
// 0.5 the usable pixels are the walkable ones and callers take today's path.
[[nodiscard]] constexpr bool clearance_excludes_pixels(double clearance) {
  return clearance > 0.5;
}

// The smallest integer n with n >= (2 * clearance)^2, decided exactly (a
// squared_half_pixels value n is at least clearance away exactly when n is at
// least this); clearance must be valid. Saturates at 2^63.
[[nodiscard]] std::uint64_t required_squared_half_pixels(double clearance);

}  // namespace pathcore
