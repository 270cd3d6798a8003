// The exact distance transform to the nearest blocked square (see
// agent_clearance.h), separable as Felzenszwalb and Huttenlocher's
// ("Distance Transforms of Sampled Functions", 2012), in half pixels:
//
// Along one axis a centre x is max(0, 2|x - b| - 1) half pixels from the
// square of pixel b. The squared distance to a blocked square (bx, by) is
// then f(x - bx)^2 + f(y - by)^2 with f(d) = max(0, 2|d| - 1), so
//   D(x, y) = min over bx of [ f(x - bx)^2 + G(bx, y) ],
// G(bx, y) being f(vertical distance from (bx, y) to the nearest blocked
// pixel of its column)^2: a column scan. The row pass is not a lower envelope
// of parabolas as it stands (f is flat at 0), but it becomes one: for bx < x,
// f(x - bx)^2 = (2x - (2bx + 1))^2, a parabola centred on the square's right
// edge; for bx > x, (2x - (2bx - 1))^2, centred on its left edge; and taking
// the wrong edge only overestimates. So
//   D(x) = min(G(x), min over edges e = 2c + 1 of [ (2x - e)^2 + M(c) ]),
// M(c) = min(G(c), G(c + 1)), the edge between pixels c and c + 1 (c = -1
// and c = width - 1 are the mask's edges, with blocked pixels outside). Every
// value is decided in integers, so every value is exact.
#include <algorithm>
#include <cmath>
#include <vector>

#include "agent_clearance/distance_rows.h"
#include "pathcore/agent_clearance.h"

namespace pathcore {

namespace {

// The lower envelope of one row: squared_half_pixels of every pixel of the
// row from G (column[x]: f(vertical distance)^2, 0 exactly where blocked).
// An edge of value 0 (beside a blocked pixel or the mask edge) is nearer than
// every edge beyond it, so each run of walkable pixels between two such edges
// is a problem of its own: short runs (cluttered masks) are solved by trying
// every edge, long ones by the envelope.
class RowEnvelope {
 public:
  explicit RowEnvelope(std::uint32_t width)
      : edge_value_(width + 1), site_(width + 1), first_(width + 1) {}

  void run(const std::int64_t* column, std::uint32_t* out, std::int64_t width) {
    std::int64_t x = 0;
    while (x < width) {
      if (column[x] == 0) {
        out[x++] = 0;
        continue;
      }
      const std::int64_t begin = x;
      while (x < width && column[x] != 0) ++x;
      solve_run(column, out, begin, x);
    }
  }

 private:
  // Edge i lies between pixels i - 1 and i, at 2i - 1 in the doubled frame
  // in which pixel x's centre is at 2x.
  [[nodiscard]] std::int64_t value(std::int64_t edge, std::int64_t x) const {
    const std::int64_t d = 2 * x - (2 * edge - 1);
    return d * d + edge_value_[static_cast<std::size_t>(edge)];
  }

  // Pixels begin .. end - 1, all walkable, with blocked pixels (or the mask
  // edge) just outside: edges begin and end are of value 0.
  void solve_run(const std::int64_t* column, std::uint32_t* out, std::int64_t begin,
                 std::int64_t end) {
    edge_value_[static_cast<std::size_t>(begin)] = 0;
    edge_value_[static_cast<std::size_t>(end)] = 0;
    for (std::int64_t i = begin + 1; i < end; ++i) {
      edge_value_[static_cast<std::size_t>(i)] = std::min(column[i - 1], column[i]);
    }
    if (end - begin <= kShortRun) {
      for (std::int64_t x = begin; x < end; ++x) {
        std::int64_t best = column[x];
        for (std::int64_t edge = begin; edge <= end; ++edge) best = std::min(best, value(edge, x));
        out[x] = static_cast<std::uint32_t>(best);
      }
      return;
    }
    // site_[0..k]: the edges on the envelope, first_[j]: the first pixel
    // where site_[j] is lowest.
    std::int64_t k = 0;
    site_[0] = begin;
    first_[0] = begin;
    for (std::int64_t edge = begin + 1; edge <= end; ++edge) {
      while (k >= 0 && value(site_[k], first_[k]) >= value(edge, first_[k])) {
        --k;  // the new edge is no higher from where site_[k] began, so everywhere after
      }
      if (k < 0) {
        k = 0;
        site_[0] = edge;
        first_[0] = begin;
        continue;
      }
      // The first pixel x with value(edge, x) <= value(old, x):
      // x >= (E^2 - O^2 + M(edge) - M(old)) / (4 (E - O)), E, O the positions.
      const std::int64_t old = site_[k];
      const std::int64_t e = 2 * edge - 1;
      const std::int64_t o = 2 * old - 1;
      const std::int64_t numerator = (e - o) * (e + o) + edge_value_[edge] - edge_value_[old];
      const std::int64_t denominator = 4 * (e - o);
      // A floating division (an integer one costs several times more, and
      // this is the transform's hot spot), then made exact: numerator and
      // denominator are exact doubles, so the guess is off by at most one or two.
      auto x = static_cast<std::int64_t>(static_cast<double>(numerator) /
                                         static_cast<double>(denominator));
      while (x * denominator < numerator) ++x;
      while ((x - 1) * denominator >= numerator) --x;
      if (x < end) {
        ++k;
        site_[k] = edge;
        first_[k] = x;
      }
    }
    std::int64_t j = 0;
    for (std::int64_t x = begin; x < end; ++x) {
      while (j < k && first_[j + 1] <= x) ++j;
      out[x] = static_cast<std::uint32_t>(std::min(column[x], value(site_[j], x)));
    }
  }

