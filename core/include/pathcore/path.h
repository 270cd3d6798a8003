#pragma once

// Paths from a distance field: tracing, simplify, snapping, the beeline
// shortcut and find_path. Includes line.h and smoothing.h, so whoever includes
// this header sees segment checks and beautify as before.

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/line.h"       // Path, LineRule, segment checks
#include "pathcore/mask.h"
#include "pathcore/smoothing.h"  // beautify, SmoothingScratch

namespace pathcore {

class ClearanceMap;  // pathcore/clearance.h
class UsableMask;    // pathcore/agent_clearance.h

enum class Smoothing { kBeautify, kSimplify, kNone };

// Follows a field downhill from start to its goal, one pixel per step, each
// step to a neighbour whose cost plus the step's cost (the entered pixel's area
// cost, times sqrt 2 when diagonal) is exactly the current cost. kFour fields
// step to the four cardinal neighbours; with diagonal shortcuts, a diagonal
// neighbour reached by two such cardinal steps, whose two cardinal pixels
// beside the step are both walkable, is taken instead when there is one.
// kEight fields step to all eight neighbours, a diagonal step needing both
// cardinal pixels beside it walkable unless the field allows corner cutting.
// Among equal choices: the previous direction (long straight runs), else the
// one pointing most toward the goal, else E, S, W, N (SE, SW, NW, NE).
// Deterministic. Empty when start is unreachable. Works on a field still being
// built once start is settled (see FieldBuilder). mask must be the field's.
// Throws InvalidArgument if a pixel has no such neighbour (a field not made
// by compute_distance_field for this mask).
[[nodiscard]] Path trace(const Mask& mask, const DistanceField& field, Point start,
                         bool diagonal_shortcuts);

// The traced path smoothing starts from: trace with diagonal shortcuts, unless
// that is longer (Euclidean) than the trace without, which is then returned.
// That happens only on a four-connected field with area costs: cost-optimal
// paths then differ in their number of steps, and the shortcut trace's
// tie-breaks may follow a longer one than the plain trace (the
// Smoothing::kNone answer). There the shortcut trace is also dropped when it
// costs more (polyline_cost) than the plain one: a diagonal shortcut charges
// its two end pixels, the two steps it replaces also the pixel between them.
// Smoothing this path keeps a smoothed answer never longer nor dearer than
// the raw one. One trace, two in that case.
[[nodiscard]] Path trace_for_smoothing(const Mask& mask, const DistanceField& field, Point start);

// Drops the interior points of straight runs (horizontal, vertical, diagonal,
// or any direction: b goes when a->b and b->c point the same way) and repeated
// points. Keeps the first and last points.
[[nodiscard]] Path simplify(const Path& path);

// The walkable pixel nearest to p (Euclidean; ties to the first in row-major
// order), p itself when it is walkable; std::nullopt when none is. O(pixels).
// interrupt, when set, is called about every 16,384 pixels scanned; when it
// returns true the scan stops by throwing Interrupted (as FieldBuilder does).
[[nodiscard]] std::optional<Point> nearest_walkable(const Mask& mask, AreaSet enabled, Point p,
                                                    const std::function<bool()>& interrupt = {});

// The pixel nearest to target (Euclidean; ties to the first in row-major
// order) that `from` can reach under options (connectivity and corner rule;
// costs do not matter), from itself included; std::nullopt when from is not
// walkable. A flood fill from `from`: O(pixels). interrupt: as for
// nearest_walkable, about every 16,384 pixels filled or scanned.
[[nodiscard]] std::optional<Point> nearest_reachable(const Mask& mask, const FieldOptions& options,
                                                     Point from, Point target,
                                                     const std::function<bool()>& interrupt = {});

struct FindPathOptions {
  FieldOptions field;
  Smoothing smoothing = Smoothing::kBeautify;
  // When the goal is not walkable or the start cannot reach it, end at the
  // pixel nearest to the goal (Euclidean, ties to the first in row-major
  // order) that the start can reach; an unwalkable start first moves to its
  // nearest walkable pixel (same rule). See snap_endpoints.
  bool snap_to_reachable = false;
  // Agent clearance in pixels (finite, >= 0): only usable pixels, those whose
  // centre is at least this far from every pixel that is not walkable and
  // from the mask edge (see UsableMask), may be walked, snapped to or
  // reached. find_path builds the UsableMask itself (none at 0, today's
  // answers at today's speed). The other functions here do not read it: a
  // caller that caches passes UsableMask::mask() to them in place of the
  // mask, and the request's mask and the UsableMask to explain_result.
  double clearance = 0;
};

// Why a path was not found, or what snapping changed to find one.
enum class PathReason {
  kFound,             // found between the requested start and goal
  kGoalSnapped,       // found; the goal moved (the start may have too)
  kStartSnapped,      // found; only the start moved
  kStartNotWalkable,  // not found: the start is blocked, or not usable (checked first)
  kGoalNotWalkable,   // not found: the goal is blocked, or not usable
  kNoRoute,           // not found: both walkable, not connected
};

struct PathResult {
  bool found = false;
  Path points;        // first = start, last = goal
  double length = 0;  // Euclidean length of points
  // The cost of points by polyline_cost (pathcore/line.h): the length inside
  // each pixel times its area cost; equal to length with unit costs. Every
  // smoothing: smoothing never raises it above the cost of the grid path it
  // starts from (the Smoothing::kNone answer's, to rounding).
  double cost = 0;
  // The optimal grid cost from start to goal, the field's value at the start
  // (the entered pixels' area costs, times sqrt 2 on diagonal steps): what
  // the grid path costs by the field's step model. On weighted terrain it
  // differs from cost, which charges a step half to each of its two pixels.
  // Unset when not found, and on the one beeline answer that does not know
  // it without a fill (see beeline_answer).
  std::optional<double> grid_cost;
  Point goal;         // where the path ends (the snapped goal when snapping)
  // On a field to several goals: the index of the goal the path leads to
  // (the lowest among the cheapest; see DistanceField::goal_index), else 0.
  std::uint32_t goal_index = 0;
  // Set by explain_result (find_path does): why, and how far the ends moved.
  PathReason reason = PathReason::kNoRoute;
  bool start_snapped = false;
  bool goal_snapped = false;
  double goal_snap_distance = 0;  // Euclidean, pixels, requested goal -> goal
  // With kStartNotWalkable or kGoalNotWalkable: that end is walkable but
  // closer than the clearance to a pixel that is not (not usable). A flag
  // beside the reason, so callers switching over PathReason need no new
  // cases; the wire maps it to PATH_REASON_*_LACKS_CLEARANCE.
  bool lacks_clearance = false;
};

// Fills reason, start_snapped, goal_snapped and goal_snap_distance of result,
// the answer to a request from start to goal (both inside mask) for enabled
// areas. Derived from the answer and two pixel lookups: O(1).
void explain_result(const Mask& mask, AreaSet enabled, Point start, Point goal,
                    PathResult& result);

// The same for a request with agent clearance answered on usable.mask():
// mask is the request's own mask (which tells a blocked end from one that
// only lacks clearance, see PathResult::lacks_clearance). O(1).
void explain_result(const Mask& mask, const UsableMask& usable, Point start, Point goal,
                    PathResult& result);

// Where a snapping request really starts and ends.
struct SnappedEndpoints {
  Point start;
  Point goal;
};

// The endpoints of a snap_to_reachable request: start moved to its nearest
// walkable pixel when it is not walkable; goal kept when the (moved) start
// reaches it, else moved to the pixel nearest to it that the start reaches.
// goal_reachable tells whether the start reaches goal (when the caller knows,
// e.g. from a field to goal; std::nullopt: find out here). std::nullopt when
// no pixel is walkable. O(pixels) when anything moves; interrupt as for
// nearest_walkable (the scans may throw Interrupted).
[[nodiscard]] std::optional<SnappedEndpoints> snap_endpoints(
    const Mask& mask, const FieldOptions& options, Point start, Point goal,
    std::optional<bool> goal_reachable, const std::function<bool()>& interrupt = {});

// The line rule a request implies: no corner cutting unless it is allowed.
[[nodiscard]] LineRule line_rule_for(const FieldOptions& options);

// The answer without a flood fill, when there is one: start == goal, or (with
// smoothing) the beeline start->goal is walkable (with area costs: and touches
// only pixels of the cheapest enabled area cost, so no path can cost less).
// cost = cheapest * length. grid_cost = cheapest times the Manhattan
// (four-connected) or octile (eight-connected) distance, which the grid path
// along the beeline attains; unset only for eight-connected requests without
// corner cutting where a diagonal step of the beeline's Bresenham pixels has a
// blocked pixel beside it (the grid optimum may then be longer). std::nullopt otherwise,
// including when start or goal is not walkable (even when they are equal):
// path_from_field then answers found = false. Throws InvalidArgument, the
// message starting "start" or "goal", for a point outside the mask.
// clearance: as for beautify (optional, same answer).
[[nodiscard]] std::optional<PathResult> beeline_answer(const Mask& mask, Point start, Point goal,
                                                       const FindPathOptions& options,
                                                       const ClearanceMap* clearance = nullptr);

// True when `field` shows that beeline_answer from start toward the field's
// goal, under the options the field was computed for, has no beeline to
// give: on a four-connected field where every area costs 1, a walkable
// beeline (its pixels by the supercover, the four-connected line rule) is a
// monotone four-connected path, so start would cost exactly its Manhattan
// distance to the goal; costing more, or not reaching it, rules the beeline
// out. False otherwise (it may or may not be walkable). O(1): a caller that
// holds the field skips the segment check (BatchFindPaths: many starts, one
// goal, most of them out of its sight). start must be inside.
[[nodiscard]] bool beeline_ruled_out(const DistanceField& field, Point start);

// Remembers the traces made on one field, so that a later trace reaching a
// pixel an earlier one left, heading the same way, copies the rest of that
// trace's points instead of walking it again: from there on the two are the
// same (where a trace goes next depends only on where it is and its last
// step; see trace). For callers tracing many starts on one field
// (BatchFindPaths): the paths of a crowd toward one goal merge within a few
// dozen steps. Serves the corner traces path_from_field smooths from, on the
// four-connected unit-cost fields compute_distance_field and FieldBuilder
// build; other traces ignore it. A call with another field than the one
// before starts it over; the field must stay alive and unchanged while the
// memo is used with it (a new field at the same address would look the
// same). The same answers. Not for concurrent use.
class TraceMemo {
 public:
  TraceMemo();
  ~TraceMemo();
  TraceMemo(const TraceMemo&) = delete;
  TraceMemo& operator=(const TraceMemo&) = delete;

