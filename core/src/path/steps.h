#pragma once
// The eight steps between neighbouring pixels, in the fixed orders traces and
// floods use, so their answers are deterministic.

#include <array>
#include <cstddef>
#include <cstdint>

#include "pathcore/mask.h"

namespace pathcore {

struct Step {
  std::int32_t dx = 0;
  std::int32_t dy = 0;
  friend bool operator==(const Step&, const Step&) = default;
};

// Fixed orders, so traces are deterministic: E, S, W, N and SE, SW, NW, NE.
constexpr std::array<Step, 4> kCardinalSteps = {{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}};
constexpr std::array<Step, 4> kDiagonalSteps = {{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}};
// The pixels beside kDiagonalSteps[d] are at kCardinalSteps[kDiagonalSides[d][0 and 1]].
constexpr std::array<std::array<std::size_t, 2>, 4> kDiagonalSides = {
    {{0, 1}, {2, 1}, {2, 3}, {0, 3}}};

inline Point operator+(Point p, Step s) { return {p.x + s.dx, p.y + s.dy}; }

}  // namespace pathcore
