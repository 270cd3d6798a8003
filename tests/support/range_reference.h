#pragma once

// A textbook Dijkstra from a start (the movement ranges' reference): exact
// cheapest (straight, diagonal) step-cost sums from the start to every pixel.

#include <cstdint>
#include <utility>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathtest {

// Marks a pixel the start does not reach in reference_costs_from.
inline constexpr std::uint32_t kNotReached = 0xFFFFFFFFU;

// Cheapest cost from start to every pixel (row-major) over the pixels of
// `mask` walkable for options.enabled: a step costs the area cost of the
// pixel it enters (0 read as 1), counted in .first for a cardinal step and
// in .second for a diagonal one (cost = first + second * sqrt 2); a diagonal
// step needs both cardinal pixels beside it walkable unless
// options.allow_corner_cutting. {kNotReached, 0} where the start does not
// reach (everywhere when it is not walkable). A std::set of (cost, y, x).
[[nodiscard]] std::vector<std::pair<std::uint32_t, std::uint32_t>> reference_costs_from(
    const pathcore::Mask& mask, pathcore::Point start, const pathcore::FieldOptions& options);

// first + second * sqrt 2.
[[nodiscard]] double reference_cost_value(std::pair<std::uint32_t, std::uint32_t> cost);

}  // namespace pathtest
