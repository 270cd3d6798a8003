// NearestPixels: Meijster, Roerdink and Hesselink's exact Euclidean distance
// transform ("A general algorithm for computing distance transforms in linear
// time", 2000), all in integers, then queries that try only the pixels at the
// known nearest distance.
#include "pathcore/nearest_pixels.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "mask/interrupt_check.h"
#include "mask/point_checks.h"

namespace pathcore {
namespace {

// floor(n / d) for d > 0.
std::int64_t floor_div(std::int64_t n, std::int64_t d) {
  const std::int64_t q = n / d;
  return (n % d != 0 && n < 0) ? q - 1 : q;
}

// The integer square root: the largest s with s * s <= v.
std::int64_t integer_sqrt(std::int64_t v) {
  auto s = static_cast<std::int64_t>(std::sqrt(static_cast<double>(v)));
  while (s * s > v) --s;
  while ((s + 1) * (s + 1) <= v) ++s;
  return s;
}

}  // namespace

NearestPixels::NearestPixels(std::uint32_t width, std::uint32_t height,
                             std::vector<std::uint8_t> targets,
                             const std::function<bool()>& interrupt, const ProgressReport& progress)
    : width_(width), height_(height), targets_(std::move(targets)) {
  const std::size_t count = std::size_t{width} * height;
  if (targets_.size() != count) {
    throw InvalidArgument("NearestPixels: " + std::to_string(targets_.size()) +
                          " target bytes for a " + std::to_string(width) + "x" +
                          std::to_string(height) + " grid");
  }
  empty_ = std::none_of(targets_.begin(), targets_.end(), [](std::uint8_t t) { return t != 0; });
  if (empty_ || count == 0) return;
  InterruptCheck check(interrupt, progress, 2 * count);  // a column pass, then a row pass
  const auto w = static_cast<std::int64_t>(width);
  const auto h = static_cast<std::int64_t>(height);
  // Beyond every real distance: a column without targets.
  const std::int64_t infinity = w + h;
  // Phase 1: per column, the distance to the nearest target in the column.
  std::vector<std::int64_t> column(count);
  for (std::int64_t x = 0; x < w; ++x) {
    std::int64_t* g = column.data() + x;  // stride w
    g[0] = is_target(x, 0) ? 0 : infinity;
    for (std::int64_t y = 1; y < h; ++y) {
      g[y * w] = is_target(x, y) ? 0 : std::min(infinity, g[(y - 1) * w] + 1);
    }
    for (std::int64_t y = h - 2; y >= 0; --y) {
      if (g[(y + 1) * w] < g[y * w]) g[y * w] = g[(y + 1) * w] + 1;
    }
    check.after(height);
  }
  // Phase 2: per row, the lower envelope of the parabolas (x - i)^2 + g(i)^2.
  squared_.resize(count);
  std::vector<std::int64_t> site(width);   // s: the parabolas of the envelope
  std::vector<std::int64_t> start(width);  // t: where each takes over
  for (std::int64_t y = 0; y < h; ++y) {
    const std::int64_t* g = column.data() + y * w;
    const auto f = [g](std::int64_t x, std::int64_t i) { return (x - i) * (x - i) + g[i] * g[i]; };
    const auto separation = [g](std::int64_t i, std::int64_t u) {
      return floor_div(u * u - i * i + g[u] * g[u] - g[i] * g[i], 2 * (u - i));
    };
    std::int64_t q = 0;
    site[0] = 0;
    start[0] = 0;
    for (std::int64_t u = 1; u < w; ++u) {
      while (q >= 0 && f(start[q], site[q]) > f(start[q], u)) --q;
      if (q < 0) {
        q = 0;
        site[0] = u;
      } else {
        const std::int64_t from = 1 + separation(site[q], u);
        if (from < w) {
          ++q;
          site[q] = u;
          start[q] = from;
        }
      }
    }
    std::uint32_t* out = squared_.data() + y * w;
    for (std::int64_t u = w - 1; u >= 0; --u) {
      const std::int64_t d = f(u, site[q]);
      out[u] = d >= kFar ? kFar : static_cast<std::uint32_t>(d);
      if (u == start[q]) --q;
    }
    check.after(width);
  }
}

std::optional<Point> NearestPixels::nearest(Point p) const {
  if (p.x < 0 || p.y < 0 || static_cast<std::uint32_t>(p.x) >= width_ ||
      static_cast<std::uint32_t>(p.y) >= height_) {
    throw InvalidArgument("point " + point_text(p) + " is outside the " + std::to_string(width_) +
                          "x" + std::to_string(height_) + " grid");
  }
  if (empty_) return std::nullopt;
  const std::uint32_t squared =
      squared_[static_cast<std::size_t>(p.y) * width_ + static_cast<std::size_t>(p.x)];
  if (squared == kFar) {
    // Too far for 32 bits: scan every target (only on masks over 46,000 pixels across).
    std::optional<Point> best;
    std::int64_t best_distance = 0;
    for (std::int64_t y = 0; y < height_; ++y) {
      for (std::int64_t x = 0; x < width_; ++x) {
        if (!is_target(x, y)) continue;
        const std::int64_t d = (x - p.x) * (x - p.x) + (y - p.y) * (y - p.y);
        if (!best || d < best_distance) {
          best = Point{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
          best_distance = d;
        }
      }
    }
    return best;
  }
  // Every target at exactly this distance, in row-major order: per row, the
  // columns p.x - s and p.x + s with s^2 = squared - dy^2.
  const std::int64_t d2 = squared;
  const std::int64_t reach = integer_sqrt(d2);
  const std::int64_t top = std::max<std::int64_t>(0, p.y - reach);
  const std::int64_t bottom = std::min<std::int64_t>(height_ - 1, p.y + reach);
  for (std::int64_t y = top; y <= bottom; ++y) {
    const std::int64_t rest = d2 - (y - p.y) * (y - p.y);
    const std::int64_t s = integer_sqrt(rest);
    if (s * s != rest) continue;
    for (const std::int64_t x : {p.x - s, p.x + s}) {
      if (x >= 0 && x < width_ && is_target(x, y)) {
        return Point{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      }
    }
  }
  throw std::logic_error("NearestPixels: no target at the transform's distance");
}

}  // namespace pathcore
