// path_around_obstacles (pathcore/detour.h): the path on the field F of a
// mask with a few more pixels blocked, read from the field D without them
// (RepairedField) and searched only where the start's detour lies.
//
// An alive start (F = D there) needs nothing more: a trace steps from an
// alive pixel only onto alive ones (a dead n has F(n) > D(n) >= D(p) - step),
// which RepairedField decides as the trace reads them.
//
// A dead start (every cheapest way it had is cut) needs F on the dead
// pixels of its cheapest paths. Those pixels come first on every cheapest
// path from the start (after an alive pixel a cheapest path stays on alive
// ones, by the triangle inequality of D), so an A* from the start that
// expands only dead pixels, with D as its heuristic (admissible and
// consistent: blocking only removes steps) and every alive neighbour a
// terminal at its exact F = D, finds C = F(start) when the first terminal
// leaves the queue. It goes on while the queue's smallest f is at most C:
// then it has expanded every dead pixel x with dist(start, x) + D(x) <= C,
// which includes every dead pixel of a cheapest path. A Dijkstra over those
// expanded pixels, seeded from their alive neighbours, gives each its cost
// within them: exactly F on the cheapest paths, at least F elsewhere (so
// never a false downhill step: an equality with an exact cost is exact).
// Dead pixels not expanded lie on no cheapest path and read unreachable.
#include "pathcore/detour.h"

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "mask/point_checks.h"
#include "path/field_answer.h"
#include "path/paged_pixels.h"
#include "path/repaired_field.h"
#include "path/steps.h"

