#pragma once

// GetField's answer, sample by sample: which pixels of a field a request
// keeps (crop and downsample), their costs as float32 and their flow
// directions. No gRPC here: the stream (field_stream.cc) cuts these rows
// into chunks.

#include <cstddef>
#include <cstdint>
#include <string>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathserver {

// The pixels an answer keeps: the crop's columns x, x + step, ... and rows
// y, y + step, ... (width x height samples).
struct FieldWindow {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t step = 1;
  std::uint32_t width = 0;   // samples per row
  std::uint32_t height = 0;  // rows
};

// GetFieldRequest.crop as it arrived: all zero means the whole mask.
struct CropRequest {
  bool set = false;
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
};

// The window of a crop and downsample factor on a mask_width x mask_height
// mask; or the INVALID_ARGUMENT message (naming crop) when the crop is
// zero-sized while set, or reaches outside the mask. downsample 0 means 1.
[[nodiscard]] bool field_window(const CropRequest& crop, std::uint32_t downsample,
                                std::uint32_t mask_width, std::uint32_t mask_height,
                                FieldWindow& window, std::string& problem);

// Rows per chunk so that a chunk's row data (4 bytes of distance per sample,
// plus 1 of flow with include_flow) is at most max_bytes; at least 1.
[[nodiscard]] std::uint32_t rows_per_chunk(std::uint32_t samples_per_row, bool include_flow,
                                           std::size_t max_bytes);

// What the samples are read from. field may be null (no pixel reaches the
// goal: every sample is +infinity, flow 0). mask: the pixels the field was
// filled on (the usable mask with clearance), for the flow's step rule.
struct FieldSamples {
  const pathcore::DistanceField* field = nullptr;
  const pathcore::Mask* mask = nullptr;
};

// Appends rows first_row .. first_row + row_count - 1 of the window: each
// sample's cost as little-endian float32 (+infinity where unreachable) to
// distances, and, when flow is not null, its flow_direction to *flow.
void append_field_rows(const FieldSamples& samples, const FieldWindow& window,
                       std::uint32_t first_row, std::uint32_t row_count, std::string& distances,
                       std::string* flow);

// The first step from p toward the goal on a cheapest grid path, as
// pathfinding.v1.Direction (1 = N, 2 = NE, ... 8 = NW); 0 at the goal and
// where p is not reachable. Tie rule: the first direction, in N, NE, E, SE,
// S, SW, W, NW order, of a legal step (the field's connectivity and corner
// rule, onto a reachable neighbour) whose step cost plus the neighbour's
// cost equals p's cost exactly (costs are exact sums, see GridCost). On a
// field to several goals: 0 at every goal, and only steps onto pixels of p's
// goal_index, so the flow leads to the goal FindPath from p would take.
[[nodiscard]] std::uint8_t flow_direction(const pathcore::DistanceField& field,
                                          const pathcore::Mask& mask, pathcore::Point p);

}  // namespace pathserver
