#pragma once

// Exact any-angle shortest paths (SMOOTHING_ANY_ANGLE): an interval search
// over a rectangle mesh of the walkable pixels, in the manner of Polyanya
// (Cui, Harabor, Grastien, IJCAI 2017). Two levels:
//
//   AnyAngleMesh        per (mask revision, enabled areas, corner rule): the
//                       walkable pixels cut into rectangles, each knowing the
//                       rectangles across its top and bottom edges. Linear
//                       in the pixels to build, no per-goal table;
//   find_any_angle_path per (start, goal): a best-first search whose nodes
//                       are (root, interval of a rectangle edge), roots being
//                       the corners a path bends at. Its cost follows the
//                       path's surroundings, not the mask.
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

// Everything about one mask that does not depend on start or goal. Immutable
// once built (safe to share between threads); holds its own copy of the
// blocked pixels, so the mask may go away.
//
// The mesh: each row's maximal runs of walkable pixels, runs of consecutive
// rows with the same extent merged into one rectangle. So a rectangle's left
// and right sides are blocked all along, and its top and bottom edges are cut
// into segments, each shared with exactly one rectangle across (the walls
// between them are not stored). Every convex corner of the blocked region is
// an end of such a segment; two rectangles meeting at a pinch point share
// only that corner, which corner cutting turns into a portal.
class AnyAngleMesh {
 public:
  // enabled is a request's area set (effective_areas is applied).
  // interrupt: called about every 16,384 pixels; when it returns true the
  // build stops by throwing Interrupted. progress, when set, hears the
  // fraction of rows done. O(pixels).
  [[nodiscard]] static AnyAngleMesh build(const Mask& mask, AreaSet enabled,
                                          bool allow_corner_cutting,
                                          const std::function<bool()>& interrupt = {},
                                          const ProgressReport& progress = {});

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  [[nodiscard]] bool allow_corner_cutting() const { return allow_corner_cutting_; }
  // Walkable for the mesh's areas, false outside.
  [[nodiscard]] bool walkable(Point p) const;
  [[nodiscard]] std::size_t rect_count() const { return rects_.size(); }
  // Bytes held (vectors' capacities and the object), for cache budgets.
  [[nodiscard]] std::size_t memory_bytes() const;

  // Square corners are (x, y) with 0 <= x <= width, 0 <= y <= height.
  static constexpr std::uint32_t kNone = 0xFFFFFFFFU;
  // Pixels [x0, x1) x [y0, y1); top edge on line y0, bottom edge on y1.
  struct Rect {
    std::int32_t x0 = 0;
    std::int32_t x1 = 0;
    std::int32_t y0 = 0;
    std::int32_t y1 = 0;
    // segments_[top_begin, bottom_begin) on the top edge, then
    // [bottom_begin, bottom_end) on the bottom edge, each sorted by x.
    std::uint32_t top_begin = 0;
    std::uint32_t bottom_begin = 0;
    std::uint32_t bottom_end = 0;
    // portals_[portal_begin, portal_end): pinch corners (corner cutting).
    std::uint32_t portal_begin = 0;
    std::uint32_t portal_end = 0;
  };
  // The part [x0, x1] of an edge shared with rectangle `across`.
  struct Segment {
    std::int32_t x0 = 0;
    std::int32_t x1 = 0;
    std::uint32_t across = kNone;
  };
  // A pinch point at a rectangle's corner (x, y), and the rectangle that
  // touches it diagonally.
  struct Portal {
    std::int32_t x = 0;
    std::int32_t y = 0;
    std::uint32_t across = kNone;
  };
  [[nodiscard]] const std::vector<Rect>& rects() const { return rects_; }
  [[nodiscard]] const std::vector<Segment>& segments() const { return segments_; }
  [[nodiscard]] const std::vector<Portal>& portals() const { return portals_; }
  // The rectangle holding pixel p, kNone when p is blocked or outside.
  // O(log runs of its row).
  [[nodiscard]] std::uint32_t rect_at(Point p) const;
  // Square corner (x, y) has exactly one blocked pixel around it (pixels
  // outside the mask count as blocked): a convex corner a taut path may
  // bend round.
  [[nodiscard]] bool convex_corner(std::int64_t x, std::int64_t y) const;
  // Rectangles share a component when paths join them (through shared
  // segments, and portals with corner cutting): a goal in another component
  // is answered without a search.
  [[nodiscard]] std::uint32_t component(std::uint32_t rect) const { return component_[rect]; }
  // A walkable pixel whose square touches square corner (x, y): the one
  // diagonally opposite the blocked pixel at a convex corner, else the first
  // walkable one; for clients that take integer points.
  [[nodiscard]] Point pixel_touching(std::int64_t x, std::int64_t y) const;

 private:
  [[nodiscard]] bool blocked(std::int64_t x, std::int64_t y) const;

  std::uint32_t width_ = 0;
  std::uint32_t height_ = 0;
  bool allow_corner_cutting_ = false;
  // (width + 2) x (height + 2), row-major, with a blocked border; 1 = blocked.
  std::vector<std::uint8_t> blocked_;
  std::vector<Rect> rects_;
  std::vector<Segment> segments_;
  std::vector<Portal> portals_;
  std::vector<std::uint32_t> component_;  // per rectangle
  // Each row's runs [run_begin_[y], run_begin_[y + 1]): start x, end x
  // (exclusive) and rectangle, sorted by x.
  struct Run {
    std::int32_t x0 = 0;
    std::int32_t x1 = 0;
    std::uint32_t rect = kNone;
  };
  std::vector<std::uint32_t> run_begin_;
  std::vector<Run> runs_;
};

// The answer: the shortest path's vertices, start centre first, goal centre
// last, the corners it bends at between; its Euclidean length; and for each
// vertex a walkable pixel whose square touches it (the start and goal pixels
// at the ends), for clients that take integer points.
struct AnyAnglePath {
  std::vector<PointD> points;
  std::vector<Point> pixels;
  double length = 0;
  // Bytes held, for callers that cache answers.
  [[nodiscard]] std::size_t memory_bytes() const;
};

// How much work a search did, for benchmarks and tests.
struct AnyAngleSearchStats {
  std::size_t expanded = 0;
  std::size_t pushed = 0;
};

// The exact shortest path from start to goal; std::nullopt when either is not
// walkable or no path joins them. A one-point path when start == goal.
// Deterministic: the same mesh, start and goal give the same path, bit for
// bit. InvalidArgument for a start or goal outside the mask. interrupt: as
// for build, about every 16,384 search nodes. Cost: the nodes whose interval
// can lie on a path no longer than the answer (A* with the exact distance
// through the interval as its estimate); a goal the start does not reach is
// known from the mesh's components, with no search.
[[nodiscard]] std::optional<AnyAnglePath> find_any_angle_path(
    const AnyAngleMesh& mesh, Point start, Point goal,
    const std::function<bool()>& interrupt = {}, AnyAngleSearchStats* stats = nullptr);

}  // namespace pathcore
