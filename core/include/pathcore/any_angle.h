#pragma once

// Exact any-angle shortest paths (issue 21's SMOOTHING_ANY_ANGLE), in three
// levels the server can cache separately:
//
//   AnyAngleGraph      per (mask revision, enabled areas, corner rule): the
//                      convex corners of the blocked region and the taut
//                      visibility edges between them;
//   AnyAngleGoalTable  per goal: the exact distance from every corner to the
//                      goal (Dijkstra), or for one start from the corners
//                      its path may bend at (A*, a goal's first call);
//   find_any_angle_path  per start: the start's visible corners against the
//                      table, plus the straight segment to the goal.
//
// Definition. Pixel (x, y) is the closed square [x, x+1] x [y, y+1]. A path
// runs from the start pixel's centre (x+0.5, y+0.5) to the goal pixel's
// centre through the squares of the enabled (walkable) pixels; pixels outside
// the mask are blocked. It may run along a blocked pixel's edge and graze its
// corner, but never between two blocked pixels that share an edge, nor through
// a pinch point (a square corner with two diagonally opposite pixels blocked
// and the other two walkable) unless allow_corner_cutting is set. The answer
// is the shortest such curve: a polyline bending only at convex corners of
// the blocked region (and, with corner cutting, at pinch points).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

// A point of an any-angle path, in pixel units (a pixel centre is x + 0.5).
struct PointD {
  double x = 0;
  double y = 0;
  friend bool operator==(const PointD&, const PointD&) = default;
};

// Level 1: everything about one mask that does not depend on start or goal.
// Immutable once built (safe to share between threads); holds its own copy of
// the blocked pixels, so the mask may go away.
class AnyAngleGraph {
 public:
  // enabled is a request's area set (effective_areas is applied).
  // interrupt: called about every 16,384 units of work (pixels scanned, line
  // tests); when it returns true the build stops by throwing Interrupted.
  // O(corners x visible region of each corner). progress, when set, hears
  // the fraction of corners done, every 1,024 corners.
  [[nodiscard]] static AnyAngleGraph build(const Mask& mask, AreaSet enabled,
                                           bool allow_corner_cutting,
                                           const std::function<bool()>& interrupt = {},
                                           const ProgressReport& progress = {});

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  [[nodiscard]] bool allow_corner_cutting() const { return allow_corner_cutting_; }
  // Walkable for the graph's areas, false outside.
  [[nodiscard]] bool walkable(Point p) const;
  [[nodiscard]] std::size_t corner_count() const { return corners_.size(); }
  // Each undirected edge once.
  [[nodiscard]] std::size_t edge_count() const { return neighbours_.size() / 2; }
  // Bytes held (vectors' capacities and the object), for cache budgets.
  [[nodiscard]] std::size_t memory_bytes() const;

  // A corner in doubled coordinates (both even: square corner (x/2, y/2)),
  // with the direction (+-1 each) from it into its one blocked pixel; 0, 0 for
  // a pinch point (corner cutting only), which bends paths any way.
  struct Corner {
    std::int32_t x2 = 0;
    std::int32_t y2 = 0;
    std::int8_t blocked_dx = 0;
    std::int8_t blocked_dy = 0;
  };
  [[nodiscard]] const std::vector<Corner>& corners() const { return corners_; }
  // The corners joined to corner c by a taut visibility edge.
  [[nodiscard]] const std::uint32_t* neighbours_begin(std::uint32_t c) const {
    return neighbours_.data() + first_neighbour_[c];
  }
  [[nodiscard]] const std::uint32_t* neighbours_end(std::uint32_t c) const {
    return neighbours_.data() + first_neighbour_[c + 1];
  }

  // The blocked pixels, read by the line tests in core/src/anyangle:
  // (width + 2) x (height + 2), row-major, with a blocked border; 1 = blocked.
  [[nodiscard]] const std::vector<std::uint8_t>& padded_blocked() const { return blocked_; }
  // Corner index at doubled point (2i, 2j), or kNoCorner: one entry per square
  // corner, (width + 1) x (height + 1).
  static constexpr std::uint32_t kNoCorner = 0xFFFFFFFFU;
  [[nodiscard]] const std::vector<std::uint32_t>& corner_at() const { return corner_at_; }

