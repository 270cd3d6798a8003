#include "pathcore/path.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "field/cost_range.h"
#include "pathcore/clearance.h"
#include "mask/point_checks.h"

namespace pathcore {
namespace {

struct Step {
  std::int32_t dx = 0;
  std::int32_t dy = 0;
  friend bool operator==(const Step&, const Step&) = default;
};

// Fixed orders, so traces are deterministic: E, S, W, N and SE, SW, NW, NE.
constexpr std::array<Step, 4> kCardinalSteps = {{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}};
constexpr std::array<Step, 4> kDiagonalSteps = {{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}};
// The pixels beside kDiagonalSteps[d] are at kCardinalSteps[kDiagonalSides[d][0 and 1]].
constexpr std::array<std::array<std::size_t, 2>, 4> kDiagonalSides = {
    {{0, 1}, {2, 1}, {2, 3}, {0, 3}}};

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

// Calls a caller's interrupt check about every 16,384 units of work (pixels
// scanned or filled), as FieldBuilder does, and throws Interrupted when it
// says stop.
class InterruptCheck {
 public:
  explicit InterruptCheck(const std::function<bool()>& interrupt) : interrupt_(interrupt) {}
  void after(std::size_t work) {
    if (!interrupt_) return;
    done_ += work;
    if (done_ < kEvery) return;
    done_ = 0;
    if (interrupt_()) throw Interrupted();
  }

 private:
  static constexpr std::size_t kEvery = std::size_t{1} << 14;
  const std::function<bool()>& interrupt_;
  std::size_t done_ = 0;
};

// The points a trace keeps: every pixel (trace's answer), or only the pixels
// where its direction changes and both ends: simplify's answer for that trace,
// without building the whole path first (path_from_field's smoothing).
class TracedPoints {
 public:
  TracedPoints(Point start, bool corners_only) : corners_only_(corners_only) {
    path_.push_back(start);
  }
  void reserve(std::size_t steps) {
    if (!corners_only_) {
      path_.reserve(steps + 1);
    }
  }
  // The trace steps from `from` by `step`; `previous` is the step before
  // (none at the start).
  void stepped(Point from, Step step, Step previous) {
    if (!corners_only_) {
      path_.push_back(from + step);
    } else if (step != previous && previous != Step{}) {
      path_.push_back(from);
    }
  }
  // The trace ended at `end`, its last step `last` (none when it never moved).
  Path finish(Point end, Step last) {
    if (corners_only_ && last != Step{}) {
      path_.push_back(end);
    }
    return std::move(path_);
  }

 private:
  bool corners_only_;
  Path path_;
};

// How trace_four reads a kFour field. ExactCosts decodes a GridCost per
// pixel and adds the entered pixel's area cost (any field); StoredUnitCosts
// reads the stored integers of a unit-cost field directly (the common case:
// no decoding, a step costs 1). Both: reachable(p) for p inside; cost(p) for
// p reachable; entered(n, c) = c plus the cost of stepping onto n.
class ExactCosts {
 public:
  using Cost = GridCost;
  ExactCosts(const Mask& mask, const DistanceField& field)
      : mask_(mask), field_(field), area_costs_(field.options().area_costs) {}
  [[nodiscard]] bool reachable(Point p) const { return field_.reachable(p); }
  [[nodiscard]] Cost cost(Point p) const { return field_.exact(p); }
  [[nodiscard]] Cost entered(Point n, Cost c) const {
    c.straight += area_costs_[mask_.area(n)];
    return c;
  }

 private:
  const Mask& mask_;
  const DistanceField& field_;
  const AreaCosts& area_costs_;
};

template <typename Word>
class StoredUnitCosts {
 public:
  using Cost = std::uint32_t;
  StoredUnitCosts(const DistanceField& field, const Word* costs)
      : costs_(costs), stride_(field.stride()), origin_(field.origin()) {}
  [[nodiscard]] bool reachable(Point p) const { return stored(p) < kNotReachable; }
  [[nodiscard]] Cost cost(Point p) const { return stored(p); }
  [[nodiscard]] static Cost entered(Point /*n*/, Cost c) { return c + 1; }

