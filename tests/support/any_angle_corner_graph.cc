#include "support/any_angle_corner_graph.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "support/any_angle_reference.h"

namespace pathtest {
namespace {

using pathcore::Point;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

std::int64_t floor_div(std::int64_t n, std::int64_t d) {
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}
std::int64_t ceil_div(std::int64_t n, std::int64_t d) { return -floor_div(-n, d); }

// As the reference: exact squares of doubled coordinates, correctly rounded sqrt.
double distance2(Point a, Point b) {
  const auto dx = static_cast<double>(a.x - b.x);
  const auto dy = static_cast<double>(a.y - b.y);
  return std::sqrt(dx * dx + dy * dy);
}

}  // namespace

bool AnyAngleCornerGraph::walkable(std::int64_t x, std::int64_t y) const {
  if (x < 0 || y < 0 || x >= mask_.width() || y >= mask_.height()) return false;
  return mask_.walkable({static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)}, enabled_);
}

std::uint32_t AnyAngleCornerGraph::vertex_at(std::int64_t x2, std::int64_t y2) const {
  if (x2 < 0 || y2 < 0 || x2 % 2 != 0 || y2 % 2 != 0) return kNone;
  const std::int64_t i = x2 / 2;
  const std::int64_t j = y2 / 2;
  if (i > mask_.width() || j > mask_.height()) return kNone;
  return vertex_at_[static_cast<std::size_t>(j) * (mask_.width() + 1) + static_cast<std::size_t>(i)];
}

bool AnyAngleCornerGraph::tangent(const Corner& c, std::int64_t dx, std::int64_t dy) {
  return c.qx == 0 || dx * dy * c.qx * c.qy <= 0;
}

AnyAngleCornerGraph::AnyAngleCornerGraph(const pathcore::Mask& mask, pathcore::AreaSet enabled,
                                         bool allow_corner_cutting)
    : mask_(mask), enabled_(enabled), cut_(allow_corner_cutting) {
  const std::int64_t w = mask.width();
  const std::int64_t h = mask.height();
  vertex_at_.assign(static_cast<std::size_t>((w + 1) * (h + 1)), kNone);
  // The reference's vertices: interior square corners with exactly one
  // blocked pixel around them, and with corner cutting the pinch points.
  for (std::int64_t j = 1; j < h; ++j) {
    for (std::int64_t i = 1; i < w; ++i) {
      const bool top_left = !walkable(i - 1, j - 1);
      const bool top_right = !walkable(i, j - 1);
      const bool bottom_left = !walkable(i - 1, j);
      const bool bottom_right = !walkable(i, j);
      const bool diagonal_pair = top_left == bottom_right && top_right == bottom_left &&
                                 top_left != top_right;
      const bool pinch_vertex = cut_ && diagonal_pair;
      if (top_left + top_right + bottom_left + bottom_right != 1 && !pinch_vertex) continue;
      Corner corner{{static_cast<std::int32_t>(2 * i), static_cast<std::int32_t>(2 * j)}};
      if (!pinch_vertex) {
        corner.qx = top_left || bottom_left ? -1 : 1;
        corner.qy = top_left || top_right ? -1 : 1;
      }
      vertex_at_[static_cast<std::size_t>(j * (w + 1) + i)] =
          static_cast<std::uint32_t>(corners_.size());
      corners_.push_back(corner);
    }
  }
  stamp_.assign(static_cast<std::size_t>(w * h), 0);

  // Every edge once (from its lower index), then both directions.
  std::vector<std::vector<Edge>> adjacency(corners_.size());
  const Box everywhere{0, 0, 2 * w, 2 * h};
  for (std::uint32_t u = 0; u < corners_.size(); ++u) {
    const Corner& from = corners_[u];
    for (const std::uint32_t v : candidates(from.p, everywhere)) {
      if (v <= u) continue;
      const Corner& to = corners_[v];
      const std::int64_t dx = to.p.x - from.p.x;
      const std::int64_t dy = to.p.y - from.p.y;
      if (!tangent(from, dx, dy) || !tangent(to, dx, dy)) continue;
      if (!any_angle_visible(mask_, enabled_, from.p, to.p, cut_)) continue;
      const double length2 = distance2(from.p, to.p);
      adjacency[u].push_back({v, length2});
      adjacency[v].push_back({u, length2});
    }
  }
  first_edge_.push_back(0);
  for (const std::vector<Edge>& list : adjacency) {
    edges_.insert(edges_.end(), list.begin(), list.end());
    first_edge_.push_back(static_cast<std::uint32_t>(edges_.size()));
  }
}

