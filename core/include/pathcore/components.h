#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathcore {

// What counts as connected when labelling.
struct ComponentOptions {
  AreaSet enabled = kAllAreas;  // effective set (bit 0 clear); bit 0 is ignored
  Connectivity connectivity = Connectivity::kFour;
  // kEight only. False (the default, and FindPath's default rule): a diagonal
  // step needs both cardinal pixels beside it walkable, so it can always be
  // replaced by two cardinal steps and the components equal the four-connected
  // ones. True: a diagonal step needs nothing else (it may squeeze between two
  // blocked pixels whose corners touch).
  bool allow_corner_cutting = false;
};

// Connected components of the walkable pixels of a mask: one label per pixel,
// 0 for unwalkable pixels, 1..count() for the components, numbered in scan
// order of their first (top-most, then left-most) pixel. Immutable once built,
// so it is safe to share between threads. Memory: 4 bytes per pixel.
class Components {
 public:
  using Label = std::uint32_t;
  static constexpr Label kNone = 0;  // the label of unwalkable pixels

  // Throws InvalidArgument unless labels.size() == width*height.
  Components(std::uint32_t width, std::uint32_t height, Label count, std::vector<Label> labels);
  // Takes width*height labels.
  Components(std::uint32_t width, std::uint32_t height, Label count,
             std::unique_ptr<Label[]> labels);

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  // Number of components (the largest label).
  [[nodiscard]] Label count() const { return count_; }
  [[nodiscard]] bool contains(Point p) const {
    return p.x >= 0 && p.y >= 0 && static_cast<std::uint32_t>(p.x) < width_ &&
           static_cast<std::uint32_t>(p.y) < height_;
  }
  // The label at p; kNone outside the mask or on an unwalkable pixel.
  [[nodiscard]] Label label(Point p) const {
    if (!contains(p)) return kNone;
    return labels_[static_cast<std::size_t>(p.y) * width_ + static_cast<std::size_t>(p.x)];
  }
  // True when a and b are both walkable and in one component (a == b
  // included). Two lookups.
  [[nodiscard]] bool connected(Point a, Point b) const {
    const Label la = label(a);
    return la != kNone && la == label(b);
  }
  // Every label, row-major.
  [[nodiscard]] std::span<const Label> labels() const { return {labels_.get(), size_}; }
  // Bytes held, for cache accounting.
  [[nodiscard]] std::size_t memory_bytes() const { return sizeof(*this) + size_ * sizeof(Label); }

 private:
  std::uint32_t width_;
  std::uint32_t height_;
  Label count_;
  std::size_t size_;
  std::unique_ptr<Label[]> labels_;
};

// Labels the connected components of the pixels walkable under options.
// Union-find over horizontal runs of walkable pixels: one pass numbers the
// runs of each row and joins them to the touching runs of the row above
// (overlapping; for kEight with corner cutting, also diagonally adjacent), a
// second pass writes the compact labels. O(pixels); peak memory the 4-byte
// labels plus 8 bytes per run. Throws InvalidArgument for a mask of 2^32 pixels or more.
// interrupt, when set, is called about every 16,384 pixels labelled (each
// pass counts); when it returns true the labelling stops by throwing
// Interrupted (as nearest_walkable in pathcore/path.h). progress, when set,
// hears the fraction done at each check.
[[nodiscard]] Components label_components(const Mask& mask, const ComponentOptions& options,
                                          const std::function<bool()>& interrupt = {},
                                          const ProgressReport& progress = {});

}  // namespace pathcore
