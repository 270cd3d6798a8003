#pragma once

// Movement ranges (core/src/range): every pixel a unit can reach from where
// it stands within a cost budget, with its cheapest cost and a cheapest grid
// path back to the start. GetRange's answer, and FindPath's search when it
// has a budget (max_cost) or answers a partial path.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "pathcore/distance_field.h"  // FieldOptions, GridCost
#include "pathcore/line.h"            // Path
#include "pathcore/mask.h"
#include "pathcore/obstacles.h"

namespace pathcore {

// A rectangle of pixels: columns x .. x + width - 1, rows y .. y + height - 1.
struct PixelRect {
  std::int32_t x = 0;
  std::int32_t y = 0;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  [[nodiscard]] bool empty() const { return width == 0 || height == 0; }
  [[nodiscard]] bool contains(Point p) const {
    return p.x >= x && p.y >= y && p.x - x < static_cast<std::int64_t>(width) &&
           p.y - y < static_cast<std::int64_t>(height);
  }
  friend bool operator==(const PixelRect&, const PixelRect&) = default;
};

// The pixels within a budget of a start (compute_range). Immutable.
class MovementRange {
 public:
  [[nodiscard]] Point start() const { return start_; }
  [[nodiscard]] double max_cost() const { return max_cost_; }
  // The smallest rectangle holding every pixel in range; empty when none is.
  [[nodiscard]] const PixelRect& bounds() const { return bounds_; }
  [[nodiscard]] std::size_t pixel_count() const { return pixel_count_; }
  // True when the budget stopped the search: some pixel next to the range
  // is reachable, but only for more than max_cost. False when the range
  // holds everything the start can reach (or nothing).
  [[nodiscard]] bool budget_reached() const { return budget_reached_; }
  [[nodiscard]] bool in_range(Point p) const { return cost_at(p).has_value(); }
  // The exact cheapest cost from the start to p; nullopt when p is not in range.
  [[nodiscard]] std::optional<GridCost> cost_at(Point p) const;
  // A cheapest grid path from the start to p (p in range), one pixel per
  // step, start first; empty when p is not in range. O(path).
  [[nodiscard]] Path path_to(Point p) const;
  // The pixel in range nearest to target (Euclidean between centres; equal
  // distances go to the cheaper pixel, then to row-major order); nullopt
  // when the range is empty. O(bounds).
  [[nodiscard]] std::optional<Point> nearest_to(Point target) const;
  // Calls visit(Point, GridCost) for every pixel in range, row-major.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (std::uint32_t r = 0; r < bounds_.height; ++r) {
      for (std::uint32_t c = 0; c < bounds_.width; ++c) {
        const Point p{bounds_.x + static_cast<std::int32_t>(c),
                      bounds_.y + static_cast<std::int32_t>(r)};
        if (const auto cost = cost_at(p)) visit(p, *cost);
      }
    }
  }
  // Bytes held.
  [[nodiscard]] std::size_t memory_bytes() const {
    return costs_.capacity() * sizeof(GridCost) + steps_.capacity() + sizeof(*this);
  }

 private:
  friend class RangeSearch;
  [[nodiscard]] std::size_t slot(Point p) const {
    return static_cast<std::size_t>(p.y - window_.y) * window_.width +
           static_cast<std::size_t>(p.x - window_.x);
  }

  Point start_;
  double max_cost_ = 0;
  PixelRect bounds_;
  std::size_t pixel_count_ = 0;
  bool budget_reached_ = false;
  // The pixels the search touched: a window around the start that grew as
  // it went (never past the budget's reach nor the mask), row-major.
  PixelRect window_;
  std::vector<GridCost> costs_;      // straight == kNotReached: not in range
  std::vector<std::uint8_t> steps_;  // how each pixel was entered (index into the 8 steps)
};

// What compute_range walks on besides the mask and its options.
struct RangeLimits {
  // Pixels to treat as blocked (a request's obstacles, or with a clearance
  // those grown by it: ObstacleSet::grown_by); may be null. Built for the
  // mask's size.
  const ObstacleSet* blocked = nullptr;
  // Called about every 16,384 pixels settled; true stops the search by
  // throwing Interrupted. Empty: never called.
  std::function<bool()> interrupt;
};

// The movement range of `start` on `mask`: every pixel whose cheapest grid
// cost from start is at most max_cost, a step costing the area cost
// (options.area_costs) of the pixel it enters, times sqrt 2 when diagonal,
// over the pixels walkable for options.enabled that limits.blocked does not
// block, with options' connectivity and corner rule (a diagonal step needs
// both cardinal pixels beside it walkable unless corner cutting is allowed):
// the distance fields' step model, from the start outward. A pixel is in
// range when its cost as a double (GridCost::value) is at most max_cost
// (inclusive). The start costs 0; a start that is not walkable (or is
// blocked) has an empty range. max_cost may be +infinity: everything the
// start reaches.
//
// Dijkstra with a binary heap over a window that grows with the pixels it
// reaches: time O(n log n) and memory O(window) for n pixels reached, the
// window never larger than the budget's reach (the square of side
// 2 * max_cost / cheapest step + 1 around the start) nor the mask. Throws
// InvalidArgument for a start outside the mask ("start") or a max_cost that
// is NaN or not > 0 ("max_cost"); Interrupted as limits.interrupt says.
[[nodiscard]] MovementRange compute_range(const Mask& mask, Point start, double max_cost,
                                          const FieldOptions& options,
                                          const RangeLimits& limits = {});

}  // namespace pathcore
