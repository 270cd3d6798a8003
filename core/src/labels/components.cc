#include "pathcore/components.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <utility>

#include "mask/interrupt_check.h"

namespace pathcore {
namespace {

// Union-find with path halving; the smaller index becomes the root, so the
// root of a set is its run that comes first in scan order.
class DisjointSets {
 public:
  std::uint32_t add() {
    parent_.push_back(static_cast<std::uint32_t>(parent_.size()));
    return parent_.back();
  }
  std::uint32_t find(std::uint32_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];
      i = parent_[i];
    }
    return i;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (a < b) std::swap(a, b);
    parent_[a] = b;
  }
  [[nodiscard]] std::size_t size() const { return parent_.size(); }

 private:
  std::vector<std::uint32_t> parent_;
};

}  // namespace

Components::Components(std::uint32_t width, std::uint32_t height, Label count,
                       std::vector<Label> labels)
    : Components(width, height, count, std::make_unique<Label[]>(labels.size())) {
  if (labels.size() != size_) {
    throw InvalidArgument("components: " + std::to_string(labels.size()) + " labels for a " +
                          std::to_string(width) + "x" + std::to_string(height) + " mask");
  }
  std::copy(labels.begin(), labels.end(), labels_.get());
}

Components::Components(std::uint32_t width, std::uint32_t height, Label count,
                       std::unique_ptr<Label[]> labels)
    : width_(width),
      height_(height),
      count_(count),
      size_(static_cast<std::size_t>(width) * height),
      labels_(std::move(labels)) {}

Components label_components(const Mask& mask, const ComponentOptions& options,
                            const std::function<bool()>& interrupt,
                            const ProgressReport& progress) {
  if (mask.pixel_count() >= (std::size_t{1} << 32)) {
    throw InvalidArgument("components: masks of 2^32 pixels or more are not supported");
  }
  const std::uint32_t width = mask.width();
  const std::uint32_t height = mask.height();
  const AreaSet enabled = options.enabled & kAllAreas;  // area 0 is never walkable
  std::array<std::uint8_t, kMaxAreaId + 1> lut{};
  for (int area = 1; area <= kMaxAreaId; ++area) lut[area] = (enabled >> area) & 1U;
  const bool squeeze = options.connectivity == Connectivity::kEight && options.allow_corner_cutting;

  // Pass 1, row by row and branch-free per pixel: open flags, and each open
  // pixel's run number + 1 written into the labels (0 where blocked), with
  // the positions where runs start. Runs of this row and the row above that
  // touch are then united once per touching pair, at the first pixel where
  // they touch (there one of the two runs starts), so the work per row is
  // proportional to its runs.
  auto labels = std::make_unique_for_overwrite<Components::Label[]>(mask.pixel_count());
  // Open flags with a blocked pixel on each side (index x + 1).
  std::vector<std::uint8_t> open_here(static_cast<std::size_t>(width) + 2, 0);
  std::vector<std::uint8_t> open_above(open_here.size(), 0);
  std::vector<std::uint32_t> starts_here(static_cast<std::size_t>(width) + 1);
  std::vector<std::uint32_t> starts_above(starts_here.size());
  std::size_t count_here = 0;
  std::size_t count_above = 0;
  static constexpr std::array<int, 3> kOffsets = {0, -1, 1};
  const std::size_t offsets = squeeze ? 3 : 1;
  DisjointSets sets;
  std::uint32_t runs = 0;  // runs so far; a pixel's label holds its run + 1
  const std::uint8_t* areas = mask.areas().data();
  InterruptCheck check(interrupt, progress, 2 * mask.pixel_count());  // two passes
  for (std::uint32_t y = 0; y < height; ++y) {
    check.after(width);
    const std::uint8_t* row = areas + static_cast<std::size_t>(y) * width;
    Components::Label* out = labels.get() + static_cast<std::size_t>(y) * width;
    std::uint8_t open_before = 0;
    count_here = 0;
    std::uint32_t x = 0;
    // Eight pixels at a time: open flags one per byte, run starts, and their
    // running count by one multiplication (byte k = starts in bytes 0..k).
    for (; x + 8 <= width; x += 8) {
      std::uint64_t open = 0;
      for (std::uint32_t k = 0; k < 8; ++k) {
        open |= static_cast<std::uint64_t>(lut[row[x + k]]) << (8 * k);
      }
      std::memcpy(&open_here[x + 1], &open, sizeof(open));
      const std::uint64_t starts = open & ~((open << 8) | open_before);
      open_before = static_cast<std::uint8_t>(open >> 56);
      const std::uint64_t before = starts * 0x0101010101010101ULL;
      for (std::uint32_t k = 0; k < 8; ++k) {
        starts_here[count_here] = x + k;
        count_here += (starts >> (8 * k)) & 1U;
        out[x + k] = static_cast<Components::Label>(((open >> (8 * k)) & 1U) *
                                                    (runs + ((before >> (8 * k)) & 0xFFU)));
      }
      runs += static_cast<std::uint32_t>(before >> 56);
    }
    for (; x < width; ++x) {
      const std::uint8_t open = lut[row[x]];
      open_here[x + 1] = open;
      const std::uint8_t start = open & static_cast<std::uint8_t>(open_before ^ 1U);
      open_before = open;
      starts_here[count_here] = x;
      count_here += start;
      runs += start;
      out[x] = open * runs;
    }
    while (sets.size() < runs) sets.add();
    if (y > 0) {
      const Components::Label* above = out - width;
      for (std::size_t o = 0; o < offsets; ++o) {
        const int offset = kOffsets[o];
        // A run here starting at x touches the pixel above at x + offset...
        for (std::size_t i = 0; i < count_here; ++i) {
          const auto xa = static_cast<std::int64_t>(starts_here[i]) + offset;
          if (open_above[static_cast<std::size_t>(xa + 1)] != 0) {
            sets.unite(out[starts_here[i]] - 1, above[xa] - 1);
          }
        }
        // ... and a run above starting at xa touches the pixel here at xa - offset.
        for (std::size_t i = 0; i < count_above; ++i) {
          const auto x = static_cast<std::int64_t>(starts_above[i]) - offset;
          if (open_here[static_cast<std::size_t>(x + 1)] != 0) {
            sets.unite(out[x] - 1, above[starts_above[i]] - 1);
          }
        }
      }
    }
    std::swap(open_here, open_above);
    std::swap(starts_here, starts_above);
    count_above = count_here;
  }

  // Pass 2: compact labels in scan order of each set's first run (its root),
  // then one gather per pixel (entry 0 keeps blocked pixels at kNone).
  std::vector<Components::Label> final_label(static_cast<std::size_t>(runs) + 1, Components::kNone);
  std::vector<Components::Label> label_of_root(runs, Components::kNone);
  Components::Label count = 0;
  for (std::uint32_t run = 0; run < runs; ++run) {
    const std::uint32_t root = sets.find(run);
    if (label_of_root[root] == Components::kNone) label_of_root[root] = ++count;
    final_label[run + 1] = label_of_root[root];
  }
  for (std::size_t row = 0; row < mask.pixel_count(); row += width) {
    check.after(width);
    for (std::size_t i = row; i < row + width; ++i) labels[i] = final_label[labels[i]];
  }
  return Components(width, height, count, std::move(labels));
}

}  // namespace pathcore