std::vector<std::uint32_t> AnyAngleCornerGraph::candidates(Point a2, Box box) const {
  std::vector<std::uint32_t> found;
  // Pixels whose square can hold part of a segment inside the box.
  const std::int64_t px0 = std::max<std::int64_t>(0, floor_div(box.x0, 2) - 1);
  const std::int64_t py0 = std::max<std::int64_t>(0, floor_div(box.y0, 2) - 1);
  const std::int64_t px1 = std::min<std::int64_t>(mask_.width() - 1, ceil_div(box.x1, 2));
  const std::int64_t py1 = std::min<std::int64_t>(mask_.height() - 1, ceil_div(box.y1, 2));
  const auto in_box = [&](std::int64_t x2, std::int64_t y2) {
    return x2 >= box.x0 && x2 <= box.x1 && y2 >= box.y0 && y2 <= box.y1;
  };
  const auto add = [&](std::int64_t x2, std::int64_t y2) {
    if (!in_box(x2, y2) || (x2 == a2.x && y2 == a2.y)) return;
    const std::uint32_t v = vertex_at(x2, y2);
    if (v != kNone) found.push_back(v);
  };

  // Oblique segments: a monotone flood per quadrant from the first pixel
  // entered; a reached pixel's far corner is the one vertex whose segment
  // from a2 ends in it.
  std::vector<std::pair<std::int64_t, std::int64_t>> stack;
  for (const int sx : {-1, 1}) {
    for (const int sy : {-1, 1}) {
      if (++generation_ == 0) {
        std::fill(stamp_.begin(), stamp_.end(), 0);
        generation_ = 1;
      }
      const std::int64_t fx = sx > 0 ? floor_div(a2.x, 2) : ceil_div(a2.x, 2) - 1;
      const std::int64_t fy = sy > 0 ? floor_div(a2.y, 2) : ceil_div(a2.y, 2) - 1;
      const auto visit = [&](std::int64_t x, std::int64_t y) {
        if (x < px0 || x > px1 || y < py0 || y > py1 || !walkable(x, y)) return;
        std::uint32_t& stamp = stamp_[static_cast<std::size_t>(y) * mask_.width() +
                                      static_cast<std::size_t>(x)];
        if (stamp == generation_) return;
        stamp = generation_;
        stack.emplace_back(x, y);
      };
      visit(fx, fy);
      while (!stack.empty()) {
        const auto [x, y] = stack.back();
        stack.pop_back();
        add(2 * (x + (sx > 0 ? 1 : 0)), 2 * (y + (sy > 0 ? 1 : 0)));
        visit(x + sx, y);
        visit(x, y + sy);
        visit(x + sx, y + sy);
      }
    }
  }

  // Axis-parallel segments along a grid line (corners lie on even lines
  // only; from an odd line, i.e. a centre, none is axis-parallel): one
  // pixel beside the line walkable in every row (column) spanned.
  const auto side_open = [&](bool vertical, std::int64_t line, std::int64_t k) {
    return vertical ? walkable(line - 1, k) || walkable(line, k)
                    : walkable(k, line - 1) || walkable(k, line);
  };
  for (const bool vertical : {true, false}) {
    const std::int64_t across = vertical ? a2.x : a2.y;
    const std::int64_t along = vertical ? a2.y : a2.x;
    if (across % 2 != 0) continue;
    const std::int64_t line = across / 2;
    const std::int64_t limit = vertical ? mask_.height() : mask_.width();
    const auto add_along = [&](std::int64_t position2) {
      if (vertical) {
        add(across, position2);
      } else {
        add(position2, across);
      }
    };
    for (std::int64_t k = floor_div(along, 2); k < limit && side_open(vertical, line, k); ++k) {
      add_along(2 * (k + 1));
    }
    for (std::int64_t k = ceil_div(along, 2) - 1; k >= 0 && side_open(vertical, line, k); --k) {
      add_along(2 * k);
    }
  }
  return found;
}

