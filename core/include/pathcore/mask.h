#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace pathcore {

// Area ids are 0..kMaxAreaId; area 0 is never walkable.
inline constexpr int kMaxAreaId = 63;

// Bit set of enabled areas: bit i enables area i. 0 in a request means "all".
using AreaSet = std::uint64_t;

// Every area that can be walkable (1..63).
inline constexpr AreaSet kAllAreas = ~AreaSet{1};

// Turns a request's bit set into the areas that are really walkable:
// 0 means all, and area 0 is never walkable.
[[nodiscard]] constexpr AreaSet effective_areas(AreaSet requested) {
  return (requested == 0 ? kAllAreas : requested) & kAllAreas;
}

struct Point {
  std::int32_t x = 0;
  std::int32_t y = 0;
  friend bool operator==(const Point&, const Point&) = default;
};

// Raised for a bad argument to a core function (out-of-range area id,
// wrong buffer size, point outside the mask...). The message names the problem.
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Thrown when a caller's interrupt check asks a long core computation to stop
// (FieldBuilder's fills, the snapping scans, label_components,
// find_standard_move). Here, with InvalidArgument, so every folder can throw it.
class Interrupted : public std::exception {
 public:
  [[nodiscard]] const char* what() const noexcept override { return "interrupted by the caller"; }
};

// Where a long build reports how far it has come: a fraction in [0, 1),
// called on the building thread at about its interrupt check's cadence (the
// end of the build is the caller's to know). Empty: nothing is reported.
// A plain callback, so core stays free of threads and clocks: the caller
// decides what a report does (an atomic store, typically).
using ProgressReport = std::function<void(double fraction)>;

// A walk mask: one area id (0..63) per pixel, row-major, origin top-left.
// Immutable after construction, so it is safe to share between threads.
class Mask {
 public:
  // Throws InvalidArgument unless areas.size() == width*height, both
  // dimensions are at least 1, and every id is at most kMaxAreaId.
  Mask(std::uint32_t width, std::uint32_t height, std::vector<std::uint8_t> areas);

  // A copy with the pixels at these indices (row-major, each < pixel_count();
  // repeats allowed) set to area 0. Its statistics are updated from the
  // changed pixels instead of rescanning the grid: the copy plus O(pixels
  // changed), and a search for the remaining pixels of each area a changed
  // pixel had (usually found at once).
  [[nodiscard]] Mask with_blocked(std::span<const std::size_t> pixels) const;
  // The same for the pixels for_each(visit) names, calling visit(index) for
  // each: no list of them is built (a caller blocking a large shape names
  // millions).
  template <typename ForEach>
  [[nodiscard]] Mask with_blocked_each(ForEach&& for_each) const {
    Mask copy(*this);
    copy.block_each(for_each);
    return copy;
  }
  // This mask becomes source.with_blocked_each(for_each), in the memory it
  // has: a kept buffer of the same size is copied into without the page
  // faults of a fresh one (most of a fresh copy's cost).
  template <typename ForEach>
  void assign_blocked_each(const Mask& source, ForEach&& for_each) {
    *this = source;
    block_each(for_each);
  }

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  [[nodiscard]] std::size_t pixel_count() const { return areas_.size(); }
  // The area grid, width*height bytes, row-major.
  [[nodiscard]] const std::vector<std::uint8_t>& areas() const { return areas_; }

  [[nodiscard]] bool contains(Point p) const {
    return p.x >= 0 && p.y >= 0 && static_cast<std::uint32_t>(p.x) < width_ &&
           static_cast<std::uint32_t>(p.y) < height_;
  }
  [[nodiscard]] std::size_t index(Point p) const {
    return static_cast<std::size_t>(p.y) * width_ + static_cast<std::size_t>(p.x);
  }
  // Area id at p; p must be inside.
  [[nodiscard]] std::uint8_t area(Point p) const { return areas_[index(p)]; }
  // Inside the mask and of an enabled area. `enabled` is an effective set
  // (see effective_areas): bit 0 must be clear.
  [[nodiscard]] bool walkable(Point p, AreaSet enabled) const {
    return contains(p) && ((enabled >> area(p)) & 1U) != 0;
  }

  // Bit set of the area ids that occur in the mask.
  [[nodiscard]] AreaSet areas_present() const { return areas_present_; }
  // An effective set reduced to what it means on this mask: the areas it
  // enables that occur here. Walkability is unchanged, so requests that
  // differ only in areas the mask lacks share every cache (a client cannot
  // make cold keys for free). A set that enables no area of the mask
  // becomes the lowest area it lacks: still nothing walkable, one key.
  [[nodiscard]] AreaSet areas_in_use(AreaSet enabled) const {
    const AreaSet used = enabled & areas_present_ & kAllAreas;
    if (used != 0) return used;
    const AreaSet absent = ~areas_present_ & kAllAreas;
    return absent & (~absent + 1);  // 0 only when all 63 areas occur, and then used != 0
  }
  // Number of pixels with a non-zero area id.
  [[nodiscard]] std::uint64_t walkable_pixels() const { return walkable_pixels_; }
  // Number of horizontally adjacent pixel pairs of which exactly one has a
  // non-zero area id: how finely walkable and blocked pixels are mixed
  // (about 0.6 per walkable pixel with 30% random obstacles, under 0.2 on
  // the Moving AI game maps; 0 when every row is all walkable or all
  // blocked). The fills pick their inner loops by it, and sweep masks of 0.
  [[nodiscard]] std::uint64_t row_boundaries() const { return row_boundaries_; }

 private:
  // with_blocked's steps: sets pixel i to area 0, keeping the counts and
  // adding its old area to touched; then clears from areas_present() the
  // touched areas no pixel has any more.
  void block(std::size_t i, AreaSet& touched);
  template <typename ForEach>
  void block_each(ForEach& for_each) {
    AreaSet touched = 0;
    for_each([&](std::size_t i) { block(i, touched); });
    forget_absent_areas(touched);
  }
  void forget_absent_areas(AreaSet touched);

  std::uint32_t width_;
  std::uint32_t height_;
  std::vector<std::uint8_t> areas_;
  AreaSet areas_present_ = 0;
  std::uint64_t walkable_pixels_ = 0;
  std::uint64_t row_boundaries_ = 0;
};

// Lower-case hex SHA-256 of the area grid (width*height bytes, row-major), so
// the same level decoded from PNG or RAW has the same digest.
[[nodiscard]] std::string area_grid_sha256(const Mask& mask);

}  // namespace pathcore