 private:
  std::uint32_t width_ = 0;
  std::uint32_t height_ = 0;
  bool allow_corner_cutting_ = false;
  std::vector<std::uint8_t> blocked_;
  std::vector<Corner> corners_;
  std::vector<std::uint32_t> corner_at_;
  // Compressed adjacency: corner c's neighbours are
  // neighbours_[first_neighbour_[c] .. first_neighbour_[c + 1]).
  std::vector<std::uint32_t> first_neighbour_;
  std::vector<std::uint32_t> neighbours_;
};

// Level 2: the exact distance from every corner to one goal (complete), or
// from just the corners a path from one start could bend at (toward a start).
class AnyAngleGoalTable {
 public:
  // The goal must be inside the graph's mask (InvalidArgument otherwise); a
  // blocked goal gives a table in which nothing reaches it. interrupt: as for
  // AnyAngleGraph::build. Dijkstra over the graph: O(edges log corners) plus the
  // goal's visible corners.
  [[nodiscard]] static AnyAngleGoalTable build(const AnyAngleGraph& graph, Point goal,
                                               const std::function<bool()>& interrupt = {});
  // What one start needs of the table, for a goal not seen before: A* from
  // the goal toward `start` (heuristic: the straight distance to it), which
  // stops once no unsettled corner can lie on a path within
  // kAnyAnglePathTolerance of the shortest. Every corner it settles has the
  // distance build() gives it (up to rounding); the rest are infinite.
  // find_any_angle_path then answers exactly as from build()'s table, but
  // for this start only (InvalidArgument for another). start must be inside
  // the mask; cost: the corners within the ellipse of the answer, roughly.
  [[nodiscard]] static AnyAngleGoalTable build_toward(const AnyAngleGraph& graph, Point goal,
                                                      Point start,
                                                      const std::function<bool()>& interrupt = {});

  [[nodiscard]] Point goal() const { return goal_; }
  [[nodiscard]] bool goal_walkable() const { return goal_walkable_; }
  // Built by build(): valid for every start. Else only for start().
  [[nodiscard]] bool complete() const { return complete_; }
  [[nodiscard]] Point start() const { return start_; }
  // Distance (pixels) from corner c to the goal; infinity when unreachable
  // (or, toward a start, not needed).
  [[nodiscard]] double distance(std::uint32_t c) const { return distance_[c]; }
  // The number of corners of the graph it was built from.
  [[nodiscard]] std::size_t corner_count() const { return distance_.size(); }
  [[nodiscard]] std::size_t memory_bytes() const;

 private:
  static AnyAngleGoalTable search(const AnyAngleGraph& graph, Point goal,
                                  const std::optional<Point>& toward,
                                  const std::function<bool()>& interrupt);

  Point goal_;
  Point start_;
  bool goal_walkable_ = false;
  bool complete_ = true;
  std::vector<double> distance_;
};

// How far (relative) a returned path may be from the shortest. Several
// shortest paths tie on symmetric masks, and distances summed in another
// order (A* toward a start, Dijkstra for the whole table) differ in the last
// bits: find_any_angle_path takes, among the ways within this tolerance, the
// one of lowest corner indices, so the answer does not depend on which
// table it came from. Far below the 1e-9 that exactness asks.
inline constexpr double kAnyAnglePathTolerance = 1e-12;

// Level 3's answer: the shortest path's vertices, start centre first, goal
// centre last, the corners it bends at between; its Euclidean length; and for
// each vertex a walkable pixel whose square touches it (the start and goal
// pixels at the ends), for clients that take integer points.
struct AnyAnglePath {
  std::vector<PointD> points;
  std::vector<Point> pixels;
  double length = 0;
  // Bytes held, for callers that cache answers.
  [[nodiscard]] std::size_t memory_bytes() const;
};

// The exact shortest path from start to the table's goal; std::nullopt when
// start or goal is not walkable or no path joins them. A one-point path when
// start == goal. Of the paths within kAnyAnglePathTolerance of the shortest,
// the one whose first corner has the lowest index, then whose next corner
// has, and so on; length is that polyline's, summed from the start. So a
// table toward this start and a complete one give the same answer, bit for
// bit. InvalidArgument for a start outside the mask, a table built from a
// graph with another number of corners (it must come from this graph), or
// a table toward another start. O(the start's visible region within the
// ellipse of the answer, plus the neighbours of the path's corners).
[[nodiscard]] std::optional<AnyAnglePath> find_any_angle_path(const AnyAngleGraph& graph,
                                                              const AnyAngleGoalTable& table,
                                                              Point start);

}  // namespace pathcore
