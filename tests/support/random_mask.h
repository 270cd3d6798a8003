#pragma once

#include <cstdint>
#include <random>

#include "pathcore/mask.h"

namespace pathtest {

// A random mask: each pixel is blocked (area 0) with probability
// obstacle_ratio, else of a uniformly random area in 1..area_count.
[[nodiscard]] pathcore::Mask random_mask(std::mt19937_64& rng, std::uint32_t width,
                                         std::uint32_t height, double obstacle_ratio,
                                         int area_count);

// A uniformly random point inside the mask.
[[nodiscard]] pathcore::Point random_point(std::mt19937_64& rng, const pathcore::Mask& mask);

}  // namespace pathtest
