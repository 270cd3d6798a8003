#include "support/reference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <queue>
#include <utility>

namespace pathtest {

using pathcore::AreaSet;
using pathcore::Mask;
using pathcore::Point;

std::vector<double> reference_distances(const Mask& mask, Point goal, const ReferenceGrid& grid) {
  const auto width = static_cast<std::int32_t>(mask.width());
  const auto height = static_cast<std::int32_t>(mask.height());
  std::vector<double> distance(mask.pixel_count(), kNoPath);
  const auto walkable = [&](std::int32_t x, std::int32_t y) {
    return mask.walkable({x, y}, grid.enabled);
  };
  if (!walkable(goal.x, goal.y)) {
    return distance;
  }
  const auto cost_of = [&](std::int32_t x, std::int32_t y) {
    const auto found = grid.area_costs.find(mask.area({x, y}));
    return found == grid.area_costs.end() ? 1.0 : found->second;
  };

  // The search runs from the goal backwards: relaxing u -> v prices the
  // forward step v -> u, which enters u.
  using Entry = std::pair<double, std::size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  const auto index = [width](std::int32_t x, std::int32_t y) {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
           static_cast<std::size_t>(x);
  };
  distance[index(goal.x, goal.y)] = 0;
  open.push({0.0, index(goal.x, goal.y)});
  while (!open.empty()) {
    const auto [d, u] = open.top();
    open.pop();
    if (d > distance[u]) {
      continue;
    }
    const auto ux = static_cast<std::int32_t>(u % static_cast<std::size_t>(width));
    const auto uy = static_cast<std::int32_t>(u / static_cast<std::size_t>(width));
    for (std::int32_t dy = -1; dy <= 1; ++dy) {
      for (std::int32_t dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0) {
          continue;
        }
        const std::int32_t vx = ux + dx;
        const std::int32_t vy = uy + dy;
        if (vx < 0 || vy < 0 || vx >= width || vy >= height || !walkable(vx, vy)) {
          continue;
        }
        const bool diagonal = dx != 0 && dy != 0;
        if (diagonal) {
          const int free_sides = (walkable(ux, vy) ? 1 : 0) + (walkable(vx, uy) ? 1 : 0);
          const bool allowed = grid.diagonals == Diagonals::kAlways ||
                               (grid.diagonals == Diagonals::kOneSideFree && free_sides >= 1) ||
                               (grid.diagonals == Diagonals::kBothSidesFree && free_sides == 2);
          if (!allowed) {
            continue;
          }
        }
        const double step = cost_of(ux, uy) * (diagonal ? std::sqrt(2.0) : 1.0);
        const std::size_t v = index(vx, vy);
        if (d + step < distance[v]) {
          distance[v] = d + step;
          open.push({distance[v], v});
        }
      }
    }
  }
  return distance;
}

namespace {

// round(numerator / denominator) with halves away from zero; denominator > 0.
std::int64_t round_half_away(std::int64_t numerator, std::int64_t denominator) {
  const std::lldiv_t q = std::lldiv(std::llabs(numerator), denominator);
  const std::int64_t magnitude = q.quot + (2 * q.rem >= denominator ? 1 : 0);
  return numerator < 0 ? -magnitude : magnitude;
}

bool all_walkable(const Mask& mask, AreaSet enabled, const std::vector<Point>& pixels) {
  return std::all_of(pixels.begin(), pixels.end(),
                     [&](Point p) { return mask.walkable(p, enabled); });
}

}  // namespace

std::vector<Point> reference_bresenham(Point a, Point b) {
  const bool reversed = b.x < a.x || (b.x == a.x && b.y < a.y);
  if (reversed) {
    std::swap(a, b);
  }
  const std::int64_t dx = std::int64_t{b.x} - a.x;
  const std::int64_t dy = std::int64_t{b.y} - a.y;
  const std::int64_t n = std::max(std::llabs(dx), std::llabs(dy));
  std::vector<Point> pixels;
  for (std::int64_t i = 0; i <= n; ++i) {
    if (n == 0) {
      pixels.push_back(a);
    } else if (std::llabs(dx) >= std::llabs(dy)) {
      pixels.push_back({static_cast<std::int32_t>(a.x + (dx < 0 ? -i : i)),
                        static_cast<std::int32_t>(a.y + round_half_away(i * dy, n))});
    } else {
      pixels.push_back({static_cast<std::int32_t>(a.x + round_half_away(i * dx, n)),
                        static_cast<std::int32_t>(a.y + (dy < 0 ? -i : i))});
    }
  }
  if (reversed) {
    std::reverse(pixels.begin(), pixels.end());
  }
  return pixels;
}

bool reference_bresenham_walkable(const Mask& mask, AreaSet enabled, Point a, Point b) {
  return all_walkable(mask, enabled, reference_bresenham(a, b));
}

