#pragma once

#include <cstdint>
#include <vector>

#include "pathcore/mask.h"

namespace pathbench {

// The strict seed: the flood fill of the seed article ("It's Flot") built as
// well as the article allows, the baseline issue 20's wire ratios are measured
// against (BM_StrictSeedFill, scripts/wire-ratios). What makes it strict,
// next to seed_reference_field (which allocates its buffer on every call and
// tests an enabled-area bit per neighbour, so it is slower than the article's
// code and flatters us):
//   - one 32-bit signed buffer, allocated once (here) and refilled from the
//     mask per run (-1 walkable, kBlocked blocked), so a neighbour costs one
//     load and one compare;
//   - two point lists, kept between runs and swapped per level (level by level,
//     as the article does);
//   - a bounds check on every neighbour (no padded border) and a plain
//     "area id != 0" test for walkable (no area sets, costs or options);
//   - strict_seed_fill.cc is compiled -O2 whatever the build type (bench/CMakeLists.txt).
// Four-connected, unit steps. Not used by the product.
class StrictSeedFill {
 public:
  // Allocates the buffer for width x height masks and reserves the lists.
  StrictSeedFill(std::uint32_t width, std::uint32_t height);

  // Fills distances to goal over mask, which must be width x height (throws
  // pathcore::InvalidArgument otherwise, or for a goal outside the mask).
  // Returns the buffer: per pixel (row-major) the number of steps to the goal,
  // kBlocked where blocked, -1 where walkable but unreachable (every walkable
  // pixel when the goal is blocked). The reference stays valid until the next run.
  const std::vector<std::int32_t>& run(const pathcore::Mask& mask, pathcore::Point goal);

  // The buffer's value for a blocked pixel.
  static constexpr std::int32_t kBlocked = -2;

 private:
  std::int32_t width_;
  std::int32_t height_;
  std::vector<std::int32_t> buffer_;
  std::vector<pathcore::Point> current_;
  std::vector<pathcore::Point> next_;
};

}  // namespace pathbench
