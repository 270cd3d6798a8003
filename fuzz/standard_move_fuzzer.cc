// Fuzzes find_standard_move on small tile maps (up to 12 x 12) with fuzzed
// endpoints and options. Input bytes:
//   0, 1    width, height = byte % 12 + 1
//   2       bit 0 forbid_corner_cutting; max_moves = (byte >> 1) % 3 + 1;
//           bits 3-7, when not 0, cap the three-move search at that many
//           times 8 marked tiles (so truncated searches are fuzzed too)
//   3 - 6   start x, y, goal x, y (each modulo the mask's size)
//   7       enabled areas as a bit set (0 = all)
//   8...    one tile per byte, area id = byte % 4, row-major; missing
//           tiles are area 1
// Invariants (tests/support/invariants.h): a found route (even from a
// truncated search) is valid (every run
// legal, waypoints at the run ends, ends at the goal, each leg a standard
// move); for one and two moves, found and the number of moves agree with the
// brute force.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pathcore/mask.h"
#include "pathcore/standard_move.h"
#include "support/invariants.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "standard move invariant failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using pathcore::Point;
  const auto byte = [&](std::size_t i) -> std::uint8_t { return i < size ? data[i] : 0; };
  const std::uint32_t width = byte(0) % 12U + 1;
  const std::uint32_t height = byte(1) % 12U + 1;
  constexpr std::size_t kHeader = 8;
  pathcore::StandardMoveOptions options;
  options.forbid_corner_cutting = (byte(2) & 1U) != 0;
  options.max_moves = (byte(2) >> 1) % 3 + 1;
  options.three_move_work_limit = static_cast<std::uint64_t>(byte(2) >> 3U) * 8;
  options.enabled = pathcore::effective_areas(byte(7));
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 1);
  for (std::size_t i = 0; i < areas.size() && kHeader + i < size; ++i) {
    areas[i] = static_cast<std::uint8_t>(data[kHeader + i] % 4U);
  }
  // The brute force treats every non-zero tile as walkable: give it the mask
  // with the disabled areas blocked.
  std::vector<std::uint8_t> walkable_areas = areas;
  for (std::uint8_t& area : walkable_areas) {
    if (((options.enabled >> area) & 1U) == 0) area = 0;
  }
  const pathcore::Mask mask(width, height, std::move(areas));
  const pathcore::Mask walkable(width, height, std::move(walkable_areas));
  const auto w = static_cast<std::int32_t>(width);
  const auto h = static_cast<std::int32_t>(height);
  const Point start{byte(3) % w, byte(4) % h};
  const Point goal{byte(5) % w, byte(6) % h};

  const pathcore::StandardMoveResult r =
      pathcore::find_standard_move(mask, start, goal, options);
  if (r.found) {
    const std::string problem = pathtest::standard_move_route_problem(
        walkable, start, goal, r, options.forbid_corner_cutting);
    if (!problem.empty()) fail(problem);
    if (r.move_count > options.max_moves) fail("more moves than max_moves");
  } else if (!r.moves.empty() || !r.waypoints.empty() || !r.nodes.empty()) {
    fail("not found but with a route");
  }
  if (r.search_truncated && options.max_moves != 3) fail("a truncated search of < 3 moves");
  if (options.max_moves <= 2) {
    const pathtest::BruteStandardMove brute = pathtest::brute_standard_move(
        walkable, start, goal, options.max_moves, options.forbid_corner_cutting);
    if (r.found != (brute.moves >= 0)) {
      fail(std::string(r.found ? "found a route the brute force does not"
                               : "missed a route the brute force finds") +
           " (" + pathtest::text(start) + "->" + pathtest::text(goal) + ")");
    }
    if (r.found && r.move_count != brute.moves) fail("not the fewest standard moves");
    if (r.found && r.nodes != brute.nodes) fail("not the node the tie-break rules choose");
  }
  return 0;
}
