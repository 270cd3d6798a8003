// GetRange's chunks (service/range_chunks.h): decoded here bit by bit and
// float by float and compared with the range they encode; rows split by the
// chunk size; an empty range is one chunk without rows.
#include "service/range_chunks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "support/random_mask.h"

namespace {

using pathcore::Point;

// Decodes every chunk and checks it against range, row by row.
void expect_encodes(const std::vector<pathfinding::v1::RangeChunk>& chunks,
                    const pathcore::MovementRange& range, bool costs, std::size_t chunk_bytes) {
  const pathcore::PixelRect& bounds = range.bounds();
  const std::size_t row_bits = (std::size_t{bounds.width} + 7) / 8;
  const std::size_t row_bytes = row_bits + (costs ? std::size_t{bounds.width} * 4 : 0);
  std::uint32_t next = 0;
  for (const auto& chunk : chunks) {
    EXPECT_EQ(chunk.bounds().x(), static_cast<std::uint32_t>(bounds.x));
    EXPECT_EQ(chunk.bounds().y(), static_cast<std::uint32_t>(bounds.y));
    EXPECT_EQ(chunk.bounds().width(), bounds.width);
    EXPECT_EQ(chunk.bounds().height(), bounds.height);
    EXPECT_EQ(chunk.pixel_count(), range.pixel_count());
    EXPECT_EQ(chunk.mask_revision(), 7U);
    ASSERT_EQ(chunk.first_row(), next);
    ASSERT_EQ(chunk.in_range().size(), row_bits * chunk.row_count());
    ASSERT_EQ(chunk.costs().size(), costs ? std::size_t{bounds.width} * chunk.row_count() * 4 : 0);
    EXPECT_TRUE(chunk.row_count() == 1 || chunk.row_count() * row_bytes <= chunk_bytes);
    for (std::uint32_t r = 0; r < chunk.row_count(); ++r) {
      for (std::uint32_t i = 0; i < bounds.width; ++i) {
        const Point p{bounds.x + static_cast<std::int32_t>(i),
                      bounds.y + static_cast<std::int32_t>(next + r)};
        const auto bit = (static_cast<unsigned char>(chunk.in_range()[r * row_bits + i / 8]) >> (i % 8)) & 1U;
        ASSERT_EQ(bit == 1, range.in_range(p));
        if (!costs) continue;
        float value = 0;
        std::memcpy(&value, chunk.costs().data() + (std::size_t{r} * bounds.width + i) * 4, 4);
        if (range.in_range(p)) {
          ASSERT_EQ(value, static_cast<float>(range.cost_at(p)->value()));
        } else {
          ASSERT_TRUE(std::isinf(value));
        }
      }
    }
    next += chunk.row_count();
  }
  EXPECT_EQ(next, bounds.height);
}

TEST(RangeChunks, EncodeTheRangeInWholeRowsWithinTheChunkSize) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 40; ++round) {
    const pathcore::Mask mask = pathtest::random_mask(rng, 5 + rng() % 60, 5 + rng() % 60, 0.2, 3);
    pathcore::FieldOptions options;
    options.connectivity = round % 2 == 0 ? pathcore::Connectivity::kFour : pathcore::Connectivity::kEight;
    options.area_costs[2] = 3;
    const auto range =
        pathcore::compute_range(mask, pathtest::random_point(rng, mask), 5 + rng() % 40, options);
    for (const bool costs : {false, true}) {
      for (const std::size_t chunk_bytes : {std::size_t{1}, std::size_t{40}, std::size_t{1000},
                                            pathserver::kRangeChunkBytes}) {
        const auto chunks = pathserver::range_chunks(range, costs, 7, chunk_bytes);
        ASSERT_FALSE(chunks.empty());
        ASSERT_NO_FATAL_FAILURE(expect_encodes(chunks, range, costs, chunk_bytes));
      }
    }
  }
}

TEST(RangeChunks, AnEmptyRangeIsOneChunkWithoutRows) {
  const pathcore::Mask mask(2, 1, {0, 1});
  const auto range = pathcore::compute_range(mask, {0, 0}, 3, {});
  const auto chunks = pathserver::range_chunks(range, true, 7);
  ASSERT_EQ(chunks.size(), 1U);
  EXPECT_EQ(chunks[0].row_count(), 0U);
  EXPECT_EQ(chunks[0].bounds().width(), 0U);
  EXPECT_EQ(chunks[0].pixel_count(), 0U);
  EXPECT_TRUE(chunks[0].in_range().empty());
  EXPECT_TRUE(chunks[0].costs().empty());
}

}  // namespace