 private:
  static constexpr Word kNotReachable = static_cast<Word>(~Word{0} - 1);  // and above
  [[nodiscard]] Word stored(Point p) const {
    return costs_[origin_ + static_cast<std::size_t>(p.y) * stride_ +
                  static_cast<std::size_t>(p.x)];
  }
  const Word* costs_;
  std::size_t stride_;
  std::size_t origin_;
};

// trace on a kFour field (see trace); start is reachable. Each cardinal
// neighbour is read once per step: whether it is walkable, and its cost plus
// the cost of entering it when it is reachable.
template <typename Costs>
Path trace_four(const Mask& mask, const DistanceField& field, const Costs& costs, Point start,
                bool diagonal_shortcuts, bool corners_only) {
  using Cost = typename Costs::Cost;
  const AreaSet enabled = field.options().enabled;
  const Point goal = field.goal();
  Point at = start;
  Cost here = costs.cost(at);
  TracedPoints points(start, corners_only);
  if constexpr (std::is_same_v<Cost, std::uint32_t>) {
    points.reserve(static_cast<std::size_t>(here));  // unit steps: the most it can take
  }
  Step previous;
  // Whether the cardinal step to n leads exactly downhill from `here`; its
  // cost in `cost` when n is reachable.
  const auto down_to = [&](Point n, Cost& cost) {
    if (!mask.walkable(n, enabled) || !costs.reachable(n)) {
      return false;
    }
    cost = costs.cost(n);
    return costs.entered(n, cost) == here;
  };
  while (here != Cost{}) {
    // The previous direction wins whenever it is offered (StepChooser scores
    // it above everything), so it is tried alone first where nothing else
    // can take precedence: a diagonal with shortcuts (cardinals are offered
    // only when no diagonal is), a cardinal without them.
    if (previous != Step{} && (previous.dx != 0 && previous.dy != 0) == diagonal_shortcuts) {
      bool take = false;
      if (diagonal_shortcuts) {
        const Point side_a = at + Step{previous.dx, 0};
        const Point side_b = at + Step{0, previous.dy};
        const Point n = at + previous;
        Cost cost_a{};
        Cost cost_b{};
        const bool down_a = down_to(side_a, cost_a);
        const bool down_b = down_to(side_b, cost_b);
        if ((down_a || down_b) && mask.walkable(side_a, enabled) &&
            mask.walkable(side_b, enabled) && costs.reachable(n)) {
          const Cost via = costs.entered(n, costs.cost(n));
          take = (down_a && via == cost_a) || (down_b && via == cost_b);
        }
      } else {
        Cost unused{};
        take = down_to(at + previous, unused);
      }
      if (take) {
        points.stepped(at, previous, previous);
        at = at + previous;
        here = costs.cost(at);
        continue;
      }
    }
    StepChooser chooser(previous, at, goal);
    std::array<bool, 4> walkable{};
    std::array<bool, 4> down{};
    std::array<Cost, 4> cost{};
    for (std::size_t s = 0; s < 4; ++s) {
      const Point n = at + kCardinalSteps[s];
      walkable[s] = mask.walkable(n, enabled);
      if (walkable[s] && costs.reachable(n)) {
        cost[s] = costs.cost(n);
        down[s] = costs.entered(n, cost[s]) == here;
      }
    }
    if (diagonal_shortcuts) {
      // Two cardinal steps around a corner become one diagonal step when
      // both pixels beside it are walkable and one of them lies on the way.
      for (std::size_t d = 0; d < 4; ++d) {
        const std::size_t side_a = kDiagonalSides[d][0];
        const std::size_t side_b = kDiagonalSides[d][1];
        if (!walkable[side_a] || !walkable[side_b] || (!down[side_a] && !down[side_b])) {
          continue;
        }
        const Point n = at + kDiagonalSteps[d];  // inside: both pixels beside it are
        if (!costs.reachable(n)) {
          continue;
        }
        const Cost via = costs.entered(n, costs.cost(n));
        if ((down[side_a] && via == cost[side_a]) || (down[side_b] && via == cost[side_b])) {
          chooser.offer(kDiagonalSteps[d]);
        }
      }
    }
    if (!chooser.chosen()) {
      for (std::size_t s = 0; s < 4; ++s) {
        if (down[s]) {
          chooser.offer(kCardinalSteps[s]);
        }
      }
    }
    if (!chooser.chosen()) {
      throw InvalidArgument("distance field has no downhill neighbour at " + point_text(at));
    }
    points.stepped(at, chooser.best(), previous);
    previous = chooser.best();
    at = at + previous;
    here = costs.cost(at);
  }
  return points.finish(at, previous);
}

// trace, keeping every pixel or (corners_only) only simplify's points.
Path trace_points(const Mask& mask, const DistanceField& field, Point start,
                  bool diagonal_shortcuts, bool corners_only) {
  if (field.width() != mask.width() || field.height() != mask.height()) {
    throw InvalidArgument("distance field does not fit the mask");
  }
  if (!field.reachable(start)) {
    return {};
  }
  const FieldOptions& options = field.options();
  if (options.connectivity == Connectivity::kFour) {
    if (options.area_costs == unit_area_costs()) {
      if (const auto* stored = field.four_costs<std::uint16_t>(); stored != nullptr) {
        return trace_four(mask, field, StoredUnitCosts(field, stored), start, diagonal_shortcuts,
                          corners_only);
      }
      if (const auto* stored = field.four_costs<std::uint32_t>(); stored != nullptr) {
        return trace_four(mask, field, StoredUnitCosts(field, stored), start, diagonal_shortcuts,
                          corners_only);
      }
    }
    return trace_four(mask, field, ExactCosts(mask, field), start, diagonal_shortcuts,
                      corners_only);
  }
  // Eight-connected.
  const AreaCosts& costs = options.area_costs;
  const AreaSet enabled = options.enabled;
  const bool cutting = options.allow_corner_cutting;
  // True when the step to n (diagonal or not) leads exactly downhill from `here`.
  const auto downhill = [&](GridCost here, Point n, bool diagonal) {
    if (!field.reachable(n)) {
      return false;
    }
    GridCost via = field.exact(n);
    const std::uint32_t step = costs[mask.area(n)];
    (diagonal ? via.diagonal : via.straight) += step;
    return via == here;
  };
  const Point goal = field.goal();
  TracedPoints points(start, corners_only);
  Point at = start;
  GridCost here = field.exact(start);
  Step previous;
  // Whether a diagonal step d from p may be taken (the corner rule).
  const auto diagonal_open = [&](Point p, std::size_t d) {
    return cutting || (mask.walkable(p + kCardinalSteps[kDiagonalSides[d][0]], enabled) &&
                       mask.walkable(p + kCardinalSteps[kDiagonalSides[d][1]], enabled));
  };
  while (here != GridCost{}) {
    // The previous direction wins whenever it leads downhill (StepChooser
    // scores it above everything), so it is tried alone first: on straight
    // runs the other seven neighbours are not read.
    if (previous != Step{}) {
      const Point n = at + previous;
      const bool diagonal = previous.dx != 0 && previous.dy != 0;
      bool open = false;
      if (diagonal) {
        const auto d = static_cast<std::size_t>(
            std::find(kDiagonalSteps.begin(), kDiagonalSteps.end(), previous) -
            kDiagonalSteps.begin());
        open = diagonal_open(at, d);
      } else {
        open = mask.walkable(n, enabled);
      }
      if (open && downhill(here, n, diagonal)) {
        points.stepped(at, previous, previous);
        at = n;
        here = field.exact(at);
        continue;
      }
    }
    StepChooser chooser(previous, at, goal);
    // Whether each cardinal neighbour is walkable is read once, for its own
    // step and for the two diagonal steps beside it.
    std::array<bool, 4> walkable{};
    for (std::size_t s = 0; s < 4; ++s) {
      const Point n = at + kCardinalSteps[s];
      walkable[s] = mask.walkable(n, enabled);
      if (walkable[s] && downhill(here, n, false)) {
        chooser.offer(kCardinalSteps[s]);
      }
    }
    for (std::size_t d = 0; d < 4; ++d) {
      if ((cutting || (walkable[kDiagonalSides[d][0]] && walkable[kDiagonalSides[d][1]])) &&
          downhill(here, at + kDiagonalSteps[d], true)) {
        chooser.offer(kDiagonalSteps[d]);
      }
    }
    if (!chooser.chosen()) {
      throw InvalidArgument("distance field has no downhill neighbour at " + point_text(at));
    }
    points.stepped(at, chooser.best(), previous);
    previous = chooser.best();
    at = at + previous;
    here = field.exact(at);
  }
  return points.finish(at, previous);
}

// trace_for_smoothing, keeping every pixel or (corners_only) only simplify's
// points.
Path smoothing_trace(const Mask& mask, const DistanceField& field, Point start,
                     bool corners_only) {
  Path traced = trace_points(mask, field, start, /*diagonal_shortcuts=*/true, corners_only);
  const FieldOptions& options = field.options();
  if (options.connectivity == Connectivity::kFour && options.area_costs != unit_area_costs()) {
    // Weighted terrain: equal-cost paths can differ in steps (found by the
    // find_path fuzzer: a detour over cheap terrain traced instead of the
    // plain trace's shorter way over dearer pixels). Dropping the inner
    // points of straight runs does not change a length.
    Path plain = trace_points(mask, field, start, /*diagonal_shortcuts=*/false, corners_only);
    if (polyline_length(traced) > polyline_length(plain)) {
      return plain;
    }
  }
  return traced;
}

}  // namespace

Path trace(const Mask& mask, const DistanceField& field, Point start, bool diagonal_shortcuts) {
  return trace_points(mask, field, start, diagonal_shortcuts, /*corners_only=*/false);
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

LineRule line_rule_for(const FieldOptions& options) {
  // Four-connected agents never move diagonally, so they never cut corners.
  if (options.connectivity == Connectivity::kEight && options.allow_corner_cutting) {
    return LineRule::kBresenham;
  }
  return LineRule::kNoCornerCutting;
}

std::optional<PathResult> beeline_answer(const Mask& mask, Point start, Point goal,
                                         const FindPathOptions& options,
                                         const ClearanceMap* clearance) {
  require_inside(mask, start, "start");
  require_inside(mask, goal, "goal");
  const FieldOptions field_options = normalized(options.field);
  const AreaSet enabled = field_options.enabled;
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
  if (options.smoothing == Smoothing::kNone) {
    return std::nullopt;
  }
  // With area costs, only a beeline over the cheapest terrain is surely no
  // dearer than the grid path (which crosses at least as much length).
  const LineRule rule = line_rule_for(field_options);
  const CostRange costs = area_cost_range(mask, enabled, field_options.area_costs);
  const int cheapest = costs.cheapest;
  if (clearance != nullptr && clearance->serves(mask, enabled) && costs.dearest == cheapest) {
    // Unweighted: every walkable beeline costs the cheapest.
    if (!segment_walkable(*clearance, start, goal, rule)) {
      return std::nullopt;
    }
  } else {
    const int highest =
        segment_max_cost(mask, enabled, start, goal, rule, field_options.area_costs);
    if (highest == 0 || highest > cheapest) {
      return std::nullopt;
    }
  }
  result.points = {start, goal};
  result.length = polyline_length(result.points);
  return result;
}

Path trace_for_smoothing(const Mask& mask, const DistanceField& field, Point start) {
  return smoothing_trace(mask, field, start, /*corners_only=*/false);
}

PathResult path_from_field(const Mask& mask, const DistanceField& field, Point start,
                           const FindPathOptions& options, const ClearanceMap* clearance,
                           SmoothingScratch* scratch) {
  if (field.width() != mask.width() || field.height() != mask.height()) {
    throw InvalidArgument("distance field of " + std::to_string(field.width()) + "x" +
                          std::to_string(field.height()) + " does not fit the " +
                          std::to_string(mask.width()) + "x" + std::to_string(mask.height()) +
                          " mask");
  }
  const FieldOptions wanted = normalized(options.field);
  const FieldOptions& got = field.options();
  if (got.enabled != wanted.enabled || got.connectivity != wanted.connectivity ||
      got.allow_corner_cutting != wanted.allow_corner_cutting ||
      got.area_costs != wanted.area_costs) {
    throw InvalidArgument(
        "distance field was computed for other areas, connectivity, corner rule or costs");
  }
  require_inside(mask, start, "start");

  PathResult result;
  result.goal = field.goal();
  if (!field.reachable(start)) {
    return result;
  }
  result.found = true;
  switch (options.smoothing) {
    case Smoothing::kNone:
      result.points = trace(mask, field, start, false);
      result.cost = field.exact(start).value();
      break;
    case Smoothing::kSimplify:
      // simplify(trace_for_smoothing(...)), without the inner points.
      result.points = smoothing_trace(mask, field, start, /*corners_only=*/true);
      break;
    case Smoothing::kBeautify:
      result.points = beautify(smoothing_trace(mask, field, start, /*corners_only=*/true), mask,
                               wanted.enabled, line_rule_for(wanted), wanted.area_costs,
                               clearance, scratch);
      break;
  }
  result.length = polyline_length(result.points);
  return result;
}

std::optional<Point> nearest_walkable(const Mask& mask, AreaSet enabled, Point p,
                                      const std::function<bool()>& interrupt) {
  enabled &= kAllAreas;
  if (mask.walkable(p, enabled)) {
    return p;
  }
  std::optional<Point> best;
  std::int64_t best_distance = 0;
  const auto width = static_cast<std::int32_t>(mask.width());
  const auto height = static_cast<std::int32_t>(mask.height());
  const std::uint8_t* areas = mask.areas().data();
  InterruptCheck check(interrupt);
  for (std::int32_t y = 0; y < height; ++y) {
    const std::int64_t dy = std::int64_t{y} - p.y;
    if (best && dy * dy > best_distance && y > p.y) {
      break;  // every later row is farther
    }
    check.after(mask.width());
    for (std::int32_t x = 0; x < width; ++x) {
      if (((enabled >> areas[static_cast<std::size_t>(y) * mask.width() + x]) & 1U) == 0) {
        continue;
      }
      const std::int64_t dx = std::int64_t{x} - p.x;
      const std::int64_t d = dx * dx + dy * dy;
      if (!best || d < best_distance) {
        best = Point{x, y};
        best_distance = d;
      }
    }
  }
  return best;
}

std::optional<Point> nearest_reachable(const Mask& mask, const FieldOptions& options, Point from,
                                       Point target, const std::function<bool()>& interrupt) {
  const FieldOptions field = normalized(options);
  const AreaSet enabled = field.enabled;
  if (!mask.walkable(from, enabled)) {
    return std::nullopt;
  }
  const std::size_t count = mask.pixel_count();
  std::vector<std::uint8_t> reached(count, 0);
  std::vector<std::uint32_t> queue;
  queue.reserve(1024);
  const bool eight = field.connectivity == Connectivity::kEight;
  const bool cutting = eight && field.allow_corner_cutting;
  reached[mask.index(from)] = 1;
  queue.push_back(static_cast<std::uint32_t>(mask.index(from)));
  InterruptCheck check(interrupt);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    check.after(1);
    const Point p{static_cast<std::int32_t>(queue[head] % mask.width()),
                  static_cast<std::int32_t>(queue[head] / mask.width())};
    for (const Step step : kCardinalSteps) {
      const Point n = p + step;
      if (mask.walkable(n, enabled) && reached[mask.index(n)] == 0) {
        reached[mask.index(n)] = 1;
        queue.push_back(static_cast<std::uint32_t>(mask.index(n)));
      }
    }
    if (!eight) continue;
    for (const Step step : kDiagonalSteps) {
      const Point n = p + step;
      if (mask.walkable(n, enabled) && reached[mask.index(n)] == 0 &&
          (cutting || (mask.walkable(p + Step{step.dx, 0}, enabled) &&
                       mask.walkable(p + Step{0, step.dy}, enabled)))) {
        reached[mask.index(n)] = 1;
        queue.push_back(static_cast<std::uint32_t>(mask.index(n)));
      }
    }
  }
  std::optional<Point> best;
  std::int64_t best_distance = 0;
  for (std::size_t i = 0; i < count; ++i) {
    check.after(1);
    if (reached[i] == 0) continue;
    const auto x = static_cast<std::int32_t>(i % mask.width());
    const auto y = static_cast<std::int32_t>(i / mask.width());
    const std::int64_t dx = std::int64_t{x} - target.x;
    const std::int64_t dy = std::int64_t{y} - target.y;
    const std::int64_t d = dx * dx + dy * dy;
    if (!best || d < best_distance) {
      best = Point{x, y};
      best_distance = d;
    }
  }
  return best;
}

std::optional<SnappedEndpoints> snap_endpoints(const Mask& mask, const FieldOptions& options,
                                               Point start, Point goal,
                                               std::optional<bool> goal_reachable,
                                               const std::function<bool()>& interrupt) {
  require_inside(mask, start, "start");
  require_inside(mask, goal, "goal");
  const AreaSet enabled = options.enabled & kAllAreas;
  const std::optional<Point> from = nearest_walkable(mask, enabled, start, interrupt);
  if (!from) {
    return std::nullopt;
  }
  if (*from == start && goal_reachable.value_or(false) && mask.walkable(goal, enabled)) {
    return SnappedEndpoints{start, goal};
  }
  const std::optional<Point> to = nearest_reachable(mask, options, *from, goal, interrupt);
  return SnappedEndpoints{*from, *to};
}

void explain_result(const Mask& mask, AreaSet enabled, Point start, Point goal,
                    PathResult& result) {
  if (!result.found) {
    result.start_snapped = result.goal_snapped = false;
    result.goal_snap_distance = 0;
    if (!mask.walkable(start, enabled)) {
      result.reason = PathReason::kStartNotWalkable;
    } else if (!mask.walkable(goal, enabled)) {
      result.reason = PathReason::kGoalNotWalkable;
    } else {
      result.reason = PathReason::kNoRoute;
    }
    return;
  }
  result.start_snapped = !result.points.empty() && result.points.front() != start;
  result.goal_snapped = result.goal != goal;
  result.goal_snap_distance = std::hypot(static_cast<double>(result.goal.x - goal.x),
                                         static_cast<double>(result.goal.y - goal.y));
  result.reason = result.goal_snapped    ? PathReason::kGoalSnapped
                  : result.start_snapped ? PathReason::kStartSnapped
                                         : PathReason::kFound;
}

namespace {

// find_path without explain_result (it recurses with the snapped ends).
PathResult find_path_between(const Mask& mask, Point start, Point goal,
                             const FindPathOptions& options) {
  if (auto beeline = beeline_answer(mask, start, goal, options)) {
    return *std::move(beeline);
  }
  const AreaSet enabled = options.field.enabled & kAllAreas;
  std::optional<bool> goal_reachable;
  if (mask.walkable(start, enabled) && mask.walkable(goal, enabled)) {
    const DistanceField field = compute_distance_field(mask, goal, options.field);
    if (field.reachable(start) || !options.snap_to_reachable) {
      return path_from_field(mask, field, start, options);
    }
    goal_reachable = false;
  }
  if (!options.snap_to_reachable) {
    PathResult result;
    result.goal = goal;
    return result;
  }
  const auto ends = snap_endpoints(mask, options.field, start, goal, goal_reachable);
  if (!ends) {
    PathResult result;
    result.goal = goal;
    return result;
  }
  FindPathOptions plain = options;
  plain.snap_to_reachable = false;
  return find_path_between(mask, ends->start, ends->goal, plain);
}

}  // namespace

PathResult find_path(const Mask& mask, Point start, Point goal, const FindPathOptions& options) {
  PathResult result = find_path_between(mask, start, goal, options);
  explain_result(mask, options.field.enabled & kAllAreas, start, goal, result);
  return result;
}

}  // namespace pathcore
