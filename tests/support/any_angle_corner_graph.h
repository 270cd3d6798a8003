#pragma once

// The any-angle reference (any_angle_reference.h) with its visibility graph
// built once per mask, for replays with thousands of queries on one big map
// (the Moving AI maze), where the per-query reference would rebuild the graph
// of a corridor path's whole ellipse every time. Same definition, same
// vertices (convex corners; with corner cutting also pinch points), same
// taut-edge filter and the reference's own line test (any_angle_visible)
// decides every edge; nothing is shared with pathcore's any-angle engine.
//
// Which pairs get a line test. Testing all pairs is O(corners^2) line tests;
// instead a pair is tested only when a cheap necessary condition holds,
// derived from the line test itself. A segment that is not axis-parallel
// enters a chain of pixel interiors, each the last one's neighbour in the
// segment's direction (sx, sy) by (sx, 0), (0, sy) or (sx, sy) (the last when
// it crosses a grid corner exactly), and the line test demands all of them
// walkable. So its end is a candidate only if its last pixel is reached by a
// flood from its first pixel over walkable pixels with those three steps. An
// axis-parallel segment along a grid line needs, in every row it spans, one
// of the two pixels beside the line walkable (through a pixel column: that
// pixel walkable). On maps of narrow corridors these floods are small.

#include <cstdint>
#include <optional>
#include <vector>

#include "pathcore/mask.h"

namespace pathtest {

class AnyAngleCornerGraph {
 public:
  AnyAngleCornerGraph(const pathcore::Mask& mask, pathcore::AreaSet enabled,
                      bool allow_corner_cutting);

  // As any_angle_shortest_length(mask, enabled, start, goal, upper_bound,
  // allow_corner_cutting), with the same contract for upper_bound.
  [[nodiscard]] std::optional<double> shortest_length(pathcore::Point start, pathcore::Point goal,
                                                      std::optional<double> upper_bound) const;

  [[nodiscard]] std::size_t vertex_count() const { return corners_.size(); }
  [[nodiscard]] std::size_t edge_count() const { return edges_.size() / 2; }
  // Vertex v's point in doubled coordinates.
  [[nodiscard]] pathcore::Point vertex(std::uint32_t v) const { return corners_[v].p; }

  // The candidates (see above) for a segment from a2 (doubled coordinates)
  // to a vertex within the box [lo2, hi2] (doubled, inclusive): every vertex
  // the line test could find visible from a2 among those there; a2 itself
  // excluded. Exposed for the graph's own tests.
  struct Box {
    std::int64_t x0, y0, x1, y1;
  };
  [[nodiscard]] std::vector<std::uint32_t> candidates(pathcore::Point a2, Box box) const;

 private:
  struct Corner {
    pathcore::Point p;  // doubled coordinates, both even
    int qx = 0;         // direction into the blocked pixel; 0 for a pinch vertex
    int qy = 0;
  };
  struct Edge {
    std::uint32_t to;
    double length2;  // doubled units
  };

  [[nodiscard]] bool walkable(std::int64_t x, std::int64_t y) const;
  [[nodiscard]] std::uint32_t vertex_at(std::int64_t x2, std::int64_t y2) const;
  [[nodiscard]] static bool tangent(const Corner& c, std::int64_t dx, std::int64_t dy);

  const pathcore::Mask& mask_;
  pathcore::AreaSet enabled_;
  bool cut_;
  std::vector<Corner> corners_;
  std::vector<std::uint32_t> vertex_at_;  // (width + 1) x (height + 1), kNone where none
  std::vector<std::uint32_t> first_edge_;
  std::vector<Edge> edges_;
  // Flood scratch, stamped so it is never cleared (mutable: queries are
  // const but not thread-safe).
  mutable std::vector<std::uint32_t> stamp_;
  mutable std::uint32_t generation_ = 0;
};

}  // namespace pathtest
