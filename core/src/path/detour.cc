// path_around_obstacles (pathcore/detour.h): the field of a mask with a few
// more pixels blocked, repaired from the field without them only where a
// trace from one start can look, and the path on it.
//
// D: the field without the obstacles; D': the field with them. D' >= D, and
// D'(q) = D(q) unless every cheapest step of q (to a neighbour n with
// D(n) + step = D(q)) is cut: n blocked, n affected itself, or a diagonal
// step losing a pixel beside it. Such "affected" pixels are found in the
// order of D (a pixel's cheapest steps all lead to cheaper pixels, decided
// before it), each with D'(q) > D(q). Their D' is a Dijkstra over them,
// seeded from their unaffected neighbours (D(n) + step). A trace from the
// start steps only onto pixels cheaper than the start (by D'), so:
//  - an unaffected start needs affected pixels decided up to D(start) only,
//    and no new costs: it never steps onto an affected pixel (D'(q) > D(q)
//    >= D(p) - step), nor onto an undecided one (dearer than the start);
//  - an affected start needs the Dijkstra until the start is settled, with
//    every pixel cheaper than the Dijkstra's key decided before that key is
//    taken (D(q) < D'(q) orders the two searches); the pixels it has not
//    settled cost at least the start's D', so none is a step of the trace.
#include "pathcore/detour.h"

#include <array>
#include <cstdint>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "mask/interrupt_check.h"
#include "mask/point_checks.h"
#include "path/field_answer.h"
#include "path/repaired_field.h"
#include "path/steps.h"

namespace pathcore {
namespace {

constexpr std::array<Step, 8> kAllSteps = {{kCardinalSteps[0], kCardinalSteps[1],
                                             kCardinalSteps[2], kCardinalSteps[3],
                                             kDiagonalSteps[0], kDiagonalSteps[1],
                                             kDiagonalSteps[2], kDiagonalSteps[3]}};

GridCost plus(GridCost c, GridCost d) { return {c.straight + d.straight, c.diagonal + d.diagonal}; }

struct Queued {
  double key = 0;
  GridCost cost;
  Point at;
  // Repair entries: the neighbour the cost came through, and whether its
  // cost was D (valid while that neighbour is not affected) or D'.
  Point via;
  bool via_base = false;
};
struct Later {
  bool operator()(const Queued& a, const Queued& b) const { return a.key > b.key; }
};
using Queue = std::priority_queue<Queued, std::vector<Queued>, Later>;

class Repair {
 public:
  Repair(const Mask& mask, RepairedField& field, std::size_t max_pixels,
         const std::function<bool()>& interrupt)
      : mask_(mask),
        field_(field),
        base_(field.base()),
        options_(base_.options()),
        steps_(options_.connectivity == Connectivity::kFour ? 4 : 8),
        max_pixels_(max_pixels),
        check_(interrupt) {}

  // Repairs field_ for a trace from start (reachable in the base field, not
  // blocked); false when the work passed max_pixels.
  bool run(Point start) {
    std::size_t seeds = 0;
    bool over = false;
    field_.blocked().for_each([&](Point b) {
      if (over || ++seeds > max_pixels_) {
        over = true;
        return;
      }
      push_uphill(b, GridCost{}, /*blocked=*/true);
    });
    if (over) return false;
    const GridCost start_cost = base_.exact(start);
    const double start_key = start_cost.value();
    while (!decide_.empty() && decide_.top().key <= start_key) {
      if (!decide_next()) return false;
    }
    if (!field_.affected(field_.index(start))) return true;
    for (;;) {
      const double next_key = repair_.empty() ? std::numeric_limits<double>::infinity()
                                              : repair_.top().key;
      if (!decide_.empty() && decide_.top().key < next_key) {
        if (!decide_next()) return false;
        continue;
      }
      if (repair_.empty()) return true;  // the start cannot reach the goal now
      const Queued entry = repair_.top();
      repair_.pop();
      const std::size_t i = field_.index(entry.at);
      if (field_.repaired(i)) continue;
      if (entry.via_base && field_.affected(field_.index(entry.via))) continue;  // stale
      if (!count()) return false;
      field_.repair(i, entry.cost);
      
      if (entry.at == start) return true;
      // Affected neighbours that may step onto this pixel now.
      for (std::size_t s = 0; s < steps_; ++s) {
        const Point r = entry.at + kAllSteps[s];
        if (!field_.contains(r)) continue;
        const std::size_t ri = field_.index(r);
        if (!field_.affected(ri) || field_.repaired(ri) || !step_open(r, entry.at, s)) continue;
        const GridCost cost = plus(entry.cost, step_cost(entry.at, s >= 4));
        repair_.push({cost.value(), cost, r, entry.at, false});
      }
    }
  }