  static constexpr std::int64_t kShortRun = 8;
  std::vector<std::int64_t> edge_value_;
  std::vector<std::int64_t> site_;
  std::vector<std::int64_t> first_;
};

}  // namespace

void for_each_distance_row(const Mask& mask, AreaSet enabled,
                           const std::function<void(std::uint32_t, const std::uint32_t*)>& row) {
  enabled &= kAllAreas;
  const std::size_t w = mask.width();
  const std::size_t h = mask.height();
  const std::uint8_t* const areas = mask.areas().data();
  // Column scan: pixels to the nearest blocked pixel of the column (rows -1
  // and height are outside, so blocked), down then up.
  std::vector<std::uint32_t> vertical(w * h);
  for (std::size_t y = 0; y < h; ++y) {
    const std::uint8_t* const a = areas + y * w;
    std::uint32_t* const v = vertical.data() + y * w;
    const std::uint32_t* const above = y == 0 ? nullptr : v - w;
    for (std::size_t x = 0; x < w; ++x) {
      const bool walkable = ((enabled >> a[x]) & 1U) != 0;
      v[x] = walkable ? (above == nullptr ? 1U : above[x] + 1U) : 0U;
    }
  }
  {
    // The last row has the outside just below it.
    std::uint32_t* const v = vertical.data() + (h - 1) * w;
    for (std::size_t x = 0; x < w; ++x) v[x] = std::min(v[x], 1U);
  }
  for (std::size_t y = h - 1; y-- > 0;) {
    std::uint32_t* const v = vertical.data() + y * w;
    const std::uint32_t* const below = v + w;
    for (std::size_t x = 0; x < w; ++x) {
      v[x] = std::min(v[x], below[x] + 1U);  // 0 stays 0
    }
  }
  RowEnvelope envelope(static_cast<std::uint32_t>(w));
  std::vector<std::int64_t> column(w);
  std::vector<std::uint32_t> out(w);
  for (std::size_t y = 0; y < h; ++y) {
    const std::uint32_t* const v = vertical.data() + y * w;
    for (std::size_t x = 0; x < w; ++x) {
      const std::int64_t half = 2 * std::int64_t{v[x]} - 1;  // f(v) for v >= 1
      column[x] = v[x] == 0 ? 0 : half * half;
    }
    envelope.run(column.data(), out.data(), static_cast<std::int64_t>(w));
    row(static_cast<std::uint32_t>(y), out.data());
  }
}

ObstacleDistances::ObstacleDistances(const Mask& mask, AreaSet enabled)
    : width_(mask.width()), height_(mask.height()), values_(mask.pixel_count()) {
  for_each_distance_row(mask, enabled, [this](std::uint32_t y, const std::uint32_t* row) {
    std::copy(row, row + width_, values_.begin() + static_cast<std::ptrdiff_t>(y) * width_);
  });
}

double ObstacleDistances::distance(Point p) const {
  return std::sqrt(static_cast<double>(squared_half_pixels(p))) / 2;
}

}  // namespace pathcore
