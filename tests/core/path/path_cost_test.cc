// Issue 21: a path's cost (polyline_cost, PathResult::cost and grid_cost),
// and smoothing that never makes a path dearer, against brute force: the
// exact integral by clipping every segment against every pixel square
// (pathtest::reference_polyline_cost) and a textbook Dijkstra for the grid
// optimum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "pathcore/clearance.h"
#include "pathcore/codec.h"
#include "pathcore/line.h"
#include "pathcore/path.h"
#include "pathcore/smoothing.h"
#include "support/invariants.h"
#include "support/reference.h"

namespace pathcore {
namespace {

bool close(double got, double want, double relative) {
  return std::abs(got - want) <= relative * std::max(1.0, std::abs(want));
}

// Patches of terrain (areas 1..3 in blocks of `block` pixels) with scattered
// walls: weighted terrain where smoothing has room to cut, or to refuse.
Mask patchy_mask(std::mt19937_64& rng, std::uint32_t width, std::uint32_t height,
                 std::uint32_t block, double wall_ratio) {
  const std::uint32_t columns = (width + block - 1) / block;
  std::vector<std::uint8_t> patches((columns) * ((height + block - 1) / block));
  std::uniform_int_distribution<int> area(1, 3);
  for (auto& patch : patches) patch = static_cast<std::uint8_t>(area(rng));
  std::bernoulli_distribution wall(wall_ratio);
  std::vector<std::uint8_t> areas(std::size_t{width} * height);
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      areas[std::size_t{y} * width + x] =
          wall(rng) ? 0 : patches[(y / block) * columns + x / block];
    }
  }
  return Mask(width, height, std::move(areas));
}

AreaCosts random_costs(std::mt19937_64& rng) {
  AreaCosts costs = unit_area_costs();
  std::uniform_int_distribution<int> cost(1, 9);
  for (int id = 1; id <= 3; ++id) costs[static_cast<std::size_t>(id)] = static_cast<std::uint8_t>(cost(rng));
  return costs;
}

pathtest::ReferenceGrid grid_for(AreaSet enabled, const AreaCosts& costs) {
  FieldOptions options;
  options.enabled = enabled;
  options.area_costs = costs;
  return pathtest::reference_grid_for(options);
}

TEST(PolylineCost, MatchesTheClippedIntegralOnRandomSegments) {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 40; ++round) {
    const Mask mask = patchy_mask(rng, 23, 17, 1 + round % 5, 0.15);
    const AreaCosts costs = random_costs(rng);
    const AreaSet enabled = round % 3 == 0 ? AreaSet{0b0110} : kAllAreas;  // sometimes area 3 is off
    std::uniform_int_distribution<int> x(0, 22);
    std::uniform_int_distribution<int> y(0, 16);
    std::uniform_int_distribution<int> small(-3, 3);
    for (int k = 0; k < 60; ++k) {
      // Long segments, and short ones (through corners: (2,1), (1,1), (3,3)...).
      const Point a{x(rng), y(rng)};
      const Point b = k % 2 == 0 ? Point{x(rng), y(rng)}
                                 : Point{std::clamp(a.x + small(rng), 0, 22),
                                         std::clamp(a.y + small(rng), 0, 16)};
      const double want = pathtest::reference_polyline_cost(mask, {a, b}, grid_for(enabled, costs));
      EXPECT_TRUE(close(segment_cost(mask, enabled, a, b, costs), want, 1e-9))
          << pathtest::text(a) << "-" << pathtest::text(b) << " want " << want;
      EXPECT_EQ(segment_cost(mask, enabled, a, b, costs), segment_cost(mask, enabled, b, a, costs));
    }
    std::vector<Point> polyline;
    for (int k = 0; k < 8; ++k) polyline.push_back({x(rng), y(rng)});
    const double want = pathtest::reference_polyline_cost(mask, polyline, grid_for(enabled, costs));
    EXPECT_TRUE(close(polyline_cost(polyline, mask, enabled, costs), want, 1e-9));
  }
}

TEST(PolylineCost, IsTheLengthTimesTheCostOnUniformTerrain) {
  std::mt19937_64 rng(5);
  const Mask mask = patchy_mask(rng, 30, 30, 3, 0.2);
  const Path path{{0, 0}, {29, 7}, {3, 28}, {3, 3}};
  EXPECT_EQ(polyline_cost(path, mask, kAllAreas, unit_area_costs()), polyline_length(path));
  AreaCosts threes = unit_area_costs();
  for (auto& cost : threes) cost = 3;
  EXPECT_EQ(polyline_cost(path, mask, kAllAreas, threes), 3 * polyline_length(path));
}

TEST(PolylineCost, ThrowsForAPointOutsideTheMask) {
  const Mask mask(4, 4, std::vector<std::uint8_t>(16, 1));
  EXPECT_THROW((void)polyline_cost({{0, 0}, {4, 0}}, mask, kAllAreas, unit_area_costs()),
               InvalidArgument);
}