  // Forgets every trace and the field.
  void clear();
  // Bytes held (growing with the traces remembered).
  [[nodiscard]] std::size_t memory_bytes() const;

  struct State;  // defined with the trace
  [[nodiscard]] State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

// Traces and smooths a path from start on a field computed for options.field
// (no snapping here). On a field to several goals, the path leads to
// goal(goal_index(start)), goal and goal_index say so. found = false when start cannot reach the field's goal
// (or is not walkable). kNone: the pixel-by-pixel grid path; kSimplify:
// simplify(trace_for_smoothing), normally the trace with diagonal shortcuts;
// kBeautify: beautify of that. cost: the returned path's (polyline_cost),
// grid_cost: the field's value at start. The field may still be building once start is
// settled. Throws InvalidArgument when start is outside the mask, or the field does not fit the
// mask or was computed for other enabled areas, connectivity, corner rule or area costs. clearance:
// and scratch: as for beautify (optional, same answer). traces: see TraceMemo
// (optional, same answer).
[[nodiscard]] PathResult path_from_field(const Mask& mask, const DistanceField& field, Point start,
                                         const FindPathOptions& options,
                                         const ClearanceMap* clearance = nullptr,
                                         SmoothingScratch* scratch = nullptr,
                                         TraceMemo* traces = nullptr);

// beeline_answer, else compute the field and path_from_field, snapping the
// endpoints first when options.snap_to_reachable (snap_endpoints), all on
// the usable pixels when options.clearance > 0. For tests, benchmarks and
// local tools; the server caches fields itself. Throws InvalidArgument as
// those do (points outside the mask), and naming `clearance` for a negative,
// infinite or NaN clearance.
[[nodiscard]] PathResult find_path(const Mask& mask, Point start, Point goal,
                                   const FindPathOptions& options);

}  // namespace pathcore
