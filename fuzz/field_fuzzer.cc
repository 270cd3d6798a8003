// Fuzzes GetField's request geometry and sample encoding (server/service/
// field_samples.cc, pure: built here without gRPC). The bytes choose a small
// mask, the field's options and goal, and a crop and downsample as a request
// may carry them (any uint32, zero-sized, outside):
//   bytes 0, 1      width, height (1..32)
//   byte 2          flags: bit 0 eight-connected, bit 1 corner cutting,
//                   bit 2 area costs from bytes 22..28, bit 3 crop set
//   bytes 3, 4      goal
//   bytes 5..20     crop x, y, width, height (uint32 little-endian)
//   byte 21         downsample (0..255)
//   bytes 22..28    area costs of areas 1..7
//   the rest        area ids (mod 8), row-major
// field_window either refuses with a message naming crop, or gives a window
// inside the mask; the encoded rows hold float32 of the exact costs and flow
// directions that step legally to a neighbour whose cost plus the step's is
// the pixel's (compared with the reference Dijkstra); anything else is a finding.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "service/field_samples.h"
#include "support/invariants.h"
#include "support/reference.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "field invariant failed: %s\n", what.c_str());
  std::abort();
}

void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

constexpr int kSteps[8][2] = {{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto byte = [&](std::size_t i) -> std::uint8_t { return i < size ? data[i] : 0; };
  const auto word = [&](std::size_t i) {
    return std::uint32_t{byte(i)} | (std::uint32_t{byte(i + 1)} << 8) |
           (std::uint32_t{byte(i + 2)} << 16) | (std::uint32_t{byte(i + 3)} << 24);
  };
  const std::uint32_t width = byte(0) % 32U + 1;
  const std::uint32_t height = byte(1) % 32U + 1;
  const std::uint8_t flags = byte(2);
  constexpr std::size_t kHeader = 29;
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 1);
  for (std::size_t i = 0; i < areas.size() && kHeader + i < size; ++i) {
    areas[i] = static_cast<std::uint8_t>(data[kHeader + i] % 8U);
  }
  const pathcore::Mask mask(width, height, std::move(areas));
  const pathcore::Point goal{byte(3) % static_cast<std::int32_t>(width),
                             byte(4) % static_cast<std::int32_t>(height)};
  pathcore::FieldOptions options;
  options.connectivity =
      (flags & 1U) != 0 ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour;
  options.allow_corner_cutting = (flags & 2U) != 0;
  if ((flags & 4U) != 0) {
    for (std::size_t id = 1; id <= 7; ++id) {
      options.area_costs[id] = static_cast<std::uint8_t>(byte(21 + id) % 255U + 1);
    }
  }
  options = pathcore::normalized(options);

  pathserver::CropRequest crop{(flags & 8U) != 0, word(5), word(9), word(13), word(17)};
  pathserver::FieldWindow window;
  std::string problem;
  if (!pathserver::field_window(crop, byte(21), width, height, window, problem)) {
    check(problem.rfind("crop: ", 0) == 0, "a refusal that does not name crop: " + problem);
    return 0;
  }
  const std::uint32_t step = window.step;
  check(window.width >= 1 && window.height >= 1, "an empty window");
  check(std::uint64_t{window.x} + std::uint64_t{window.width - 1} * step < width &&
            std::uint64_t{window.y} + std::uint64_t{window.height - 1} * step < height,
        "a window sample outside the mask");

  std::optional<pathcore::DistanceField> field;
  if (mask.walkable(goal, options.enabled)) {
    field.emplace(pathcore::compute_distance_field(mask, goal, options));
  }
  std::string distances;
  std::string flow;
  // In two parts, as chunks are cut.
  const std::uint32_t first = window.height / 2;
  const pathserver::FieldSamples samples{field ? &*field : nullptr, &mask};
  pathserver::append_field_rows(samples, window, 0, first, distances, &flow);
  pathserver::append_field_rows(samples, window, first, window.height - first, distances, &flow);
  const std::size_t count = std::size_t{window.width} * window.height;
  check(distances.size() == count * 4 && flow.size() == count, "wrong sizes");

  const pathtest::ReferenceGrid grid = pathtest::reference_grid_for(options);
  const std::vector<double> reference = pathtest::reference_distances(mask, goal, grid);
  for (std::uint32_t row = 0; row < window.height; ++row) {
    for (std::uint32_t column = 0; column < window.width; ++column) {
      const std::size_t i = std::size_t{row} * window.width + column;
      const pathcore::Point p{static_cast<std::int32_t>(window.x + column * step),
                              static_cast<std::int32_t>(window.y + row * step)};
      std::uint32_t bits = 0;
      for (int b = 3; b >= 0; --b)
        bits = (bits << 8) | static_cast<unsigned char>(distances[i * 4 + b]);
      const float value = std::bit_cast<float>(bits);
      const double expected = reference[mask.index(p)];
      const auto direction = static_cast<std::uint8_t>(flow[i]);
      if (std::isinf(expected)) {
        check(std::isinf(value) && value > 0 && direction == 0, "unreachable sample encoded");
        continue;
      }
      check(std::abs(value - expected) <= 1e-4 * std::max(1.0, expected),
            "a cost differs from the reference");
      check(direction == pathserver::flow_direction(*field, mask, p),
            "the rows' flow differs from flow_direction's");
      if (p == goal) {
        check(direction == 0, "a flow at the goal");
        continue;
      }
      check(direction >= 1 && direction <= 8, "no flow from a reachable pixel");
      const int dx = kSteps[direction - 1][0];
      const int dy = kSteps[direction - 1][1];
      const pathcore::Point next{p.x + dx, p.y + dy};
      check(mask.walkable(next, options.enabled), "a flow into a blocked pixel");
      const bool diagonal = dx != 0 && dy != 0;
      check(!diagonal || options.connectivity == pathcore::Connectivity::kEight,
            "a diagonal flow with four neighbours");
      check(!diagonal || options.allow_corner_cutting ||
                (mask.walkable({next.x, p.y}, options.enabled) &&
                 mask.walkable({p.x, next.y}, options.enabled)),
            "a flow that cuts a corner");
      const double step_cost =
          options.area_costs[mask.area(next)] * (diagonal ? std::sqrt(2.0) : 1.0);
      check(std::abs(reference[mask.index(next)] + step_cost - expected) <=
                1e-9 * std::max(1.0, expected),
            "a flow step off every cheapest path");
    }
  }
  return 0;
}
