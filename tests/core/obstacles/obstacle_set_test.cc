// ObstacleSet and with_obstacles against a brute-force rasterisation written
// here: every pixel of the mask tested against every shape by its
// definition (rectangles clipped at the edges, circles by pixel centre with
// the boundary included, listed pixels), on hand-made and random shapes.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "pathcore/mask.h"
#include "pathcore/obstacles.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

// Is pixel (x, y) under `shape`? By the shapes' definitions, pixel by pixel.
bool covers(const Obstacle& shape, std::int64_t x, std::int64_t y) {
  if (const auto* rect = std::get_if<RectObstacle>(&shape)) {
    return x >= rect->x && x < rect->x + rect->width && y >= rect->y && y < rect->y + rect->height;
  }
  if (const auto* circle = std::get_if<CircleObstacle>(&shape)) {
    const double dx = (static_cast<double>(x) + 0.5) - circle->centre_x;
    const double dy = (static_cast<double>(y) + 0.5) - circle->centre_y;
    return dx * dx + dy * dy <= circle->radius * circle->radius;
  }
  for (const Point p : std::get<PixelsObstacle>(shape).pixels) {
    if (p.x == x && p.y == y) return true;
  }
  return false;
}

// The blocked pixels of a set, by asking it about every pixel (and a ring
// outside the mask, which it must never block).
std::vector<bool> asked(const ObstacleSet& set, std::uint32_t width, std::uint32_t height) {
  std::vector<bool> blocked(std::size_t{width} * height);
  for (std::int32_t y = -2; y < static_cast<std::int32_t>(height) + 2; ++y) {
    for (std::int32_t x = -2; x < static_cast<std::int32_t>(width) + 2; ++x) {
      const bool inside = x >= 0 && y >= 0 && x < static_cast<std::int32_t>(width) &&
                          y < static_cast<std::int32_t>(height);
      if (!inside) {
        EXPECT_FALSE(set.blocks({x, y})) << x << "," << y;
        continue;
      }
      blocked[static_cast<std::size_t>(y) * width + x] = set.blocks({x, y});
    }
  }
  return blocked;
}

std::vector<bool> brute_force(const std::vector<Obstacle>& shapes, std::uint32_t width,
                              std::uint32_t height) {
  std::vector<bool> blocked(std::size_t{width} * height);
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      for (const Obstacle& shape : shapes) {
        if (covers(shape, x, y)) blocked[std::size_t{y} * width + x] = true;
      }
    }
  }
  return blocked;
}

void expect_matches(const std::vector<Obstacle>& shapes, std::uint32_t width, std::uint32_t height) {
  const ObstacleSet set(width, height, shapes);
  const std::vector<bool> expected = brute_force(shapes, width, height);
  EXPECT_EQ(asked(set, width, height), expected);
  std::size_t count = 0;
  for (const bool b : expected) count += b ? 1 : 0;
  EXPECT_EQ(set.pixel_count(), count);
  EXPECT_EQ(set.empty(), count == 0);
  // for_each visits exactly the blocked pixels, row-major.
  std::vector<bool> visited(expected.size());
  std::size_t last = 0;
  bool first = true;
  set.for_each([&](Point p) {
    const std::size_t i = static_cast<std::size_t>(p.y) * width + p.x;
    EXPECT_TRUE(first || i > last);
    first = false;
    last = i;
    visited[i] = true;
  });
  EXPECT_EQ(visited, expected);
}

TEST(ObstacleSet, EmptyBlocksNothing) {
  const ObstacleSet none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.pixel_count(), 0U);
  EXPECT_FALSE(none.blocks({0, 0}));
  const std::vector<Obstacle> no_shapes;
  expect_matches(no_shapes, 5, 4);
}

