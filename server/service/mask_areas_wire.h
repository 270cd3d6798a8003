#pragma once

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

#include "pathfinding/v1/pathfinding.pb.h"
#include "store/mask_store.h"

namespace pathserver {

// Writes `info` followed by `entry`'s area grid as MaskInfo.areas into `out`,
// without copying the grid: the last slice points into the stored mask and
// holds a reference to the entry until gRPC has sent it. A client that never
// reads the answer then pins the mask it asked for (already in memory), not a
// copy per call. `info` must not have areas set.
[[nodiscard]] grpc::Status write_mask_with_areas(const pathfinding::v1::MaskInfo& info,
                                                 MaskEntryPtr entry, grpc::ByteBuffer& out);

}  // namespace pathserver