 private:
  // Blocked now: pixels with the obstacles' area 0 (and outside).
  [[nodiscard]] bool open(Point p) const { return mask_.walkable(p, options_.enabled); }
  // The cost of a step onto n (its area's), diagonal or not.
  [[nodiscard]] GridCost step_cost(Point n, bool diagonal) const {
    const std::uint32_t c = options_.area_costs[mask_.area(n)];
    return diagonal ? GridCost{0, c} : GridCost{c, 0};
  }
  // Whether the step from p to its neighbour n (kAllSteps[s], n = p + step)
  // exists on the blocked mask: n walkable, and a diagonal step's two pixels
  // beside it unless corners may be cut.
  [[nodiscard]] bool step_open(Point p, Point n, std::size_t s) const {
    if (!open(n)) return false;
    if (s < 4 || options_.allow_corner_cutting) return true;
    return open(Point{n.x, p.y}) && open(Point{p.x, n.y});
  }
  bool count() {
    check_.after(1);
    return ++work_ <= max_pixels_;
  }

  // Queues the pixels whose cheapest steps may have gone through p: the
  // neighbours dearer than p when p is affected (of base cost `cost`); every
  // neighbour when it is blocked, which also cuts the diagonal steps beside
  // it (between two of its neighbours).
  void push_uphill(Point p, GridCost cost, bool blocked) {
    const double key = cost.value();
    for (std::size_t s = 0; s < steps_; ++s) {
      const Point q = p + kAllSteps[s];
      if (!base_.reachable(q) || field_.blocked().blocks(q)) continue;
      const GridCost q_cost = base_.exact(q);
      if (blocked || q_cost.value() > key) decide_.push({q_cost.value(), q_cost, q, {}, false});
    }
  }

  // Decides the cheapest queued pixel: affected when none of its cheapest
  // steps survives. False when the work passed max_pixels.
  bool decide_next() {
    const Queued entry = decide_.top();
    decide_.pop();
    const Point q = entry.at;
    const std::size_t qi = field_.index(q);
    if (field_.affected(qi) || !seen(qi)) return true;
    if (!count()) return false;
    if (entry.cost == GridCost{}) return true;  // the goal: no step to survive
    for (std::size_t s = 0; s < steps_; ++s) {
      const Point n = q + kAllSteps[s];
      if (!base_.reachable(n) || !step_open(q, n, s) || field_.affected(field_.index(n))) continue;
      if (plus(base_.exact(n), step_cost(n, s >= 4)) == entry.cost) return true;  // survives
    }
    field_.mark_affected(qi);
    
    push_uphill(q, entry.cost, /*blocked=*/false);
    // Its first costs for the repair: through each neighbour it can step
    // onto, at the neighbour's base cost while that one is not affected, or
    // its new cost once repaired.
    for (std::size_t s = 0; s < steps_; ++s) {
      const Point n = q + kAllSteps[s];
      if (!base_.reachable(n) || !step_open(q, n, s)) continue;
      const std::size_t ni = field_.index(n);
      if (!field_.affected(ni)) {
        const GridCost cost = plus(base_.exact(n), step_cost(n, s >= 4));
        repair_.push({cost.value(), cost, q, n, true});
      } else if (field_.repaired(ni)) {
        const GridCost cost = plus(field_.exact(n), step_cost(n, s >= 4));
        repair_.push({cost.value(), cost, q, n, false});
      }
    }
    return true;
  }
  // True the first time pixel i is decided.
  bool seen(std::size_t i) {
    if (decided_.empty()) decided_.assign((base_.width() * std::size_t{base_.height()} + 63) / 64, 0);
    const std::uint64_t bit = std::uint64_t{1} << (i % 64);
    if ((decided_[i / 64] & bit) != 0) return false;
    decided_[i / 64] |= bit;
    return true;
  }

  const Mask& mask_;
  RepairedField& field_;
  const DistanceField& base_;
  const FieldOptions& options_;
  std::size_t steps_;
  std::size_t max_pixels_;
  InterruptCheck check_;
  std::size_t work_ = 0;
  Queue decide_;
  Queue repair_;
  std::vector<std::uint64_t> decided_;
};

}  // namespace

std::optional<PathResult> path_around_obstacles(const Mask& blocked_mask,
                                                const DistanceField& field,
                                                const ObstacleSet& blocked, Point start,
                                                const FindPathOptions& options,
                                                std::size_t max_pixels,
                                                const std::function<bool()>& interrupt) {
  if (field.width() != blocked_mask.width() || field.height() != blocked_mask.height()) {
    throw InvalidArgument("distance field does not fit the mask");
  }
  if (field.several_goals()) {
    throw InvalidArgument("path_around_obstacles needs a field to one goal");
  }
  require_inside(blocked_mask, start, "start");
  RepairedField repaired(field, blocked);
  if (blocked.blocks(field.goal())) {
    // F reaches nowhere: the start reads unreachable as an affected pixel
    // never repaired.
    repaired.mark_affected(repaired.index(start));
  } else if (field.reachable(start) && !blocked.blocks(start)) {
    Repair repair(blocked_mask, repaired, max_pixels, interrupt);
    if (!repair.run(start)) return std::nullopt;
  }
  // Else the start is blocked, or was cut off already: unreachable in the
  // repaired field as in F.
  return path_from_repaired_field(blocked_mask, repaired, start, options);
}

}  // namespace pathcore
