#include "support/line_reference.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <tuple>

namespace pathtest {
namespace {

using pathcore::Point;

// num / den with den > 0, compared exactly.
struct Fraction {
  std::int64_t num;
  std::int64_t den;
};
bool operator<(const Fraction& l, const Fraction& r) { return l.num * r.den < r.num * l.den; }
bool operator==(const Fraction& l, const Fraction& r) { return l.num * r.den == r.num * l.den; }
bool operator<=(const Fraction& l, const Fraction& r) { return !(r < l); }

Fraction make_fraction(std::int64_t num, std::int64_t den) {
  return den < 0 ? Fraction{-num, -den} : Fraction{num, den};
}

// The parameters t at which a + t (b - a) lies within [2p - 1, 2p + 1] / 2
// along one axis (centre coordinate c0, extent d): empty when it never does.
std::optional<std::pair<Fraction, Fraction>> axis_interval(std::int64_t c0, std::int64_t d,
                                                          std::int64_t p) {
  if (d == 0) {
    if (c0 != p) return std::nullopt;  // |c0 - p| <= 1/2 for integers
    return std::pair{Fraction{0, 1}, Fraction{1, 1}};
  }
  Fraction lo = make_fraction(2 * p - 1 - 2 * c0, 2 * d);
  Fraction hi = make_fraction(2 * p + 1 - 2 * c0, 2 * d);
  if (hi < lo) std::swap(lo, hi);
  return std::pair{lo, hi};
}

// The nearest integer to num / den (den > 0), a tie rounded up when `up`.
std::int64_t round_fraction(std::int64_t num, std::int64_t den, bool up) {
  // floor((2 num + den) / 2 den) rounds halves up; the mirror rounds them down.
  const auto floor_div = [](std::int64_t n, std::int64_t d) {
    return n / d - ((n % d != 0 && n < 0) ? 1 : 0);
  };
  if (up) return floor_div(2 * num + den, 2 * den);
  return -floor_div(-2 * num + den, 2 * den);
}

}  // namespace

std::vector<Point> reference_segment_pixels(Point a, Point b, pathcore::LineRule rule) {
  const std::int64_t dx = std::int64_t{b.x} - a.x;
  const std::int64_t dy = std::int64_t{b.y} - a.y;
  std::vector<Point> pixels;
  if (rule == pathcore::LineRule::kNoCornerCutting) {
    std::vector<std::tuple<Fraction, std::int32_t, std::int32_t>> touched;
    for (std::int32_t y = std::min(a.y, b.y) - 1; y <= std::max(a.y, b.y) + 1; ++y) {
      for (std::int32_t x = std::min(a.x, b.x) - 1; x <= std::max(a.x, b.x) + 1; ++x) {
        const auto along_x = axis_interval(a.x, dx, x);
        const auto along_y = axis_interval(a.y, dy, y);
        if (!along_x || !along_y) continue;
        Fraction enter{0, 1};
        Fraction leave{1, 1};
        for (const auto& [lo, hi] : {*along_x, *along_y}) {
          if (enter < lo) enter = lo;
          if (hi < leave) leave = hi;
        }
        if (enter <= leave) touched.emplace_back(enter, y, x);
      }
    }
    std::sort(touched.begin(), touched.end(), [](const auto& l, const auto& r) {
      if (!(std::get<0>(l) == std::get<0>(r))) return std::get<0>(l) < std::get<0>(r);
      return std::pair{std::get<1>(l), std::get<2>(l)} < std::pair{std::get<1>(r), std::get<2>(r)};
    });
    for (const auto& [t, y, x] : touched) pixels.push_back({x, y});
    return pixels;
  }
  // Bresenham: from the lexicographically smaller endpoint s toward e.
  const bool a_first = a.x < b.x || (a.x == b.x && a.y <= b.y);
  const Point s = a_first ? a : b;
  const Point e = a_first ? b : a;
  const std::int64_t ex = std::int64_t{e.x} - s.x;  // >= 0
  const std::int64_t ey = std::int64_t{e.y} - s.y;
  if (std::llabs(ex) >= std::llabs(ey)) {
    for (std::int64_t i = 0; i <= ex; ++i) {
      // y = s.y + i ey / ex, a tie going away from s (toward e).
      const std::int64_t y = ex == 0 ? s.y : s.y + round_fraction(i * ey, ex, ey > 0);
      pixels.push_back({static_cast<std::int32_t>(s.x + i), static_cast<std::int32_t>(y)});
    }
  } else {
    const std::int64_t steps = std::llabs(ey);
    const std::int64_t sy = ey > 0 ? 1 : -1;
    for (std::int64_t i = 0; i <= steps; ++i) {
      const std::int64_t x = s.x + round_fraction(i * ex, steps, ex > 0);
      pixels.push_back({static_cast<std::int32_t>(x), static_cast<std::int32_t>(s.y + sy * i)});
    }
  }
  if (!a_first) std::reverse(pixels.begin(), pixels.end());
  return pixels;
}

std::optional<Point> reference_first_blocked(const pathcore::Mask& mask, pathcore::AreaSet enabled,
                                             Point a, Point b, pathcore::LineRule rule) {
  for (const Point p : reference_segment_pixels(a, b, rule)) {
    if (!mask.walkable(p, enabled)) return p;
  }
  return std::nullopt;
}

std::optional<Point> reference_nearest(std::uint32_t width, std::uint32_t height, Point p,
                                       const std::function<bool(Point)>& qualifies) {
  std::optional<Point> best;
  std::int64_t best_distance = 0;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(height); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(width); ++x) {
      if (!qualifies({x, y})) continue;
      const std::int64_t d = (std::int64_t{x} - p.x) * (x - p.x) + (std::int64_t{y} - p.y) * (y - p.y);
      if (!best || d < best_distance) {
        best = Point{x, y};
        best_distance = d;
      }
    }
  }
  return best;
}

}  // namespace pathtest
