// Walking down a distance field from a start to its goal: trace, simplify
// and trace_for_smoothing (pathcore/path.h).
#include "path/trace.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "mask/point_checks.h"
#include "path/steps.h"
#include "path/trace_memo.h"

namespace pathcore {
namespace {

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
  // The trace took `count` more steps along `step` from `from` (a straight
  // run, each step the previous direction): no corner, every pixel in a full trace.
  void ran(Point from, Step step, std::uint32_t count) {
    if (!corners_only_) {
      const std::size_t before = path_.size();
      path_.resize(before + count);
      Point* out = path_.data() + before;
      for (std::uint32_t k = 1; k <= count; ++k) {
        out[k - 1] = {from.x + static_cast<std::int32_t>(k) * step.dx,
                      from.y + static_cast<std::int32_t>(k) * step.dy};
      }
    }
  }
  // Points kept so far.
  [[nodiscard]] std::size_t size() const { return path_.size(); }
  // The trace goes on as `earlier` did after its first `kept` points (it
  // stands where earlier stood then, after the same last step): those
  // points are earlier's from there on, its end included.
  Path finish_as(const Path& earlier, std::size_t kept) {
    path_.insert(path_.end(), earlier.begin() + static_cast<std::ptrdiff_t>(kept), earlier.end());
    return std::move(path_);
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

// A field's reads of a neighbour for a trace: whether it may be reachable,
// its cost if so, and whether that cost is the field's (asked only when the
// cost makes a step downhill). A DistanceField's reads are final; a
// RepairedField's are D's until confirmed (RepairedField::maybe_reachable).
bool read_reachable(const DistanceField& field, Point p) { return field.reachable(p); }
bool read_reachable(const RepairedField& field, Point p) { return field.maybe_reachable(p); }
bool confirmed(const DistanceField& /*field*/, Point /*p*/) { return true; }
bool confirmed(const RepairedField& field, Point p) { return field.confirmed(p); }

// How trace_four reads a kFour field. ExactCosts decodes a GridCost per
// pixel and adds the entered pixel's area cost (any field); StoredUnitCosts
// reads the stored integers of a unit-cost field directly (the common case:
// no decoding, a step costs 1). Both: reachable(p) for p inside; cost(p) for
// p reachable; entered(n, c) = c plus the cost of stepping onto n.
template <typename Field>
class ExactCosts {
 public:
  using Cost = GridCost;
  ExactCosts(const Mask& mask, const Field& field)
      : mask_(mask), field_(field), area_costs_(field.options().area_costs) {}
  [[nodiscard]] bool reachable(Point p) const { return read_reachable(field_, p); }
  [[nodiscard]] Cost cost(Point p) const { return field_.exact(p); }
  [[nodiscard]] bool confirmed(Point p) const { return pathcore::confirmed(field_, p); }
  [[nodiscard]] Cost entered(Point n, Cost c) const {
    c.straight += area_costs_[mask_.area(n)];
    return c;
  }

 private:
  const Mask& mask_;
  const Field& field_;
  const AreaCosts& area_costs_;
};

// ExactCosts on a field to several goals, keeping to the pixels whose goal
// index is the start's: every such pixel has a cheapest step to another
// (its index is the lowest of its cheapest steps'), so the trace ends at the
// goal the start's cost leads to, goals[index].
class LabelledCosts : public ExactCosts<DistanceField> {
 public:
  LabelledCosts(const Mask& mask, const DistanceField& field, std::uint32_t label)
      : ExactCosts(mask, field), field_(field), label_(label) {}
  [[nodiscard]] bool reachable(Point p) const {
    return field_.reachable(p) && field_.goal_index(p) == label_;
  }

 private:
  const DistanceField& field_;
  std::uint32_t label_;
};

template <typename Word>
class StoredUnitCosts {
 public:
  using Cost = std::uint32_t;
  StoredUnitCosts(const DistanceField& field, const Word* costs)
      : costs_(costs),
        stride_(field.stride()),
        origin_(field.origin()),
        bordered_(field.bordered()) {}
  [[nodiscard]] bool reachable(Point p) const { return stored(p) < kNotReachable; }
  [[nodiscard]] Cost cost(Point p) const { return stored(p); }
  [[nodiscard]] static Cost entered(Point /*n*/, Cost c) { return c + 1; }
  [[nodiscard]] static bool confirmed(Point /*p*/) { return true; }

  // A FieldBuilder's field: a one-pixel border of unreachable values around
  // the pixels, so the neighbours of any pixel can be read without a bounds
  // check. Then run and offer_downhill_steps read only costs, never the mask: a
  // pixel with a cost is walkable, and in a breadth-first field neighbours
  // differ by exactly 1 (settled pixels hold their final cost, and every
  // pixel cheaper than a settled one is settled). So a diagonal step from a
  // pixel of cost h is offered (both pixels beside it walkable, one of them
  // at h - 1, the diagonal pixel at h - 2) exactly when both pixels beside
  // it cost h - 1 and the diagonal pixel h - 2: a walkable pixel next to
  // both costs h - 1. (A field made from plain distances has no border.)
  [[nodiscard]] bool bordered() const { return bordered_; }

  // How many steps along `step` from `at` (cost `here`) trace_four takes
  // next without a choice: the previous direction, as long as its general
  // step would pick it again (bordered fields; see bordered()):
  //  - a cardinal step continues when the pixel ahead costs here - 1 and,
  //    with diagonal shortcuts, neither pixel beside costs here - 1 (with
  //    neither, no diagonal is offered);
  //  - a diagonal step continues while it is offered.
  [[nodiscard]] std::uint32_t run(Point at, Step step, Cost here, bool diagonal_shortcuts) const {
    const auto stride = static_cast<std::ptrdiff_t>(stride_);
    const Word* p = costs_ + origin_ + static_cast<std::size_t>(at.y) * stride_ +
                    static_cast<std::size_t>(at.x);
    Cost h = here;
    if (step.dx != 0 && step.dy != 0) {
      const std::ptrdiff_t side_a = step.dx;
      const std::ptrdiff_t side_b = step.dy * stride;
      while (h >= 2 && p[side_a] == h - 1 && p[side_b] == h - 1 && p[side_a + side_b] == h - 2) {
        p += side_a + side_b;
        h -= 2;
      }
      return (here - h) / 2;
    }
    const std::ptrdiff_t ahead = step.dx + step.dy * stride;
    if (!diagonal_shortcuts) {
      while (h != 0 && p[ahead] == h - 1) {
        p += ahead;
        --h;
      }
      return here - h;
    }
    const std::ptrdiff_t beside = step.dy + step.dx * stride;
    while (h != 0 && p[ahead] == h - 1 && p[beside] != h - 1 && p[-beside] != h - 1) {
      p += ahead;
      --h;
    }
    return here - h;
  }

  // Offers chooser the steps trace_four's general step offers from `at`
  // (cost `here` > 0) on a bordered field: the diagonal steps, when
  // diagonal_shortcuts, else (or when none is) the cardinal ones downhill.
  void offer_downhill_steps(Point at, Cost here, bool diagonal_shortcuts,
                            StepChooser& chooser) const {
    const auto stride = static_cast<std::ptrdiff_t>(stride_);
    const Word* p = costs_ + origin_ + static_cast<std::size_t>(at.y) * stride_ +
                    static_cast<std::size_t>(at.x);
    const std::array<std::ptrdiff_t, 4> offsets = {1, stride, -1, -stride};  // kCardinalSteps
    std::array<bool, 4> down{};
    for (std::size_t s = 0; s < 4; ++s) {
      down[s] = p[offsets[s]] == here - 1;
    }
    if (diagonal_shortcuts && here >= 2) {
      for (std::size_t d = 0; d < 4; ++d) {
        const std::size_t side_a = kDiagonalSides[d][0];
        const std::size_t side_b = kDiagonalSides[d][1];
        if (down[side_a] && down[side_b] && p[offsets[side_a] + offsets[side_b]] == here - 2) {
          chooser.offer(kDiagonalSteps[d]);
        }
      }
      if (chooser.chosen()) {
        return;
      }
    }
    for (std::size_t s = 0; s < 4; ++s) {
      if (down[s]) {
        chooser.offer(kCardinalSteps[s]);
      }
    }
  }

 private:
  static constexpr Word kNotReachable = static_cast<Word>(~Word{0} - 1);  // and above
  [[nodiscard]] Word stored(Point p) const {
    return costs_[origin_ + static_cast<std::size_t>(p.y) * stride_ +
                  static_cast<std::size_t>(p.x)];
  }
  const Word* costs_;
  std::size_t stride_;
  std::size_t origin_;
  bool bordered_;
};

// trace on a kFour field (see trace); start is reachable. Each cardinal
// neighbour is read once per step: whether it is walkable, and its cost plus
// the cost of entering it when it is reachable. memo (corners only, bordered
// unit-cost fields; else null): where this trace turns, it copies the rest
// of an earlier trace that turned the same way at the same pixel, and
// leaves its own turns for later traces.
template <typename Field, typename Costs>
Path trace_four(const Mask& mask, const Field& field, const Costs& costs, Point start,
                bool diagonal_shortcuts, bool corners_only, TraceMemo::State* memo) {
  using Cost = typename Costs::Cost;
  const AreaSet enabled = field.options().enabled;
  const Point goal = field.goal(field.goal_index(start));
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
    return costs.entered(n, cost) == here && costs.confirmed(n);
  };
  while (here != Cost{}) {
    if constexpr (std::is_same_v<Cost, std::uint32_t>) {
      if (costs.bordered()) {
        // Straight runs in one go, then one step chosen from costs alone
        // (StoredUnitCosts::bordered).
        if (previous != Step{}) {
          if (memo != nullptr) {
            if (const TraceMemo::State::Seen* seen = memo->find(at, previous)) {
              Path path = points.finish_as(memo->traces[seen->trace], seen->points);
              memo->add(path);
              return path;
            }
            memo->remember(at, previous, points.size());
          }
          const std::uint32_t count = costs.run(at, previous, here, diagonal_shortcuts);
          points.ran(at, previous, count);
          at = {at.x + static_cast<std::int32_t>(count) * previous.dx,
                at.y + static_cast<std::int32_t>(count) * previous.dy};
          here -= count * (previous.dx != 0 && previous.dy != 0 ? 2 : 1);
          if (here == Cost{}) {
            break;
          }
        }
        StepChooser chooser(previous, at, goal);
        costs.offer_downhill_steps(at, here, diagonal_shortcuts, chooser);
        if (!chooser.chosen()) {
          throw InvalidArgument("distance field has no downhill neighbour at " + point_text(at));
        }
        points.stepped(at, chooser.best(), previous);
        previous = chooser.best();
        at = at + previous;
        here -= previous.dx != 0 && previous.dy != 0 ? 2 : 1;
        continue;
      }
    }
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
          take = ((down_a && via == cost_a) || (down_b && via == cost_b)) && costs.confirmed(n);
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
        down[s] = costs.entered(n, cost[s]) == here && costs.confirmed(n);
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
        if (((down[side_a] && via == cost[side_a]) || (down[side_b] && via == cost[side_b])) &&
            costs.confirmed(n)) {
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
  Path path = points.finish(at, previous);
  if (memo != nullptr) {
    memo->add(path);
  }
  return path;
}

// trace, keeping every pixel or (corners_only) only simplify's points. memo:
// see trace_four (used on unit-cost four-connected fields, corners only).
// Field: a DistanceField, or a RepairedField (a field read through another,
// with no several goals and no stored words of its own).
template <typename Field>
Path trace_points(const Mask& mask, const Field& field, Point start, bool diagonal_shortcuts,
                  bool corners_only, TraceMemo::State* memo = nullptr) {
  if (field.width() != mask.width() || field.height() != mask.height()) {
    throw InvalidArgument("distance field does not fit the mask");
  }
  if (!field.reachable(start)) {
    return {};
  }
  const FieldOptions& options = field.options();
  const std::uint32_t label = field.goal_index(start);
  if (options.connectivity == Connectivity::kFour) {
    // A RepairedField has neither several goals nor stored words.
    if constexpr (std::is_same_v<Field, DistanceField>) {
      if (field.several_goals()) {
        return trace_four(mask, field, LabelledCosts(mask, field, label), start, diagonal_shortcuts,
                          corners_only, nullptr);
      }
      if (options.area_costs == unit_area_costs()) {
        if (!corners_only) {
          memo = nullptr;
        }
        if (const auto* stored = field.template four_costs<std::uint16_t>(); stored != nullptr) {
          return trace_four(mask, field, StoredUnitCosts(field, stored), start, diagonal_shortcuts,
                            corners_only, memo);
        }
        if (const auto* stored = field.template four_costs<std::uint32_t>(); stored != nullptr) {
          return trace_four(mask, field, StoredUnitCosts(field, stored), start, diagonal_shortcuts,
                            corners_only, memo);
        }
      }
    }
    return trace_four(mask, field, ExactCosts<Field>(mask, field), start, diagonal_shortcuts,
                      corners_only, nullptr);
  }
  // Eight-connected.
  const AreaCosts& costs = options.area_costs;
  const AreaSet enabled = options.enabled;
  const bool cutting = options.allow_corner_cutting;
  // True when the step to n (diagonal or not) leads exactly downhill from `here`.
  const auto downhill = [&](GridCost here, Point n, bool diagonal) {
    if (!read_reachable(field, n) || field.goal_index(n) != label) {
      return false;  // with several goals: only toward the start's
    }
    GridCost via = field.exact(n);
    const std::uint32_t step = costs[mask.area(n)];
    (diagonal ? via.diagonal : via.straight) += step;
    return via == here && confirmed(field, n);
  };
  const Point goal = field.goal(label);
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

}  // namespace

TraceMemo::TraceMemo() : state_(std::make_unique<State>()) {}
TraceMemo::~TraceMemo() = default;

void TraceMemo::clear() { state_->clear(); }

std::size_t TraceMemo::memory_bytes() const { return state_->memory_bytes(); }

namespace {

// trace_for_smoothing, keeping every pixel or (corners_only) only simplify's
// points.
template <typename Field>
Path smoothing_trace_on(const Mask& mask, const Field& field, Point start, bool corners_only,
                        TraceMemo* memo) {
  const FieldOptions& options = field.options();
  TraceMemo::State* memo_state = nullptr;
  // Unit costs only: with area costs the trace may be the plain one (below).
  if constexpr (std::is_same_v<Field, DistanceField>) {
    if (memo != nullptr && options.connectivity == Connectivity::kFour &&
        options.area_costs == unit_area_costs()) {
      memo_state = &memo->state();
      memo_state->bind(field);
    }
  }
  Path traced;
  try {
    traced =
        trace_points(mask, field, start, /*diagonal_shortcuts=*/true, corners_only, memo_state);
  } catch (...) {
    if (memo_state != nullptr) {
      memo_state->clear();  // its turns would name a trace never added
    }
    throw;
  }
  if (options.connectivity == Connectivity::kFour && options.area_costs != unit_area_costs()) {
    // Weighted terrain: equal-cost paths can differ in steps (found by the
    // find_path fuzzer: a detour over cheap terrain traced instead of the
    // plain trace's shorter way over dearer pixels). Dropping the inner
    // points of straight runs does not change a length.
    // Nor does it change a cost (the same polyline). A shortcut is dearer
    // than the two steps it replaces when the pixel between them is cheaper
    // than its two ends.
    Path plain = trace_points(mask, field, start, /*diagonal_shortcuts=*/false, corners_only);
    if (polyline_length(traced) > polyline_length(plain) ||
        polyline_cost(traced, mask, options.enabled, options.area_costs) >
            polyline_cost(plain, mask, options.enabled, options.area_costs)) {
      return plain;
    }
  }
  return traced;
}

}  // namespace

Path smoothing_trace(const Mask& mask, const DistanceField& field, Point start, bool corners_only,
                     TraceMemo* memo) {
  return smoothing_trace_on(mask, field, start, corners_only, memo);
}

Path smoothing_trace(const Mask& mask, const RepairedField& field, Point start, bool corners_only) {
  return smoothing_trace_on(mask, field, start, corners_only, nullptr);
}

Path trace(const Mask& mask, const DistanceField& field, Point start, bool diagonal_shortcuts) {
  return trace_points(mask, field, start, diagonal_shortcuts, /*corners_only=*/false);
}

Path trace(const Mask& mask, const RepairedField& field, Point start, bool diagonal_shortcuts) {
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

Path trace_for_smoothing(const Mask& mask, const DistanceField& field, Point start) {
  return smoothing_trace(mask, field, start, /*corners_only=*/false);
}

}  // namespace pathcore
