#include "service/field_samples.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

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
  if (here == pathcore::GridCost{}) return 0;  // another goal of a field to several
  const std::uint32_t label = field.goal_index(p);
  const pathcore::FieldOptions& options = field.options();
  const bool eight = options.connectivity == pathcore::Connectivity::kEight;
  std::uint8_t cheapest = 0;  // by value, should no exact match exist
  double cheapest_value = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d < kDirections.size(); ++d) {
    const Step step = kDirections[d];
    const bool diagonal = step.dx != 0 && step.dy != 0;
    if (diagonal && !eight) continue;
    const pathcore::Point next{p.x + step.dx, p.y + step.dy};
    // With several goals, only toward p's own (its lowest-index nearest).
    if (!field.reachable(next) || field.goal_index(next) != label) continue;
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

namespace {

// One mask row's costs, decoded once for every sample (and flow) that reads it.
struct DecodedRow {
  std::int32_t y = -1;  // the row held; -1: none
  std::vector<pathcore::GridCost> cost;
  std::vector<std::uint8_t> reachable;
};

// Rows y - 1 .. y + 1 around the samples of one answer row, decoded across
// columns [left, right) (the samples' columns and their neighbours), kept
// while the next answer row still needs them.
class RowWindow {
 public:
  RowWindow(const pathcore::DistanceField& field, std::int32_t left, std::int32_t right)
      : field_(field), left_(left), right_(right) {}

  // Row y (inside the field), decoded.
  const DecodedRow& row(std::int32_t y) {
    DecodedRow& slot = slots_[static_cast<std::size_t>(y) % slots_.size()];
    if (slot.y == y) return slot;
    const auto width = static_cast<std::size_t>(right_ - left_);
    slot.cost.resize(width);
    slot.reachable.resize(width);
    // Four-connected fields expose their stored integers: read them without
    // a per-pixel layout switch.
    if (const auto* words = field_.four_costs<std::uint16_t>(); words != nullptr) {
      decode_four(words, std::uint16_t{0xFFFE}, y, slot);
    } else if (const auto* words32 = field_.four_costs<std::uint32_t>(); words32 != nullptr) {
      decode_four(words32, std::uint32_t{0xFFFFFFFE}, y, slot);
    } else {
      decode_any(y, slot);
    }
    slot.y = y;
    return slot;
  }
  [[nodiscard]] std::int32_t left() const { return left_; }

 private:
  template <typename Word>
  void decode_four(const Word* words, Word unreachable_from, std::int32_t y, DecodedRow& slot) {
    const Word* row = words + field_.origin() + static_cast<std::size_t>(y) * field_.stride();
    const std::size_t width = slot.cost.size();
    for (std::size_t i = 0; i < width; ++i) {
      const Word value = row[static_cast<std::size_t>(left_) + i];
      const bool reachable = value < unreachable_from;
      slot.reachable[i] = reachable ? 1 : 0;
      slot.cost[i] = {reachable ? static_cast<std::uint32_t>(value) : 0U, 0U};
    }
  }

  void decode_any(std::int32_t y, DecodedRow& slot) {
    for (std::int32_t x = left_; x < right_; ++x) {
      const pathcore::Point p{x, y};
      const auto i = static_cast<std::size_t>(x - left_);
      slot.reachable[i] = field_.reachable(p) ? 1 : 0;
      slot.cost[i] = slot.reachable[i] != 0 ? field_.exact(p) : pathcore::GridCost{};
    }
  }

  const pathcore::DistanceField& field_;
  std::int32_t left_;
  std::int32_t right_;
  std::array<DecodedRow, 3> slots_;
};

// flow_direction on decoded rows: rows[0..2] are y - 1, y, y + 1 (null
// outside the field).
std::uint8_t decoded_flow(const pathcore::DistanceField& field, const pathcore::Mask& mask,
                          const std::array<const DecodedRow*, 3>& rows, std::int32_t left,
                          pathcore::Point p) {
  const DecodedRow& middle = *rows[1];
  const auto column = static_cast<std::size_t>(p.x - left);
  if (middle.reachable[column] == 0 || p == field.goal()) return 0;
  const pathcore::GridCost here = middle.cost[column];
  if (here == pathcore::GridCost{}) return 0;  // another goal of a field to several
  const bool several = field.several_goals();
  const std::uint32_t label = several ? field.goal_index(p) : 0;
  const pathcore::FieldOptions& options = field.options();
  const bool eight = options.connectivity == pathcore::Connectivity::kEight;
  const std::uint8_t* areas = mask.areas().data();
  const auto width = static_cast<std::int32_t>(mask.width());
  const auto height = static_cast<std::int32_t>(mask.height());
  const auto walkable = [&](std::int32_t x, std::int32_t y) {
    return x >= 0 && y >= 0 && x < width && y < height &&
           ((options.enabled >> areas[static_cast<std::size_t>(y) * mask.width() + x]) & 1U) != 0;
  };
  // The legal step in direction d, as the cost through it; nullopt when not legal.
  const auto through = [&](std::size_t d) -> std::optional<pathcore::GridCost> {
    const Step step = kDirections[d];
    const bool diagonal = step.dx != 0 && step.dy != 0;
    if (diagonal && !eight) return std::nullopt;
    const pathcore::Point next{p.x + step.dx, p.y + step.dy};
    if (next.x < 0 || next.x >= width) return std::nullopt;
    const DecodedRow* row = rows[static_cast<std::size_t>(step.dy + 1)];
    if (row == nullptr) return std::nullopt;
    const auto next_column = static_cast<std::size_t>(next.x - left);
    if (row->reachable[next_column] == 0) return std::nullopt;
    if (several && field.goal_index(next) != label) return std::nullopt;
    if (diagonal && !options.allow_corner_cutting &&
        (!walkable(next.x, p.y) || !walkable(p.x, next.y))) {
      return std::nullopt;
    }
    const std::uint32_t area_cost = std::max<std::uint8_t>(
        options.area_costs[areas[static_cast<std::size_t>(next.y) * mask.width() + next.x]], 1);
    pathcore::GridCost via = row->cost[next_column];
    (diagonal ? via.diagonal : via.straight) += area_cost;
    return via;
  };
  for (std::size_t d = 0; d < kDirections.size(); ++d) {
    if (const auto via = through(d); via && *via == here) return static_cast<std::uint8_t>(d + 1);
  }
  // No exact match (a field is exact, so not expected): the cheapest by value.
  std::uint8_t cheapest = 0;
  double cheapest_value = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d < kDirections.size(); ++d) {
    if (const auto via = through(d); via && via->value() < cheapest_value) {
      cheapest_value = via->value();
      cheapest = static_cast<std::uint8_t>(d + 1);
    }
  }
  return cheapest;
}

}  // namespace

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
  constexpr float kUnreachable = std::numeric_limits<float>::infinity();
  const pathcore::DistanceField* field = samples.field;
  if (field == nullptr) {  // nothing reaches the goal; flow stays 0
    for (std::size_t i = 0; i < count; ++i, out += 4) put_float(out, kUnreachable);
    return;
  }
  const auto height = static_cast<std::int32_t>(field->height());
  const auto last_column =
      static_cast<std::int32_t>(window.x + std::uint64_t{window.width - 1} * window.step);
  // The samples' columns, and their neighbours for the flow.
  RowWindow rows(*field, std::max(static_cast<std::int32_t>(window.x) - 1, 0),
                 std::min(last_column + 2, static_cast<std::int32_t>(field->width())));
  std::vector<float> row_values(window.width);
  std::vector<std::uint8_t> row_flow(flow_out != nullptr ? window.width : 0);
  for (std::uint32_t row = first_row; row < first_row + row_count; ++row) {
    const auto y = static_cast<std::int32_t>(window.y + std::uint64_t{row} * window.step);
    std::array<const DecodedRow*, 3> around{};
    if (flow_out != nullptr && y > 0) around[0] = &rows.row(y - 1);
    around[1] = &rows.row(y);
    if (flow_out != nullptr && y + 1 < height) around[2] = &rows.row(y + 1);
    const DecodedRow& middle = *around[1];
    // Into typed buffers first: stores through the strings' char pointers
    // would make the compiler reload everything after each one.
    for (std::uint32_t column = 0; column < window.width; ++column) {
      const auto x = static_cast<std::int32_t>(window.x + std::uint64_t{column} * window.step);
      const auto i = static_cast<std::size_t>(x - rows.left());
      row_values[column] =
          middle.reachable[i] != 0 ? static_cast<float>(middle.cost[i].value()) : kUnreachable;
      if (flow_out != nullptr) {
        row_flow[column] =
            decoded_flow(*field, *samples.mask, around, rows.left(), pathcore::Point{x, y});
      }
    }
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(out, row_values.data(), row_values.size() * 4);
      out += row_values.size() * 4;
    } else {
      for (const float value : row_values) {
        put_float(out, value);
        out += 4;
      }
    }
    if (flow_out != nullptr) {
      std::memcpy(flow_out, row_flow.data(), row_flow.size());
      flow_out += row_flow.size();
    }
  }
}

}  // namespace pathserver