std::vector<Point> reference_supercover(Point a, Point b) {
  // Doubled coordinates: pixel centres are even, pixel borders odd.
  const std::int64_t ax = 2 * std::int64_t{a.x};
  const std::int64_t ay = 2 * std::int64_t{a.y};
  const std::int64_t ux = 2 * (std::int64_t{b.x} - a.x);
  const std::int64_t uy = 2 * (std::int64_t{b.y} - a.y);
  std::vector<Point> pixels;
  // Pixels outside the bounding box are separated from the segment along x
  // or y; inside it, the only other axis to test is the segment's normal.
  for (std::int32_t y = std::min(a.y, b.y); y <= std::max(a.y, b.y); ++y) {
    for (std::int32_t x = std::min(a.x, b.x); x <= std::max(a.x, b.x); ++x) {
      int positive = 0;
      int negative = 0;
      for (const std::int64_t cx : {2 * std::int64_t{x} - 1, 2 * std::int64_t{x} + 1}) {
        for (const std::int64_t cy : {2 * std::int64_t{y} - 1, 2 * std::int64_t{y} + 1}) {
          const std::int64_t side = ux * (cy - ay) - uy * (cx - ax);
          positive += side > 0 ? 1 : 0;
          negative += side < 0 ? 1 : 0;
        }
      }
      if (positive < 4 && negative < 4) {
        pixels.push_back({x, y});
      }
    }
  }
  return pixels;
}

bool reference_supercover_walkable(const Mask& mask, AreaSet enabled, Point a, Point b) {
  return all_walkable(mask, enabled, reference_supercover(a, b));
}


double reference_polyline_cost(const pathcore::Mask& mask, const std::vector<pathcore::Point>& path,
                               const ReferenceGrid& grid) {
  const auto cost_of_area = [&grid](std::uint32_t area) {
    const auto it = grid.area_costs.find(area);
    return it == grid.area_costs.end() ? 1.0 : it->second;
  };
  double cheapest = std::numeric_limits<double>::infinity();
  for (std::uint32_t y = 0; y < mask.height(); ++y) {
    for (std::uint32_t x = 0; x < mask.width(); ++x) {
      const pathcore::Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      if (mask.walkable(p, grid.enabled)) {
        cheapest = std::min(cheapest, cost_of_area(mask.area(p)));
      }
    }
  }
  if (cheapest == std::numeric_limits<double>::infinity()) {
    cheapest = 1;
  }
  double total = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const double ax = path[i - 1].x;
    const double ay = path[i - 1].y;
    const double dx = path[i].x - ax;
    const double dy = path[i].y - ay;
    const double length = std::sqrt(dx * dx + dy * dy);
    const int x0 = std::min(path[i - 1].x, path[i].x);
    const int x1 = std::max(path[i - 1].x, path[i].x);
    const int y0 = std::min(path[i - 1].y, path[i].y);
    const int y1 = std::max(path[i - 1].y, path[i].y);
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        // Liang-Barsky: the parameters t in [0, 1] where a + t * d lies in
        // [x - 1/2, x + 1/2] x [y - 1/2, y + 1/2].
        double lo = 0;
        double hi = 1;
        bool inside = true;
        const auto clip = [&](double direction, double from, double low_edge, double high_edge) {
          if (direction == 0) {
            inside = inside && from >= low_edge && from <= high_edge;
            return;
          }
          double t_low = (low_edge - from) / direction;
          double t_high = (high_edge - from) / direction;
          if (t_low > t_high) std::swap(t_low, t_high);
          lo = std::max(lo, t_low);
          hi = std::min(hi, t_high);
        };
        clip(dx, ax, x - 0.5, x + 0.5);
        clip(dy, ay, y - 0.5, y + 0.5);
        if (!inside || hi <= lo) continue;
        const pathcore::Point p{x, y};
        const double charge = mask.walkable(p, grid.enabled) ? cost_of_area(mask.area(p)) : cheapest;
        total += (hi - lo) * length * charge;
      }
    }
  }
  return total;
}

}  // namespace pathtest

namespace pathtest {

std::vector<bool> reference_flood_fill(const Mask& mask, Point from, AreaSet enabled,
                                       Diagonals diagonals) {
  std::vector<bool> reached(mask.pixel_count(), false);
  if (!mask.walkable(from, enabled)) {
    return reached;
  }
  std::queue<Point> queue;
  reached[mask.index(from)] = true;
  queue.push(from);
  while (!queue.empty()) {
    const Point p = queue.front();
    queue.pop();
    for (std::int32_t dy = -1; dy <= 1; ++dy) {
      for (std::int32_t dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0) {
          continue;
        }
        const Point q{p.x + dx, p.y + dy};
        if (!mask.walkable(q, enabled) || reached[mask.index(q)]) {
          continue;
        }
        if (dx != 0 && dy != 0) {
          const bool side_x = mask.walkable({p.x + dx, p.y}, enabled);
          const bool side_y = mask.walkable({p.x, p.y + dy}, enabled);
          const bool allowed = diagonals == Diagonals::kAlways ||
                               (diagonals == Diagonals::kOneSideFree && (side_x || side_y)) ||
                               (diagonals == Diagonals::kBothSidesFree && side_x && side_y);
          if (!allowed) {
            continue;
          }
        }
        reached[mask.index(q)] = true;
        queue.push(q);
      }
    }
  }
  return reached;
}

}  // namespace pathtest
