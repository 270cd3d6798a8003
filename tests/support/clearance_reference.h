#pragma once

// Brute-force agent clearance (issue 21) for the tests: every pixel against
// every blocked square, exact in integers, sharing nothing with core's
// distance transform.

#include <cstdint>
#include <vector>

#include "pathcore/mask.h"

namespace pathtest {

// Four times the squared Euclidean distance from p's centre to the nearest
// point of a square that is not walkable for enabled (the ring of pixels
// just outside the mask counts as blocked: nothing outside is nearer). 0 when
// p is not walkable. Each square is tested by clamping the centre onto it in
// doubled coordinates. O(pixels) per call.
[[nodiscard]] std::uint64_t reference_squared_half_pixels(const pathcore::Mask& mask,
                                                          pathcore::AreaSet enabled,
                                                          pathcore::Point p);

// Exactly whether squared_half_pixels >= (2 * clearance)^2, by writing the
// double clearance as an integer times a power of two. clearance must be 0 or
// at least 2^-10.
[[nodiscard]] bool reference_far_enough(std::uint64_t squared_half_pixels, double clearance);

// Usable flags (row-major): walkable and no blocked square (nor the outside)
// closer than clearance. Only squares within ceil(clearance) + 1 pixels on
// each axis can be closer, so only those are tested: O(pixels * clearance^2).
[[nodiscard]] std::vector<bool> reference_usable(const pathcore::Mask& mask,
                                                 pathcore::AreaSet enabled, double clearance);

// The mask with every pixel that is not usable (flags) set to area 0.
[[nodiscard]] pathcore::Mask mask_of_usable(const pathcore::Mask& mask,
                                            const std::vector<bool>& usable);

}  // namespace pathtest