TEST(ObstacleSet, RectanglesClippedAtEveryEdge) {
  expect_matches({RectObstacle{2, 1, 3, 2}}, 10, 8);                         // inside
  expect_matches({RectObstacle{-3, -2, 5, 4}}, 10, 8);                       // top-left corner
  expect_matches({RectObstacle{8, 6, 10, 10}}, 10, 8);                       // bottom-right
  expect_matches({RectObstacle{-100, 3, 1000, 1}}, 10, 8);                   // a full row
  expect_matches({RectObstacle{20, 20, 3, 3}}, 10, 8);                       // wholly outside
  expect_matches({RectObstacle{-5, -5, 5, 5}}, 10, 8);                       // ends at the edge
  expect_matches({RectObstacle{0, 0, 10, 8}}, 10, 8);                        // the whole mask
  const std::int64_t huge = std::numeric_limits<std::int32_t>::max();
  expect_matches({RectObstacle{0, 0, huge, huge}}, 10, 8);
}

TEST(ObstacleSet, CirclesByPixelCentreBoundaryIncluded) {
  // Radius 1 at a pixel centre: that pixel and its four neighbours (their
  // centres exactly 1 away), not the diagonal ones (sqrt 2 away).
  const ObstacleSet plus(10, 10, std::vector<Obstacle>{CircleObstacle{4.5, 4.5, 1.0}});
  EXPECT_EQ(plus.pixel_count(), 5U);
  EXPECT_TRUE(plus.blocks({4, 4}));
  EXPECT_TRUE(plus.blocks({5, 4}));
  EXPECT_TRUE(plus.blocks({4, 3}));
  EXPECT_FALSE(plus.blocks({5, 5}));
  // Radius 0.5 at a pixel corner: the four pixels around it are sqrt(0.5) away: none.
  EXPECT_TRUE(ObstacleSet(10, 10, std::vector<Obstacle>{CircleObstacle{5, 5, 0.5}}).empty());
  // Radius sqrt(0.5) at a corner: exactly those four.
  EXPECT_EQ(ObstacleSet(10, 10, std::vector<Obstacle>{CircleObstacle{5, 5, std::sqrt(0.5)}})
                .pixel_count(),
            4U);
  expect_matches({CircleObstacle{4.5, 4.5, 1.0}}, 10, 10);
  expect_matches({CircleObstacle{0, 0, 3.2}}, 10, 10);            // clipped at a corner
  expect_matches({CircleObstacle{-4, 5, 5.5}}, 10, 10);           // centre outside
  expect_matches({CircleObstacle{50, 50, 2}}, 10, 10);            // wholly outside
  expect_matches({CircleObstacle{5, 5, 1e9}}, 10, 10);            // covers everything
  expect_matches({CircleObstacle{3.25, 7.75, 0.3}}, 10, 10);      // inside one pixel, centre missed
  expect_matches({CircleObstacle{3.5, 7.5, 0.01}}, 10, 10);       // a pixel's own centre
}

TEST(ObstacleSet, PixelListsAndOverlapsCountOnce) {
  const std::vector<Obstacle> shapes = {
      PixelsObstacle{{{0, 0}, {3, 2}, {3, 2}, {9, 7}}},  // a pixel listed twice
      RectObstacle{2, 1, 3, 3},                           // covers (3,2) again
      CircleObstacle{3.5, 2.5, 1.5},                      // and around it
  };
  expect_matches(shapes, 10, 8);
  const ObstacleSet set(10, 8, shapes);
  EXPECT_TRUE(set.blocks({9, 7}));
  EXPECT_TRUE(set.blocks({0, 0}));
}

