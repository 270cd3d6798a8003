#include "anyangle/line_of_sight.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace pathcore {
namespace {

// Floor and ceiling of n / d for d > 0, exact for negative n.
std::int64_t floor_div(std::int64_t n, std::int64_t d) {
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}
std::int64_t ceil_div(std::int64_t n, std::int64_t d) { return -floor_div(-n, d); }

// A segment on the vertical line x = x2 from y2 = lo to hi (lo < hi).
bool vertical_free(const BlockedGrid& grid, std::int64_t x2, std::int64_t lo, std::int64_t hi,
                   bool corner_cutting) {
  // Pixel rows whose open span (2j, 2j + 2) meets (lo, hi).
  const std::int64_t first_row = floor_div(lo, 2);
  const std::int64_t last_row = ceil_div(hi, 2) - 1;
  if (x2 % 2 != 0) {  // through the middle of one pixel column
    const std::int64_t column = (x2 - 1) / 2;
    for (std::int64_t j = first_row; j <= last_row; ++j) {
      if (grid.blocked(column, j)) return false;
    }
    return true;
  }
  // Along a grid line: free where either side is walkable.
  const std::int64_t right = x2 / 2;
  for (std::int64_t j = first_row; j <= last_row; ++j) {
    if (grid.blocked(right - 1, j) && grid.blocked(right, j)) return false;
  }
  if (!corner_cutting) {
    for (std::int64_t k = ceil_div(lo, 2); k <= floor_div(hi, 2); ++k) {
      if (grid.pinch(right, k)) return false;
    }
  }
  return true;
}

// The same on a horizontal line y = y2, from x2 = lo to hi.
bool horizontal_free(const BlockedGrid& grid, std::int64_t y2, std::int64_t lo, std::int64_t hi,
                     bool corner_cutting) {
  const std::int64_t first_column = floor_div(lo, 2);
  const std::int64_t last_column = ceil_div(hi, 2) - 1;
  if (y2 % 2 != 0) {
    const std::int64_t row = (y2 - 1) / 2;
    for (std::int64_t i = first_column; i <= last_column; ++i) {
      if (grid.blocked(i, row)) return false;
    }
    return true;
  }
  const std::int64_t below = y2 / 2;
  for (std::int64_t i = first_column; i <= last_column; ++i) {
    if (grid.blocked(i, below - 1) && grid.blocked(i, below)) return false;
  }
  if (!corner_cutting) {
    for (std::int64_t k = ceil_div(lo, 2); k <= floor_div(hi, 2); ++k) {
      if (grid.pinch(k, below)) return false;
    }
  }
  return true;
}

}  // namespace

bool segment_free(const BlockedGrid& grid, Point a2, Point b2, bool corner_cutting) {
  if (a2.x == b2.x) {
    if (a2.y == b2.y) return true;
    return vertical_free(grid, a2.x, std::min(a2.y, b2.y), std::max(a2.y, b2.y), corner_cutting);
  }
  if (a2.y == b2.y) {
    return horizontal_free(grid, a2.y, std::min(a2.x, b2.x), std::max(a2.x, b2.x), corner_cutting);
  }
  // A slanted segment never runs along a grid line: it is free iff every
  // pixel whose interior it enters is walkable and no grid point it passes
  // through is a pinch. Walked column by column, left to right.
  if (a2.x > b2.x) std::swap(a2, b2);
  const std::int64_t dx = b2.x - a2.x;  // > 0
  const std::int64_t dy = b2.y - a2.y;  // != 0
  const std::int64_t twice_dx = 2 * dx;
  // y(x) = (a2.y * dx + dy * (x - a2.x)) / dx: numerators at x = a2.x and
  // at the first column boundary past it, then +2 dy per column.
  const std::int64_t first_column = floor_div(a2.x, 2);
  const std::int64_t last_column = ceil_div(b2.x, 2) - 1;
  std::int64_t at_start = std::int64_t{a2.y} * dx;
  for (std::int64_t i = first_column; i <= last_column; ++i) {
    const std::int64_t x_end = std::min<std::int64_t>(2 * i + 2, b2.x);
    const std::int64_t at_end = std::int64_t{a2.y} * dx + dy * (x_end - a2.x);
    const std::int64_t lo = std::min(at_start, at_end);
    const std::int64_t hi = std::max(at_start, at_end);
    // Rows whose open span meets the open y span (lo, hi) / dx.
    const std::int64_t last_row = ceil_div(hi, twice_dx) - 1;
    for (std::int64_t j = floor_div(lo, twice_dx); j <= last_row; ++j) {
      if (grid.blocked(i, j)) return false;
    }
    // The column's right boundary: a grid point when y is an even integer.
    if (!corner_cutting && x_end % 2 == 0 && at_end % twice_dx == 0 &&
        grid.pinch(x_end / 2, at_end / twice_dx)) {
      return false;
    }
    at_start = at_end;
  }
  // The left end on a vertical grid line (a square corner at a2).
  if (!corner_cutting && a2.x % 2 == 0 && a2.y % 2 == 0 && grid.pinch(a2.x / 2, a2.y / 2)) {
    return false;
  }
  return true;
}

}  // namespace pathcore
