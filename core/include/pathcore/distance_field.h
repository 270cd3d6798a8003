#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <span>
#include <utility>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

enum class Connectivity { kFour, kEight };

// Step cost per area id: entering a pixel of area i costs area_costs[i]
// (1..255) times 1 for a cardinal step, times sqrt 2 for a diagonal one.
// Entry 0 is unused (area 0 is never walkable).
using AreaCosts = std::array<std::uint8_t, kMaxAreaId + 1>;

// Every area costs 1: plain grid distances.
[[nodiscard]] constexpr AreaCosts unit_area_costs() {
  AreaCosts costs{};
  for (auto& cost : costs) cost = 1;
  return costs;
}

// What a flood fill may walk on, and how.
struct FieldOptions {
  AreaSet enabled = kAllAreas;  // effective set (bit 0 clear)
  Connectivity connectivity = Connectivity::kFour;
  // kEight only: may a diagonal step pass blocked cardinal neighbours? By
  // default a diagonal step needs both cardinal pixels beside it walkable;
  // allowed, it needs nothing (it may squeeze between two blocked pixels).
  bool allow_corner_cutting = false;
  // Per-area step costs (1..255); 0 entries are read as 1.
  AreaCosts area_costs = unit_area_costs();
};

// An allocator whose value-less construct() leaves elements uninitialised,
// so growing a buffer that is overwritten next costs no extra pass.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  explicit UninitializedAllocator(const UninitializedAllocator<U>& /*other*/) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// A buffer of distances that grows without zeroing.
template <typename T>
using DistanceBuffer = std::vector<T, UninitializedAllocator<T>>;

// The buffers of a distance field, handed to a FieldBuilder so that a new
// field is built in memory an old one no longer needs (a cache's evicted
// field) instead of in new memory, whose first touch costs page faults.
// Only a buffer of the element type the fill uses and of enough capacity
// (at most an eighth more than it needs) is used; the rest is freed.
struct FieldStorage {
  DistanceBuffer<std::uint16_t> words16;
  DistanceBuffer<std::uint32_t> words32;
  DistanceBuffer<std::uint64_t> words64;

  [[nodiscard]] std::size_t bytes() const {
    return words16.capacity() * 2 + words32.capacity() * 4 + words64.capacity() * 8;
  }
};

// options as a field stores them: bit 0 of enabled cleared, corner cutting
// off for kFour, area costs of 0 read as 1 (and entry 0 set to 1). Two
// requests whose normalized options are equal can share a field.
[[nodiscard]] FieldOptions normalized(const FieldOptions& options);

// An exact grid cost: `straight` is the sum of the area costs of the cardinal
// steps, `diagonal` that of the diagonal steps, so the cost is
// straight + diagonal * sqrt 2. Integer sums compare and add exactly; value()
// orders distinct costs correctly at every magnitude a mask can produce.
struct GridCost {
  std::uint32_t straight = 0;
  std::uint32_t diagonal = 0;

  [[nodiscard]] double value() const {
    return static_cast<double>(straight) + static_cast<double>(diagonal) * std::numbers::sqrt2;
  }
  friend bool operator==(const GridCost&, const GridCost&) = default;
};

// Grid cost from every pixel to one goal pixel (the "It's Flot" buffer):
// with kFour and unit costs the number of cardinal steps; in general the
// cheapest sum of step costs (see AreaCosts). Unwalkable and unreachable
// pixels are unreachable. Immutable once built (a field being built by a
// FieldBuilder is only read by the builder's owner).
//
// Storage, per pixel: kFour, 2 bytes when every cost fits in 16 bits, else 4;
// kEight, 4 bytes (straight and diagonal parts 16 bits each) when both fit,
// else 8. All ones marks an unreachable pixel. The unit-cost octile fill's
// fields (see kTaggedElement, kTaggedWide) store the straight part plus one,
// with every value from the top bit up and 0 unreachable.
class DistanceField {
 public:
  using Distance = std::uint32_t;
  static constexpr Distance kUnreachable = std::numeric_limits<Distance>::max();

