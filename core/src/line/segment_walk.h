// The walkability checks of segment_walkable without their argument checks,
// inline, for callers that check many segments between points they know to
// be inside the mask (beautify). segment.cc defines the public functions on
// top of these.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "pathcore/clearance.h"
#include "pathcore/line.h"
#include "pathcore/mask.h"

namespace pathcore::segment_walk {

// Segments are always walked from the lexicographically smaller endpoint
// (x, then y), so a-b and b-a give the same pixels.
inline bool lexicographically_less(Point a, Point b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

// segment.cc's general walks (walk_bresenham, walk_supercover) with the
// visit fixed to "is the area enabled", for segment_walkable, the hot loop
// of beautify (tens of thousands of short segments per path on cluttered
// masks). Same pixels, visited branch-free:
// on cluttered masks the step direction is unpredictable, so each step picks
// its moves with compares instead of jumps, accumulates the walkability of
// the pixels it enters with ANDs, and advances one pointer. The loops stop at
// the end pixel or at the first blocked one (a predictable branch).
// areas points at pixel a of a grid of `stride` bytes per row; a is the
// lexicographically smaller endpoint (so b.x >= a.x) and every visited pixel
// lies inside the grid (the bounding box of a and b).
// 1 when v < 0, else 0, with a shift rather than a compare the compiler could
// turn back into a branch. |v| stays far below 2^62 here.
inline std::int64_t less_than_zero(std::int64_t v) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) >> 63);
}

// walkable(byte) is 1 when a grid byte is walkable, else 0.
template <typename Walkable>
inline bool bresenham_walkable(const std::uint8_t* areas, std::int64_t stride, Walkable walkable, Point a,
                        Point b) {
  const std::int64_t dx = std::int64_t{b.x} - a.x;
  const std::int64_t dy = -std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t row = b.y >= a.y ? stride : -stride;
  const std::uint8_t* const end = areas + (std::int64_t{b.y} - a.y) * stride + dx;
  const std::uint8_t* at = areas;
  std::int64_t err = dx + dy;
  AreaSet ok = walkable(*at);
  while (at != end && (ok & 1U) != 0) {
    const std::int64_t twice = 2 * err;
    const std::int64_t step_x = less_than_zero(dy - twice - 1);  // twice >= dy
    const std::int64_t step_y = less_than_zero(twice - dx - 1);  // twice <= dx
    err += (step_x * dy) + (step_y * dx);
    at += step_x + step_y * row;
    ok &= walkable(*at);
  }
  return (ok & 1U) != 0;
}

inline bool supercover_walkable(const std::uint8_t* areas, std::int64_t stride, AreaSet enabled, Point a,
                         Point b) {
  const std::int64_t nx = std::int64_t{b.x} - a.x;
  const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t row = b.y >= a.y ? stride : -stride;
  const std::uint8_t* const end = areas + (std::int64_t{b.y} - a.y) * stride + nx;
  const std::uint8_t* at = areas;
  // Next column border (1 + 2 ix) * ny and next row border (1 + 2 iy) * nx,
  // as in walk_supercover, kept up to date by additions.
  std::int64_t vertical = ny;
  std::int64_t horizontal = nx;
  AreaSet ok = enabled >> *at;
  while (at != end && (ok & 1U) != 0) {
    // step_x: vertical <= horizontal; step_y: horizontal <= vertical.
    const std::int64_t step_x = less_than_zero(vertical - horizontal - 1);
    const std::int64_t step_y = less_than_zero(horizontal - vertical - 1);
    // Through a corner (both steps) the two pixels beside it count too; on a
    // single step these reads are the entered pixel or the current one.
    ok &= (enabled >> at[step_x]) & (enabled >> at[step_y * row]);
    at += step_x + step_y * row;
    ok &= enabled >> *at;
    vertical += step_x * 2 * ny;
    horizontal += step_y * 2 * nx;
  }
  return (ok & 1U) != 0;
}