// Every request kind on random weighted terrain: cost is the returned path's
// integral, grid_cost the Dijkstra optimum, and no smoothing costs more than
// the grid path (Smoothing::kNone's answer) nor is longer.
TEST(PathCost, SmoothingNeverCostsMoreThanTheGridPath) {
  std::mt19937_64 rng(2021);
  int cheaper = 0;
  int answers = 0;
  for (int round = 0; round < 60; ++round) {
    const Mask mask = patchy_mask(rng, 40, 30, 2 + round % 6, 0.08 + 0.02 * (round % 4));
    FindPathOptions options;
    options.field.area_costs = random_costs(rng);
    options.field.connectivity = round % 2 == 0 ? Connectivity::kFour : Connectivity::kEight;
    options.field.allow_corner_cutting = round % 4 == 3;
    std::uniform_int_distribution<int> x(0, 39);
    std::uniform_int_distribution<int> y(0, 29);
    const Point goal{x(rng), y(rng)};
    if (!mask.walkable(goal, kAllAreas)) continue;
    const std::vector<double> reference =
        pathtest::reference_distances(mask, goal, pathtest::reference_grid_for(options.field));
    const pathtest::ReferenceGrid grid = pathtest::reference_grid_for(options.field);
    for (int k = 0; k < 12; ++k) {
      const Point start{x(rng), y(rng)};
      options.smoothing = Smoothing::kNone;
      const PathResult raw = find_path(mask, start, goal, options);
      ASSERT_EQ(pathtest::path_answer_problem(mask, start, goal, options, reference, raw), "");
      if (!raw.found) continue;
      const double raw_cost = pathtest::reference_polyline_cost(mask, raw.points, grid);
      for (const Smoothing smoothing : {Smoothing::kSimplify, Smoothing::kBeautify}) {
        options.smoothing = smoothing;
        const PathResult smoothed = find_path(mask, start, goal, options);
        ASSERT_EQ(pathtest::path_answer_problem(mask, start, goal, options, reference, smoothed),
                  "");
        const double cost = pathtest::reference_polyline_cost(mask, smoothed.points, grid);
        EXPECT_LE(cost, raw_cost * (1 + 1e-9))
            << "round " << round << " " << pathtest::text(smoothed.points) << " vs "
            << pathtest::text(raw.points);
        EXPECT_LE(smoothed.length, raw.length + 1e-9);
        ++answers;
        cheaper += cost < raw_cost * (1 - 1e-9) ? 1 : 0;
      }
    }
  }
  EXPECT_GT(answers, 500);
  EXPECT_GT(cheaper, answers / 4) << "smoothing should still cut most paths";
}

// A corner-cutting beeline crosses pixels beside its Bresenham pixels
// ((0,0)-(4,1) runs through both (2,0) and (2,1)): the beeline answer must
// not take it over a dearer one, and its cost is the integral either way.
TEST(PathCost, CornerCuttingBeelineCountsEveryPixelItCrosses) {
  for (const Point dear : {Point{2, 0}, Point{2, 1}}) {
    std::vector<std::uint8_t> areas(10, 1);
    areas[static_cast<std::size_t>(dear.y * 5 + dear.x)] = 2;
    const Mask mask(5, 2, std::move(areas));
    FindPathOptions options;
    options.field.connectivity = Connectivity::kEight;
    options.field.allow_corner_cutting = true;
    options.field.area_costs[2] = 5;
    const std::vector<double> reference =
        pathtest::reference_distances(mask, {4, 1}, pathtest::reference_grid_for(options.field));
    const PathResult result = find_path(mask, {0, 0}, {4, 1}, options);
    EXPECT_EQ(pathtest::path_answer_problem(mask, {0, 0}, {4, 1}, options, reference, result), "")
        << "dear pixel " << pathtest::text(dear);
  }
}

