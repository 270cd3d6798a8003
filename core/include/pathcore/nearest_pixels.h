#pragma once

// The nearest of a fixed set of pixels to many points, by snapping's rule
// (Euclidean distance between pixel centres, ties to the first pixel in
// row-major order), without a scan of the mask per point (core/src/path).

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

// Built once per set of target pixels, then asked for many points: holds the
// exact squared distance from every pixel to its nearest target (Meijster's
// linear-time Euclidean distance transform, in integers), 4 bytes per pixel,
// plus the targets (1 byte per pixel). A query knows the exact distance d of
// its answer and tries only the pixels at exactly that distance, row by row
// from the top: O(d). Immutable once built, so it can be shared by threads.
class NearestPixels {
 public:
  // targets: width * height bytes, row-major, non-zero for a target pixel.
  // O(pixels). interrupt, when set, is called about every 16,384 pixels;
  // when it returns true the build stops by throwing Interrupted; progress,
  // when set, hears the fraction done as often. Throws InvalidArgument
  // unless targets.size() == width * height.
  NearestPixels(std::uint32_t width, std::uint32_t height, std::vector<std::uint8_t> targets,
                const std::function<bool()>& interrupt = {}, const ProgressReport& progress = {});

  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  // True when there is no target at all (every query answers nullopt).
  [[nodiscard]] bool empty() const { return empty_; }
  // The target nearest to p (p itself when it is one; ties to the first in
  // row-major order), nullopt when there is none. Throws InvalidArgument
  // (naming "point") when p is outside.
  [[nodiscard]] std::optional<Point> nearest(Point p) const;
  [[nodiscard]] std::size_t memory_bytes() const {
    return squared_.capacity() * sizeof(std::uint32_t) + targets_.capacity() + sizeof(*this);
  }

 private:
  [[nodiscard]] bool is_target(std::int64_t x, std::int64_t y) const {
    return targets_[static_cast<std::size_t>(y) * width_ + static_cast<std::size_t>(x)] != 0;
  }

  std::uint32_t width_;
  std::uint32_t height_;
  bool empty_ = true;
  std::vector<std::uint8_t> targets_;
  // Squared distance to the nearest target, row-major; kFar when it does not
  // fit 32 bits (masks over 46,000 pixels across), and those points are
  // answered by a scan of every target instead.
  std::vector<std::uint32_t> squared_;
  static constexpr std::uint32_t kFar = 0xFFFFFFFFU;
};

}  // namespace pathcore
