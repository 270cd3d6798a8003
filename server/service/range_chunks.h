#pragma once

// GetRange's answer as chunks (RangeChunk): pure, so tests and the fuzz
// target can check the encoding without a server.

#include <cstdint>
#include <vector>

#include "pathcore/movement_range.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace pathserver {

// Most row data (bitmap plus costs) in one chunk: 1 MiB, as the proto promises.
inline constexpr std::size_t kRangeChunkBytes = std::size_t{1} << 20;

// The chunks of `range`: whole rows of its bounds, top first, at most
// kRangeChunkBytes of row data each (or one row when a row is larger); one
// chunk without rows for an empty range. With include_costs, each pixel's
// cost as a little-endian float32 (+infinity when not in range).
[[nodiscard]] std::vector<pathfinding::v1::RangeChunk> range_chunks(
    const pathcore::MovementRange& range, bool include_costs, std::uint64_t revision,
    std::size_t chunk_bytes = kRangeChunkBytes);

}  // namespace pathserver