TEST(ObstacleSet, RandomShapesMatchTheBruteForce) {
  std::mt19937_64 rng(20261129);
  for (int round = 0; round < 300; ++round) {
    const auto width = static_cast<std::uint32_t>(1 + rng() % 40);
    const auto height = static_cast<std::uint32_t>(1 + rng() % 40);
    std::vector<Obstacle> shapes;
    const int count = static_cast<int>(rng() % 6);
    std::uniform_real_distribution<double> coordinate(-10.0, 50.0);
    std::uniform_real_distribution<double> radius(0.01, 12.0);
    for (int i = 0; i < count; ++i) {
      switch (rng() % 3) {
        case 0:
          shapes.emplace_back(RectObstacle{static_cast<std::int64_t>(rng() % 50) - 10,
                                           static_cast<std::int64_t>(rng() % 50) - 10,
                                           static_cast<std::int64_t>(1 + rng() % 20),
                                           static_cast<std::int64_t>(1 + rng() % 20)});
          break;
        case 1: {
          // Half the centres on the half-pixel grid, where boundaries are exact.
          double x = coordinate(rng);
          double y = coordinate(rng);
          double r = radius(rng);
          if (rng() % 2 == 0) {
            x = std::round(x * 2) / 2;
            y = std::round(y * 2) / 2;
            r = std::round(r);
            if (r == 0) r = 1;
          }
          shapes.emplace_back(CircleObstacle{x, y, r});
          break;
        }
        default: {
          PixelsObstacle list;
          const int n = static_cast<int>(rng() % 8);
          for (int k = 0; k < n; ++k) {
            list.pixels.push_back({static_cast<std::int32_t>(rng() % width),
                                   static_cast<std::int32_t>(rng() % height)});
          }
          shapes.emplace_back(std::move(list));
        }
      }
    }
    SCOPED_TRACE("round " + std::to_string(round));
    expect_matches(shapes, width, height);
  }
}

TEST(ObstacleSet, BadShapesNameTheirIndex) {
  const auto message = [](std::vector<Obstacle> shapes) -> std::string {
    try {
      (void)ObstacleSet(10, 10, shapes);
    } catch (const InvalidArgument& error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_EQ(message({CircleObstacle{1, 1, 1}, RectObstacle{1, 1, 0, 3}}),
            "obstacles[1].rect: width and height must be at least 1");
  EXPECT_EQ(message({RectObstacle{1, 1, 2, -1}}),
            "obstacles[0].rect: width and height must be at least 1");
  EXPECT_EQ(message({CircleObstacle{1, 1, 0}}),
            "obstacles[0].circle.radius must be finite and > 0");
  EXPECT_EQ(message({CircleObstacle{1, 1, -2}}),
            "obstacles[0].circle.radius must be finite and > 0");
  EXPECT_EQ(message({CircleObstacle{1, 1, std::numeric_limits<double>::infinity()}}),
            "obstacles[0].circle.radius must be finite and > 0");
  EXPECT_EQ(message({CircleObstacle{1, 1, std::nan("")}}),
            "obstacles[0].circle.radius must be finite and > 0");
  EXPECT_EQ(message({CircleObstacle{std::nan(""), 1, 1}}),
            "obstacles[0].circle.centre must be finite");
  EXPECT_EQ(message({RectObstacle{0, 0, 1, 1}, PixelsObstacle{{{2, 2}, {10, 3}}}}),
            "obstacles[1].pixels[1] (10,3) is outside the mask");
  EXPECT_EQ(message({PixelsObstacle{{{-1, 0}}}}),
            "obstacles[0].pixels[0] (-1,0) is outside the mask");
}

TEST(WithObstacles, BlocksExactlyTheSetsPixelsAndKeepsTheRest) {
  std::mt19937_64 rng(7);
  const Mask mask = pathtest::random_mask(rng, 30, 20, 0.2, 3);
  const std::vector<Obstacle> shapes = {RectObstacle{25, 15, 10, 10}, CircleObstacle{8, 8, 3.5},
                                        PixelsObstacle{{{0, 0}, {29, 0}}}};
  const ObstacleSet set(30, 20, shapes);
  const Mask patched = with_obstacles(mask, set);
  ASSERT_EQ(patched.width(), mask.width());
  ASSERT_EQ(patched.height(), mask.height());
  const std::vector<bool> blocked = brute_force(shapes, 30, 20);
  for (std::size_t i = 0; i < blocked.size(); ++i) {
    EXPECT_EQ(patched.areas()[i], blocked[i] ? 0 : mask.areas()[i]) << i;
  }
}

}  // namespace
}  // namespace pathcore