namespace pathcore {
namespace {

// Cardinal steps first, so a four-connected field uses the first four.
constexpr std::array<Step, 8> kAllSteps = {{kCardinalSteps[0], kCardinalSteps[1], kCardinalSteps[2],
                                            kCardinalSteps[3], kDiagonalSteps[0], kDiagonalSteps[1],
                                            kDiagonalSteps[2], kDiagonalSteps[3]}};
// The step back: kAllSteps[kOpposite[s]] = -kAllSteps[s].
constexpr std::array<std::size_t, 8> kOpposite = {2, 3, 0, 1, 6, 7, 4, 5};

GridCost plus(GridCost c, GridCost d) { return {c.straight + d.straight, c.diagonal + d.diagonal}; }

// The A* over the dead pixels from a dead start, then F written into the
// field for the dead pixels of its cheapest paths (see the file comment).
void search_detour(RepairedField& field, Point start) {
  const DistanceField& base = field.base();
  struct Queued {
    double f = 0;
    double g = 0;
    std::size_t index = 0;
  };
  // Smallest f first; among equal f the deepest (largest g): it reaches a
  // terminal soonest.
  struct Later {
    bool operator()(const Queued& a, const Queued& b) const {
      return a.f > b.f || (a.f == b.f && a.g < b.g);
    }
  };
  std::priority_queue<Queued, std::vector<Queued>, Later> queue;
  enum Stage : std::uint8_t { kUnseen = 0, kQueued, kExpanded, kOnCheapestPath };
  struct Seen {
    GridCost g;
    Stage stage = kUnseen;
  };
  const std::size_t width = base.width();
  const auto point = [width](std::size_t i) {
    return Point{static_cast<std::int32_t>(i % width), static_cast<std::int32_t>(i / width)};
  };
  PagedPixels<Seen> seen(width * base.height());
  seen.at(field.index(start)).stage = kQueued;
  queue.push({base.exact(start).value(), 0, field.index(start)});
  // The cheapest way through a terminal found so far: C once the queue's
  // smallest f passes it (a terminal on a cheapest path is found from a
  // dead pixel whose f is at most C, expanded before anything dearer).
  double best = std::numeric_limits<double>::infinity();
  // Dead pixels with a step onto a terminal, and the cost through it.
  struct Exit {
    std::size_t index;
    GridCost cost;
  };
  std::vector<Exit> exits;
  while (!queue.empty() && queue.top().f <= best) {
    const Queued entry = queue.top();
    queue.pop();
    Seen& here = seen.at(entry.index);
    if (here.stage == kExpanded || here.g.value() != entry.g) continue;
    here.stage = kExpanded;
    field.count_expansion();
    const Point at = point(entry.index);
    const GridCost at_g = here.g;
    for (std::uint8_t left = field.open_steps(at); left != 0; left &= left - 1) {
      const auto s = static_cast<std::size_t>(std::countr_zero(left));
      const Point n = at + kAllSteps[s];
      if (!base.reachable(n)) continue;
      const GridCost g = plus(at_g, field.step_cost(at, s));
      const GridCost through = plus(g, base.exact(n));
      const double f = through.value();
      if (field.alive(n)) {
        if (f <= best) {
          best = f;
          exits.push_back({entry.index, through});
        }
        continue;
      }
      Seen& next = seen.at(field.index(n));
      if (next.stage == kExpanded || (next.stage == kQueued && next.g.value() <= g.value())) {
        continue;
      }
      next = {g, kQueued};
      queue.push({f, g.value(), field.index(n)});
    }
  }
  if (exits.empty()) return;  // the start is cut off
  // The dead pixels of the cheapest paths: back from the exits at cost C
  // along steps their costs from the start fit exactly. F = C - g there.
  GridCost cheapest;
  for (const Exit& exit : exits) {
    if (exit.cost.value() == best) cheapest = exit.cost;
  }
  std::vector<std::size_t> on_path;
  for (const Exit& exit : exits) {
    Seen& x = seen.at(exit.index);
    if (exit.cost == cheapest && x.stage != kOnCheapestPath) {
      x.stage = kOnCheapestPath;
      on_path.push_back(exit.index);
    }
  }
  while (!on_path.empty()) {
    const std::size_t i = on_path.back();
    on_path.pop_back();
    const Point at = point(i);
    const GridCost g = seen.get(i).g;
    field.count_write_back();
    field.repair(at, {cheapest.straight - g.straight, cheapest.diagonal - g.diagonal});
    for (std::uint8_t left = field.open_steps(at); left != 0; left &= left - 1) {
      const auto s = static_cast<std::size_t>(std::countr_zero(left));
      const Point w = at + kAllSteps[s];
      const std::size_t wi = field.index(w);
      Seen& before = seen.at(wi);
      if (before.stage == kExpanded && plus(before.g, field.step_cost(w, kOpposite[s])) == g) {
        before.stage = kOnCheapestPath;
        on_path.push_back(wi);
      }
    }
  }
}

}  // namespace

RepairedField::RepairedField(const DistanceField& base, const Mask& blocked_mask,
                             std::size_t max_work, const std::function<bool()>& interrupt,
                             DetourScratch& scratch)
    : base_(base),
      blocked_mask_(blocked_mask),
      unit_words16_(unit_four_words<std::uint16_t>(base)),
      unit_words32_(unit_four_words<std::uint32_t>(base)),
      steps_(base.options().connectivity == Connectivity::kFour ? 4 : 8),
      max_work_(max_work),
      check_(interrupt),
      scratch_(scratch),
      tiles_across_((std::size_t{base.width()} + 7) / 8),
      states_(nullptr),
      repaired_(static_cast<std::size_t>(base.width()) * base.height()) {
  const std::size_t slots = tiles_across_ * ((std::size_t{base.height()} + 7) / 8) * 64;
  if (scratch_.states_.size() != slots) {
    scratch_.states_.assign(slots, kUnknown);
    scratch_.touched_.clear();
  }
  states_ = scratch_.states_.data();
}

void RepairedField::count(std::size_t work) const {
  check_.after(work);
  work_ += work;
  if (work_ > max_work_) throw DetourTooCostly{};
}

GridCost RepairedField::step_cost(Point p, std::size_t s) const {
  const std::uint32_t c = base_.options().area_costs[blocked_mask_.area(p + kAllSteps[s])];
  return s >= 4 ? GridCost{0, c} : GridCost{c, 0};
}

std::uint8_t RepairedField::open_steps(Point p) const {
  // The 3x3 block around p, read once (straight from the grid inside it).
  std::array<bool, 9> walkable{};
  const AreaSet enabled = base_.options().enabled;
  if (p.x > 0 && p.y > 0 && static_cast<std::uint32_t>(p.x) + 1 < base_.width() &&
      static_cast<std::uint32_t>(p.y) + 1 < base_.height()) {
    const std::size_t width = base_.width();
    const std::uint8_t* row = blocked_mask_.areas().data() + index(p) - width - 1;
    for (std::size_t r = 0; r < 3; ++r, row += width) {
      for (std::size_t c = 0; c < 3; ++c) walkable[r * 3 + c] = ((enabled >> row[c]) & 1U) != 0;
    }
  } else {
    for (std::int32_t dy = -1; dy <= 1; ++dy) {
      for (std::int32_t dx = -1; dx <= 1; ++dx) {
        walkable[static_cast<std::size_t>((dy + 1) * 3 + dx + 1)] = open({p.x + dx, p.y + dy});
      }
    }
  }
  const auto at = [&](std::int32_t dx, std::int32_t dy) {
    return walkable[static_cast<std::size_t>((dy + 1) * 3 + dx + 1)];
  };
  const bool cutting = base_.options().allow_corner_cutting;
  std::uint8_t steps = 0;
  for (std::size_t s = 0; s < steps_; ++s) {
    const Step step = kAllSteps[s];
    if (!at(step.dx, step.dy)) continue;
    if (s >= 4 && !cutting && !(at(step.dx, 0) && at(0, step.dy))) continue;
    steps |= static_cast<std::uint8_t>(1U << s);
  }
  return steps;
}

std::uint8_t RepairedField::cheapest_steps(Point p, GridCost cost) const {
  std::uint8_t steps = 0;
  for (std::uint8_t left = open_steps(p); left != 0; left &= left - 1) {
    const auto s = static_cast<std::size_t>(std::countr_zero(left));
    const Point n = p + kAllSteps[s];
    if (base_.reachable(n) && plus(base_.exact(n), step_cost(p, s)) == cost) {
      steps |= static_cast<std::uint8_t>(1U << s);
    }
  }
  return steps;
}

bool RepairedField::alive(Point p) const {
  if (!open(p) || !base_.reachable(p) || !open(base_.goal())) return false;
  if (const State known = state(p); known != kUnknown) return known == kAlive;
  if (p == base_.goal()) {
    set_state(p, kAlive);
    return true;
  }
  if (unit_words16_ != nullptr) {
    return walk(p, 1, [&](Point n) { return unit_four_cheapest_steps(unit_words16_, n); });
  }
  if (unit_words32_ != nullptr) {
    return walk(p, 1, [&](Point n) { return unit_four_cheapest_steps(unit_words32_, n); });
  }
  return walk(p, kStepWork, [&](Point n) { return cheapest_steps(n, base_.exact(n)); });
}

template <typename Word>
const Word* RepairedField::unit_four_words(const DistanceField& field) {
  const FieldOptions& options = field.options();
  if (options.connectivity != Connectivity::kFour || options.area_costs != unit_area_costs() ||
      !field.bordered()) {
    return nullptr;
  }
  return field.template four_costs<Word>();
}

template <typename Word>
std::uint8_t RepairedField::unit_four_cheapest_steps(const Word* words, Point p) const {
  // A bordered unit-cost field: the neighbours' words are read without a
  // bounds check (the border is unreachable, all ones and above), and a
  // pixel one cheaper is reachable, so walkable on the mask without the
  // obstacles; only the blocked mask's own pixel is read besides.
  const std::size_t stride = base_.stride();
  const std::size_t width = base_.width();
  const Word* w = words + base_.origin() + static_cast<std::size_t>(p.y) * stride +
                  static_cast<std::size_t>(p.x);
  if (*w == 0) return 0;
  const Word down = static_cast<Word>(*w - 1);
  const std::uint8_t* area = blocked_mask_.areas().data() + index(p);
  const AreaSet enabled = base_.options().enabled;
  const auto open_area = [enabled](std::uint8_t a) { return ((enabled >> a) & 1U) != 0; };
  std::uint8_t steps = 0;
  if (w[1] == down && open_area(area[1])) steps |= 1U;
  if (w[stride] == down && open_area(area[width])) steps |= 2U;
  if (w[-1] == down && open_area(*(area - 1))) steps |= 4U;
  if (*(w - stride) == down && open_area(*(area - width))) steps |= 8U;
  return steps;
}

template <typename CheapestSteps>
bool RepairedField::walk(Point p, std::size_t step_work, CheapestSteps&& cheapest) const {
  // Depth first down the cheapest steps of D, each frame descending first
  // where a trace would step (its previous direction, else the one most
  // toward the goal): walks from neighbouring pixels then run into each
  // other, and into the trace, within a few steps. A frame keeps the steps
  // it has not ruled out; the one it descended into stays until decided.
  constexpr std::uint8_t kNoStep = 8;
  const Point goal = base_.goal();
  std::vector<Frame>& stack = walk_;  // empty between calls; kept for its capacity
  count_walked(step_work);
  stack.push_back({p, cheapest(p), kNoStep});
  while (!stack.empty()) {
    Frame& frame = stack.back();
    bool found = false;
    for (std::uint8_t left = frame.left; left != 0; left &= left - 1) {
      const auto s = static_cast<std::size_t>(std::countr_zero(left));
      const State known = state(frame.at + kAllSteps[s]);
      if (known == kAlive) {
        found = true;
        break;
      }
      if (known == kDead) frame.left &= static_cast<std::uint8_t>(~(1U << s));
    }
    if (found || frame.left == 0) {
      set_state(frame.at, found ? kAlive : kDead);
      if (!found) ++tally_.dead;
      stack.pop_back();
      continue;
    }
    std::size_t chosen = kNoStep;
    if (frame.previous != kNoStep && ((frame.left >> frame.previous) & 1U) != 0) {
      chosen = frame.previous;
    } else {
      const std::int64_t to_x = std::int64_t{goal.x} - frame.at.x;
      const std::int64_t to_y = std::int64_t{goal.y} - frame.at.y;
      std::int64_t best_score = 0;
      for (std::uint8_t left = frame.left; left != 0; left &= left - 1) {
        const auto s = static_cast<std::size_t>(std::countr_zero(left));
        const std::int64_t score = kAllSteps[s].dx * to_x + kAllSteps[s].dy * to_y;
        if (chosen == kNoStep || score > best_score) {
          chosen = s;
          best_score = score;
        }
      }
    }
    const Point n = frame.at + kAllSteps[chosen];
    if (n == goal) {
      set_state(n, kAlive);
      continue;
    }
    count_walked(step_work);
    stack.push_back({n, cheapest(n), static_cast<std::uint8_t>(chosen)});
  }
  return state(p) == kAlive;
}

std::optional<PathResult> path_around_obstacles(
    const Mask& blocked_mask, const DistanceField& field, const ObstacleSet& blocked, Point start,
    const FindPathOptions& options, std::size_t max_work, const std::function<bool()>& interrupt,
    DetourWork* work, DetourScratch* scratch) {
  if (field.width() != blocked_mask.width() || field.height() != blocked_mask.height()) {
    throw InvalidArgument("distance field does not fit the mask");
  }
  if (field.several_goals()) {
    throw InvalidArgument("path_around_obstacles needs a field to one goal");
  }
  require_inside(blocked_mask, start, "start");
  DetourScratch own_scratch;
  RepairedField repaired(field, blocked_mask, max_work, interrupt,
                         scratch != nullptr ? *scratch : own_scratch);
  try {
    if (!blocked.blocks(field.goal()) && !blocked.blocks(start) && repaired.open(start) &&
        field.reachable(start) && !repaired.alive(start)) {
      search_detour(repaired, start);
    }
    PathResult result = path_from_repaired_field(blocked_mask, repaired, start, options);
    if (work != nullptr) *work = repaired.tally();
    return result;
  } catch (const DetourTooCostly&) {
    if (work != nullptr) *work = repaired.tally();
    return std::nullopt;
  }
}

}  // namespace pathcore
