#pragma once
// The distance field of a mask with a few more pixels blocked (F), read as
// the field of the mask without them (D, cached) where the blocking left a
// pixel's cost alone, and decided pixel by pixel only where a trace reads:
// what path_around_obstacles (detour.cc) traces on.
//
// D <= F everywhere, and F(p) = D(p) exactly when p is "alive": p is the goal,
// or one of p's cheapest steps under D (to n with D(n) + step = D(p)) is
// still open and leads to an alive pixel. Aliveness is decided on demand by a
// depth-first walk down those steps, remembered for every pixel walked. The
// pixels that are not alive ("dead") read as unreachable, except the few a
// trace from a dead start crosses, whose F the detour search wrote in
// (repair): see detour.cc for why that is exact for the trace.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "mask/interrupt_check.h"
#include "path/paged_pixels.h"
#include "pathcore/detour.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathcore {

// Thrown by a RepairedField whose work passed its limit (detour.cc catches it).
struct DetourTooCostly {};

class RepairedField {
 public:
  // base: D, the field of the mask without the obstacles; blocked_mask: that
  // mask with them (the pixels a step may enter). Work (count()) past
  // max_work throws DetourTooCostly; interrupt as for
  // FieldBuilder.
  RepairedField(const DistanceField& base, const Mask& blocked_mask, std::size_t max_work,
                const std::function<bool()>& interrupt, DetourScratch& scratch);
  RepairedField(const RepairedField&) = delete;
  RepairedField& operator=(const RepairedField&) = delete;

  [[nodiscard]] std::uint32_t width() const { return base_.width(); }
  [[nodiscard]] std::uint32_t height() const { return base_.height(); }
  [[nodiscard]] const FieldOptions& options() const { return base_.options(); }
  [[nodiscard]] Point goal() const { return base_.goal(); }
  [[nodiscard]] Point goal(std::size_t /*index*/) const { return base_.goal(); }
  [[nodiscard]] static std::uint32_t goal_index(Point /*p*/) { return 0; }

  [[nodiscard]] bool contains(Point p) const { return base_.contains(p); }
  // Alive pixels, and dead ones with a repaired cost. Decides aliveness
  // (may throw DetourTooCostly or Interrupted).
  [[nodiscard]] bool reachable(Point p) const {
    return open(p) && base_.reachable(p) && confirmed(p);
  }
  // p must be reachable.
  [[nodiscard]] GridCost exact(Point p) const {
    const GridCost repaired = repaired_.get(index(p));
    return repaired != GridCost{} ? repaired : base_.exact(p);
  }
  // A trace's reads of a neighbour, without deciding aliveness: whether it
  // may be reachable (open, reached by D, not known dead unless repaired)
  // and the cost it has if so (exact()). A trace steps onto a neighbour only where that
  // cost makes the step downhill, and only then asks confirmed(), which
  // decides: a dead pixel's F is above D, so its step is never downhill
  // where D's is not, and most neighbours are never walked.
  [[nodiscard]] bool maybe_reachable(Point p) const {
    return open(p) && base_.reachable(p) &&
           (state(p) != kDead || repaired_.get(index(p)) != GridCost{});
  }
  [[nodiscard]] bool confirmed(Point p) const {
    return repaired_.get(index(p)) != GridCost{} || alive(p);
  }

