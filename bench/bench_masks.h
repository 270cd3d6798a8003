#pragma once

#include <cstdint>

#include "pathcore/mask.h"

namespace pathbench {

// Full-HD benchmark masks, deterministic for a given size (and seed).
[[nodiscard]] pathcore::Mask open_mask(std::uint32_t width, std::uint32_t height);
[[nodiscard]] pathcore::Mask random_obstacle_mask(std::uint32_t width, std::uint32_t height,
                                                  double obstacle_ratio, std::uint64_t seed);
// A one-pixel-wide corridor spiralling inward from (0,0) with one-pixel walls:
// the worst case for distance magnitude (about width*height/2 steps long).
[[nodiscard]] pathcore::Mask spiral_mask(std::uint32_t width, std::uint32_t height);
// A perfect maze (randomised depth-first search) of corridors `corridor`
// pixels wide between walls `wall` pixels thick, filling width x height.
[[nodiscard]] pathcore::Mask maze_mask(std::uint32_t width, std::uint32_t height,
                                       std::uint32_t corridor, std::uint32_t wall,
                                       std::uint64_t seed);
// Square rooms of `room` pixels between one-pixel walls, each wall with a
// door `door` pixels wide at a random place (a few walls left without).
[[nodiscard]] pathcore::Mask rooms_mask(std::uint32_t width, std::uint32_t height,
                                        std::uint32_t room, std::uint32_t door, std::uint64_t seed);

// The first walkable pixel at or after p in scan order (bench masks are dense,
// so it is near p); p itself when there is none.
[[nodiscard]] pathcore::Point walkable_near(const pathcore::Mask& mask, pathcore::Point p);

}  // namespace pathbench
