#include "support/any_angle_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

namespace pathtest {
namespace {

using pathcore::AreaSet;
using pathcore::Mask;
using pathcore::Point;

// Floor and ceiling of n / d for d > 0, exact for negative n too.
std::int64_t floor_div(std::int64_t n, std::int64_t d) {
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}
std::int64_t ceil_div(std::int64_t n, std::int64_t d) { return -floor_div(-n, d); }

// The grid as the reference sees it, optionally transposed (x and y swapped),
// so that one routine handles vertical and horizontal segments.
class Grid {
 public:
  Grid(const Mask& mask, AreaSet enabled, bool transposed, bool corner_cutting = false)
      : mask_(mask), enabled_(enabled), transposed_(transposed), corner_cutting_(corner_cutting) {}

  // Pixel (i, j) blocked or outside the mask.
  [[nodiscard]] bool blocked(std::int64_t i, std::int64_t j) const {
    if (transposed_) std::swap(i, j);
    if (i < 0 || j < 0 || i > std::numeric_limits<std::int32_t>::max() ||
        j > std::numeric_limits<std::int32_t>::max()) {
      return true;
    }
    return !mask_.walkable({static_cast<std::int32_t>(i), static_cast<std::int32_t>(j)}, enabled_);
  }

  // Square corner (i, j) (doubled coordinates (2i, 2j)) where two diagonally
  // opposite pixels are blocked and the other two walkable: no segment may
  // pass through it. (Through a corner with three or four blocked pixels a
  // segment enters a blocked pixel or runs between two: caught anyway; ending
  // there is touching a walkable pixel's corner, allowed.)
  [[nodiscard]] bool pinch(std::int64_t i, std::int64_t j) const {
    return !corner_cutting_ && diagonal_pair(i, j);
  }
  // Whatever the corner rule: two diagonally opposite pixels blocked, the
  // other two walkable.
  [[nodiscard]] bool diagonal_pair(std::int64_t i, std::int64_t j) const {
    const bool top_left = blocked(i - 1, j - 1);
    const bool top_right = blocked(i, j - 1);
    const bool bottom_left = blocked(i - 1, j);
    const bool bottom_right = blocked(i, j);
    return top_left == bottom_right && top_right == bottom_left && top_left != top_right;
  }