  // For the detour search (detour.cc).
  [[nodiscard]] const DistanceField& base() const { return base_; }
  [[nodiscard]] std::size_t index(Point p) const {
    return static_cast<std::size_t>(p.y) * base_.width() + static_cast<std::size_t>(p.x);
  }
  // Whether F(p) = D(p) (p walkable on the blocked mask and reached by D).
  [[nodiscard]] bool alive(Point p) const;
  // Sets F(p) for a dead pixel p (its cost is never 0: only the goal's is).
  void repair(Point p, GridCost cost) { repaired_.at(index(p)) = cost; }
  // Counts the work of a pixel the detour's A* expands, or of one it
  // writes a cost back to (throws past the limit).
  void count_expansion() const {
    count(kExpansionWork);
    ++tally_.expanded;
  }
  void count_write_back() const { count(kStepWork); }
  // Walkable on the blocked mask under the field's areas.
  [[nodiscard]] bool open(Point p) const {
    return blocked_mask_.walkable(p, base_.options().enabled);
  }
  // The steps (bit s: step s in detour order) open from p on the blocked
  // mask: onto a walkable pixel, a diagonal step with both pixels beside it
  // walkable unless corners may be cut.
  [[nodiscard]] std::uint8_t open_steps(Point p) const;
  // The open steps from p onto a pixel n with D(n) + step = cost (p's D).
  [[nodiscard]] std::uint8_t cheapest_steps(Point p, GridCost cost) const;
  // The cost of step s from p (entering its pixel).
  [[nodiscard]] GridCost step_cost(Point p, std::size_t s) const;
  [[nodiscard]] const DetourWork& tally() const { return tally_; }

 private:
  enum State : std::uint8_t { kUnknown = 0, kAlive = 1, kDead = 2 };
  // Work (throws past max_work): a pixel walked on a unit-cost
  // four-connected field (read straight from its stored costs) counts 1; on
  // any other, kStepWork; a pixel the detour's A* expands, kExpansionWork:
  // about what each costs in time, relative to the first.
  static constexpr std::size_t kStepWork = 4;
  static constexpr std::size_t kExpansionWork = 16;
  void count(std::size_t work) const;
  // A pixel the walk enters.
  void count_walked(std::size_t step_work) const {
    count(step_work);
    ++tally_.walked;
  }
  // alive()'s depth-first walk from p (unknown, not the goal); cheapest(n):
  // n's cheapest_steps; step_work: the work counted per pixel walked.
  template <typename CheapestSteps>
  bool walk(Point p, std::size_t step_work, CheapestSteps&& cheapest) const;
  // A unit-cost four-connected field's stored words, when it has a border
  // (nullptr else), and cheapest_steps read straight from them.
  template <typename Word>
  [[nodiscard]] static const Word* unit_four_words(const DistanceField& field);
  template <typename Word>
  [[nodiscard]] std::uint8_t unit_four_cheapest_steps(const Word* words, Point p) const;
  // States lie in tiles of 8x8 pixels, 64 bytes each: a walk goes up and
  // down as much as across, and a tile keeps its neighbours in one cache line.
  [[nodiscard]] std::size_t state_slot(Point p) const {
    const auto x = static_cast<std::size_t>(p.x);
    const auto y = static_cast<std::size_t>(p.y);
    return (((y >> 3) * tiles_across_ + (x >> 3)) << 6) | ((y & 7) << 3) | (x & 7);
  }
  [[nodiscard]] State state(Point p) const { return static_cast<State>(states_[state_slot(p)]); }
  // Each pixel's state is set once (unknown to alive or dead).
  void set_state(Point p, State s) const {
    const std::size_t i = state_slot(p);
    states_[i] = s;
    scratch_.touched_.push_back(i);
  }

  const DistanceField& base_;
  const Mask& blocked_mask_;
  // base_'s stored words when the walk may read them (unit_four_words).
  const std::uint16_t* unit_words16_;
  const std::uint32_t* unit_words32_;
  std::size_t steps_;
  std::size_t max_work_;
  mutable InterruptCheck check_;
  mutable std::size_t work_ = 0;
  mutable DetourWork tally_;
  // Aliveness (State), decided on demand.
  DetourScratch& scratch_;
  std::size_t tiles_across_;
  std::uint8_t* states_;  // scratch_'s, one per pixel (state_slot)
  // alive()'s depth-first stack: the pixel walked and its steps not ruled out.
  struct Frame {
    Point at;
    std::uint8_t left;
    std::uint8_t previous;  // the step that led here; 8 at the first
  };
  mutable std::vector<Frame> walk_;
  // F of the dead pixels a trace from a dead start crosses ({} for others).
  PagedPixels<GridCost> repaired_;
};

}  // namespace pathcore
