// Fuzzes find_path on small masks (up to 32 x 32) with fuzzed endpoints and
// options, and checks every answer against brute force
// (tests/support/invariants.h). Input bytes:
//   0, 1    width, height = byte % 32 + 1
//   2       bit 0 eight-connected, bit 1 corner cutting, bits 2-3 smoothing
//           (0 beautify, 1 simplify, 2-3 none; 3 also runs the exact any-angle
//           engine, SMOOTHING_ANY_ANGLE), bit 4 snap_to_reachable,
//           bit 5 area costs from bytes 8-14 (else unit costs), bits 6-7
//           agent clearance from byte b, the first after the pixels (0 when
//           missing): 0 none; 1 b / 16 pixels; 2 a bad one (b % 4: negative,
//           NaN, +inf, -inf); 3 b / 512 (up to 0.5)
//   3 - 6   start x, y, goal x, y (each modulo the mask's size)
//   7       enabled areas as a bit set (0 = all)
//   8 - 14  step costs of areas 1..7 (0 reads as 1)
//   15...   one pixel per byte, area id = byte % 8, row-major; missing
//           pixels are area 1
//   then    the clearance byte b (below); then temporary obstacles: a count
//           (byte % 4) and 5 bytes per shape: kind (byte % 3: rectangle,
//           circle, two listed pixels) and its numbers (coordinates up to 4
//           past the edges, a circle's centre on the half-pixel grid; sizes
//           byte % 16, a radius halved). The
//           ObstacleSet must block exactly the pixels the shapes cover (bad
//           shapes refused naming obstacles[i]), and everything below runs on
//           the mask patched with them, as the server answers such requests
// Invariants: found exactly when the (snapped) start reaches the (snapped)
// goal; endpoints; walkable segments, no cut corners when forbidden; the raw
// grid path's steps legal and its cost the reference's (1e-6 relative); a
// smoothed path never longer than the raw one, nor dearer than the traced
// path it smooths (brute-force cost integrals); the same answer twice; and
// the components Reachable uses connect start to exactly the pixels a flood
// fill reaches. Any-angle (smoothing 3, enabled areas and corner rule as
// given, no snapping, some area enabled): found exactly when the reference finds a path, its
// length the reference's (1e-9 relative), every segment visible for the
// reference's line test, every pixel walkable and touching its vertex.
// Clearance: all of the above on the brute-force usable pixels
// (tests/support/clearance_reference.h) in place of the walkable ones, which
// UsableMask must equal, and an unusable end that is walkable flagged
// lacks_clearance; a bad clearance throws InvalidArgument naming it; one up
// to 0.5 answers as no clearance does. One field, many starts (what
// BatchFindPaths relies on): without snapping or clearance, a field computed
// once for the goal answers eight more starts exactly as find_path does.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "pathcore/agent_clearance.h"
#include "pathcore/any_angle.h"
#include "pathcore/components.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/obstacles.h"
#include "pathcore/path.h"
#include "support/any_angle_reference.h"
#include "support/clearance_reference.h"
#include "support/invariants.h"
#include "support/reference.h"

namespace {

using pathcore::AreaSet;
using pathcore::FindPathOptions;
using pathcore::Mask;
using pathcore::PathResult;
using pathcore::Point;
using pathcore::Smoothing;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "find_path invariant failed: %s\n", what.c_str());
  std::abort();
}