 private:
  const Mask& mask_;
  AreaSet enabled_;
  bool transposed_;
  bool corner_cutting_;
};

// A segment along x = x2 (doubled), from y2 = lo to hi (lo <= hi).
bool axis_segment_visible(const Grid& grid, std::int64_t x2, std::int64_t lo, std::int64_t hi) {
  // Pixel rows j whose open interval (2j, 2j + 2) meets the open (lo, hi).
  const std::int64_t first_row = floor_div(lo, 2);
  const std::int64_t last_row = ceil_div(hi, 2) - 1;
  if (x2 % 2 != 0) {
    // Through the interior of pixel column (x2 - 1) / 2.
    const std::int64_t column = (x2 - 1) / 2;
    for (std::int64_t j = first_row; j <= last_row; ++j) {
      if (grid.blocked(column, j)) return false;
    }
    return true;
  }
  // Along a grid line: free where at least one side is walkable.
  const std::int64_t right = x2 / 2;
  for (std::int64_t j = first_row; j <= last_row; ++j) {
    if (grid.blocked(right - 1, j) && grid.blocked(right, j)) return false;
  }
  for (std::int64_t k = ceil_div(lo, 2); k <= floor_div(hi, 2); ++k) {
    if (grid.pinch(right, k)) return false;
  }
  return true;
}

}  // namespace

bool any_angle_visible(const Mask& mask, AreaSet enabled, Point a2, Point b2,
                       bool allow_corner_cutting) {
  if (a2.x == b2.x) {
    return axis_segment_visible(Grid(mask, enabled, false, allow_corner_cutting), a2.x,
                                std::min(a2.y, b2.y), std::max(a2.y, b2.y));
  }
  if (a2.y == b2.y) {
    return axis_segment_visible(Grid(mask, enabled, true, allow_corner_cutting), a2.y,
                                std::min(a2.x, b2.x), std::max(a2.x, b2.x));
  }
  // Neither axis-parallel: the segment never runs along a grid line, so it is
  // visible iff every pixel whose interior it enters is walkable and every
  // grid corner it passes through is no pinch. Walk it by pixel columns.
  if (a2.x > b2.x) std::swap(a2, b2);
  const Grid grid(mask, enabled, false, allow_corner_cutting);
  const std::int64_t dx = b2.x - a2.x;  // > 0
  const std::int64_t dy = b2.y - a2.y;
  // y(x) = numerator(x) / dx.
  const auto numerator = [&](std::int64_t x) { return a2.y * dx + dy * (x - a2.x); };
  const std::int64_t first_column = floor_div(a2.x, 2);
  const std::int64_t last_column = ceil_div(b2.x, 2) - 1;
  for (std::int64_t i = first_column; i <= last_column; ++i) {
    const std::int64_t x0 = std::max<std::int64_t>(2 * i, a2.x);
    const std::int64_t x1 = std::min<std::int64_t>(2 * i + 2, b2.x);
    const std::int64_t n0 = numerator(x0);
    const std::int64_t n1 = numerator(x1);
    const std::int64_t lo = std::min(n0, n1);
    const std::int64_t hi = std::max(n0, n1);
    // Over the open x range (x0, x1) the segment's y sweeps the open
    // (lo, hi) / dx: the rows j with (2j, 2j + 2) meeting it.
    const std::int64_t first_row = floor_div(lo, 2 * dx);
    const std::int64_t last_row = ceil_div(hi, 2 * dx) - 1;
    for (std::int64_t j = first_row; j <= last_row; ++j) {
      if (grid.blocked(i, j)) return false;
    }
  }
  // Grid corners on the segment: on a vertical grid line at an even y.
  for (std::int64_t x = ceil_div(a2.x, 2) * 2; x <= b2.x; x += 2) {
    const std::int64_t n = numerator(x);
    if (n % (2 * dx) == 0 && grid.pinch(x / 2, n / (2 * dx))) return false;
  }
  return true;
}

std::optional<AnyAnglePath> any_angle_shortest_path(const Mask& mask, AreaSet enabled, Point start,
                                                    Point goal, std::optional<double> upper_bound,
                                                    bool allow_corner_cutting) {
  if (!mask.walkable(start, enabled) || !mask.walkable(goal, enabled)) return std::nullopt;
  // Everything below in doubled coordinates.
  const Point s2{2 * start.x + 1, 2 * start.y + 1};
  const Point g2{2 * goal.x + 1, 2 * goal.y + 1};
  // Squares of doubled coordinates are exact in a double, and sqrt is
  // correctly rounded (std::hypot is several times slower).
  const auto distance = [](Point a, Point b) {
    const auto dx = static_cast<double>(a.x - b.x);
    const auto dy = static_cast<double>(a.y - b.y);
    return std::sqrt(dx * dx + dy * dy);
  };
  if (start == goal) return AnyAnglePath{0, {s2}};
  if (any_angle_visible(mask, enabled, s2, g2, allow_corner_cutting)) {
    return AnyAnglePath{distance(s2, g2) / 2, {s2, g2}};
  }

  // A little slack so that rounding never drops the corner of a path exactly
  // as long as the bound.
  const double bound2 =
      upper_bound ? 2 * *upper_bound * (1 + 1e-9) + 1e-6 : std::numeric_limits<double>::infinity();

  // The vertices: start, goal, then the convex corners (exactly one blocked
  // pixel around them; with corner cutting also pinch points) within the
  // ellipse |s v| + |v g| <= bound.
  struct Vertex {
    Point p;
    // Direction from the corner into its blocked pixel (+-1 each); 0 for
    // start and goal and pinch points.
    int qx = 0;
    int qy = 0;
  };
  std::vector<Vertex> vertices = {{s2}, {g2}};
  const Grid grid(mask, enabled, false);
  std::int64_t i0 = 1;
  std::int64_t j0 = 1;
  std::int64_t i1 = static_cast<std::int64_t>(mask.width()) - 1;
  std::int64_t j1 = static_cast<std::int64_t>(mask.height()) - 1;
  if (upper_bound) {
    // The ellipse lies within its semi-minor axis of the segment start-goal,
    // so within that margin of the box around them.
    const double half_focal = distance(s2, g2) / 2;
    const double margin = std::sqrt(std::max(0.0, bound2 * bound2 / 4 - half_focal * half_focal));
    const auto lower = [&](std::int32_t a, std::int32_t b) {
      return static_cast<std::int64_t>(std::floor((std::min(a, b) - margin) / 2));
    };
    const auto upper = [&](std::int32_t a, std::int32_t b) {
      return static_cast<std::int64_t>(std::ceil((std::max(a, b) + margin) / 2));
    };
    i0 = std::max(i0, lower(s2.x, g2.x));
    j0 = std::max(j0, lower(s2.y, g2.y));
    i1 = std::min(i1, upper(s2.x, g2.x));
    j1 = std::min(j1, upper(s2.y, g2.y));
  }
  for (std::int64_t j = j0; j <= j1; ++j) {
    for (std::int64_t i = i0; i <= i1; ++i) {
      const bool top_left = grid.blocked(i - 1, j - 1);
      const bool top_right = grid.blocked(i, j - 1);
      const bool bottom_left = grid.blocked(i - 1, j);
      const bool bottom_right = grid.blocked(i, j);
      const bool pinch_vertex = allow_corner_cutting && grid.diagonal_pair(i, j);
      if (top_left + top_right + bottom_left + bottom_right != 1 && !pinch_vertex) continue;
      const Point p{static_cast<std::int32_t>(2 * i), static_cast<std::int32_t>(2 * j)};
      if (distance(s2, p) + distance(p, g2) > bound2) continue;
      if (pinch_vertex) {
        vertices.push_back({p});
        continue;
      }
      vertices.push_back({p, top_left || bottom_left ? -1 : 1, top_left || top_right ? -1 : 1});
    }
  }

  // A taut path bending at a corner runs along lines that do not cut into the
  // corner's blocked pixel: the direction must not point into its quadrant or
  // straight away from it.
  const auto tangent = [](const Vertex& corner, std::int64_t dx, std::int64_t dy) {
    return corner.qx == 0 || dx * dy * corner.qx * corner.qy <= 0;
  };

  constexpr std::size_t kStart = 0;
  constexpr std::size_t kGoal = 1;
  const double infinity = std::numeric_limits<double>::infinity();
  std::vector<double> heuristic(vertices.size());
  for (std::size_t v = 0; v < vertices.size(); ++v) heuristic[v] = distance(vertices[v].p, g2);
  std::vector<double> cost(vertices.size(), infinity);
  std::vector<bool> settled(vertices.size(), false);
  std::vector<std::size_t> parent(vertices.size(), kStart);
  using Entry = std::pair<double, std::size_t>;  // (cost + heuristic, vertex)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  cost[kStart] = 0;
  open.emplace(heuristic[kStart], kStart);
  while (!open.empty()) {
    const auto [estimate, u] = open.top();
    open.pop();
    if (settled[u] || estimate > cost[u] + heuristic[u]) continue;
    if (u == kGoal) {
      AnyAnglePath path{cost[u] / 2, {}};
      for (std::size_t v = kGoal; v != kStart; v = parent[v]) path.points2.push_back(vertices[v].p);
      path.points2.push_back(s2);
      std::reverse(path.points2.begin(), path.points2.end());
      return path;
    }
    settled[u] = true;
    const Vertex& from = vertices[u];
    const double limit = std::min(bound2, cost[kGoal]);
    for (std::size_t v = 0; v < vertices.size(); ++v) {
      if (settled[v]) continue;
      const Vertex& to = vertices[v];
      const std::int64_t dx = to.p.x - from.p.x;
      const std::int64_t dy = to.p.y - from.p.y;
      if (!tangent(from, dx, dy) || !tangent(to, dx, dy)) continue;
      // |u v| >= |h(u) - h(v)|: a cheap first test against the limit.
      if (cost[u] + std::abs(heuristic[u] - heuristic[v]) + heuristic[v] > limit) continue;
      const double through = cost[u] + distance(from.p, to.p);
      if (through >= cost[v] || through + heuristic[v] > limit) continue;
      if (!any_angle_visible(mask, enabled, from.p, to.p, allow_corner_cutting)) continue;
      cost[v] = through;
      parent[v] = u;
      open.emplace(through + heuristic[v], v);
    }
  }
  return std::nullopt;
}

std::optional<double> any_angle_shortest_length(const Mask& mask, AreaSet enabled, Point start,
                                                Point goal, std::optional<double> upper_bound,
                                                bool allow_corner_cutting) {
  const std::optional<AnyAnglePath> path =
      any_angle_shortest_path(mask, enabled, start, goal, upper_bound, allow_corner_cutting);
  if (!path) return std::nullopt;
  return path->length;
}

bool pixel_segment_clear(const Mask& mask, AreaSet enabled, Point a, Point b) {
  if (!mask.walkable(a, enabled) || !mask.walkable(b, enabled)) return false;
  if (a.x > b.x) std::swap(a, b);
  const Grid grid(mask, enabled, false);
  // Doubled coordinates: centres odd, pixel (i, j) is [2i, 2i+2] x [2j, 2j+2].
  const std::int64_t ax = 2 * a.x + 1;
  const std::int64_t ay = 2 * a.y + 1;
  const std::int64_t bx = 2 * b.x + 1;
  const std::int64_t by = 2 * b.y + 1;
  // Rows j whose closed [2j, 2j + 2] meets the closed y range [lo, hi] / den.
  const auto rows_clear = [&](std::int64_t column, std::int64_t lo, std::int64_t hi,
                              std::int64_t den) {
    for (std::int64_t j = ceil_div(lo, 2 * den) - 1; j <= floor_div(hi, 2 * den); ++j) {
      if (grid.blocked(column, j)) return false;
    }
    return true;
  };
  if (ax == bx) return rows_clear(a.x, std::min(ay, by), std::max(ay, by), 1);
  const std::int64_t dx = bx - ax;
  const std::int64_t dy = by - ay;
  // y(x) = numerator(x) / dx over each pixel column's closed x range.
  const auto numerator = [&](std::int64_t x) { return ay * dx + dy * (x - ax); };
  for (std::int64_t i = a.x; i <= b.x; ++i) {
    const std::int64_t n0 = numerator(std::max<std::int64_t>(2 * i, ax));
    const std::int64_t n1 = numerator(std::min<std::int64_t>(2 * i + 2, bx));
    if (!rows_clear(i, std::min(n0, n1), std::max(n0, n1), dx)) return false;
  }
  return true;
}

std::optional<double> pixel_polyline_shortest_length(const Mask& mask, AreaSet enabled, Point start,
                                                     Point goal,
                                                     std::optional<double> upper_bound) {
  if (!mask.walkable(start, enabled) || !mask.walkable(goal, enabled)) return std::nullopt;
  const auto distance = [](Point a, Point b) {
    const auto dx = static_cast<double>(a.x - b.x);
    const auto dy = static_cast<double>(a.y - b.y);
    return std::sqrt(dx * dx + dy * dy);
  };
  const double bound =
      upper_bound ? *upper_bound * (1 + 1e-9) + 1e-6 : std::numeric_limits<double>::infinity();
  // Vertices: start, goal, then every walkable pixel within the ellipse.
  std::vector<Point> vertices = {start, goal};
  for (std::uint32_t y = 0; y < mask.height(); ++y) {
    for (std::uint32_t x = 0; x < mask.width(); ++x) {
      const Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      if (p == start || p == goal || !mask.walkable(p, enabled)) continue;
      if (distance(start, p) + distance(p, goal) <= bound) vertices.push_back(p);
    }
  }
  constexpr std::size_t kStart = 0;
  constexpr std::size_t kGoal = 1;
  if (start == goal) return 0.0;
  std::vector<double> heuristic(vertices.size());
  for (std::size_t v = 0; v < vertices.size(); ++v) heuristic[v] = distance(vertices[v], goal);
  std::vector<double> cost(vertices.size(), std::numeric_limits<double>::infinity());
  std::vector<bool> settled(vertices.size(), false);
  using Entry = std::pair<double, std::size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  cost[kStart] = 0;
  open.emplace(heuristic[kStart], kStart);
  while (!open.empty()) {
    const auto [estimate, u] = open.top();
    open.pop();
    if (settled[u] || estimate > cost[u] + heuristic[u]) continue;
    if (u == kGoal) return cost[u];
    settled[u] = true;
    const double limit = std::min(bound, cost[kGoal]);
    for (std::size_t v = 0; v < vertices.size(); ++v) {
      if (settled[v]) continue;
      if (cost[u] + std::abs(heuristic[u] - heuristic[v]) + heuristic[v] > limit) continue;
      const double through = cost[u] + distance(vertices[u], vertices[v]);
      if (through >= cost[v] || through + heuristic[v] > limit) continue;
      if (!pixel_segment_clear(mask, enabled, vertices[u], vertices[v])) continue;
      cost[v] = through;
      open.emplace(through + heuristic[v], v);
    }
  }
  return std::nullopt;
}

}  // namespace pathtest
