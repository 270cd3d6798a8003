// One-pixel corridors of the four-connected breadth-first fill
// (level_fill.cc), in a translation unit of their own: compiled inside
// distance_field.cc (which then held every fill), this loop changed GCC's
// inlining decisions there and slowed the 32 + 32 bit bucket fill by a quarter.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace pathcore::detail {

// Where a corridor walk ended: `count` pixels in `found` form the frontier at
// distance `level`; settled when the stop pixel has its distance.
struct CorridorEnd {
  std::array<std::uint32_t, 4> found{};
  std::size_t count = 0;
  std::uint32_t level = 0;
  bool settled = false;
};

// The breadth-first fill from a frontier of one pixel, `index` at distance
// `level`, on a padded grid of `stride` words per row where unreached pixels
// hold all ones and pixels never to enter all ones - 1 (so no bounds checks).
// Expands the pixel; while that finds exactly one new pixel, goes on from
// there (a one-pixel corridor, where per-level bookkeeping would cost more
// than the pixel). Ends, with the new frontier, when a pixel finds none or
// several (a dead end or a fork), before a distance would reach all ones - 1
// (the frontier then is the one pixel, not expanded), or, with kStop, as soon
// as grid[stop] is reached (checked before each expansion, as the level loop
// does).
template <typename Word, bool kStop>
CorridorEnd walk_corridor(Word* grid, std::uint32_t stride, std::uint32_t index,
                          std::uint32_t level, std::size_t stop);

extern template CorridorEnd walk_corridor<std::uint16_t, false>(std::uint16_t*, std::uint32_t,
                                                                std::uint32_t, std::uint32_t,
                                                                std::size_t);
extern template CorridorEnd walk_corridor<std::uint16_t, true>(std::uint16_t*, std::uint32_t,
                                                               std::uint32_t, std::uint32_t,
                                                               std::size_t);
extern template CorridorEnd walk_corridor<std::uint32_t, false>(std::uint32_t*, std::uint32_t,
                                                                std::uint32_t, std::uint32_t,
                                                                std::size_t);
extern template CorridorEnd walk_corridor<std::uint32_t, true>(std::uint32_t*, std::uint32_t,
                                                               std::uint32_t, std::uint32_t,
                                                               std::size_t);

}  // namespace pathcore::detail