// The pixel nearest to target among those `candidate` accepts (Euclidean,
// ties to the first in row-major order), by scanning them all.
template <typename Accept>
std::optional<Point> nearest(const Mask& mask, Point target, Accept candidate) {
  std::optional<Point> best;
  std::int64_t best_d2 = std::numeric_limits<std::int64_t>::max();
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      if (!candidate(Point{x, y})) continue;
      const std::int64_t dx = x - target.x;
      const std::int64_t dy = y - target.y;
      if (dx * dx + dy * dy < best_d2) {
        best_d2 = dx * dx + dy * dy;
        best = Point{x, y};
      }
    }
  }
  return best;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto byte = [&](std::size_t i) -> std::uint8_t { return i < size ? data[i] : 0; };
  const std::uint32_t width = byte(0) % 32U + 1;
  const std::uint32_t height = byte(1) % 32U + 1;
  const std::uint8_t flags = byte(2);
  constexpr std::size_t kHeader = 15;
  std::vector<std::uint8_t> areas(std::size_t{width} * height, 1);
  for (std::size_t i = 0; i < areas.size() && kHeader + i < size; ++i) {
    areas[i] = static_cast<std::uint8_t>(data[kHeader + i] % 8U);
  }
  const auto w = static_cast<std::int32_t>(width);
  const auto h = static_cast<std::int32_t>(height);
  // Temporary obstacles, as FindPathRequest.obstacles: the request is
  // answered on the mask with their pixels blocked, so everything below runs
  // on that patched mask; the ObstacleSet must block exactly the pixels the
  // shapes' definitions cover (checked pixel by pixel here).
  const std::size_t obstacle_bytes = kHeader + areas.size() + 1;
  std::vector<pathcore::Obstacle> shapes;
  for (std::size_t k = 0; k < byte(obstacle_bytes) % 4U; ++k) {
    const std::size_t at = obstacle_bytes + 1 + 5 * k;
    // Mostly inside the mask, up to 4 pixels past its edges.
    const auto coordinate = [&](std::size_t i) {
      return static_cast<int>(byte(at + i) % static_cast<unsigned>(std::max(w, h) + 8)) - 4;
    };
    switch (byte(at) % 3U) {
      case 0:  // width and height 0 .. 15: 0 is refused
        shapes.emplace_back(pathcore::RectObstacle{coordinate(1), coordinate(2),
                                                   byte(at + 3) % 16, byte(at + 4) % 16});
        break;
      case 1:  // centres on the half-pixel grid, radius 0 .. 7.5 (0 is refused)
        shapes.emplace_back(pathcore::CircleObstacle{coordinate(1) + (byte(at + 4) & 1) / 2.0,
                                                     coordinate(2) + (byte(at + 4) & 2) / 4.0,
                                                     (byte(at + 3) % 16) / 2.0});
        break;
      default:  // two pixels, maybe outside (refused)
        shapes.emplace_back(pathcore::PixelsObstacle{
            {{coordinate(1), coordinate(2)}, {coordinate(3), coordinate(4)}}});
    }
  }
  const Mask unpatched(width, height, std::move(areas));
  pathcore::ObstacleSet obstacles;
  try {
    obstacles = pathcore::ObstacleSet(width, height, shapes);
  } catch (const pathcore::InvalidArgument& e) {
    bool bad = false;
    for (const pathcore::Obstacle& shape : shapes) {
      if (const auto* r = std::get_if<pathcore::RectObstacle>(&shape)) {
        bad = bad || r->width < 1 || r->height < 1;
      } else if (const auto* c = std::get_if<pathcore::CircleObstacle>(&shape)) {
        bad = bad || !(c->radius > 0);
      } else {
        for (const Point p : std::get<pathcore::PixelsObstacle>(shape).pixels) {
          bad = bad || p.x < 0 || p.y < 0 || p.x >= w || p.y >= h;
        }
      }
    }
    if (!bad || std::string(e.what()).rfind("obstacles[", 0) != 0) {
      fail(std::string("obstacles refused wrongly: ") + e.what());
    }
    return 0;
  }
  for (std::int32_t y = 0; y < h; ++y) {
    for (std::int32_t x = 0; x < w; ++x) {
      bool covered = false;
      for (const pathcore::Obstacle& shape : shapes) {
        if (const auto* r = std::get_if<pathcore::RectObstacle>(&shape)) {
          covered = covered || (x >= r->x && x < r->x + r->width && y >= r->y &&
                                y < r->y + r->height);
        } else if (const auto* c = std::get_if<pathcore::CircleObstacle>(&shape)) {
          const double dx = x + 0.5 - c->centre_x;
          const double dy = y + 0.5 - c->centre_y;
          covered = covered || dx * dx + dy * dy <= c->radius * c->radius;
        } else {
          for (const Point p : std::get<pathcore::PixelsObstacle>(shape).pixels) {
            covered = covered || (p.x == x && p.y == y);
          }
        }
      }
      if (obstacles.blocks({x, y}) != covered) fail("ObstacleSet disagrees with the shapes");
    }
  }
  const Mask mask = pathcore::with_obstacles(unpatched, obstacles);
  const Point start{byte(3) % w, byte(4) % h};
  const Point goal{byte(5) % w, byte(6) % h};

  FindPathOptions options;
  options.field.connectivity =
      (flags & 1U) != 0 ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour;
  options.field.allow_corner_cutting = (flags & 2U) != 0;
  const int smoothing = (flags >> 2) & 3;
  options.smoothing = smoothing == 0   ? Smoothing::kBeautify
                      : smoothing == 1 ? Smoothing::kSimplify
                                       : Smoothing::kNone;
  options.snap_to_reachable = (flags & 16U) != 0;
  if ((flags & 32U) != 0) {
    for (std::size_t id = 1; id <= 7; ++id) {
      options.field.area_costs[id] = byte(7 + id);
    }
  }
  options.field.enabled = pathcore::effective_areas(byte(7));
  const AreaSet enabled = options.field.enabled;
  const pathtest::ReferenceGrid grid = pathtest::reference_grid_for(options.field);

  const std::uint8_t clearance_byte = byte(kHeader + mask.pixel_count());
  switch (flags >> 6) {
    case 1:
      options.clearance = clearance_byte / 16.0;
      break;
    case 2: {
      constexpr double kBad[] = {-1.0 / 16, std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity()};
      options.clearance = kBad[clearance_byte % 4] * (1 + clearance_byte / 4);
      try {
        (void)pathcore::find_path(mask, start, goal, options);
      } catch (const pathcore::InvalidArgument& e) {
        if (std::string(e.what()).rfind("clearance", 0) != 0) {
          fail(std::string("a bad clearance refused without naming it: ") + e.what());
        }
        return 0;
      }
      fail("a bad clearance was accepted");
    }
    case 3: {
      options.clearance = clearance_byte / 512.0;
      FindPathOptions without = options;
      without.clearance = 0;
      const PathResult a = pathcore::find_path(mask, start, goal, options);
      const PathResult b = pathcore::find_path(mask, start, goal, without);
      if (a.found != b.found || a.points != b.points || a.reason != b.reason ||
          a.lacks_clearance) {
        fail("clearance " + std::to_string(options.clearance) + " answered differently from none");
      }
      break;
    }
    default:
      break;
  }
  // The pixels the answer may use: the usable ones by brute force (the
  // walkable ones when the clearance excludes none).
  const Mask usable =
      options.clearance == 0
          ? mask
          : pathtest::mask_of_usable(mask,
                                     pathtest::reference_usable(mask, enabled, options.clearance));
  if (options.clearance != 0 && enabled != 0) {
    const pathcore::UsableMask engine(mask, enabled, options.clearance);
    for (std::int32_t y = 0; y < h; ++y) {
      for (std::int32_t x = 0; x < w; ++x) {
        if (engine.usable({x, y}) != usable.walkable({x, y}, enabled)) {
          fail("UsableMask disagrees with the brute force at " + pathtest::text(Point{x, y}));
        }
      }
    }
  }

  // Several goals (FindPathRequest.goals): the field to the nearest of 2..4
  // goals on the usable pixels, its cost at the start the least of the
  // per-goal references, the path traced on it leading to the lowest index
  // at that least cost and passing the one-goal checks toward it.
  if (enabled != 0) {
    const std::size_t tail = kHeader + mask.pixel_count() + 1;
    std::vector<Point> goals{goal};
    const std::size_t more = 1 + byte(tail) % 3U;
    for (std::size_t j = 0; j < more; ++j) {
      goals.push_back({byte(tail + 1 + 2 * j) % w, byte(tail + 2 + 2 * j) % h});
    }
    const pathcore::DistanceField nearest = pathcore::compute_distance_field(usable, goals, options.field);
    double least = pathtest::kNoPath;
    std::uint32_t lowest = 0;
    std::vector<std::vector<double>> references;
    for (std::size_t j = 0; j < goals.size(); ++j) {
      references.push_back(pathtest::reference_distances(usable, goals[j], grid));
      const double d = references.back()[usable.index(start)];
      if (d < least - 1e-9) {
        least = d;
        lowest = static_cast<std::uint32_t>(j);
      }
    }
    if (nearest.reachable(start) != (least != pathtest::kNoPath)) {
      fail("goals: reachable " + std::to_string(nearest.reachable(start)) + " at the start");
    }
    if (nearest.reachable(start)) {
      if (std::abs(nearest.cost_at(start) - least) > 1e-6 * (1 + least)) {
        fail("goals: cost " + std::to_string(nearest.cost_at(start)) + " but the least is " +
             std::to_string(least));
      }
      if (nearest.goal_index(start) != lowest) {
        fail("goals: goal index " + std::to_string(nearest.goal_index(start)) + " but want " +
             std::to_string(lowest));
      }
      FindPathOptions plain = options;
      plain.snap_to_reachable = false;
      plain.clearance = 0;  // the field is on the usable pixels already
      const PathResult to_nearest = pathcore::path_from_field(usable, nearest, start, plain);
      if (to_nearest.goal_index != lowest || !(to_nearest.goal == goals[lowest])) {
        fail("goals: the path leads to goal " + std::to_string(to_nearest.goal_index));
      }
      const std::string problem = pathtest::path_answer_problem(
          usable, start, goals[lowest], plain, references[lowest], to_nearest);
      if (!problem.empty()) fail("goals: " + problem);
    }
  }

  const PathResult result = pathcore::find_path(mask, start, goal, options);
  if (!result.found && !options.snap_to_reachable && options.clearance != 0) {
    const bool start_usable = usable.walkable(start, enabled);
    const Point failed_end = start_usable ? goal : start;
    const bool lacks = !usable.walkable(failed_end, enabled) && mask.walkable(failed_end, enabled);
    if (result.lacks_clearance != lacks) {
      fail("lacks_clearance " + std::to_string(result.lacks_clearance) + " at " +
           pathtest::text(failed_end));
    }
  }

  // Where the answer should start and end, by brute force.
  Point want_start = start;
  Point want_goal = goal;
  if (options.snap_to_reachable) {
    const auto walkable_start =
        nearest(usable, start, [&](Point p) { return usable.walkable(p, enabled); });
    if (!walkable_start) {
      if (result.found || !(result.goal == goal)) fail("snapped on a mask with nothing walkable");
      return 0;
    }
    want_start = *walkable_start;
    const std::vector<bool> reached =
        pathtest::reference_flood_fill(usable, want_start, enabled, grid.diagonals);
    if (!reached[mask.index(goal)]) {
      want_goal = *nearest(usable, goal, [&](Point p) { return reached[mask.index(p)]; });
    }
  }
  const std::vector<double> reference = pathtest::reference_distances(usable, want_goal, grid);
  const std::string problem =
      pathtest::path_answer_problem(usable, want_start, want_goal, options, reference, result);
  if (!problem.empty()) fail(problem);

  if (result.found && options.smoothing != Smoothing::kNone) {
    FindPathOptions raw_options = options;
    raw_options.smoothing = Smoothing::kNone;
    raw_options.snap_to_reachable = false;
    const PathResult raw = pathcore::find_path(mask, want_start, want_goal, raw_options);
    if (!raw.found) fail("the raw path was not found");
    if (result.length > raw.length + 1e-9) {
      fail("smoothed path " + pathtest::text(result.points) + " is longer than the raw one " +
           pathtest::text(raw.points));
    }
    // Smoothing never makes the path dearer than the traced path it starts
    // from (issue 21: a shortcut over dearer terrain is kept only when it
    // costs no more), both priced by the brute-force integral; the beeline
    // answer crosses only the cheapest terrain, so no traced path is cheaper.
    const pathcore::DistanceField field =
        pathcore::compute_distance_field(usable, want_goal, options.field);
    const double traced_cost = pathtest::reference_polyline_cost(
        usable, pathcore::trace_for_smoothing(usable, field, want_start), grid);
    const double smoothed_cost = pathtest::reference_polyline_cost(usable, result.points, grid);
    if (smoothed_cost > traced_cost * (1 + 1e-9) + 1e-9) {
      fail("smoothed path " + pathtest::text(result.points) + " costs " +
           std::to_string(smoothed_cost) + ", more than the traced path's " +
           std::to_string(traced_cost));
    }
  }
  pathcore::ComponentOptions component_options;
  component_options.enabled = enabled;
  component_options.connectivity = options.field.connectivity;
  component_options.allow_corner_cutting = options.field.allow_corner_cutting;
  const pathcore::Components components = pathcore::label_components(mask, component_options);
  const std::vector<bool> from_start =
      pathtest::reference_flood_fill(mask, start, enabled, grid.diagonals);
  for (std::int32_t y = 0; y < h; ++y) {
    for (std::int32_t x = 0; x < w; ++x) {
      if (components.connected(start, {x, y}) != from_start[mask.index({x, y})]) {
        fail("components disagree with the flood fill on " + pathtest::text(start) + "-" +
             pathtest::text(Point{x, y}));
      }
    }
  }

  // No walkable area (enabled 0) is refused by FindPath before the engine,
  // which, like the wire, would read 0 as all areas.
  if (smoothing == 3 && enabled != 0) {
    const bool cut = options.field.allow_corner_cutting;
    // On the engine's own usable pixels (checked equal to the brute force above).
    const std::optional<pathcore::UsableMask> engine_usable =
        options.clearance == 0
            ? std::nullopt
            : std::optional<pathcore::UsableMask>(std::in_place, mask, enabled, options.clearance);
    const Mask& walked = engine_usable ? engine_usable->mask() : mask;
    const pathcore::AnyAngleMesh mesh = pathcore::AnyAngleMesh::build(walked, enabled, cut);
    const std::optional<pathcore::AnyAnglePath> path =
        pathcore::find_any_angle_path(mesh, start, goal);
    const std::optional<double> expected =
        pathtest::any_angle_shortest_length(usable, enabled, start, goal, std::nullopt, cut);
    if (path.has_value() != expected.has_value()) fail("any-angle: found differs from the reference");
    // The reverse search finds the same length (the path may differ in ties).
    const std::optional<pathcore::AnyAnglePath> back =
        pathcore::find_any_angle_path(mesh, goal, start);
    if (back.has_value() != path.has_value() ||
        (path && std::fabs(back->length - path->length) > 1e-9 * std::max(1.0, path->length))) {
      fail("any-angle: the reverse search answers otherwise");
    }
    if (path) {
      if (std::fabs(path->length - *expected) > 1e-9 * std::max(1.0, *expected)) {
        fail("any-angle: length " + std::to_string(path->length) + ", reference " +
             std::to_string(*expected));
      }
      if (path->points.size() != path->pixels.size()) fail("any-angle: a pixel per vertex");
      for (std::size_t i = 0; i < path->points.size(); ++i) {
        const pathcore::PointD v = path->points[i];
        const Point p = path->pixels[i];
        if (!usable.walkable(p, enabled) || v.x < p.x || v.x > p.x + 1 || v.y < p.y ||
            v.y > p.y + 1) {
          fail("any-angle: pixel " + pathtest::text(p) + " does not touch its vertex");
        }
        if (i == 0) continue;
        const pathcore::PointD u = path->points[i - 1];
        const Point a2{static_cast<std::int32_t>(std::lround(2 * u.x)),
                       static_cast<std::int32_t>(std::lround(2 * u.y))};
        const Point b2{static_cast<std::int32_t>(std::lround(2 * v.x)),
                       static_cast<std::int32_t>(std::lround(2 * v.y))};
        if (!pathtest::any_angle_visible(usable, enabled, a2, b2, cut)) {
          fail("any-angle: segment " + pathtest::text(a2) + "-" + pathtest::text(b2) +
               " (doubled) is not visible");
        }
      }
    }
  }

  const PathResult again = pathcore::find_path(mask, start, goal, options);
  if (again.points != result.points || again.found != result.found || again.cost != result.cost) {
    fail("a second call answered differently");
  }

  // One field, many starts (BatchFindPaths): a field computed once for the
  // goal answers eight more starts exactly as a find_path per start does.
  if (!options.snap_to_reachable && options.clearance == 0) {
    const pathcore::DistanceField field =
        pathcore::compute_distance_field(mask, goal, options.field);
    for (std::int32_t k = 1; k <= 8; ++k) {
      const Point other{(start.x + 7 * k) % w, (start.y + 13 * k) % h};
      const PathResult single = pathcore::find_path(mask, other, goal, options);
      std::optional<PathResult> shared = pathcore::beeline_answer(mask, other, goal, options);
      if (!shared) shared = pathcore::path_from_field(mask, field, other, options);
      if (shared->found != single.found || shared->points != single.points ||
          shared->cost != single.cost || shared->grid_cost != single.grid_cost) {
        fail("one field for many starts answered " + pathtest::text(other) + " unlike find_path");
      }
    }
  }
  return 0;
}
