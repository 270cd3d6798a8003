#include "pathcore/distance_field.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "point_checks.h"

namespace pathcore {
namespace {

using Distance = DistanceField::Distance;

// A pixel the flood fill may never enter (blocked, disabled, or the padding
// around the mask). Distinct from kUnreachable, which marks a walkable pixel
// not reached yet, so one comparison per neighbour tells "enter me".
constexpr Distance kBlocked = DistanceField::kUnreachable - 1;

// Four-neighbour breadth-first flood fill. The grid is padded with a
// one-pixel border of kBlocked so that neighbours need no bounds checks; the
// queue is a flat array of padded indices, sized once, with a moving head and
// tail. The padded grid is copied back unpadded. About 1.6x (full HD) to 3x
// (512x512) faster than a std::queue BFS with bounds checks.
std::vector<Distance> flood_four(const Mask& mask, Point goal, AreaSet enabled) {
  const std::size_t width = mask.width();
  const std::size_t height = mask.height();
  const std::size_t padded_width = width + 2;
  const std::size_t padded_size = padded_width * (height + 2);
  if (padded_size >= kBlocked) {
    throw InvalidArgument("mask of " + std::to_string(width) + "x" + std::to_string(height) +
                          " is too large for a distance field");
  }

  // Area id -> walkable, so the fill reads one table entry per pixel.
  std::array<Distance, kMaxAreaId + 1> initial{};
  for (int id = 0; id <= kMaxAreaId; ++id) {
    initial[static_cast<std::size_t>(id)] =
        ((enabled >> id) & 1U) != 0 ? DistanceField::kUnreachable : kBlocked;
  }

  std::vector<Distance> grid(padded_size, kBlocked);
  const std::uint8_t* areas = mask.areas().data();
  for (std::size_t y = 0; y < height; ++y) {
    const std::uint8_t* row = areas + y * width;
    Distance* out = grid.data() + (y + 1) * padded_width + 1;
    for (std::size_t x = 0; x < width; ++x) {
      out[x] = initial[row[x]];
    }
  }

  const auto goal_index = static_cast<std::uint32_t>(
      (static_cast<std::size_t>(goal.y) + 1) * padded_width + static_cast<std::size_t>(goal.x) + 1);
  if (grid[goal_index] == DistanceField::kUnreachable) {
    const auto stride = static_cast<std::uint32_t>(padded_width);
    // Every walkable pixel enters the queue at most once, so it never grows.
    std::vector<std::uint32_t> queue(
        static_cast<std::size_t>(std::min<std::uint64_t>(mask.walkable_pixels(), padded_size)));
    Distance* const distance = grid.data();
    std::size_t tail = 0;
    distance[goal_index] = 0;
    queue[tail++] = goal_index;
    for (std::size_t head = 0; head < tail; ++head) {
      const std::uint32_t index = queue[head];
      const Distance next = distance[index] + 1;
      for (const std::uint32_t neighbour : {index - 1, index + 1, index - stride, index + stride}) {
        if (distance[neighbour] == DistanceField::kUnreachable) {
          distance[neighbour] = next;
          queue[tail++] = neighbour;
        }
      }
    }
  }

  std::vector<Distance> distances(width * height);
  for (std::size_t y = 0; y < height; ++y) {
    const Distance* in = grid.data() + (y + 1) * padded_width + 1;
    std::transform(in, in + width, distances.begin() + static_cast<std::ptrdiff_t>(y * width),
                   [](Distance d) { return d == kBlocked ? DistanceField::kUnreachable : d; });
  }
  return distances;
}

}  // namespace

DistanceField::DistanceField(std::uint32_t width, std::uint32_t height, Point goal,
                             FieldOptions options, std::vector<Distance> distances)
    : width_(width),
      height_(height),
      goal_(goal),
      options_(options),
      distances_(std::move(distances)) {
  if (distances_.size() != static_cast<std::size_t>(width) * height) {
    throw InvalidArgument("distance field size does not match its dimensions");
  }
}

DistanceField compute_distance_field(const Mask& mask, Point goal, const FieldOptions& options) {
  if (options.connectivity == Connectivity::kEight) {
    throw InvalidArgument("eight-connectivity is not supported yet");
  }
  require_inside(mask, goal, "goal");
  FieldOptions stored = options;
  stored.enabled &= kAllAreas;  // area 0 is never walkable
  return DistanceField(mask.width(), mask.height(), goal, stored,
                       flood_four(mask, goal, stored.enabled));
}

}  // namespace pathcore