// supercover_walkable over a clearance map (byte 0: not walkable; c: every
// pixel within Chebyshev distance c - 1 walkable), jumping where it is open.
// The walk is the one of walk_supercover, in states (ix, iy): column and row
// steps taken, i.e. the pixel a + (ix, iy * sign). From a pixel of clearance
// c >= 3 it jumps k = c - 1 steps along the longer axis, to the state the
// walk reaches right after crossing that many borders (for x-major lines:
// after the border between columns ix - 1 and ix, it has crossed every row
// border j with (1 + 2j) nx <= (2 ix - 1) ny). The pixels skipped lie within
// k columns, and within k rows: the row borders crossed meanwhile lie on a
// stretch of the line at most k * ny / nx <= k long, which holds at most k
// of them. So all of them are within c - 1 of the pixel jumped from, and
// walkable; likewise the rest of the segment once b is within k on both axes.
inline bool supercover_clear(const std::uint8_t* const origin, std::int64_t stride, Point a, Point b) {
  const std::int64_t nx = std::int64_t{b.x} - a.x;
  const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t row = b.y >= a.y ? stride : -stride;
  const bool x_major = nx >= ny;
  std::int64_t ix = 0;
  std::int64_t iy = 0;
  std::int64_t vertical = ny;    // next column border, as in walk_supercover
  std::int64_t horizontal = nx;  // next row border
  const std::uint8_t* at = origin;
  while (true) {
    const std::int64_t clearance = *at;
    if (clearance == 0) {
      return false;
    }
    const std::int64_t left_x = nx - ix;
    const std::int64_t left_y = ny - iy;
    const std::int64_t k = clearance - 1;
    if (k >= 2 && std::max(left_x, left_y) <= k) {
      return true;
    }
    if (k >= 2 && (x_major ? left_x : left_y) > 0) {
      if (x_major) {
        ix += std::min(k, left_x);
        iy = ((2 * ix - 1) * ny + nx) / (2 * nx);
      } else {
        iy += std::min(k, left_y);
        ix = ((2 * iy - 1) * nx + ny) / (2 * ny);
      }
      vertical = (1 + 2 * ix) * ny;
      horizontal = (1 + 2 * iy) * nx;
      at = origin + ix + iy * row;
      continue;
    }
    if (left_x == 0 && left_y == 0) {
      return true;
    }
    const bool step_x = vertical <= horizontal;
    const bool step_y = horizontal <= vertical;
    // Through a corner the two pixels beside it count too; with clearance 2
    // every neighbour is walkable.
    if (step_x && step_y && clearance == 1 && (at[1] == 0 || at[row] == 0)) {
      return false;
    }
    if (step_x) {
      ++ix;
      vertical += 2 * ny;
      at += 1;
    }
    if (step_y) {
      ++iy;
      horizontal += 2 * nx;
      at += row;
    }
  }
}

// True when bits first .. first + count - 1 of `bits` (bit i: bit i % 8 of
// byte i / 8) are all set; count >= 1. Reads 8 bytes at a time, from the
// byte holding `first` on (the map pads its bit rows for this).
inline bool all_set(const std::uint8_t* bits, std::int64_t first, std::int64_t count) {
  const std::uint8_t* at = bits + (first >> 3);
  const std::int64_t shift = first & 7;
  constexpr std::uint64_t kChunk = (std::uint64_t{1} << 56) - 1;
  while (count > 56) {
    std::uint64_t word = 0;
    std::memcpy(&word, at, sizeof word);
    if (((word >> shift) & kChunk) != kChunk) {
      return false;
    }
    at += 7;
    count -= 56;
  }
  std::uint64_t word = 0;
  std::memcpy(&word, at, sizeof word);
  const std::uint64_t wanted = (std::uint64_t{1} << count) - 1;
  return ((word >> shift) & wanted) == wanted;
}

