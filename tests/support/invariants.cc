#include "support/invariants.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace pathtest {

using pathcore::Connectivity;
using pathcore::FieldOptions;
using pathcore::FindPathOptions;
using pathcore::Mask;
using pathcore::Path;
using pathcore::PathResult;
using pathcore::Point;
using pathcore::StandardMoveResult;

ReferenceGrid reference_grid_for(const FieldOptions& options) {
  ReferenceGrid grid;
  grid.enabled = options.enabled & pathcore::kAllAreas;  // already effective: 0 is none
  grid.diagonals = options.connectivity == Connectivity::kFour ? Diagonals::kNone
                   : options.allow_corner_cutting             ? Diagonals::kAlways
                                                              : Diagonals::kBothSidesFree;
  for (int id = 1; id <= pathcore::kMaxAreaId; ++id) {
    const int cost = options.area_costs[static_cast<std::size_t>(id)];
    grid.area_costs[static_cast<std::uint32_t>(id)] = cost == 0 ? 1 : cost;
  }
  return grid;
}

double walked_cost(const Mask& mask, const FieldOptions& options, const Path& path) {
  const pathcore::AreaSet enabled = options.enabled & pathcore::kAllAreas;
  double total = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const Point a = path[i - 1];
    const Point b = path[i];
    const int dx = b.x - a.x;
    const int dy = b.y - a.y;
    if (std::abs(dx) > 1 || std::abs(dy) > 1 || (dx == 0 && dy == 0)) return -1;
    if (!mask.walkable(b, enabled)) return -1;
    const int area_cost = options.area_costs[mask.area(b)];
    const double cost = area_cost == 0 ? 1 : area_cost;
    if (dx != 0 && dy != 0) {
      if (options.connectivity == Connectivity::kFour) return -1;
      if (!options.allow_corner_cutting &&
          (!mask.walkable({a.x + dx, a.y}, enabled) || !mask.walkable({a.x, a.y + dy}, enabled))) {
        return -1;
      }
      total += cost * std::sqrt(2.0);
    } else {
      total += cost;
    }
  }
  return total;
}

std::string text(Point p) { return "(" + std::to_string(p.x) + "," + std::to_string(p.y) + ")"; }

std::string text(const Path& path) {
  std::string out;
  for (const Point p : path) {
    out += text(p);
  }
  return out;
}

double euclidean_length(const Path& path) {
  double length = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const double dx = path[i].x - path[i - 1].x;
    const double dy = path[i].y - path[i - 1].y;
    length += std::sqrt(dx * dx + dy * dy);
  }
  return length;
}

namespace {

bool close(double got, double want, double relative) {
  return std::abs(got - want) <= relative * std::max(1.0, std::abs(want));
}

}  // namespace

std::string path_answer_problem(const Mask& mask, Point start, Point goal,
                                const FindPathOptions& options, const std::vector<double>& reference,
                                const PathResult& result) {
  const pathcore::AreaSet enabled = options.field.enabled & pathcore::kAllAreas;
  const bool reachable = mask.walkable(start, enabled) && mask.walkable(goal, enabled) &&
                         reference[mask.index(start)] != kNoPath;
  const std::string where = " (" + text(start) + "->" + text(goal) + ": " + text(result.points) + ")";
  if (!(result.goal == goal)) return "goal " + text(result.goal) + " instead of " + text(goal) + where;
  if (result.found != reachable) {
    return std::string(reachable ? "not found but the reference reaches it"
                                 : "found but the reference does not reach it") +
           where;
  }
  const Path& points = result.points;
  if (!reachable) {
    return points.empty() ? "" : "points without a path" + where;
  }
  if (points.empty()) return "found with no points" + where;
  if (!(points.front() == start)) return "first point is not the start" + where;
  if (!(points.back() == goal)) return "last point is not the goal" + where;
  if (!close(result.length, euclidean_length(points), 1e-9)) {
    return "length " + std::to_string(result.length) + " is not the polyline's" + where;
  }
  const bool no_cutting = pathcore::line_rule_for(options.field) ==
                          pathcore::LineRule::kNoCornerCutting;
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (!reference_bresenham_walkable(mask, enabled, points[i - 1], points[i])) {
      return "segment " + text(points[i - 1]) + "-" + text(points[i]) + " not walkable" + where;
    }
    if (no_cutting && !reference_supercover_walkable(mask, enabled, points[i - 1], points[i])) {
      return "segment " + text(points[i - 1]) + "-" + text(points[i]) + " cuts a corner" + where;
    }
  }
  const double want = reference[mask.index(start)];
  const double integral = reference_polyline_cost(mask, points, reference_grid_for(options.field));
  if (!close(result.cost, integral, 1e-9)) {
    return "cost " + std::to_string(result.cost) + " but the path's integral is " +
           std::to_string(integral) + where;
  }
  if (result.grid_cost.has_value()) {
    if (!close(*result.grid_cost, want, 1e-6)) {
      return "grid cost " + std::to_string(*result.grid_cost) + " but the reference says " +
             std::to_string(want) + where;
    }
  } else if (options.smoothing == pathcore::Smoothing::kNone || points.size() != 2) {
    return "no grid cost" + where;
  }
  if (options.smoothing != pathcore::Smoothing::kNone) {
    return "";
  }
  const double walked = walked_cost(mask, options.field, points);
  if (walked < 0) return "raw path has an illegal step" + where;
  if (!close(walked, want, 1e-6)) {
    return "walked cost " + std::to_string(walked) + " but the reference says " +
           std::to_string(want) + where;
  }
  return "";
}

