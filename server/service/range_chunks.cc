#include "service/range_chunks.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

namespace pathserver {

std::vector<pathfinding::v1::RangeChunk> range_chunks(const pathcore::MovementRange& range,
                                                      bool include_costs, std::uint64_t revision,
                                                      std::size_t chunk_bytes) {
  static_assert(std::endian::native == std::endian::little, "costs are sent as they are stored");
  const pathcore::PixelRect& bounds = range.bounds();
  const std::size_t row_bits = (std::size_t{bounds.width} + 7) / 8;
  const std::size_t row_bytes = row_bits + (include_costs ? std::size_t{bounds.width} * 4 : 0);
  const auto rows_per_chunk =
      static_cast<std::uint32_t>(std::max<std::size_t>(1, chunk_bytes / std::max<std::size_t>(1, row_bytes)));
  std::vector<pathfinding::v1::RangeChunk> chunks;
  std::uint32_t first = 0;
  do {
    const std::uint32_t rows = std::min(rows_per_chunk, bounds.height - first);
    pathfinding::v1::RangeChunk& chunk = chunks.emplace_back();
    auto* rect = chunk.mutable_bounds();
    rect->set_x(static_cast<std::uint32_t>(bounds.x));
    rect->set_y(static_cast<std::uint32_t>(bounds.y));
    rect->set_width(bounds.width);
    rect->set_height(bounds.height);
    chunk.set_first_row(first);
    chunk.set_row_count(rows);
    chunk.set_pixel_count(range.pixel_count());
    chunk.set_mask_revision(revision);
    std::string bits(row_bits * rows, '\0');
    std::string costs;
    if (include_costs) costs.resize(std::size_t{bounds.width} * rows * 4);
    constexpr float kInfinity = std::numeric_limits<float>::infinity();
    for (std::uint32_t r = 0; r < rows; ++r) {
      const std::int32_t y = bounds.y + static_cast<std::int32_t>(first + r);
      for (std::uint32_t i = 0; i < bounds.width; ++i) {
        const auto cost = range.cost_at({bounds.x + static_cast<std::int32_t>(i), y});
        if (cost) bits[r * row_bits + i / 8] = static_cast<char>(bits[r * row_bits + i / 8] | (1 << (i % 8)));
        if (include_costs) {
          const float value = cost ? static_cast<float>(cost->value()) : kInfinity;
          std::memcpy(costs.data() + (std::size_t{r} * bounds.width + i) * 4, &value, 4);
        }
      }
    }
    *chunk.mutable_in_range() = std::move(bits);
    if (include_costs) *chunk.mutable_costs() = std::move(costs);
    first += rows;
  } while (first < bounds.height);
  return chunks;
}

}  // namespace pathserver
