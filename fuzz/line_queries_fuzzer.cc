// Fuzzes what LineOfSight and NearestWalkable answer with, on small masks (up
// to 24 x 24) with fuzzed points and options. Input bytes:
//   0, 1    width, height = byte % 24 + 1
//   2       bit 0: corner cutting (LineRule::kBresenham), else kNoCornerCutting
//   3 - 8   a x, a y, b x, b y, point x, point y (each modulo the mask's size)
//   9       enabled areas as a bit set (0 = all)
//   10...   one pixel per byte, area id = byte % 4, row-major; missing pixels
//           are area 1
// Invariants: first_blocked_pixel(a, b) is the reference's (support/
// line_reference: the covered pixels from each rule's definition in exact
// rational arithmetic) and agrees with segment_walkable both ways round;
// NearestPixels over the walkable pixels answers every pixel of the mask as
// an exhaustive search does.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "pathcore/line.h"
#include "pathcore/mask.h"
#include "pathcore/nearest_pixels.h"
#include "support/line_reference.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "line query invariant failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using pathcore::Point;
  const auto byte = [&](std::size_t i) -> std::uint8_t { return i < size ? data[i] : 0; };
  const std::uint32_t width = byte(0) % 24U + 1;
  const std::uint32_t height = byte(1) % 24U + 1;
  constexpr std::size_t kHeader = 10;
  const pathcore::LineRule rule =
      (byte(2) & 1U) != 0 ? pathcore::LineRule::kBresenham : pathcore::LineRule::kNoCornerCutting;
  const auto w = static_cast<std::int32_t>(width);
  const auto h = static_cast<std::int32_t>(height);
  const Point a{byte(3) % w, byte(4) % h};
  const Point b{byte(5) % w, byte(6) % h};
  const Point p{byte(7) % w, byte(8) % h};
  const pathcore::AreaSet enabled = pathcore::effective_areas(byte(9));
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 1);
  for (std::size_t i = 0; i < areas.size() && kHeader + i < size; ++i) {
    areas[i] = static_cast<std::uint8_t>(data[kHeader + i] % 4U);
  }
  const pathcore::Mask mask(width, height, std::move(areas));

  for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}, std::pair{a, p}}) {
    const auto got = pathcore::first_blocked_pixel(mask, enabled, from, to, rule);
    const auto expected = pathtest::reference_first_blocked(mask, enabled, from, to, rule);
    if (got != expected) fail("first_blocked_pixel differs from the reference");
    if (pathcore::segment_walkable(mask, enabled, from, to, rule) != !expected.has_value()) {
      fail("segment_walkable disagrees with the reference");
    }
  }

  std::vector<std::uint8_t> targets(mask.pixel_count());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    targets[i] = ((enabled >> mask.areas()[i]) & 1U) != 0 ? 1 : 0;
  }
  const pathcore::NearestPixels nearest(width, height, targets);
  for (std::int32_t y = 0; y < h; ++y) {
    for (std::int32_t x = 0; x < w; ++x) {
      const auto expected = pathtest::reference_nearest(
          width, height, {x, y}, [&](Point q) { return mask.walkable(q, enabled); });
      if (nearest.nearest({x, y}) != expected) fail("NearestPixels differs from exhaustive search");
    }
  }
  return 0;
}
