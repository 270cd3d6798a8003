#pragma once

// Invariant checkers for path and standard-move answers, shared by the
// GoogleTest suites and the libFuzzer targets (fuzz/), so they use no test
// framework: each returns an empty string when the answer is right, else a
// description of the first problem found.

#include <string>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"
#include "pathcore/standard_move.h"
#include "support/reference.h"

namespace pathtest {

// The reference grid that prices steps the way a field built for options does
// (diagonals from connectivity and the corner rule; every area's cost, 0 read as 1).
[[nodiscard]] ReferenceGrid reference_grid_for(const pathcore::FieldOptions& options);

// The grid cost of a pixel path under options, summed step by step; -1 when
// a step is not a legal step (not a neighbour, unwalkable, cutting a corner,
// diagonal on a four-connected grid).
[[nodiscard]] double walked_cost(const pathcore::Mask& mask, const pathcore::FieldOptions& options,
                                 const pathcore::Path& path);

// "(x,y)" and "(x,y)(x,y)..." for messages.
[[nodiscard]] std::string text(pathcore::Point p);
[[nodiscard]] std::string text(const pathcore::Path& path);
// The Euclidean length of a polyline, computed here rather than with
// pathcore::polyline_length (an independent check of it).
[[nodiscard]] double euclidean_length(const pathcore::Path& path);

// Checks a FindPath answer for start -> goal (the endpoints the answer should
// have, i.e. after any snapping) made without snapping's help:
// - found exactly when the reference reaches start (reference =
//   reference_distances(mask, goal, reference_grid_for(options.field)));
// - result.goal == goal; not found: no points;
// - first point start, last goal, length = the Euclidean length of the points;
// - every segment walkable along its Bresenham pixels, and along its
//   supercover when corners may not be cut (line_rule_for);
// - Smoothing::kNone: every step a legal grid step, the walked cost (the
//   field's step model) = the reference distance (1e-6 relative);
// - cost = reference_polyline_cost of the points (1e-9 relative);
// - grid_cost = the reference distance (1e-6 relative), set whenever found
//   except on a smoothed two-point answer (a beeline, see beeline_answer).
[[nodiscard]] std::string path_answer_problem(const pathcore::Mask& mask, pathcore::Point start,
                                              pathcore::Point goal,
                                              const pathcore::FindPathOptions& options,
                                              const std::vector<double>& reference,
                                              const pathcore::PathResult& result);

// Standard moves, by brute force: direction index d is 0..7 = N, NE, E, ...
// clockwise (as pathcore::Direction).

// Inside the mask and not area 0 (standard moves use every non-zero area).
[[nodiscard]] bool open_tile(const pathcore::Mask& mask, int x, int y);
// May one step in direction d leave (x, y)?
[[nodiscard]] bool step_ok(const pathcore::Mask& mask, int x, int y, int d, bool forbid);
// Walks steps in direction d from (x, y), moving it; false at the first bad step.
[[nodiscard]] bool walk(const pathcore::Mask& mask, int& x, int& y, int d, int steps, bool forbid);
// Is there any clear standard move from a to b (a != b)? Tries every route
// X^i Y^j X^k with X, Y 45 degrees apart: O(max(w, h)^2).
[[nodiscard]] bool brute_one_move(const pathcore::Mask& mask, pathcore::Point a, pathcore::Point b,
                                  bool forbid);

struct BruteStandardMove {
  int moves = -1;  // -1: none within max_moves
  std::vector<pathcore::Point> nodes;
  double length = 0;
};

// The best route of at most max_moves standard moves, ranked as the header
// standard_move.h says (length within 1e-9, then steps, then scan order of
// the nodes). Slow: three moves cost O(tiles^2 * max(w, h)^2).
[[nodiscard]] BruteStandardMove brute_standard_move(const pathcore::Mask& mask, pathcore::Point s,
                                                    pathcore::Point g, int max_moves, bool forbid);

// Walks a found route's moves from start: every run non-empty and in another
// direction than the one before, every step passable, the waypoints at the
// run ends, the route ends at goal, one node fewer than moves, and each leg
// between consecutive stops a clear standard move (brute_one_move).
[[nodiscard]] std::string standard_move_route_problem(const pathcore::Mask& mask,
                                                      pathcore::Point start, pathcore::Point goal,
                                                      const pathcore::StandardMoveResult& r,
                                                      bool forbid);

}  // namespace pathtest
