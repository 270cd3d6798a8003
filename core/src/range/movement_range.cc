// compute_range: a forward Dijkstra from a start, bounded by a cost budget,
// over a window of pixels that grows with what the search reaches.

#include "pathcore/movement_range.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "mask/interrupt_check.h"

namespace pathcore {
namespace {

constexpr std::uint32_t kNotReached = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint8_t kStartStep = 0xFF;

struct Step {
  std::int32_t dx;
  std::int32_t dy;
};
// E, S, W, N, then SE, SW, NW, NE; a diagonal's two cardinal sides are
// steps kSides[d - 4][0] and [1].
constexpr std::array<Step, 8> kSteps = {
    {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {-1, -1}, {1, -1}}};
constexpr std::array<std::array<std::size_t, 2>, 4> kSides = {{{0, 1}, {2, 1}, {2, 3}, {0, 3}}};

// Least initial half-size of the window around the start.
constexpr std::int64_t kFirstReach = 16;

struct Queued {
  double key;
  Point p;
  friend bool operator>(const Queued& a, const Queued& b) { return a.key > b.key; }
};

}  // namespace

std::optional<GridCost> MovementRange::cost_at(Point p) const {
  if (!bounds_.contains(p)) return std::nullopt;
  const GridCost cost = costs_[slot(p)];
  if (cost.straight == kNotReached) return std::nullopt;
  return cost;
}

Path MovementRange::path_to(Point p) const {
  Path path;
  if (!in_range(p)) return path;
  for (Point at = p;;) {
    path.push_back(at);
    const std::uint8_t step = steps_[slot(at)];
    if (step == kStartStep) break;
    at = {at.x - kSteps[step].dx, at.y - kSteps[step].dy};
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::optional<Point> MovementRange::nearest_to(Point target) const {
  std::optional<Point> best;
  std::int64_t best_distance = 0;
  double best_cost = 0;
  for_each([&](Point p, GridCost cost) {
    const std::int64_t dx = std::int64_t{p.x} - target.x;
    const std::int64_t dy = std::int64_t{p.y} - target.y;
    const std::int64_t distance = dx * dx + dy * dy;
    const double value = cost.value();
    // Row-major visits: the first of equals stays.
    if (!best || distance < best_distance || (distance == best_distance && value < best_cost)) {
      best = p;
      best_distance = distance;
      best_cost = value;
    }
  });
  return best;
}

// The search behind compute_range (a friend of MovementRange, whose window it fills).
class RangeSearch {
 public:
  RangeSearch(const Mask& mask, Point start, double max_cost, const FieldOptions& options,
              const RangeLimits& limits)
      : mask_(mask), options_(normalized(options)), limits_(limits), check_(limits_.interrupt) {
    range_.start_ = start;
    range_.max_cost_ = max_cost;
    std::uint32_t cheapest = 255;
    for (int id = 1; id <= kMaxAreaId; ++id) {
      if (((options_.enabled & mask.areas_present()) >> id & 1U) != 0) {
        cheapest = std::min<std::uint32_t>(cheapest, options_.area_costs[static_cast<std::size_t>(id)]);
      }
    }
    // Every step costs at least `cheapest`: nothing in range lies farther
    // than max_cost / cheapest steps from the start along either axis.
    const double extent = std::max(mask.width(), mask.height());
    const auto reach = static_cast<std::int64_t>(std::min(extent, std::floor(max_cost / cheapest)));
    limit_ = clip({start.x - reach, start.y - reach, start.x + reach + 1, start.y + reach + 1});
    const std::int64_t first = std::min(reach, kFirstReach);
    const Box window =
        clip({start.x - first, start.y - first, start.x + first + 1, start.y + first + 1});
    resize(window);
  }

  MovementRange run() {
    const Point start = range_.start_;
    if (!passable(start)) return finish();
    set(start, GridCost{}, kStartStep);
    queue_.push({0.0, start});
    const bool eight = options_.connectivity == Connectivity::kEight;
    const std::size_t steps = eight ? 8 : 4;
    while (!queue_.empty()) {
      const Queued top = queue_.top();
      queue_.pop();
      const GridCost here = range_.costs_[range_.slot(top.p)];
      if (here.value() != top.key) continue;  // a cheaper entry came first
      check_.after(1);
      settle(top.p);
      std::array<bool, 4> open{};
      for (std::size_t s = 0; s < steps; ++s) {
        const Point next{top.p.x + kSteps[s].dx, top.p.y + kSteps[s].dy};
        const bool ok = passable(next);
        if (s < 4) open[s] = ok;
        if (!ok) continue;
        if (s >= 4 && !options_.allow_corner_cutting &&
            !(open[kSides[s - 4][0]] && open[kSides[s - 4][1]])) {
          continue;
        }
        const std::uint32_t cost = options_.area_costs[mask_.area(next)];
        const GridCost candidate =
            s < 4 ? GridCost{here.straight + cost, here.diagonal}
                  : GridCost{here.straight, here.diagonal + cost};
        const double value = candidate.value();
        if (value > range_.max_cost_) {
          beyond_.push_back(next);
          continue;
        }
        if (!window_.contains(next)) grow(next);
        const GridCost old = range_.costs_[range_.slot(next)];
        if (old.straight != kNotReached && old.value() <= value) continue;
        set(next, candidate, static_cast<std::uint8_t>(s));
        queue_.push({value, next});
      }
    }
    return finish();
  }

 private:
  // Columns [x0, x1), rows [y0, y1).
  struct Box {
    std::int64_t x0, y0, x1, y1;
    [[nodiscard]] bool contains(Point p) const {
      return p.x >= x0 && p.x < x1 && p.y >= y0 && p.y < y1;
    }
    [[nodiscard]] std::size_t width() const { return static_cast<std::size_t>(x1 - x0); }
    [[nodiscard]] std::size_t height() const { return static_cast<std::size_t>(y1 - y0); }
  };

  [[nodiscard]] Box clip(Box box) const {
    return {std::max<std::int64_t>(box.x0, 0), std::max<std::int64_t>(box.y0, 0),
            std::min<std::int64_t>(box.x1, mask_.width()),
            std::min<std::int64_t>(box.y1, mask_.height())};
  }

  [[nodiscard]] bool passable(Point p) const {
    return mask_.walkable(p, options_.enabled) &&
           (limits_.blocked == nullptr || !limits_.blocked->blocks(p));
  }

  void set(Point p, GridCost cost, std::uint8_t step) {
    const std::size_t i = range_.slot(p);
    range_.costs_[i] = cost;
    range_.steps_[i] = step;
  }

  void settle(Point p) {
    ++range_.pixel_count_;
    low_x_ = std::min<std::int64_t>(low_x_, p.x);
    low_y_ = std::min<std::int64_t>(low_y_, p.y);
    high_x_ = std::max<std::int64_t>(high_x_, p.x);
    high_y_ = std::max<std::int64_t>(high_y_, p.y);
  }

  // Makes the window hold p, growing it toward p by half its size or more
  // (so growing costs O(final window) in all), never past limit_.
  void grow(Point p) {
    const auto half_w = static_cast<std::int64_t>(window_.width() / 2 + 1);
    const auto half_h = static_cast<std::int64_t>(window_.height() / 2 + 1);
    Box next = window_;
    if (p.x < next.x0) next.x0 = std::min<std::int64_t>(p.x, next.x0 - half_w);
    if (p.x >= next.x1) next.x1 = std::max<std::int64_t>(p.x + 1, next.x1 + half_w);
    if (p.y < next.y0) next.y0 = std::min<std::int64_t>(p.y, next.y0 - half_h);
    if (p.y >= next.y1) next.y1 = std::max<std::int64_t>(p.y + 1, next.y1 + half_h);
    next = {std::max(next.x0, limit_.x0), std::max(next.y0, limit_.y0),
            std::min(next.x1, limit_.x1), std::min(next.y1, limit_.y1)};
    resize(next);
  }

  void resize(const Box& next) {
    std::vector<GridCost> costs(next.width() * next.height(), GridCost{kNotReached, 0});
    std::vector<std::uint8_t> steps(costs.size(), 0);
    for (std::size_t r = 0; r < window_.height(); ++r) {
      const std::size_t from = r * window_.width();
      const std::size_t to = static_cast<std::size_t>(window_.y0 - next.y0 + static_cast<std::int64_t>(r)) *
                                 next.width() +
                             static_cast<std::size_t>(window_.x0 - next.x0);
      std::copy_n(range_.costs_.begin() + static_cast<std::ptrdiff_t>(from), window_.width(),
                  costs.begin() + static_cast<std::ptrdiff_t>(to));
      std::copy_n(range_.steps_.begin() + static_cast<std::ptrdiff_t>(from), window_.width(),
                  steps.begin() + static_cast<std::ptrdiff_t>(to));
    }
    window_ = next;
    range_.costs_ = std::move(costs);
    range_.steps_ = std::move(steps);
    range_.window_ = {static_cast<std::int32_t>(next.x0), static_cast<std::int32_t>(next.y0),
                      static_cast<std::uint32_t>(next.width()),
                      static_cast<std::uint32_t>(next.height())};
    range_.bounds_ = range_.window_;  // cost_at reads the window while searching
  }

  MovementRange finish() {
    range_.budget_reached_ = std::any_of(beyond_.begin(), beyond_.end(),
                                         [&](Point p) { return !range_.in_range(p); });
    if (range_.pixel_count_ == 0) {
      range_.bounds_ = {};
    } else {
      range_.bounds_ = {static_cast<std::int32_t>(low_x_), static_cast<std::int32_t>(low_y_),
                        static_cast<std::uint32_t>(high_x_ - low_x_ + 1),
                        static_cast<std::uint32_t>(high_y_ - low_y_ + 1)};
    }
    return std::move(range_);
  }

  const Mask& mask_;
  const FieldOptions options_;
  const RangeLimits& limits_;
  InterruptCheck check_;
  MovementRange range_;
  Box limit_{};
  Box window_{0, 0, 0, 0};
  std::priority_queue<Queued, std::vector<Queued>, std::greater<>> queue_;
  std::vector<Point> beyond_;  // reached only for more than the budget (maybe cheaper later)
  std::int64_t low_x_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t low_y_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t high_x_ = std::numeric_limits<std::int64_t>::min();
  std::int64_t high_y_ = std::numeric_limits<std::int64_t>::min();
};

MovementRange compute_range(const Mask& mask, Point start, double max_cost,
                            const FieldOptions& options, const RangeLimits& limits) {
  if (!mask.contains(start)) {
    throw InvalidArgument("start (" + std::to_string(start.x) + "," + std::to_string(start.y) +
                          ") is outside the mask");
  }
  if (std::isnan(max_cost) || max_cost < 0) {
    throw InvalidArgument("max_cost must be a number >= 0");
  }
  return RangeSearch(mask, start, max_cost, options, limits).run();
}

}  // namespace pathcore