// Beeline answers know the grid optimum without a fill, except (eight
// connected, no corner cutting) when a diagonal step along the beeline has a
// blocked pixel beside it; with and without the clearance map alike.
TEST(PathCost, BeelineGridCostIsTheDijkstraOptimum) {
  std::mt19937_64 rng(99);
  int known = 0;
  int unknown = 0;
  for (int round = 0; round < 24; ++round) {
    const Mask mask = patchy_mask(rng, 48, 48, 48, 0.01 + 0.01 * (round % 3));  // one area
    FindPathOptions options;
    options.field.connectivity = round % 3 == 0 ? Connectivity::kFour : Connectivity::kEight;
    options.field.allow_corner_cutting = round % 3 == 2;
    const ClearanceMap clearance(mask, kAllAreas);
    std::uniform_int_distribution<int> coordinate(0, 47);
    for (int k = 0; k < 40; ++k) {
      const Point start{coordinate(rng), coordinate(rng)};
      const Point goal{coordinate(rng), coordinate(rng)};
      const auto plain = beeline_answer(mask, start, goal, options);
      const auto cleared = beeline_answer(mask, start, goal, options, &clearance);
      ASSERT_EQ(plain.has_value(), cleared.has_value());
      if (!plain) continue;
      EXPECT_EQ(plain->grid_cost, cleared->grid_cost);
      if (!plain->grid_cost) {
        ++unknown;
        EXPECT_EQ(options.field.connectivity, Connectivity::kEight);
        EXPECT_FALSE(options.field.allow_corner_cutting);
        continue;
      }
      ++known;
      const std::vector<double> reference =
          pathtest::reference_distances(mask, goal, pathtest::reference_grid_for(options.field));
      EXPECT_TRUE(close(*plain->grid_cost, reference[mask.index(start)], 1e-9))
          << pathtest::text(start) << "-" << pathtest::text(goal);
      EXPECT_EQ(plain->cost, plain->length);
    }
  }
  EXPECT_GT(known, 100);
  std::cout << "beelines: grid cost known " << known << ", unknown " << unknown << "\n";
}

// beautify of an arbitrary (walkable) path never raises its cost either.
TEST(PathCost, BeautifyOfAnyPathNeverRaisesItsCost) {
  std::mt19937_64 rng(77);
  for (int round = 0; round < 40; ++round) {
    const Mask mask = patchy_mask(rng, 32, 32, 3, 0.0);
    const AreaCosts costs = random_costs(rng);
    std::uniform_int_distribution<int> coordinate(0, 31);
    Path path;
    for (int k = 0; k < 10; ++k) path.push_back({coordinate(rng), coordinate(rng)});
    for (const LineRule rule : {LineRule::kBresenham, LineRule::kNoCornerCutting}) {
      const Path smoothed = beautify(path, mask, kAllAreas, rule, costs);
      const pathtest::ReferenceGrid grid = grid_for(kAllAreas, costs);
      EXPECT_LE(pathtest::reference_polyline_cost(mask, smoothed, grid),
                pathtest::reference_polyline_cost(mask, path, grid) * (1 + 1e-9));
    }
  }
}

Mask demo_mask() {
  std::ifstream in(PATHFINDER_DEMO_MASK, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode_mask({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()},
                     DecodeOptions{});
}

// The README's example: `find demo 20 20 600 340 --cost 1=4`, area 1 (the
// floor, "grass") four times dearer than the road (area 2). The beautified
// path used to cut across the grass; now it crosses no more grass than the
// grid path and costs no more.
TEST(PathCost, ReadmeDemoBeautifyKeepsToTheRoad) {
  const Mask mask = demo_mask();
  ASSERT_EQ(mask.areas_present(), AreaSet{0b111});
  FindPathOptions options;
  options.field.area_costs[1] = 4;
  const Point start{20, 20};
  const Point goal{600, 340};
  const std::vector<double> reference =
      pathtest::reference_distances(mask, goal, pathtest::reference_grid_for(options.field));
  options.smoothing = Smoothing::kNone;
  const PathResult raw = find_path(mask, start, goal, options);
  options.smoothing = Smoothing::kBeautify;
  const PathResult smoothed = find_path(mask, start, goal, options);
  ASSERT_TRUE(raw.found && smoothed.found);
  ASSERT_EQ(pathtest::path_answer_problem(mask, start, goal, options, reference, smoothed), "");
  const pathtest::ReferenceGrid grid = pathtest::reference_grid_for(options.field);
  const double raw_cost = pathtest::reference_polyline_cost(mask, raw.points, grid);
  EXPECT_LE(smoothed.cost, raw_cost * (1 + 1e-9));
  EXPECT_LT(smoothed.length, raw.length);
  // Length on grass: area 1 charged 1, the road nothing.
  pathtest::ReferenceGrid grass;
  grass.area_costs = {{1, 1.0}, {2, 0.0}};
  const double raw_grass = pathtest::reference_polyline_cost(mask, raw.points, grass);
  const double smoothed_grass = pathtest::reference_polyline_cost(mask, smoothed.points, grass);
  EXPECT_LE(smoothed_grass, raw_grass + 1e-9)
      << pathtest::text(smoothed.points) << " crosses " << smoothed_grass << " px of grass, the grid path "
      << raw_grass;
  EXPECT_TRUE(close(*smoothed.grid_cost, reference[mask.index(start)], 1e-9));
  RecordProperty("raw_cost", std::to_string(raw_cost));
  RecordProperty("smoothed_cost", std::to_string(smoothed.cost));
  std::cout << "demo: grid path cost " << raw_cost << " (grid_cost " << *raw.grid_cost
            << "), grass " << raw_grass << " px; beautified cost " << smoothed.cost << ", length "
            << smoothed.length << ", grass " << smoothed_grass << " px, "
            << pathtest::text(smoothed.points) << "\n";
}

}  // namespace
}  // namespace pathcore