// The supercover of a-b, one span of pixels per row (x-major segments) or per
// column (y-major ones), each tested at once on the map's walkability bits:
// min(nx, ny) + 1 tests instead of a step per pixel, with no unpredictable
// branch, for segments that never get far from obstacles. For an x-major
// segment (nx >= ny > 0), row j (0..ny, toward b) holds the columns whose
// closed unit square meets the stretch of the segment within that row:
// from ceil(((2j - 1) nx - ny) / 2ny) to floor(((2j + 1) nx + ny) / 2ny),
// clamped to 0..nx (offsets from a). The first bound is the previous row's
// last column, one less when the segment crosses the row border exactly at a
// pixel corner (the division is exact): the four pixels around it. The same
// pixels as walk_supercover. a is the lexicographically smaller endpoint.
inline bool supercover_spans(const ClearanceMap& map, Point a, Point b) {
  const std::int64_t nx = std::int64_t{b.x} - a.x;
  const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
  const bool x_major = nx >= ny;
  const std::int64_t major = x_major ? nx : ny;
  const std::int64_t minor = x_major ? ny : nx;
  // Lines (rows or columns) and the span's first pixel within one, from a's.
  const auto line_bits = [&](std::int64_t i) {
    return x_major ? map.row_bits(static_cast<std::uint32_t>(b.y >= a.y ? a.y + i : a.y - i))
                   : map.column_bits(static_cast<std::uint32_t>(a.x + i));
  };
  // Span [lo, hi] (offsets from a along the major axis, toward b) in line i.
  const auto span_ok = [&](std::int64_t i, std::int64_t lo, std::int64_t hi) {
    if (x_major) {
      return all_set(line_bits(i), a.x + lo, hi - lo + 1);
    }
    return all_set(line_bits(i), b.y >= a.y ? a.y + lo : a.y - hi, hi - lo + 1);
  };
  if (minor == 0) {
    return span_ok(0, 0, major);
  }
  const std::int64_t twice_minor = 2 * minor;
  // hi of line i is floor(n_i / 2 minor), n_i = (2i + 1) major + minor; kept
  // as quotient and remainder, stepped by 2 major per line.
  std::int64_t quotient = (major + minor) / twice_minor;
  std::int64_t remainder = (major + minor) % twice_minor;
  const std::int64_t step_quotient = (2 * major) / twice_minor;
  const std::int64_t step_remainder = (2 * major) % twice_minor;
  std::int64_t lo = 0;
  for (std::int64_t i = 0; i < minor; ++i) {
    if (!span_ok(i, lo, quotient)) {
      return false;
    }
    lo = quotient - (remainder == 0 ? 1 : 0);
    quotient += step_quotient;
    remainder += step_remainder;
    if (remainder >= twice_minor) {
      remainder -= twice_minor;
      ++quotient;
    }
  }
  return span_ok(minor, lo, major);
}

// The supercover of (0, 0) -> (nx, ny) for nx, ny in 0..7, as an 8x8 bit board
// (bit 8 y + x: pixel (x, y)), at index 8 ny + nx: walk_supercover's steps,
// corners included. Mirrored in y it is the supercover of (0, 0) -> (nx, -ny),
// so one board serves both directions.
inline constexpr std::array<std::uint64_t, 64> kSmallSupercovers = [] {
  std::array<std::uint64_t, 64> boards{};
  for (std::int64_t ny = 0; ny < 8; ++ny) {
    for (std::int64_t nx = 0; nx < 8; ++nx) {
      std::uint64_t board = 1;
      const auto add = [&board](std::int64_t x, std::int64_t y) {
        board |= std::uint64_t{1} << (8 * y + x);
      };
      for (std::int64_t ix = 0, iy = 0; ix < nx || iy < ny;) {
        const std::int64_t vertical = (1 + 2 * ix) * ny;
        const std::int64_t horizontal = (1 + 2 * iy) * nx;
        if (vertical == horizontal) {
          add(ix + 1, iy);
          add(ix, iy + 1);
        }
        ix += vertical <= horizontal ? 1 : 0;
        iy += horizontal <= vertical ? 1 : 0;
        add(ix, iy);
      }
      boards[static_cast<std::size_t>(8 * ny + nx)] = board;
    }
  }
  return boards;
}();

