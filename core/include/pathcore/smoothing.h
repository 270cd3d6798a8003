#pragma once

// Line-of-sight smoothing of traced paths (core/src/smoothing). Uses line.h;
// path.h's find_path calls it, never the other way round.

#include <memory>

#include "pathcore/distance_field.h"  // AreaCosts
#include "pathcore/line.h"
#include "pathcore/mask.h"

namespace pathcore {

class ClearanceMap;  // pathcore/clearance.h

// Working memory for beautify, reused from call to call: a caller that
// smooths many paths on one thread (a server's request threads) keeps one
// per thread and passes it in, so smoothing does not allocate on the hot path
// (as Detour's per-thread query objects). Optional wherever it is taken:
// without one, a call uses its own. Not for concurrent use. It holds no
// results, so an answer never depends on what earlier calls left in it.
class SmoothingScratch {
 public:
  SmoothingScratch();
  ~SmoothingScratch();
  SmoothingScratch(const SmoothingScratch&) = delete;
  SmoothingScratch& operator=(const SmoothingScratch&) = delete;

  // From now on, beautify calls with this scratch remember how each corner
  // of their paths came out (cut, and where, or not) and look it up when a
  // later call meets the same corner: the same answers with far fewer
  // segment checks where paths share corners, as the paths of a crowd
  // toward one goal do once they merge. Only while every call has the same
  // mask (unchanged), enabled areas, line rule, area costs and clearance
  // map: an outcome depends on them. forget_corners() ends it and frees the
  // memory (remembered_bytes(): what it holds, growing with the corners).
  void remember_corners();
  void forget_corners();
  [[nodiscard]] std::size_t remembered_bytes() const;

  struct Sets;  // defined with beautify
  [[nodiscard]] Sets& sets() { return *sets_; }

 private:
  std::unique_ptr<Sets> sets_;
};

// Line-of-sight smoothing ("string pulling"), forward, then on the reversed
// path. Rounds of two moves, each kept only when it makes the path strictly
// shorter: a point is dropped when its neighbours see each other; a corner
// A-B-C is cut to A-P-Q-C with P and Q pixels at fractions of the legs B->A
// and B->C (P = A or Q = C slides the corner along a leg toward where the
// string touches the obstacle). Never makes the path longer; every new
// segment satisfies segment_walkable(rule); all points stay integer pixels
// and the endpoints stay. O(points * log^2(leg length)) segment checks.
// A path through dense scattered clutter (legs averaging under 3 pixels over
// 16 or more corners) gets a lighter search: one forward round, P next to
// the corner or at A (a few tenths of a percent longer, about 2.7x faster).
//
// With area costs (weighted terrain), a move is also kept only when its new
// segments cost no more (polyline_cost, pathcore/line.h) than the part of the
// path they replace, so the result never costs more than the input: a road
// is not cut short across the swamp beside it unless that is really cheaper.
// Unit costs (every enabled area present costs the same) skip the pricing.
//
// clearance, when given and serving (mask, enabled) (ClearanceMap::serves),
// answers the walkability checks on unweighted terrain in fewer steps: the
// same result, faster where the mask is open. It must have been built from
// this mask. scratch: see SmoothingScratch (optional, same answer).
[[nodiscard]] Path beautify(const Path& path, const Mask& mask, AreaSet enabled, LineRule rule,
                            const AreaCosts& costs = unit_area_costs(),
                            const ClearanceMap* clearance = nullptr,
                            SmoothingScratch* scratch = nullptr);

}  // namespace pathcore
