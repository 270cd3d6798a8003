#pragma once

// A path around a request's temporary obstacles from the field of the mask
// without them: the answer the blocked mask's own field gives, at the cost
// of the detour instead of a fill.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/obstacles.h"
#include "pathcore/path.h"

namespace pathcore {

// What path_around_obstacles learns and the memory it uses, kept from call
// to call (one call at a time): whether a pixel keeps its cost (a state
// byte per pixel of the mask). That is a fact about one field and one
// blocked mask, so calls on the same pair (the starts of a batch, a call
// that gave up at its work limit and is tried again) go on from it; clear()
// before a call on another pair. A fresh scratch pays its pages' first
// touches, about as much as copying the mask; a kept one only the pixels
// walked.
class DetourScratch {
 public:
  // Forgets what was learnt (O(pixels walked since the last clear)).
  void clear() {
    for (const std::size_t i : touched_) states_[i] = 0;
    touched_.clear();
  }
  [[nodiscard]] std::size_t memory_bytes() const {
    return states_.capacity() + touched_.capacity() * sizeof(std::size_t);
  }

 private:
  friend class RepairedField;
  std::vector<std::uint8_t> states_;  // 0 (unknown) where not in touched_
  std::vector<std::size_t> touched_;  // the states set since the last clear()
};

// What path_around_obstacles did (benchmarks and tests read it).
struct DetourWork {
  std::size_t walked = 0;    // pixels walked to decide aliveness
  std::size_t dead = 0;      // of them, found dead
  std::size_t expanded = 0;  // pixels the detour's A* expanded
};

// path_from_field(blocked_mask, F, start, options), where F is the field of
// blocked_mask toward field.goal() under field.options(), without filling F.
// field: a finished one-goal field (for options.field) of the mask that
// blocked_mask is with the pixels of `blocked` set to area 0 (blocked_mask =
// with_obstacles(mask, blocked), or the usable mask of that with the
// obstacles grown by the clearance). Blocking only raises costs, so F equals
// field wherever a pixel keeps one of its cheapest steps to a pixel that
// keeps its cost: that is decided only for the pixels a trace from the start
// reads (a walk down their cheapest steps, remembered). A start whose cost
// rose gets F on its detour from an A* over the pixels whose cost rose,
// guided by field (a lower bound of F). So the cost follows the detour and
// the trace, not the mask. std::nullopt when that work would pass
// max_work (the caller fills F instead): a pixel walked counts 1 on a
// unit-cost four-connected field (whose stored costs the walk reads
// directly), 4 on any other, and a pixel the A* expands 16, about what each
// costs in time. interrupt: as for FieldBuilder, about every 16,384 of
// that work (throws Interrupted). work: what was done, when not null.
// scratch: what earlier calls on the same field and blocked_mask learnt,
// and memory kept for the next (one of its own when null). Throws
// InvalidArgument as path_from_field does, and for a field to several
// goals or of another size.
[[nodiscard]] std::optional<PathResult> path_around_obstacles(
    const Mask& blocked_mask, const DistanceField& field, const ObstacleSet& blocked, Point start,
    const FindPathOptions& options, std::size_t max_work,
    const std::function<bool()>& interrupt = {}, DetourWork* work = nullptr,
    DetourScratch* scratch = nullptr);

}  // namespace pathcore
