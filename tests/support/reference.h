#pragma once

// Independent, deliberately simple reference implementations that the core
// tests compare against. Slow by design: brute force over what core does fast.

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "pathcore/mask.h"

namespace pathtest {

// Distance of a pixel that cannot reach the goal.
inline constexpr double kNoPath = std::numeric_limits<double>::infinity();

// Which diagonal steps the reference grid has.
enum class Diagonals {
  kNone,           // four-neighbour grid
  kBothSidesFree,  // a diagonal step needs both cardinal pixels beside it walkable
  kOneSideFree,    // ... at least one of them
  kAlways,         // ... nothing (it may squeeze between two blocked pixels)
};

struct ReferenceGrid {
  pathcore::AreaSet enabled = pathcore::kAllAreas;  // effective set
  Diagonals diagonals = Diagonals::kNone;
  // Area id -> cost of entering a pixel of that area (1 where unlisted).
  // A cardinal step costs the entered pixel's cost, a diagonal one sqrt 2 times it.
  std::map<std::uint32_t, double> area_costs;
};

// Cheapest cost from every pixel to goal (row-major), by a textbook Dijkstra
// with a priority queue. kNoPath for unwalkable and unreachable pixels, and
// everywhere when the goal itself is not walkable.
[[nodiscard]] std::vector<double> reference_distances(const pathcore::Mask& mask,
                                                      pathcore::Point goal,
                                                      const ReferenceGrid& grid);

// The Bresenham pixels of a-b in order from a to b. Computed per step of the
// longer axis by exact rounding of the line, starting from the
// lexicographically smaller endpoint (x, then y); a line passing exactly
// halfway between two pixels takes the one farther from that endpoint.
[[nodiscard]] std::vector<pathcore::Point> reference_bresenham(pathcore::Point a,
                                                               pathcore::Point b);

// True when a, b and all reference_bresenham pixels between are walkable.
[[nodiscard]] bool reference_bresenham_walkable(const pathcore::Mask& mask,
                                                pathcore::AreaSet enabled, pathcore::Point a,
                                                pathcore::Point b);

// Every pixel whose closed unit square (centred on the pixel) the closed
// segment a-b touches, found by an exact separating-axis test of each pixel
// of the bounding box. A segment through a pixel corner touches all four
// pixels around it, so a walkable answer never squeezes between two
// diagonally blocked pixels.
[[nodiscard]] std::vector<pathcore::Point> reference_supercover(pathcore::Point a,
                                                                pathcore::Point b);

// True when every reference_supercover pixel of a-b is walkable.
[[nodiscard]] bool reference_supercover_walkable(const pathcore::Mask& mask,
                                                 pathcore::AreaSet enabled, pathcore::Point a,
                                                 pathcore::Point b);

// The cost of the polyline through pixel centres `path` by brute force: each
// segment clipped (Liang-Barsky, in doubles) against the closed unit square
// of every pixel of its bounding box, the length inside times the pixel's
// charge. Charges: area_costs (1 where unlisted) for pixels walkable for
// `enabled`; any other pixel the cheapest cost among the enabled areas
// present in the mask (what polyline_cost documents). Borders hold no length,
// so no pixel is counted twice.
[[nodiscard]] double reference_polyline_cost(const pathcore::Mask& mask,
                                             const std::vector<pathcore::Point>& path,
                                             const ReferenceGrid& grid);

}  // namespace pathtest

namespace pathtest {

// Every pixel connected to `from` (row-major flags), by a textbook
// breadth-first flood fill over the pixels walkable for `enabled`, with the
// diagonal steps `diagonals` allows (kOneSideFree is not used by components).
// All false when `from` is not walkable.
[[nodiscard]] std::vector<bool> reference_flood_fill(const pathcore::Mask& mask,
                                                     pathcore::Point from,
                                                     pathcore::AreaSet enabled,
                                                     Diagonals diagonals);

}  // namespace pathtest
