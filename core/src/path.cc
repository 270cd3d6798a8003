#include "pathcore/path.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "point_checks.h"

namespace pathcore {
namespace {

using Distance = DistanceField::Distance;

struct Step {
  std::int32_t dx = 0;
  std::int32_t dy = 0;
  friend bool operator==(const Step&, const Step&) = default;
};

// Fixed orders, so traces are deterministic: E, S, W, N and SE, SW, NW, NE.
constexpr std::array<Step, 4> kCardinalSteps = {{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}};
constexpr std::array<Step, 4> kDiagonalSteps = {{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}};

Point operator+(Point p, Step s) { return {p.x + s.dx, p.y + s.dy}; }

// Picks among the steps that stay on a shortest path: the previous direction
// if it is one of them (long straight runs), else the one pointing most
// toward the goal, else the first in the fixed order.
class StepChooser {
 public:
  StepChooser(Step previous, Point from, Point goal)
      : previous_(previous),
        to_goal_x_(std::int64_t{goal.x} - from.x),
        to_goal_y_(std::int64_t{goal.y} - from.y) {}

  void offer(Step step) {
    const std::int64_t score = step == previous_ ? std::numeric_limits<std::int64_t>::max()
                                                 : step.dx * to_goal_x_ + step.dy * to_goal_y_;
    if (!chosen_ || score > best_score_) {
      chosen_ = true;
      best_score_ = score;
      best_ = step;
    }
  }
  [[nodiscard]] bool chosen() const { return chosen_; }
  [[nodiscard]] Step best() const { return best_; }

 private:
  Step previous_;
  std::int64_t to_goal_x_;
  std::int64_t to_goal_y_;
  bool chosen_ = false;
  std::int64_t best_score_ = 0;
  Step best_;
};

}  // namespace

Path trace(const DistanceField& field, Point start, bool diagonal_shortcuts) {
  Distance distance = field.at(start);
  if (distance == DistanceField::kUnreachable) {
    return {};
  }
  const Point goal = field.goal();
  Path path;
  // A distance never exceeds the pixel count in a real field.
  path.reserve(std::min<std::size_t>(distance, std::size_t{field.width()} * field.height()) + 1);
  path.push_back(start);
  Point at = start;
  Step previous;
  while (distance > 0) {
    StepChooser chooser(previous, at, goal);
    if (diagonal_shortcuts && distance >= 2) {
      // Two cardinal steps around a corner become one diagonal step when the
      // diagonal pixel is two closer and both pixels beside it are walkable
      // (reachable in the field implies walkable).
      for (const Step step : kDiagonalSteps) {
        if (field.at(at + step) == distance - 2 && field.reachable(at + Step{step.dx, 0}) &&
            field.reachable(at + Step{0, step.dy})) {
          chooser.offer(step);
        }
      }
    }
    if (!chooser.chosen()) {
      for (const Step step : kCardinalSteps) {
        if (field.at(at + step) == distance - 1) {
          chooser.offer(step);
        }
      }
    }
    if (!chooser.chosen()) {
      throw InvalidArgument("distance field has no downhill neighbour at " + point_text(at));
    }
    previous = chooser.best();
    at = at + previous;
    distance = field.at(at);
    path.push_back(at);
  }
  return path;
}

Path simplify(const Path& path) {
  if (path.size() <= 2) {
    return path;
  }
  Path kept;
  kept.push_back(path.front());
  for (std::size_t i = 1; i + 1 < path.size(); ++i) {
    const Point a = kept.back();
    const Point b = path[i];
    const Point c = path[i + 1];
    const std::int64_t ux = std::int64_t{b.x} - a.x;
    const std::int64_t uy = std::int64_t{b.y} - a.y;
    const std::int64_t vx = std::int64_t{c.x} - b.x;
    const std::int64_t vy = std::int64_t{c.y} - b.y;
    // b is dropped when a->b and b->c run the same way (or b repeats a or c).
    if (ux * vy - uy * vx == 0 && ux * vx + uy * vy >= 0) {
      continue;
    }
    kept.push_back(b);
  }
  kept.push_back(path.back());
  return kept;
}

double polyline_length(const Path& path) {
  double length = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    length += std::hypot(static_cast<double>(path[i].x) - path[i - 1].x,
                         static_cast<double>(path[i].y) - path[i - 1].y);
  }
  return length;
}

LineRule line_rule_for(const FieldOptions& options) {
  // Four-connected agents never move diagonally, so they never cut corners.
  if (options.connectivity == Connectivity::kEight && options.allow_corner_cutting) {
    return LineRule::kBresenham;
  }
  return LineRule::kNoCornerCutting;
}

std::optional<PathResult> beeline_answer(const Mask& mask, Point start, Point goal,
                                         const FindPathOptions& options) {
  require_inside(mask, start, "start");
  require_inside(mask, goal, "goal");
  const AreaSet enabled = options.field.enabled & kAllAreas;
  if (!mask.walkable(start, enabled) || !mask.walkable(goal, enabled)) {
    return std::nullopt;  // path_from_field answers found = false
  }
  PathResult result;
  result.found = true;
  result.goal = goal;
  if (start == goal) {
    result.points = {start};
    return result;
  }
  if (options.smoothing == Smoothing::kNone ||
      !segment_walkable(mask, enabled, start, goal, line_rule_for(options.field))) {
    return std::nullopt;
  }
  result.points = {start, goal};
  result.length = polyline_length(result.points);
  return result;
}

PathResult path_from_field(const Mask& mask, const DistanceField& field, Point start,
                           const FindPathOptions& options) {
  if (field.width() != mask.width() || field.height() != mask.height()) {
    throw InvalidArgument("distance field of " + std::to_string(field.width()) + "x" +
                          std::to_string(field.height()) + " does not fit the " +
                          std::to_string(mask.width()) + "x" + std::to_string(mask.height()) +
                          " mask");
  }
  const AreaSet enabled = options.field.enabled & kAllAreas;
  if ((field.options().enabled & kAllAreas) != enabled ||
      field.options().connectivity != options.field.connectivity) {
    throw InvalidArgument("distance field was computed for other areas or connectivity");
  }
  require_inside(mask, start, "start");

  PathResult result;
  result.goal = field.goal();
  const Distance distance = field.at(start);
  if (distance == DistanceField::kUnreachable) {
    return result;
  }
  result.found = true;
  switch (options.smoothing) {
    case Smoothing::kNone:
      result.points = trace(field, start, /*diagonal_shortcuts=*/false);
      result.cost = static_cast<double>(distance);
      break;
    case Smoothing::kSimplify:
      result.points = simplify(trace(field, start, /*diagonal_shortcuts=*/true));
      break;
    case Smoothing::kBeautify:
      result.points = beautify(simplify(trace(field, start, /*diagonal_shortcuts=*/true)), mask,
                               enabled, line_rule_for(options.field));
      break;
  }
  result.length = polyline_length(result.points);
  return result;
}

PathResult find_path(const Mask& mask, Point start, Point goal, const FindPathOptions& options) {
  if (auto beeline = beeline_answer(mask, start, goal, options)) {
    return *std::move(beeline);
  }
  const DistanceField field = compute_distance_field(mask, goal, options.field);
  return path_from_field(mask, field, start, options);
}

}  // namespace pathcore
