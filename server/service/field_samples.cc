#include "service/field_samples.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace pathserver {
namespace {

struct Step {
  int dx;
  int dy;
};

// pathfinding.v1.Direction 1..8 (north = y - 1).
constexpr std::array<Step, 8> kDirections = {
    {{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}};

void put_float(char* out, float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  out[0] = static_cast<char>(bits & 0xFFU);
  out[1] = static_cast<char>((bits >> 8) & 0xFFU);
  out[2] = static_cast<char>((bits >> 16) & 0xFFU);
  out[3] = static_cast<char>(bits >> 24);
}

}  // namespace

bool field_window(const CropRequest& crop, std::uint32_t downsample, std::uint32_t mask_width,
                  std::uint32_t mask_height, FieldWindow& window, std::string& problem) {
  const bool whole =
      !crop.set || (crop.x == 0 && crop.y == 0 && crop.width == 0 && crop.height == 0);
  std::uint64_t x = 0;
  std::uint64_t y = 0;
  std::uint64_t width = mask_width;
  std::uint64_t height = mask_height;
  if (!whole) {
    x = crop.x;
    y = crop.y;
    width = crop.width;
    height = crop.height;
    const std::string rect = "(" + std::to_string(x) + ", " + std::to_string(y) + ") " +
                             std::to_string(width) + "x" + std::to_string(height);
    if (width == 0 || height == 0) {
      problem = "crop: " + rect +
                " is empty; width and height must be at least 1 (or the "
                "whole crop unset for the whole mask)";
      return false;
    }
    if (x + width > mask_width || y + height > mask_height) {
      problem = "crop: " + rect + " reaches outside the mask of " + std::to_string(mask_width) +
                "x" + std::to_string(mask_height);
      return false;
    }
  }
  const std::uint64_t step = std::max<std::uint32_t>(downsample, 1);
  window.x = static_cast<std::uint32_t>(x);
  window.y = static_cast<std::uint32_t>(y);
  window.step = static_cast<std::uint32_t>(step);
  window.width = static_cast<std::uint32_t>((width + step - 1) / step);
  window.height = static_cast<std::uint32_t>((height + step - 1) / step);
  return true;
}

std::uint32_t rows_per_chunk(std::uint32_t samples_per_row, bool include_flow,
                             std::size_t max_bytes) {
  const std::size_t row_bytes = std::size_t{samples_per_row} * (include_flow ? 5 : 4);
  const std::size_t rows = row_bytes == 0 ? 1 : max_bytes / row_bytes;
  return static_cast<std::uint32_t>(
      std::clamp<std::size_t>(rows, 1, std::numeric_limits<std::uint32_t>::max()));
}

std::uint8_t flow_direction(const pathcore::DistanceField& field, const pathcore::Mask& mask,
                            pathcore::Point p) {
  if (!field.reachable(p) || p == field.goal()) return 0;
  const pathcore::GridCost here = field.exact(p);
  const pathcore::FieldOptions& options = field.options();
  const bool eight = options.connectivity == pathcore::Connectivity::kEight;
  std::uint8_t cheapest = 0;  // by value, should no exact match exist
  double cheapest_value = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d < kDirections.size(); ++d) {
    const Step step = kDirections[d];
    const bool diagonal = step.dx != 0 && step.dy != 0;
    if (diagonal && !eight) continue;
    const pathcore::Point next{p.x + step.dx, p.y + step.dy};
    if (!field.reachable(next)) continue;
    if (diagonal && !options.allow_corner_cutting &&
        (!mask.walkable({next.x, p.y}, options.enabled) ||
         !mask.walkable({p.x, next.y}, options.enabled))) {
      continue;
    }
    // The step enters next: next's area cost (times sqrt 2 when diagonal).
    const std::uint32_t area_cost = std::max<std::uint8_t>(options.area_costs[mask.area(next)], 1);
    pathcore::GridCost via = field.exact(next);
    (diagonal ? via.diagonal : via.straight) += area_cost;
    if (via == here) return static_cast<std::uint8_t>(d + 1);
    if (via.value() < cheapest_value) {
      cheapest_value = via.value();
      cheapest = static_cast<std::uint8_t>(d + 1);
    }
  }
  return cheapest;
}

void append_field_rows(const FieldSamples& samples, const FieldWindow& window,
                       std::uint32_t first_row, std::uint32_t row_count, std::string& distances,
                       std::string* flow) {
  const std::size_t count = std::size_t{row_count} * window.width;
  const std::size_t distance_start = distances.size();
  distances.resize(distance_start + count * 4);
  char* out = distances.data() + distance_start;
  char* flow_out = nullptr;
  if (flow != nullptr) {
    const std::size_t flow_start = flow->size();
    flow->resize(flow_start + count, '\0');
    flow_out = flow->data() + flow_start;
  }
  const pathcore::DistanceField* field = samples.field;
  constexpr float kUnreachable = std::numeric_limits<float>::infinity();
  for (std::uint32_t row = first_row; row < first_row + row_count; ++row) {
    const auto y = static_cast<std::int32_t>(window.y + std::uint64_t{row} * window.step);
    for (std::uint32_t column = 0; column < window.width; ++column) {
      const auto x = static_cast<std::int32_t>(window.x + std::uint64_t{column} * window.step);
      const pathcore::Point p{x, y};
      const bool reachable = field != nullptr && field->reachable(p);
      put_float(out, reachable ? static_cast<float>(field->exact(p).value()) : kUnreachable);
      out += 4;
      if (flow_out != nullptr) {
        *flow_out++ = reachable ? static_cast<char>(flow_direction(*field, *samples.mask, p)) : 0;
      }
    }
  }
}

}  // namespace pathserver