  // A finished kFour field from plain distances (kUnreachable where
  // unreachable), stored in 4 bytes per pixel. For tests and tools.
  // Throws InvalidArgument unless distances.size() == width*height.
  DistanceField(std::uint32_t width, std::uint32_t height, Point goal, FieldOptions options,
                std::vector<Distance> distances);

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  [[nodiscard]] Point goal() const { return goal_; }
  [[nodiscard]] const FieldOptions& options() const { return options_; }

  // A field to several goals (FieldBuilder over a list of goals) holds the
  // cost to the nearest of them and, per pixel, which: goal_index(p) is the
  // lowest index among the goals p reaches at its cost. goal() is goals[0].
  // A one-goal field has goal_count() 1 and goal_index 0 everywhere.
  [[nodiscard]] bool several_goals() const { return !goals_.empty(); }
  [[nodiscard]] std::size_t goal_count() const { return goals_.empty() ? 1 : goals_.size(); }
  // Goal `index` (< goal_count()).
  [[nodiscard]] Point goal(std::size_t index) const {
    return goals_.empty() ? goal_ : goals_[index];
  }
  // p must be reachable.
  [[nodiscard]] std::uint32_t goal_index(Point p) const {
    return goals_.empty() ? 0U : labels_[slot(p)];
  }

  [[nodiscard]] bool contains(Point p) const {
    return p.x >= 0 && p.y >= 0 && static_cast<std::uint32_t>(p.x) < width_ &&
           static_cast<std::uint32_t>(p.y) < height_;
  }
  // True when p is inside and has a cost (walkable and connected to the goal).
  [[nodiscard]] bool reachable(Point p) const { return contains(p) && stored_reachable(slot(p)); }
  // The exact cost at p; p must be reachable.
  [[nodiscard]] GridCost exact(Point p) const { return decode(slot(p)); }
  // The cost at p as a number; +infinity when p is not reachable (or outside).
  [[nodiscard]] double cost_at(Point p) const {
    return reachable(p) ? exact(p).value() : std::numeric_limits<double>::infinity();
  }
  // kFour only: the integer cost at p; kUnreachable when p is not reachable.
  [[nodiscard]] Distance at(Point p) const {
    return reachable(p) ? exact(p).straight : kUnreachable;
  }

  // For loops that read many costs of a kFour field (trace): its integer
  // costs as stored, in Word (2 bytes when bytes_per_pixel() is 2, else 4):
  // pixel (x, y) is element origin() + y * stride() + x, and values of all
  // ones - 1 and above are not reachable. nullptr for another Word or a kEight field.
  template <typename Word>
  [[nodiscard]] const Word* four_costs() const {
    if (!four_ || element_bytes_ != sizeof(Word)) return nullptr;
    if constexpr (sizeof(Word) == 2) {
      return words16_.data();
    } else {
      return words32_.data();
    }
  }
  [[nodiscard]] std::size_t stride() const { return stride_; }
  [[nodiscard]] std::size_t origin() const { return origin_; }
  // Whether the stored costs have a one-pixel border of unreachable values
  // around the pixels (a FieldBuilder's field), so a pixel's neighbours can
  // be read without a bounds check.
  [[nodiscard]] bool bordered() const {
    return stride_ == std::size_t{width_} + 2 && origin_ == stride_ + 1;
  }

  // Bytes of distance storage per pixel (2, 4 or 8), see the class comment.
  [[nodiscard]] std::size_t bytes_per_pixel() const {
    return element_bytes_ == kTaggedElement ? 4
           : element_bytes_ == kTaggedWide  ? 8
                                            : element_bytes_;
  }
  // Bytes held, for cache accounting.
  [[nodiscard]] std::size_t memory_bytes() const {
    return sizeof(*this) + storage_bytes() + labels_.capacity() * sizeof(std::uint16_t) +
           goals_.capacity() * sizeof(Point);
  }
  // Bytes of the distance storage alone (what release_storage hands over).
  [[nodiscard]] std::size_t storage_bytes() const {
    return words16_.capacity() * 2 + words32_.capacity() * 4 + words64_.capacity() * 8;
  }
  // Moves the buffers out (for FieldBuilder's recycled argument); the field
  // is left empty, reachable nowhere.
  [[nodiscard]] FieldStorage release_storage() {
    FieldStorage storage{std::move(words16_), std::move(words32_), std::move(words64_)};
    words16_.clear();
    words32_.clear();
    words64_.clear();
    DistanceBuffer<std::uint16_t>().swap(labels_);
    std::vector<Point>().swap(goals_);
    width_ = 0;
    height_ = 0;
    return storage;
  }