// ---------------------------------------------------------------- standard moves

namespace {

constexpr std::array<int, 8> kDx = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr std::array<int, 8> kDy = {-1, -1, 0, 1, 1, 1, 0, -1};

double dist(Point a, Point b) {
  return std::hypot(static_cast<double>(a.x - b.x), static_cast<double>(a.y - b.y));
}
int cheb(Point a, Point b) { return std::max(std::abs(a.x - b.x), std::abs(a.y - b.y)); }

}  // namespace

bool open_tile(const Mask& mask, int x, int y) {
  return x >= 0 && y >= 0 && x < static_cast<int>(mask.width()) &&
         y < static_cast<int>(mask.height()) && mask.areas()[mask.index({x, y})] != 0;
}

bool step_ok(const Mask& mask, int x, int y, int d, bool forbid) {
  const int nx = x + kDx[static_cast<std::size_t>(d)];
  const int ny = y + kDy[static_cast<std::size_t>(d)];
  if (!open_tile(mask, nx, ny)) return false;
  if (forbid && kDx[static_cast<std::size_t>(d)] != 0 && kDy[static_cast<std::size_t>(d)] != 0) {
    return open_tile(mask, nx, y) && open_tile(mask, x, ny);
  }
  return true;
}

bool walk(const Mask& mask, int& x, int& y, int d, int steps, bool forbid) {
  for (int s = 0; s < steps; ++s) {
    if (!step_ok(mask, x, y, d, forbid)) return false;
    x += kDx[static_cast<std::size_t>(d)];
    y += kDy[static_cast<std::size_t>(d)];
  }
  return true;
}

bool brute_one_move(const Mask& mask, Point a, Point b, bool forbid) {
  const int n = static_cast<int>(std::max(mask.width(), mask.height()));
  for (int x = 0; x < 8; ++x) {
    const auto ux = static_cast<std::size_t>(x);
    for (const int y : {(x + 1) % 8, (x + 7) % 8}) {
      const auto uy = static_cast<std::size_t>(y);
      for (int i = 0; i <= n; ++i) {
        for (int j = 0; j <= n; ++j) {
          // The k that could end at b: what is left, along X's non-zero axis.
          const int rx = b.x - a.x - i * kDx[ux] - j * kDx[uy];
          const int ry = b.y - a.y - i * kDy[ux] - j * kDy[uy];
          const int k = kDx[ux] != 0 ? rx * kDx[ux] : ry * kDy[ux];
          if (k < 0 || k > n || rx != k * kDx[ux] || ry != k * kDy[ux]) {
            continue;
          }
          int px = a.x;
          int py = a.y;
          if (walk(mask, px, py, x, i, forbid) && walk(mask, px, py, y, j, forbid) &&
              walk(mask, px, py, x, k, forbid)) {
            return true;
          }
        }
      }
    }
  }
  return false;
}