// supercover_spans for a segment within 8x8 pixels (nx, |ny| <= 7): the
// walkability bits of the rows from a toward b, 8 columns from a.x, gathered
// into one board and compared with kSmallSupercovers once. No divisions, and
// no branch but the loop over rows; most checks on cluttered masks are this
// short (three quarters on random30).
inline bool supercover_small(const ClearanceMap& map, Point a, Point b) {
  const std::int64_t nx = std::int64_t{b.x} - a.x;
  const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
  const std::int64_t direction = b.y >= a.y ? 1 : -1;
  const std::size_t byte = static_cast<std::size_t>(a.x) >> 3;
  const unsigned shift = static_cast<unsigned>(a.x) & 7U;
  std::uint64_t board = 0;
  for (std::int64_t r = 0; r <= ny; ++r) {
    std::uint64_t word = 0;
    std::memcpy(&word, map.row_bits(static_cast<std::uint32_t>(a.y + direction * r)) + byte,
                sizeof word);
    board |= ((word >> shift) & 0xFFU) << (8 * r);
  }
  const std::uint64_t cover = kSmallSupercovers[static_cast<std::size_t>(8 * ny + nx)];
  return (cover & ~board) == 0;
}

// Segments whose shorter side is at most this many pixels are checked by
// spans (supercover_spans); longer ones by the clearance jumps, which cross
// open ground in steps of up to 254 pixels.
constexpr std::int64_t kMaxSpanLines = 64;

// segment_walkable(mask, enabled, a, b, rule) for a and b inside the mask;
// enabled already masked with kAllAreas.
inline bool walkable_inside(const Mask& mask, AreaSet enabled, Point a, Point b, LineRule rule) {
  if (!mask.walkable(a, enabled) || !mask.walkable(b, enabled)) {
    return false;
  }
  if (lexicographically_less(b, a)) {
    std::swap(a, b);
  }
  // Every visited pixel lies in the bounding box of a and b, so inside the mask.
  const auto width = static_cast<std::int64_t>(mask.width());
  const std::uint8_t* at = mask.areas().data() + std::int64_t{a.y} * width + a.x;
  if (rule == LineRule::kBresenham) {
    return bresenham_walkable(
        at, width, [enabled](std::uint8_t area) { return (enabled >> area) & 1U; }, a, b);
  }
  return supercover_walkable(at, width, enabled, a, b);
}

// segment_walkable(map, a, b, rule) for a and b inside the map.
inline bool walkable_inside(const ClearanceMap& map, Point a, Point b, LineRule rule) {
  if (lexicographically_less(b, a)) {
    std::swap(a, b);
  }
  const auto width = static_cast<std::int64_t>(map.width());
  const std::uint8_t* at = map.values().data() + std::int64_t{a.y} * width + a.x;
  if (rule == LineRule::kBresenham) {
    return bresenham_walkable(
        at, width, [](std::uint8_t clearance) { return AreaSet{clearance != 0}; }, a, b);
  }
  const std::int64_t nx = std::int64_t{b.x} - a.x;
  const std::int64_t ny = std::llabs(std::int64_t{b.y} - a.y);
  if ((nx | ny) < 8) {
    return supercover_small(map, a, b);
  }
  const std::int64_t shorter = std::min(nx, ny);
  if (shorter <= kMaxSpanLines) {
    // Spans take shorter + 1 tests; the jumps about longer / (c - 1) steps
    // where the clearance is c, guessed from the clearer endpoint.
    const std::int64_t clear =
        std::max<std::int64_t>(*at, map.values()[std::int64_t{b.y} * width + b.x]) - 1;
    if (clear < 2 || clear * shorter < std::max(nx, ny)) {
      return supercover_spans(map, a, b);
    }
  }
  return supercover_clear(at, width, a, b);
}

}  // namespace pathcore::segment_walk