std::optional<double> AnyAngleCornerGraph::shortest_length(Point start, Point goal,
                                                           std::optional<double> upper_bound) const {
  if (!mask_.walkable(start, enabled_) || !mask_.walkable(goal, enabled_)) return std::nullopt;
  const Point s2{2 * start.x + 1, 2 * start.y + 1};
  const Point g2{2 * goal.x + 1, 2 * goal.y + 1};
  if (start == goal) return 0.0;
  if (any_angle_visible(mask_, enabled_, s2, g2, cut_)) return distance2(s2, g2) / 2;

  // The reference's slack and box (the ellipse lies within its semi-minor
  // axis of the box around start and goal).
  const double bound2 =
      upper_bound ? 2 * *upper_bound * (1 + 1e-9) + 1e-6 : std::numeric_limits<double>::infinity();
  Box box{0, 0, 2 * static_cast<std::int64_t>(mask_.width()),
          2 * static_cast<std::int64_t>(mask_.height())};
  if (upper_bound) {
    const double half_focal = distance2(s2, g2) / 2;
    const double margin = std::sqrt(std::max(0.0, bound2 * bound2 / 4 - half_focal * half_focal));
    box.x0 = std::max(box.x0, static_cast<std::int64_t>(std::floor(std::min(s2.x, g2.x) - margin)));
    box.y0 = std::max(box.y0, static_cast<std::int64_t>(std::floor(std::min(s2.y, g2.y) - margin)));
    box.x1 = std::min(box.x1, static_cast<std::int64_t>(std::ceil(std::max(s2.x, g2.x) + margin)));
    box.y1 = std::min(box.y1, static_cast<std::int64_t>(std::ceil(std::max(s2.y, g2.y) + margin)));
  }

  // Start and goal join the corners they see (tangent at the corner, as in
  // the reference), within the ellipse.
  const auto visible_corners = [&](Point from2) {
    std::vector<Edge> edges;
    for (const std::uint32_t v : candidates(from2, box)) {
      const Corner& to = corners_[v];
      if (!tangent(to, to.p.x - from2.x, to.p.y - from2.y)) continue;
      if (distance2(s2, to.p) + distance2(to.p, g2) > bound2) continue;
      if (!any_angle_visible(mask_, enabled_, from2, to.p, cut_)) continue;
      edges.push_back({v, distance2(from2, to.p)});
    }
    return edges;
  };
  const std::vector<Edge> from_start = visible_corners(s2);
  std::vector<Edge> to_goal = visible_corners(g2);
  std::sort(to_goal.begin(), to_goal.end(),
            [](const Edge& a, const Edge& b) { return a.to < b.to; });

  // A* (Euclidean heuristic) from the start; vertices n and n + 1 are start
  // and goal. Sparse maps of what this query touched.
  const auto n = static_cast<std::uint32_t>(corners_.size());
  const std::uint32_t kStart = n;
  const std::uint32_t kGoal = n + 1;
  const auto point_of = [&](std::uint32_t v) {
    return v == kStart ? s2 : v == kGoal ? g2 : corners_[v].p;
  };
  std::vector<double> cost(n + 2, std::numeric_limits<double>::infinity());
  std::vector<bool> settled(n + 2, false);
  using Entry = std::pair<double, std::uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  const auto heuristic = [&](std::uint32_t v) { return distance2(point_of(v), g2); };
  cost[kStart] = 0;
  open.emplace(heuristic(kStart), kStart);
  while (!open.empty()) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one
    // in the lambda below.
    const double estimate = open.top().first;
    const std::uint32_t u = open.top().second;
    open.pop();
    if (settled[u] || estimate > cost[u] + heuristic(u)) continue;
    if (u == kGoal) return cost[u] / 2;
    settled[u] = true;
    const double limit = std::min(bound2, cost[kGoal]);
    const auto relax = [&](std::uint32_t v, double length2) {
      if (settled[v]) return;
      const double through = cost[u] + length2;
      if (through >= cost[v] || through + heuristic(v) > limit) return;
      cost[v] = through;
      open.emplace(through + heuristic(v), v);
    };
    if (u == kStart) {
      for (const Edge& e : from_start) relax(e.to, e.length2);
      continue;
    }
    for (std::uint32_t k = first_edge_[u]; k < first_edge_[u + 1]; ++k) {
      relax(edges_[k].to, edges_[k].length2);
    }
    const auto it = std::lower_bound(to_goal.begin(), to_goal.end(), u,
                                     [](const Edge& e, std::uint32_t v) { return e.to < v; });
    if (it != to_goal.end() && it->to == u) relax(kGoal, it->length2);
  }
  return std::nullopt;
}

}  // namespace pathtest