BruteStandardMove brute_standard_move(const Mask& mask, Point s, Point g, int max_moves,
                                      bool forbid) {
  BruteStandardMove best;
  if (!open_tile(mask, s.x, s.y) || !open_tile(mask, g.x, g.y)) return best;
  if (s == g) return {0, {}, 0};
  if (brute_one_move(mask, s, g, forbid)) return {1, {}, dist(s, g)};
  std::vector<Point> tiles;
  for (int y = 0; y < static_cast<int>(mask.height()); ++y) {
    for (int x = 0; x < static_cast<int>(mask.width()); ++x) {
      if (open_tile(mask, x, y)) tiles.push_back({x, y});  // scan order
    }
  }
  std::vector<Point> from_s;
  std::vector<Point> to_g;
  for (const Point n : tiles) {
    if (n == s || n == g) continue;
    if (brute_one_move(mask, s, n, forbid)) from_s.push_back(n);
    if (brute_one_move(mask, n, g, forbid)) to_g.push_back(n);
  }
  // Rank: length (1e-9), steps, scan order of the nodes.
  int best_steps = 0;
  const auto consider = [&](double length, int steps, std::vector<Point> nodes, int moves) {
    if (best.moves >= 0) {
      if (length > best.length + 1e-9) return;
      if (length >= best.length - 1e-9 && steps >= best_steps) return;
    }
    best = {moves, std::move(nodes), length};
    best_steps = steps;
  };
  if (max_moves >= 2) {
    for (const Point n : from_s) {
      if (std::find(to_g.begin(), to_g.end(), n) != to_g.end()) {
        consider(dist(s, n) + dist(n, g), cheb(s, n) + cheb(n, g), {n}, 2);
      }
    }
  }
  if (best.moves < 0 && max_moves >= 3) {
    for (const Point n1 : from_s) {
      for (const Point n2 : to_g) {
        if (n1 == n2 || !brute_one_move(mask, n1, n2, forbid)) continue;
        consider(dist(s, n1) + dist(n1, n2) + dist(n2, g), cheb(s, n1) + cheb(n1, n2) + cheb(n2, g),
                 {n1, n2}, 3);
      }
    }
  }
  return best;
}

std::string standard_move_route_problem(const Mask& mask, Point start, Point goal,
                                        const StandardMoveResult& r, bool forbid) {
  std::string moves;
  for (const pathcore::Move& m : r.moves) {
    moves += std::string(pathcore::direction_name(m.direction)) + std::to_string(m.steps) + " ";
  }
  const std::string where = " (" + text(start) + "->" + text(goal) + ": " + moves + ")";
  if (!r.found) return "not found" + where;
  if (r.waypoints.empty()) return "no waypoints" + where;
  if (!(r.waypoints.front() == start)) return "first waypoint is not the start" + where;
  if (!(r.waypoints.back() == goal)) return "last waypoint is not the goal" + where;
  if (r.waypoints.size() != r.moves.size() + 1) return "waypoints do not match the runs" + where;
  int x = start.x;
  int y = start.y;
  for (std::size_t i = 0; i < r.moves.size(); ++i) {
    if (r.moves[i].steps == 0) return "empty run " + std::to_string(i) + where;
    if (i > 0 && r.moves[i].direction == r.moves[i - 1].direction) {
      return "run " + std::to_string(i) + " not merged with the one before" + where;
    }
    if (!walk(mask, x, y, static_cast<int>(r.moves[i].direction),
              static_cast<int>(r.moves[i].steps), forbid)) {
      return "run " + std::to_string(i) + " takes an illegal step" + where;
    }
    if (!(r.waypoints[i + 1] == Point{x, y})) {
      return "waypoint " + std::to_string(i + 1) + " is not the end of its run" + where;
    }
  }
  if (!(Point{x, y} == goal)) return "the route ends at " + text(Point{x, y}) + where;
  if (r.nodes.size() != static_cast<std::size_t>(std::max(0, r.move_count - 1))) {
    return "node count does not match move_count " + std::to_string(r.move_count) + where;
  }
  std::vector<Point> stops{start};
  stops.insert(stops.end(), r.nodes.begin(), r.nodes.end());
  stops.push_back(goal);
  for (std::size_t i = 0; i + 1 < stops.size(); ++i) {
    if (!brute_one_move(mask, stops[i], stops[i + 1], forbid)) {
      return "leg " + std::to_string(i) + " is not a standard move" + where;
    }
  }
  return "";
}

}  // namespace pathtest