 private:
  friend class FieldBuilder;

  DistanceField() = default;

  [[nodiscard]] std::size_t slot(Point p) const {
    return origin_ + static_cast<std::size_t>(p.y) * stride_ + static_cast<std::size_t>(p.x);
  }
  [[nodiscard]] bool stored_reachable(std::size_t i) const {
    // All ones is "unreachable"; while building, all ones - 1 is "blocked".
    switch (element_bytes_) {
      case 2:
        return words16_[i] < 0xFFFEU;
      case 4:
        return words32_[i] < 0xFFFFFFFEU;
      case kTaggedElement:
        return words32_[i] - 1U < 0x7FFFFFFFU;  // 1 to 2^31 - 1
      case kTaggedWide:
        return words64_[i] - 1U < 0x7FFFFFFFFFFFFFFFULL;  // 1 to 2^63 - 1
      default:
        return words64_[i] < 0xFFFFFFFFFFFFFFFEULL;
    }
  }
  [[nodiscard]] GridCost decode(std::size_t i) const {
    switch (element_bytes_) {
      case 2:
        return {words16_[i], 0};
      case 4:
        return four_ ? GridCost{words32_[i], 0}
                     : GridCost{words32_[i] & 0xFFFFU, words32_[i] >> 16};
      case kTaggedElement:
        return {(words32_[i] & 0xFFFFU) - 1U, words32_[i] >> 16};
      case kTaggedWide:
        return {static_cast<std::uint32_t>(words64_[i]) - 1U,
                static_cast<std::uint32_t>(words64_[i] >> 32)};
      default:
        return {static_cast<std::uint32_t>(words64_[i]),
                static_cast<std::uint32_t>(words64_[i] >> 32)};
    }
  }

  std::uint32_t width_ = 0;
  std::uint32_t height_ = 0;
  Point goal_;
  FieldOptions options_;
  bool four_ = true;  // one integer per pixel (kFour), else straight/diagonal pairs
  // element_bytes_ of a 4-byte kEight field from the unit-cost octile fill,
  // which settles pixels in its working grid in place: a reachable pixel
  // holds (straight + 1) | (diagonal << 16), below 2^31 (parts stay below
  // 33461); 0 (blocked), all ones (unreached) and the order keys from 2^31
  // up (not settled yet) read as unreachable. A case of its own in the
  // switches below, so reading the other layouts costs nothing more.
  static constexpr std::size_t kTaggedElement = 5;
  // The same in 8 bytes, once its parts outgrow 33461 (a long corridor):
  // (straight + 1) | (diagonal << 32), below 2^63, keys from 2^63 up.
  static constexpr std::size_t kTaggedWide = 9;
  // 2, 4, 8, kTaggedElement (4 bytes) or kTaggedWide (8 bytes)
  std::size_t element_bytes_ = 4;
  std::size_t stride_ = 0;  // elements per stored row (padding included)
  std::size_t origin_ = 0;  // element of pixel (0,0)
  // Exactly one of these holds the pixels, per element_bytes_.
  DistanceBuffer<std::uint16_t> words16_;
  DistanceBuffer<std::uint32_t> words32_;
  DistanceBuffer<std::uint64_t> words64_;
  // Several goals only (else empty): the goals, and per stored element (the
  // distances' layout) the goal_index of a reachable pixel.
  std::vector<Point> goals_;
  DistanceBuffer<std::uint16_t> labels_;
};

