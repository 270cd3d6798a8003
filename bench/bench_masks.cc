#include "bench_masks.h"

#include <cstddef>
#include <random>
#include <vector>

namespace pathbench {

pathcore::Mask open_mask(std::uint32_t width, std::uint32_t height) {
  return pathcore::Mask(width, height, std::vector<std::uint8_t>(std::size_t{width} * height, 1));
}

pathcore::Mask random_obstacle_mask(std::uint32_t width, std::uint32_t height,
                                    double obstacle_ratio, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution blocked(obstacle_ratio);
  std::vector<std::uint8_t> areas(std::size_t{width} * height);
  for (auto& id : areas) {
    id = blocked(rng) ? 0 : 1;
  }
  return pathcore::Mask(width, height, std::move(areas));
}

pathcore::Mask spiral_mask(std::uint32_t width, std::uint32_t height) {
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 0);
  const auto w = static_cast<std::int64_t>(width);
  const auto h = static_cast<std::int64_t>(height);
  auto carved = [&](std::int64_t x, std::int64_t y) { return areas[y * w + x] != 0; };
  // Turtle walk in strides of two, turning clockwise when the cell two ahead
  // is outside or already carved; the skipped cells stay walls.
  constexpr std::int64_t kDx[] = {1, 0, -1, 0};
  constexpr std::int64_t kDy[] = {0, 1, 0, -1};
  std::int64_t x = 0;
  std::int64_t y = 0;
  int direction = 0;
  areas[0] = 1;
  int turns_without_progress = 0;
  while (turns_without_progress < 2) {
    const std::int64_t nx = x + 2 * kDx[direction];
    const std::int64_t ny = y + 2 * kDy[direction];
    if (nx >= 0 && ny >= 0 && nx < w && ny < h && !carved(nx, ny)) {
      areas[(y + kDy[direction]) * w + (x + kDx[direction])] = 1;
      areas[ny * w + nx] = 1;
      x = nx;
      y = ny;
      turns_without_progress = 0;
    } else {
      direction = (direction + 1) % 4;
      ++turns_without_progress;
    }
  }
  return pathcore::Mask(width, height, std::move(areas));
}

pathcore::Point walkable_near(const pathcore::Mask& mask, pathcore::Point p) {
  for (std::size_t i = mask.index(p); i < mask.pixel_count(); ++i) {
    if (mask.areas()[i] != 0) {
      return {static_cast<std::int32_t>(i % mask.width()),
              static_cast<std::int32_t>(i / mask.width())};
    }
  }
  return p;
}

}  // namespace pathbench
