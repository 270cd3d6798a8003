#include "bench_masks.h"

#include <algorithm>
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

pathcore::Mask maze_mask(std::uint32_t width, std::uint32_t height, std::uint32_t corridor,
                         std::uint32_t wall, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::uint32_t pitch = corridor + wall;
  const std::uint32_t columns = (width - wall) / pitch;
  const std::uint32_t rows = (height - wall) / pitch;
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 0);
  const auto carve = [&](std::uint32_t x0, std::uint32_t y0, std::uint32_t w, std::uint32_t h) {
    for (std::uint32_t y = y0; y < y0 + h; ++y) {
      for (std::uint32_t x = x0; x < x0 + w; ++x) areas[std::size_t{y} * width + x] = 1;
    }
  };
  std::vector<bool> visited(std::size_t{columns} * rows, false);
  std::vector<std::uint32_t> stack{0};
  visited[0] = true;
  carve(wall, wall, corridor, corridor);
  while (!stack.empty()) {
    const std::uint32_t cell = stack.back();
    const std::uint32_t cx = cell % columns;
    const std::uint32_t cy = cell / columns;
    std::vector<std::uint32_t> next;
    if (cx > 0 && !visited[cell - 1]) next.push_back(cell - 1);
    if (cx + 1 < columns && !visited[cell + 1]) next.push_back(cell + 1);
    if (cy > 0 && !visited[cell - columns]) next.push_back(cell - columns);
    if (cy + 1 < rows && !visited[cell + columns]) next.push_back(cell + columns);
    if (next.empty()) {
      stack.pop_back();
      continue;
    }
    const std::uint32_t to = next[rng() % next.size()];
    visited[to] = true;
    stack.push_back(to);
    const std::uint32_t tx = to % columns;
    const std::uint32_t ty = to / columns;
    carve(wall + tx * pitch, wall + ty * pitch, corridor, corridor);
    // The wall between the two cells.
    const std::uint32_t lx = std::min(cx, tx);
    const std::uint32_t ly = std::min(cy, ty);
    if (cx != tx) {
      carve(wall + lx * pitch + corridor, wall + ly * pitch, wall, corridor);
    } else {
      carve(wall + lx * pitch, wall + ly * pitch + corridor, corridor, wall);
    }
  }
  return pathcore::Mask(width, height, std::move(areas));
}

pathcore::Mask rooms_mask(std::uint32_t width, std::uint32_t height, std::uint32_t room,
                          std::uint32_t door, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 1);
  const std::uint32_t pitch = room + 1;
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      if (x % pitch == room || y % pitch == room) areas[std::size_t{y} * width + x] = 0;
    }
  }
  std::uniform_int_distribution<std::uint32_t> at(0, room - door);
  std::bernoulli_distribution closed(0.1);
  for (std::uint32_t ry = 0; ry * pitch < height; ++ry) {
    for (std::uint32_t rx = 0; rx * pitch < width; ++rx) {
      const std::uint32_t x0 = rx * pitch;
      const std::uint32_t y0 = ry * pitch;
      if (!closed(rng)) {  // a door in the east wall
        const std::uint32_t d = y0 + at(rng);
        for (std::uint32_t y = d; y < d + door && y < height; ++y) {
          if (x0 + room < width) areas[std::size_t{y} * width + x0 + room] = 1;
        }
      }
      if (!closed(rng)) {  // a door in the south wall
        const std::uint32_t d = x0 + at(rng);
        for (std::uint32_t x = d; x < d + door && x < width; ++x) {
          if (y0 + room < height) areas[std::size_t{y0 + room} * width + x] = 1;
        }
      }
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
