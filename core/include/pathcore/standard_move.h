#pragma once

// Standard moves (the "Discrepancy" method): RPG-style tile routes in eight
// directions made of a principal run plus one 45-degree jog, stitched through
// "node" tiles when no single move is clear. One mask pixel = one tile.
//
// Directions and steps. Origin top-left, x right, y down; N = (0,-1),
// NE = (1,-1), E = (1,0), ... clockwise. A step enters the neighbouring tile
// and is passable when that tile is walkable; a diagonal step by default
// needs nothing else (the article's modified rule: it may pass around a
// blocked tile and between two blocked tiles whose corners touch); with
// forbid_corner_cutting both cardinal tiles beside it must be walkable too.
//
// Octant. For a move from s to g, let dx = g.x - s.x, dy = g.y - s.y. The
// cardinal direction C and the diagonal direction D that approach g are
//   |dx| >  |dy|: C = E or W (sign of dx), D = C turned 45 degrees towards
//                 the sign of dy; c = |dx| - |dy| steps of C, d = |dy| of D;
//   |dy| >  |dx|: C = N or S (sign of dy), D likewise; c = |dy| - |dx|, d = |dx|;
//   |dx| == |dy|: the goal is on a diagonal: c = 0, d = |dx|.
// A goal exactly in line with the start (dx == 0, dy == 0 or |dx| == |dy|)
// lies on the border of two octants; both give the same counts with an
// empty jog, so the only candidate is the straight run. Counts are fixed by
// the geometry: every standard move from s to g has c + d steps and length
// c + d * sqrt 2 (the octile distance).
//
// Candidates, in order of preference (the first whose every step is
// passable wins):
//   1. principal C, jog D: for k = 0, 1, ..., c:  C^k D^d C^(c-k)
//      (the jog as early as possible: jog first, then after 1 principal
//      step, ..., jog last);
//   2. principal D, jog C: for k = 0, 1, ..., d:  D^k C^c D^(d-k).
// Empty runs are dropped and a candidate equal to an earlier one is skipped:
// 2 with k = 0 is 1 with k = c, and 2 with k = d is 1 with k = 0, so the
// second group runs k = 1 .. d-1. Example, (0,0) -> (4,2): SE2 E2, E1 SE2 E1,
// E2 SE2, SE1 E2 SE1.
//
// Stitching. When no single move is clear and max_moves allows, a node N
// (not s, not g) is chosen such that s reaches N by a standard move and N
// reaches g by one. Among all such nodes the one with the shortest Euclidean
// route |s N| + |N g| (straight-line distances between the tile centres)
// wins; ties (within 1e-9) go to fewer steps (the Chebyshev distances
// s->N + N->g, i.e. tiles walked), then to the node that comes first in scan
// order (row-major, y then x). With max_moves 3 and no two-move route, two
// nodes N1, N2 minimise |s N1| + |N1 N2| + |N2 g|, ties by steps, then scan
// order of N1, then of N2. Each leg is the preferred single move between its
// ends (see Candidates).
//
// Start and goal must be walkable, or found is false. start == goal is found
// with no moves.
//
// Cost. The single-move check walks the candidates inside the box of its
// ends (a standard move never leaves it): O(c * (c + d)) steps at worst, plus
// a copy of the box. The stitched search does not re-check each node's route
// step by step: one sweep per end marks every tile a standard move can reach
// from it (16 move shapes; the last run of a shape stops at a tile already
// reached by a run in the same direction, so each tile is marked at most 8
// times). Three moves first narrow the candidates with two multi-source
// sweeps of the same kind (each tile marked at most 32 times): first nodes
// that reach the goal's one-move set, then (when there are any) second nodes
// reached from the start's. Then the smaller side is swept from node by node,
// in order of a lower bound on the route length (the distance to the nearest
// block of candidates on the other side), until no remaining node can win.
// The sweeps run in a window of the mask: the box of the ends and 64 tiles
// around it. When a sweep marks a tile on the window's edge where the mask
// goes on, the search starts again in a window with a 4 times wider margin,
// and in the whole mask once the window would cover half of it; so the
// answer is the whole mask's, and the work is proportional to the tiles the
// moves reach, a few bytes of scratch per window tile. On cluttered maps
// that is a small neighbourhood: on a full-HD mask with 30% random
// obstacles, one to three moves between tiles a few dozen apart take well
// under a millisecond. On open maps the sweeps cover the mask, O(tiles)
// each, and the node-by-node search can take many of them, so it is capped:
// after marking min(256 * tiles + 2^20, 2^26) tiles the best route found so
// far is returned (a valid three-move route, possibly not the shortest) and
// the result says so (search_truncated). A U-shaped 96x96 room stays exact
// in about 5 ms, a 256x256 one in about 0.3 s (three quarters of the cap
// spent); an open full-HD mask with a block that three moves must go round
// reaches the cap after about 1.4 s.

#include <cstdint>
#include <functional>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

// The eight step directions, clockwise from north.
enum class Direction : std::uint8_t { kN, kNE, kE, kSE, kS, kSW, kW, kNW };

// The (dx, dy) of one step in direction d.
[[nodiscard]] Point step_of(Direction d);
// "N", "NE", ... for messages.
[[nodiscard]] const char* direction_name(Direction d);

// A run of steps in one direction.
struct Move {
  Direction direction = Direction::kN;
  std::uint32_t steps = 0;
  friend bool operator==(const Move&, const Move&) = default;
};

struct StandardMoveOptions {
  AreaSet enabled = kAllAreas;  // effective set (bit 0 clear)
  bool forbid_corner_cutting = false;
  int max_moves = 2;  // 1..3; InvalidArgument otherwise
  // Tiles the three-move search may mark before it stops with the best route
  // so far (search_truncated); 0 = the default cap in the header comment.
  std::uint64_t three_move_work_limit = 0;
};

struct StandardMoveResult {
  bool found = false;
  // The runs of the whole route in order, consecutive runs in one direction
  // merged (also across a node).
  std::vector<Move> moves;
  // start, every tile where the direction changes, goal (just start when
  // start == goal). Empty when not found.
  std::vector<Point> waypoints;
  // The stitching tiles in route order: empty for a single move.
  std::vector<Point> nodes;
  // Number of standard moves used (0 when start == goal).
  int move_count = 0;
  // The three-move search hit its work cap (see the header comment): the
  // route may not be the shortest, and found = false may have missed one.
  bool search_truncated = false;
};

// Every candidate single move from `from` to `to`, in order of preference,
// as runs (see the header comment). Geometry only: passability is not
// checked. Empty when from == to.
[[nodiscard]] std::vector<std::vector<Move>> standard_move_candidates(Point from, Point to);

// The first candidate from `from` to `to` whose every step is passable, or
// an empty vector when none is (or from == to). `from` must be walkable for a
// meaningful answer; points outside the mask throw InvalidArgument.
[[nodiscard]] std::vector<Move> clear_standard_move(const Mask& mask, Point from, Point to,
                                                    const StandardMoveOptions& options);

// The route from start to goal of at most options.max_moves standard moves
// (see the header comment). Throws InvalidArgument for a point outside the
// mask (naming "start" or "goal") or max_moves outside 1..3.
// interrupt, when set, is called about every 16,384 units of work (candidate
// steps, tiles swept or marked); when it returns true the search stops by
// throwing Interrupted (as nearest_walkable in pathcore/path.h).
[[nodiscard]] StandardMoveResult find_standard_move(const Mask& mask, Point start, Point goal,
                                                    const StandardMoveOptions& options,
                                                    const std::function<bool()>& interrupt = {});

}  // namespace pathcore
