// Fuzzes GetRange's and FindPath-with-a-budget's search (pathcore::compute_range,
// ObstacleSet::grown_by, MovementRange::path_to and nearest_to). The bytes
// choose a small mask, the options, the start, the budget, one rectangle
// obstacle and a clearance, as a request may carry them:
//   bytes 0, 1      width, height (1..32)
//   byte 2          flags: bit 0 eight-connected, bit 1 corner cutting,
//                   bit 2 area costs from bytes 8..14, bit 3 the obstacle,
//                   bit 4 an infinite budget (partial's search)
//   bytes 3, 4      start
//   bytes 5, 6      budget * 8 (uint16 little-endian; 0 reads as 1/8)
//   byte 7          clearance * 8 (0: none)
//   bytes 8..14     area costs of areas 1..7
//   bytes 15..18    obstacle x, y (may be outside), width, height (1..16)
//   bytes 19, 20    a target for nearest_to (may be outside)
//   the rest        area ids (mod 8), row-major
// The range must hold exactly the reference Dijkstra's pixels within the
// budget (support/range_reference.h) on the usable pixels of the mask with
// the obstacle patched in, with their exact costs; every path_to a legal
// walk of that cost; nearest_to the brute force's choice. Anything else is
// a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/movement_range.h"
#include "pathcore/obstacles.h"
#include "support/range_reference.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "range invariant failed: %s\n", what.c_str());
  std::abort();
}

void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto byte = [&](std::size_t i) -> std::uint8_t { return i < size ? data[i] : 0; };
  const std::uint32_t width = byte(0) % 32U + 1;
  const std::uint32_t height = byte(1) % 32U + 1;
  const std::uint8_t flags = byte(2);
  constexpr std::size_t kHeader = 21;
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 1);
  for (std::size_t i = 0; i < areas.size() && kHeader + i < size; ++i) {
    areas[i] = static_cast<std::uint8_t>(data[kHeader + i] % 8U);
  }
  const pathcore::Mask mask(width, height, std::move(areas));
  const pathcore::Point start{byte(3) % static_cast<std::int32_t>(width),
                              byte(4) % static_cast<std::int32_t>(height)};
  const unsigned raw_budget = byte(5) | (unsigned{byte(6)} << 8);
  const double budget = (flags & 16U) != 0 ? std::numeric_limits<double>::infinity()
                                           : std::max(1U, raw_budget) / 8.0;
  const double clearance = byte(7) / 8.0;
  pathcore::FieldOptions options;
  options.connectivity =
      (flags & 1U) != 0 ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour;
  options.allow_corner_cutting = (flags & 3U) == 3U;
  if ((flags & 4U) != 0) {
    for (std::size_t id = 1; id <= 7; ++id) {
      options.area_costs[id] = static_cast<std::uint8_t>(byte(7 + id) % 255U + 1);
    }
  }
  std::vector<pathcore::Obstacle> shapes;
  if ((flags & 8U) != 0) {
    shapes.emplace_back(pathcore::RectObstacle{static_cast<std::int8_t>(byte(15)),
                                               static_cast<std::int8_t>(byte(16)),
                                               byte(17) % 16 + 1, byte(18) % 16 + 1});
  }
  const pathcore::ObstacleSet obstacles(width, height, shapes);

  // What the request walks: the cached usable pixels and the grown obstacles.
  const pathcore::UsableMask usable(mask, options.enabled, clearance);
  const pathcore::ObstacleSet grown = obstacles.grown_by(clearance, width, height);
  pathcore::RangeLimits limits;
  limits.blocked = &grown;
  const pathcore::MovementRange range =
      pathcore::compute_range(usable.mask(), start, budget, options, limits);

  // The reference: the usable pixels of the patched mask.
  const pathcore::UsableMask patched(pathcore::with_obstacles(mask, obstacles), options.enabled,
                                     clearance);
  const auto costs = pathtest::reference_costs_from(patched.mask(), start, options);
  std::size_t count = 0;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(height); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(width); ++x) {
      const auto cost = costs[mask.index({x, y})];
      const bool in = cost.first != pathtest::kNotReached &&
                      pathtest::reference_cost_value(cost) <= budget;
      const auto got = range.cost_at({x, y});
      const std::string where = "(" + std::to_string(x) + "," + std::to_string(y) + ")";
      check(got.has_value() == in, "membership at " + where);
      if (!in) continue;
      ++count;
      check(got->straight == cost.first && got->diagonal == cost.second, "cost at " + where);
      check(range.bounds().contains({x, y}), "bounds hold " + where);
      const pathcore::Path path = range.path_to({x, y});
      check(!path.empty() && path.front() == start && path.back() == pathcore::Point{x, y},
            "path ends at " + where);
      std::uint32_t straight = 0, diagonal = 0;
      for (std::size_t i = 1; i < path.size(); ++i) {
        const int dx = path[i].x - path[i - 1].x, dy = path[i].y - path[i - 1].y;
        check(std::abs(dx) <= 1 && std::abs(dy) <= 1 && (dx != 0 || dy != 0), "a step");
        check(patched.usable(path[i]), "a usable step");
        const std::uint32_t c = pathcore::normalized(options).area_costs[mask.area(path[i])];
        if (dx != 0 && dy != 0) {
          check(options.connectivity == pathcore::Connectivity::kEight, "no diagonal with four");
          if (!options.allow_corner_cutting) {
            check(patched.usable({path[i - 1].x + dx, path[i - 1].y}) &&
                      patched.usable({path[i - 1].x, path[i - 1].y + dy}),
                  "the corner rule");
          }
          diagonal += c;
        } else {
          straight += c;
        }
      }
      check(straight == cost.first && diagonal == cost.second, "path cost to " + where);
    }
  }
  check(range.pixel_count() == count, "pixel count");

  const pathcore::Point target{static_cast<std::int8_t>(byte(19)), static_cast<std::int8_t>(byte(20))};
  std::optional<std::tuple<std::int64_t, double, std::int32_t, std::int32_t>> best;
  range.for_each([&](pathcore::Point p, pathcore::GridCost cost) {
    const std::int64_t dx = p.x - target.x, dy = p.y - target.y;
    const auto key = std::make_tuple(dx * dx + dy * dy, cost.value(), p.y, p.x);
    if (!best || key < *best) best = key;
  });
  const auto nearest = range.nearest_to(target);
  check(nearest.has_value() == best.has_value(), "nearest exists");
  if (nearest) {
    check(nearest->x == std::get<3>(*best) && nearest->y == std::get<2>(*best), "nearest pixel");
  }
  return 0;
}