// Builds a DistanceField in steps, so a caller can trace a path as soon as the
// start pixel is settled and finish the rest of the field later (for a cache).
// Flood fill from the goal: breadth first for kFour with unit costs; else an
// exact Dijkstra with a bucket queue of width 1 (every step costs at least 1,
// so each bucket's costs are final when it is reached). O(pixels + largest
// cost). Both work on a grid with a one-pixel border and widen 16-bit costs
// to 32 bits (starting over) only when they overflow. A unit-cost kEight
// fill on obstacle-free ground (every row of the mask all walkable or all
// blocked) instead fills the whole field at once by raster sweeps (see
// swept()) when it is to finish or to settle a pixel far from the goal.
// Not thread-safe; the mask must outlive the builder.
//
// While building, field() answers for every settled pixel (its cost is final)
// and for no pixel that cannot reach the goal; a pixel not settled yet reads as
// unreachable or with a cost that is an upper bound. Every pixel cheaper than a
// settled pixel is settled, so tracing downhill from a settled pixel is exact.
class FieldBuilder {
 public:
  // Validates like compute_distance_field; does no filling yet.
  FieldBuilder(const Mask& mask, Point goal, const FieldOptions& options);
  // The same, building the field in `recycled` where it fits (see FieldStorage).
  FieldBuilder(const Mask& mask, Point goal, const FieldOptions& options,
               FieldStorage recycled);
  // A field to the nearest of several goals (see DistanceField::goal_index):
  // one Dijkstra fill with every walkable goal a source at cost 0, each
  // pixel carrying the lowest goal index among its cheapest steps' (the
  // lowest index among the goals it reaches at its cost). Any connectivity,
  // costs and corner rule; the costs are the ones a one-goal field has toward
  // the nearest goal. Kept in 8 bytes per pixel plus 2 for the index, with
  // the one-pixel border. One goal: exactly the one-goal builder. Throws
  // InvalidArgument for no goals or more than kMaxFieldGoals (the message
  // names "goals"), or a goal outside the mask ("goals[i]"). A field of
  // several goals fills to the end on its first run_until_settled.
  FieldBuilder(const Mask& mask, std::span<const Point> goals, const FieldOptions& options,
               FieldStorage recycled = {});
  ~FieldBuilder();
  FieldBuilder(FieldBuilder&&) noexcept;
  FieldBuilder& operator=(FieldBuilder&&) noexcept;

  // Fills until p is settled (true) or the fill is complete and p cannot reach
  // the goal (false). p outside the mask: fills everything, false.
  bool run_until_settled(Point p);
  // Fills the rest; afterwards field() is final and compact.
  void finish();
  // Lets the caller stop a long fill (cancellation, deadlines, shutdown).
  // run_until_settled() and finish() call `check` about every 16,384
  // expanded pixels (at a BFS level or bucket boundary, never in the middle of
  // one); when it returns true they throw Interrupted, leaving the builder as
  // it was at that boundary: calling them again carries on. An empty function
  // (the default) is never called. `check` runs on the filling thread.
  void set_interrupt(std::function<bool()> check);
  // Reports how far the fill is (pixels expanded over the walkable pixels,
  // which it counts once here: O(pixels)), as often as the interrupt check
  // is asked; an empty report (the default) costs nothing.
  void set_progress(ProgressReport report);
  [[nodiscard]] bool finished() const;
  // True when the field came from raster sweeps rather than the bucket
  // queue (an unstarted unit-cost eight-connected fill on obstacle-free
  // ground; the costs are the same). For tests and benchmarks.
  [[nodiscard]] bool swept() const;
  // The field so far (see the class comment). Like the rest of the builder,
  // not for concurrent use: an eight-connected fill may build the field's
  // storage on the first call.
  [[nodiscard]] const DistanceField& field() const;
  // The finished field; call finish() first. Leaves the builder empty.
  [[nodiscard]] DistanceField take();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The most goals one field takes (its per-pixel goal index is 16 bits).
inline constexpr std::size_t kMaxFieldGoals = 65535;

// Flood fills from goal over the walkable pixels (FieldBuilder, run to the
// end). A goal that is not walkable gives a field where nothing is reachable.
// Area 0 is never walkable: bit 0 of options.enabled is ignored, and cleared in
// the field's options(); an empty set makes nothing walkable. Area costs of 0
// are read as 1. Throws InvalidArgument for a goal outside the mask (the
// message names "goal"), or a mask of 2^32 pixels or more.
[[nodiscard]] DistanceField compute_distance_field(const Mask& mask, Point goal,
                                                   const FieldOptions& options);

// The field to the nearest of goals (FieldBuilder over goals, run to the end).
[[nodiscard]] DistanceField compute_distance_field(const Mask& mask, std::span<const Point> goals,
                                                   const FieldOptions& options);

}  // namespace pathcore
