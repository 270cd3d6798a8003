#pragma once

#include <cstddef>
#include <cstdint>

// Raster sweeps for the unit-cost eight-connected field (FieldBuilder's
// sweep fill): on open ground a whole field in a few passes over memory,
// where the bucket queue pays per pixel for its order.
//
// Each pixel holds its order key (OctileKey<std::uint32_t>: straight * kQ +
// diagonal * kP, exact order and integer steps), kSweepUnreached or
// kSweepBlocked, on the padded grid of the in-place octile fill. A sweep
// relaxes every pixel from the neighbours already visited in its raster
// order: forward, rows top to bottom and each row left to right, from north,
// north-west, north-east and west; backward the mirror. Every value is the
// cost of a real path (or unreached) and only decreases, so values are upper
// bounds; once no edge can improve either end (a fixed point of the
// Bellman equations), every value is exact (induct along a shortest path
// from the goal). On obstacle-free ground one forward and then one backward
// sweep reach it (every pixel has a shortest path whose first part the
// forward sweep follows and whose rest the backward one does); each
// obstacle a path must round can take another pair. The caller checks the
// fixed point and falls back to the bucket queue.
//
// The kernels use AVX2 (GCC vector extensions built for it, chosen at run
// time); without it available() is false and the caller never sweeps.
namespace pathcore::octile_sweep {

// A walkable pixel not reached yet, and a blocked one (the padding too).
// Keys of costs the 32-bit field can hold stay below kSweepUnreached, and a
// step from either sentinel stays below 2^32, so no sum wraps.
inline constexpr std::uint32_t kSweepUnreached = 0x80000000U;
inline constexpr std::uint32_t kSweepBlocked = 0xC0000000U;

// True when this CPU runs the kernels.
[[nodiscard]] bool available();

// From the in-place fill's start grid (0 blocked, anything else walkable) to
// sweep values; the goal gets key 0.
void prepare(std::uint32_t* grid, std::size_t size, std::size_t goal_index);

// Rows [first, first + count) of one sweep, counted in the sweep's own order
// (forward from row 1 down, backward from row `height` up). `row` is scratch
// of stride elements.
void sweep_rows(bool forward, bool corner_cutting, std::uint32_t* grid, std::uint32_t* row,
                std::size_t stride, std::size_t width, std::size_t height, std::size_t first,
                std::size_t count);

// True when no edge can improve either of its pixels.
[[nodiscard]] bool fixed_point(bool corner_cutting, const std::uint32_t* grid, std::size_t stride,
                               std::size_t width, std::size_t height);

// Turns a fixed point into the field's 32-bit tagged words ((straight + 1) |
// diagonal << 16, 0 blocked, all ones unreachable). False (the grid is then
// garbage) when some cost is too large for them.
[[nodiscard]] bool to_field(std::uint32_t* grid, std::size_t size);

}  // namespace pathcore::octile_sweep
