#include "pathcore/standard_move.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/invariants.h"
#include "support/random_mask.h"

namespace pathcore {
namespace {

// An ASCII map: '#' blocked, '2' area 2, 'S' start, 'G' goal, anything else
// area 1. Rows are y = 0 (north) downwards.
struct TileMap {
  Mask mask;
  Point start;
  Point goal;
};

TileMap tile_map(const std::vector<std::string>& rows) {
  std::vector<std::uint8_t> areas;
  Point start{-1, -1};
  Point goal{-1, -1};
  for (std::size_t y = 0; y < rows.size(); ++y) {
    for (std::size_t x = 0; x < rows[y].size(); ++x) {
      const char c = rows[y][x];
      if (c == 'S') start = {static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      if (c == 'G') goal = {static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      areas.push_back(c == '#' ? 0 : (c == '2' ? 2 : 1));
    }
  }
  return {Mask(static_cast<std::uint32_t>(rows.front().size()),
               static_cast<std::uint32_t>(rows.size()), std::move(areas)),
          start, goal};
}

StandardMoveOptions options(int max_moves = 2, bool forbid = false) {
  StandardMoveOptions o;
  o.max_moves = max_moves;
  o.forbid_corner_cutting = forbid;
  return o;
}

Move mv(Direction d, std::uint32_t steps) { return {d, steps}; }
constexpr Direction N = Direction::kN;
constexpr Direction NE = Direction::kNE;
constexpr Direction E = Direction::kE;
constexpr Direction SE = Direction::kSE;
constexpr Direction S = Direction::kS;
constexpr Direction SW = Direction::kSW;
constexpr Direction W = Direction::kW;

// The independent brute force and the route checker live in
// support/invariants.h (the fuzz targets use them too).
using Brute = pathtest::BruteStandardMove;
using pathtest::open_tile;
using pathtest::walk;

Brute brute_force(const Mask& mask, Point s, Point g, int max_moves, bool forbid) {
  return pathtest::brute_standard_move(mask, s, g, max_moves, forbid);
}

double dist(Point a, Point b) { return std::hypot(double(a.x - b.x), double(a.y - b.y)); }

// Walks the result's moves from start: every step passable, the waypoints
// are the run ends, the route ends at the goal, each leg is a standard move.
void expect_valid_route(const Mask& mask, Point start, Point goal, const StandardMoveResult& r,
                        bool forbid) {
  EXPECT_EQ(pathtest::standard_move_route_problem(mask, start, goal, r, forbid), "");
}

// ---------------------------------------------------------------------------
// Candidates and their order.

TEST(StandardMoveTest, CandidatesCardinalPrincipalFirstJogAsEarlyAsPossible) {
  using C = std::vector<std::vector<Move>>;
  // E/SE octant, |dx| > |dy|: c = 2 steps E, d = 2 steps SE.
  EXPECT_EQ(standard_move_candidates({0, 0}, {4, 2}), (C{{mv(SE, 2), mv(E, 2)},
                                                         {mv(E, 1), mv(SE, 2), mv(E, 1)},
                                                         {mv(E, 2), mv(SE, 2)},
                                                         {mv(SE, 1), mv(E, 2), mv(SE, 1)}}));
  // N/NE octant, |dy| > |dx|.
  EXPECT_EQ(standard_move_candidates({5, 5}, {6, 2}),
            (C{{mv(NE, 1), mv(N, 2)}, {mv(N, 1), mv(NE, 1), mv(N, 1)}, {mv(N, 2), mv(NE, 1)}}));
  // W/SW with a longer diagonal.
  EXPECT_EQ(standard_move_candidates({5, 0}, {1, 3}), (C{{mv(SW, 3), mv(W, 1)},
                                                         {mv(W, 1), mv(SW, 3)},
                                                         {mv(SW, 1), mv(W, 1), mv(SW, 2)},
                                                         {mv(SW, 2), mv(W, 1), mv(SW, 1)}}));
  // In line: one straight candidate (both bordering octants agree).
  EXPECT_EQ(standard_move_candidates({0, 0}, {0, -3}), (C{{mv(N, 3)}}));
  EXPECT_EQ(standard_move_candidates({0, 0}, {3, 3}), (C{{mv(SE, 3)}}));
  EXPECT_EQ(standard_move_candidates({4, 4}, {1, 4}), (C{{mv(W, 3)}}));
  EXPECT_TRUE(standard_move_candidates({2, 2}, {2, 2}).empty());
}

// ---------------------------------------------------------------------------
// The article's examples.

TEST(StandardMoveTest, JogAtTheStart) {
  const TileMap m = tile_map({
      "......G",
      ".......",
      "S......",
  });
  const auto r = find_standard_move(m.mask, m.start, m.goal, options());
  expect_valid_route(m.mask, m.start, m.goal, r, false);
  EXPECT_EQ(r.moves, (std::vector<Move>{mv(NE, 2), mv(E, 4)}));
  EXPECT_EQ(r.waypoints, (std::vector<Point>{{0, 2}, {2, 0}, {6, 0}}));
  EXPECT_EQ(r.move_count, 1);
  EXPECT_TRUE(r.nodes.empty());
}

TEST(StandardMoveTest, JogInTheMiddle) {
  const TileMap m = tile_map({
      "......G",
      ".#.....",
      "S......",
  });
  const auto r = find_standard_move(m.mask, m.start, m.goal, options());
  expect_valid_route(m.mask, m.start, m.goal, r, false);
  EXPECT_EQ(r.moves, (std::vector<Move>{mv(E, 1), mv(NE, 2), mv(E, 3)}));
  EXPECT_EQ(r.waypoints, (std::vector<Point>{{0, 2}, {1, 2}, {3, 0}, {6, 0}}));
}

TEST(StandardMoveTest, JogAtTheEnd) {
  const TileMap m = tile_map({
      "......G",
      ".####..",
      "S......",
  });
  const auto r = find_standard_move(m.mask, m.start, m.goal, options());
  expect_valid_route(m.mask, m.start, m.goal, r, false);
  EXPECT_EQ(r.moves, (std::vector<Move>{mv(E, 4), mv(NE, 2)}));
}

TEST(StandardMoveTest, DiagonalPrincipalWhenNoCardinalOneIsClear) {
  const TileMap m = tile_map({
      "...###G",
      ".......",
      "S...#..",
  });
  const auto r = find_standard_move(m.mask, m.start, m.goal, options());
  expect_valid_route(m.mask, m.start, m.goal, r, false);
  EXPECT_EQ(r.moves, (std::vector<Move>{mv(NE, 1), mv(E, 4), mv(NE, 1)}));
  EXPECT_EQ(r.move_count, 1);
}

// Corner passes: A around a blocked tile on one side, B on the other side,
// C between two blocked tiles whose corners touch. Allowed by default,
// refused with forbid_corner_cutting.
TEST(StandardMoveTest, CornerPassesABAndC) {
  const std::vector<std::vector<std::string>> maps = {
      {"#G", "S."},  // A
      {".G", "S#"},  // B
      {"#G", "S#"},  // C
  };
  for (std::size_t i = 0; i < maps.size(); ++i) {
    const TileMap m = tile_map(maps[i]);
    const auto allowed = find_standard_move(m.mask, m.start, m.goal, options(1));
    expect_valid_route(m.mask, m.start, m.goal, allowed, false);
    EXPECT_EQ(allowed.moves, (std::vector<Move>{mv(NE, 1)})) << "pass "
                                                             << "ABC"[i];
    const auto forbidden = find_standard_move(m.mask, m.start, m.goal, options(1, true));
    EXPECT_FALSE(forbidden.found) << "pass "
                                  << "ABC"[i];
  }
  // Forbidden corner cutting on A and B still finds two cardinal moves.
  const TileMap a = tile_map({"#G", "S."});
  const auto around = find_standard_move(a.mask, a.start, a.goal, options(2, true));
  expect_valid_route(a.mask, a.start, a.goal, around, true);
  EXPECT_EQ(around.moves, (std::vector<Move>{mv(E, 1), mv(N, 1)}));
  EXPECT_EQ(around.nodes, (std::vector<Point>{{1, 1}}));
  const TileMap c = tile_map({"#G", "S#"});
  EXPECT_FALSE(find_standard_move(c.mask, c.start, c.goal, options(3, true)).found);
}

TEST(StandardMoveTest, ForbidCornerCuttingChangesTheJogPlacement) {
  // The jog-first NE step from S passes the blocked tile at (0,1).
  const TileMap m = tile_map({
      ".....G",
      "#.....",
      "S.....",
  });
  EXPECT_EQ(find_standard_move(m.mask, m.start, m.goal, options()).moves,
            (std::vector<Move>{mv(NE, 2), mv(E, 3)}));
  const auto r = find_standard_move(m.mask, m.start, m.goal, options(2, true));
  expect_valid_route(m.mask, m.start, m.goal, r, true);
  EXPECT_EQ(r.moves, (std::vector<Move>{mv(E, 1), mv(NE, 2), mv(E, 2)}));
}

TEST(StandardMoveTest, ObstacleDirectlyInLineNeedsTwoMoves) {
  const TileMap m = tile_map({
      ".......",
      ".......",
      "S..#..G",
      ".......",
      ".......",
  });
  EXPECT_FALSE(find_standard_move(m.mask, m.start, m.goal, options(1)).found);
  const auto r = find_standard_move(m.mask, m.start, m.goal, options(2));
  expect_valid_route(m.mask, m.start, m.goal, r, false);
  EXPECT_EQ(r.move_count, 2);
  // (3,1) and (3,3) tie at 2 sqrt 10; (3,1) comes first in scan order.
  EXPECT_EQ(r.nodes, (std::vector<Point>{{3, 1}}));
  EXPECT_EQ(r.moves, (std::vector<Move>{mv(NE, 1), mv(E, 2), mv(SE, 1), mv(E, 2)}));
  EXPECT_EQ(r.waypoints, (std::vector<Point>{{0, 2}, {1, 1}, {3, 1}, {4, 2}, {6, 2}}));
}

TEST(StandardMoveTest, AMapThatNeedsThreeMoves) {
  // East along the top, down the right column, back west along the bottom:
  // E, SE, S, SW, W cannot be covered by two moves of two adjacent directions.
  const TileMap m = tile_map({
      "S.....",
      "#####.",
      "#####.",
      "G.....",
  });
  EXPECT_FALSE(find_standard_move(m.mask, m.start, m.goal, options(2)).found);
  const auto r = find_standard_move(m.mask, m.start, m.goal, options(3));
  expect_valid_route(m.mask, m.start, m.goal, r, false);
  EXPECT_EQ(r.move_count, 3);
  EXPECT_EQ(r.nodes, (std::vector<Point>{{5, 1}, {5, 2}}));
  EXPECT_EQ(r.moves, (std::vector<Move>{mv(E, 4), mv(SE, 1), mv(S, 1), mv(SW, 1), mv(W, 4)}));
  const Brute brute = brute_force(m.mask, m.start, m.goal, 3, false);
  EXPECT_EQ(brute.moves, 3);
  EXPECT_EQ(brute.nodes, r.nodes);
}

// The three-move search is exact within its work cap and says when the cap
// cut it short; the route it returns then is still valid.
TEST(StandardMoveTest, ThreeMoveSearchSaysWhenItsWorkCapCutItShort) {
  // A room split by a block: east above it, down the open right side, west below.
  constexpr std::uint32_t kSide = 96;
  std::vector<std::uint8_t> areas(std::size_t{kSide} * kSide, 1);
  for (std::uint32_t y = 20; y < 76; ++y) {
    for (std::uint32_t x = 0; x < 80; ++x) areas[std::size_t{y} * kSide + x] = 0;
  }
  const Mask mask(kSide, kSide, std::move(areas));
  const Point start{3, 3};
  const Point goal{3, 90};
  ASSERT_FALSE(find_standard_move(mask, start, goal, options(2)).found);

  const auto exact = find_standard_move(mask, start, goal, options(3));
  EXPECT_FALSE(exact.search_truncated);
  expect_valid_route(mask, start, goal, exact, false);
  EXPECT_EQ(exact.move_count, 3);

  StandardMoveOptions capped = options(3);
  capped.three_move_work_limit = 1;  // stops after the first node's sweep
  const auto cut = find_standard_move(mask, start, goal, capped);
  EXPECT_TRUE(cut.search_truncated);
  if (cut.found) {
    expect_valid_route(mask, start, goal, cut, false);
    EXPECT_EQ(cut.move_count, 3);
  }
}

TEST(StandardMoveTest, UnwalkableEndsAndTrivialRoutes) {
  const TileMap m = tile_map({
      "S.#",
      "..G",
  });
  EXPECT_FALSE(find_standard_move(m.mask, m.start, {2, 0}, options()).found);
  EXPECT_FALSE(find_standard_move(m.mask, {2, 0}, m.goal, options()).found);
  const auto same = find_standard_move(m.mask, m.start, m.start, options());
  EXPECT_TRUE(same.found);
  EXPECT_TRUE(same.moves.empty());
  EXPECT_EQ(same.waypoints, (std::vector<Point>{m.start}));
  // Disabled areas are not walkable.
  const TileMap two = tile_map({"S2G"});
  StandardMoveOptions only1 = options(3);
  only1.enabled = AreaSet{1} << 1;
  EXPECT_FALSE(find_standard_move(two.mask, two.start, two.goal, only1).found);
  EXPECT_TRUE(find_standard_move(two.mask, two.start, two.goal, options()).found);
  EXPECT_THROW((void)find_standard_move(m.mask, {-1, 0}, m.goal, options()), InvalidArgument);
  EXPECT_THROW((void)find_standard_move(m.mask, m.start, m.goal, options(4)), InvalidArgument);
  EXPECT_THROW((void)find_standard_move(m.mask, m.start, m.goal, options(0)), InvalidArgument);
}

TEST(StandardMoveTest, Deterministic) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const Mask mask = pathtest::random_mask(rng, 22, 18, 0.3, 1);
    const Point s = pathtest::random_point(rng, mask);
    const Point g = pathtest::random_point(rng, mask);
    const auto first = find_standard_move(mask, s, g, options(3));
    for (int again = 0; again < 3; ++again) {
      const auto r = find_standard_move(mask, s, g, options(3));
      EXPECT_EQ(r.found, first.found);
      EXPECT_EQ(r.moves, first.moves);
      EXPECT_EQ(r.waypoints, first.waypoints);
      EXPECT_EQ(r.nodes, first.nodes);
    }
  }
}

// Against the brute force on small random maps: same number of moves, the
// same best length and node (the tie-breaks included), and a valid route.
TEST(StandardMoveTest, MatchesABruteForceOnSmallRandomMaps) {
  std::mt19937_64 rng(20261123);
  int counts[4] = {0, 0, 0, 0};
  for (int trial = 0; trial < 3000; ++trial) {
    const auto width = std::uniform_int_distribution<std::uint32_t>(2, 8)(rng);
    const auto height = std::uniform_int_distribution<std::uint32_t>(2, 7)(rng);
    const double obstacles = std::uniform_real_distribution<double>(0.1, 0.5)(rng);
    const Mask mask = pathtest::random_mask(rng, width, height, obstacles, 1);
    Point s = pathtest::random_point(rng, mask);
    Point g = pathtest::random_point(rng, mask);
    for (int attempt = 0; attempt < 20 && !open_tile(mask, s.x, s.y); ++attempt) {
      s = pathtest::random_point(rng, mask);
    }
    for (int attempt = 0; attempt < 20 && !open_tile(mask, g.x, g.y); ++attempt) {
      g = pathtest::random_point(rng, mask);
    }
    const bool forbid = trial % 2 == 1;
    const int max_moves = 1 + trial % 3;
    const auto r = find_standard_move(mask, s, g, options(max_moves, forbid));
    const Brute brute = brute_force(mask, s, g, max_moves, forbid);
    const std::string what = "trial " + std::to_string(trial);
    ASSERT_EQ(r.found, brute.moves >= 0) << what;
    if (!r.found) continue;
    ++counts[brute.moves];
    expect_valid_route(mask, s, g, r, forbid);
    EXPECT_EQ(r.move_count, brute.moves) << what;
    EXPECT_EQ(r.nodes, brute.nodes) << what;
    double length = 0;
    Point at = s;
    for (const Point n : r.nodes) {
      length += dist(at, n);
      at = n;
    }
    length += dist(at, g);
    EXPECT_NEAR(length, brute.length, 1e-9) << what;
    if (r.move_count == 1) {
      // The first clear candidate in the documented order.
      std::optional<std::vector<Move>> first;
      for (const auto& candidate : standard_move_candidates(s, g)) {
        int x = s.x;
        int y = s.y;
        bool ok = true;
        for (const Move& m : candidate) {
          ok = ok &&
               walk(mask, x, y, static_cast<int>(m.direction), static_cast<int>(m.steps), forbid);
        }
        if (ok) {
          first = candidate;
          break;
        }
      }
      ASSERT_TRUE(first.has_value()) << what;
      EXPECT_EQ(r.moves, *first) << what;
    }
  }
  // The maps exercise every kind of answer.
  EXPECT_GT(counts[1], 200);
  EXPECT_GT(counts[2], 100);
  EXPECT_GT(counts[3], 20);
}

// The stitched searches against the brute force for many seeds: every map
// is asked for two and for three moves, with and without
// forbid_corner_cutting.
TEST(StandardMoveTest, StitchedSearchesMatchTheBruteForceForManySeeds) {
  int counts[4] = {0, 0, 0, 0};
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 80; ++trial) {
      const auto width = std::uniform_int_distribution<std::uint32_t>(3, 9)(rng);
      const auto height = std::uniform_int_distribution<std::uint32_t>(3, 8)(rng);
      const double obstacles = std::uniform_real_distribution<double>(0.2, 0.55)(rng);
      const Mask mask = pathtest::random_mask(rng, width, height, obstacles, 1);
      const Point s = pathtest::random_point(rng, mask);
      const Point g = pathtest::random_point(rng, mask);
      for (const int max_moves : {2, 3}) {
        for (const bool forbid : {false, true}) {
          const auto r = find_standard_move(mask, s, g, options(max_moves, forbid));
          const Brute brute = brute_force(mask, s, g, max_moves, forbid);
          const std::string what = "seed " + std::to_string(seed) + " trial " +
                                   std::to_string(trial) + " max_moves " +
                                   std::to_string(max_moves) + (forbid ? " forbid" : "");
          ASSERT_EQ(r.found, brute.moves >= 0) << what;
          EXPECT_FALSE(r.search_truncated) << what;
          if (!r.found) continue;
          ++counts[brute.moves];
          expect_valid_route(mask, s, g, r, forbid);
          EXPECT_EQ(r.move_count, brute.moves) << what;
          EXPECT_EQ(r.nodes, brute.nodes) << what;
        }
      }
    }
  }
  EXPECT_GT(counts[2], 500) << counts[2] << " two-move answers";
  EXPECT_GT(counts[3], 100) << counts[3] << " three-move answers";
}

// An independent reference for maps too large for the brute force: the
// one-move sets by walking every shape X^a Y^j X^b step by step, forwards
// from a tile (the tiles it reaches) or backwards into one (the tiles that
// reach it), then the best node or node pair by enumeration.
class StraightStepReference {
 public:
  StraightStepReference(const Mask& mask, bool forbid) : mask_(mask), forbid_(forbid) {}

  // The tiles one standard move reaches from `from` (backwards: that reach
  // `from`), `from` included.
  [[nodiscard]] std::vector<Point> one_move(Point from, bool backwards) const {
    std::vector<char> seen(mask_.pixel_count(), 0);
    std::vector<Point> reached;
    const auto advance = [&](Point& p, int d) {
      const Point step = step_of(static_cast<Direction>(d));
      if (!backwards) {
        if (!pathtest::step_ok(mask_, p.x, p.y, d, forbid_)) return false;
        p = {p.x + step.x, p.y + step.y};
        return true;
      }
      const Point before{p.x - step.x, p.y - step.y};
      if (!open_tile(mask_, before.x, before.y) ||
          !pathtest::step_ok(mask_, before.x, before.y, d, forbid_)) {
        return false;
      }
      p = before;
      return true;
    };
    for (int x = 0; x < 8; ++x) {
      for (const int y : {(x + 1) % 8, (x + 7) % 8}) {
        for (Point p = from;;) {
          for (Point q = p;;) {
            for (Point r = q;;) {
              char& flag = seen[mask_.index(r)];
              if (flag == 0) reached.push_back(r);
              flag = 1;
              if (!advance(r, x)) break;
            }
            if (!advance(q, y)) break;
          }
          if (!advance(p, x)) break;
        }
      }
    }
    return reached;
  }

  struct Answer {
    int moves = -1;  // -1: none within max_moves
    std::vector<Point> nodes;
  };

  [[nodiscard]] Answer route(Point s, Point g, int max_moves) const {
    const std::vector<Point> from_s = one_move(s, false);
    if (std::find(from_s.begin(), from_s.end(), g) != from_s.end()) return {1, {}};
    std::vector<char> to_g(mask_.pixel_count(), 0);
    for (const Point n : one_move(g, true)) to_g[mask_.index(n)] = 1;
    Answer best;
    double best_length = 0;
    std::vector<std::size_t> best_rank;  // steps, then the nodes' scan order
    const auto consider = [&](const std::vector<Point>& nodes) {
      double length = 0;
      std::size_t steps = 0;
      Point at = s;
      for (const Point n : nodes) {
        length += dist(at, n);
        steps += static_cast<std::size_t>(std::max(std::abs(n.x - at.x), std::abs(n.y - at.y)));
        at = n;
      }
      length += dist(at, g);
      steps += static_cast<std::size_t>(std::max(std::abs(g.x - at.x), std::abs(g.y - at.y)));
      std::vector<std::size_t> rank{steps};
      for (const Point n : nodes) rank.push_back(mask_.index(n));
      if (best.moves >= 0) {
        if (length > best_length + 1e-9) return;
        if (length >= best_length - 1e-9 && rank >= best_rank) return;
      }
      best = {static_cast<int>(nodes.size()) + 1, nodes};
      best_length = length;
      best_rank = rank;
    };
    const auto is_node = [&](Point n) { return !(n == s) && !(n == g); };
    for (const Point n : from_s) {
      if (is_node(n) && to_g[mask_.index(n)] != 0) consider({n});
    }
    if (best.moves >= 0 || max_moves < 3) return best;
    for (const Point n1 : from_s) {
      if (!is_node(n1)) continue;
      for (const Point n2 : one_move(n1, false)) {
        if (is_node(n2) && !(n2 == n1) && to_g[mask_.index(n2)] != 0) consider({n1, n2});
      }
    }
    return best;
  }

 private:
  const Mask& mask_;
  bool forbid_;
};

// Larger maps, where the stitched search starts in a window around the ends
// (the box of the ends and 64 tiles around it) and must grow it when the
// moves run further: 320x320 clutter crossed by open corridors, with ends a
// few dozen tiles apart, against the straight-step reference.
TEST(StandardMoveTest, WindowedSearchMatchesAStraightStepReferenceOnLargerMaps) {
  constexpr std::uint32_t kSide = 320;
  constexpr int kFirstMargin = 64;
  int counts[4] = {0, 0, 0, 0};
  int beyond_first_window = 0;  // trials whose one-move sets leave the first window
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    std::mt19937_64 rng(seed);
    const double obstacles = std::uniform_real_distribution<double>(0.2, 0.45)(rng);
    std::vector<std::uint8_t> areas =
        pathtest::random_mask(rng, kSide, kSide, obstacles, 1).areas();
    std::uniform_int_distribution<std::uint32_t> line(0, kSide - 1);
    for (int corridor = 0; corridor < 3; ++corridor) {
      const std::uint32_t row = line(rng);
      const std::uint32_t column = line(rng);
      for (std::uint32_t i = 0; i < kSide; ++i) {
        areas[std::size_t{row} * kSide + i] = 1;
        areas[std::size_t{i} * kSide + column] = 1;
      }
    }
    const Mask mask(kSide, kSide, std::move(areas));
    for (int trial = 0; trial < 4; ++trial) {
      Point s = pathtest::random_point(rng, mask);
      for (int attempt = 0; attempt < 50 && !open_tile(mask, s.x, s.y); ++attempt) {
        s = pathtest::random_point(rng, mask);
      }
      std::uniform_int_distribution<int> offset(-40, 40);
      Point g = s;
      for (int attempt = 0; attempt < 50 && (g == s || !open_tile(mask, g.x, g.y)); ++attempt) {
        g = {std::clamp(s.x + offset(rng), 0, static_cast<int>(kSide) - 1),
             std::clamp(s.y + offset(rng), 0, static_cast<int>(kSide) - 1)};
      }
      if (!open_tile(mask, s.x, s.y) || !open_tile(mask, g.x, g.y)) continue;
      const bool forbid = trial % 2 == 1;
      const StraightStepReference reference(mask, forbid);
      // Beyond the first window: a sweep reached that window's edge on the way.
      const auto outside_first_window = [&](Point n) {
        return n.x < std::min(s.x, g.x) - kFirstMargin || n.x > std::max(s.x, g.x) + kFirstMargin ||
               n.y < std::min(s.y, g.y) - kFirstMargin || n.y > std::max(s.y, g.y) + kFirstMargin;
      };
      bool leaves = false;
      for (const bool backwards : {false, true}) {
        for (const Point n : reference.one_move(backwards ? g : s, backwards)) {
          leaves = leaves || outside_first_window(n);
        }
      }
      beyond_first_window += leaves ? 1 : 0;
      for (const int max_moves : {2, 3}) {
        const auto r = find_standard_move(mask, s, g, options(max_moves, forbid));
        const auto expected = reference.route(s, g, max_moves);
        const std::string what = "seed " + std::to_string(seed) + " trial " +
                                 std::to_string(trial) + " max_moves " + std::to_string(max_moves);
        ASSERT_EQ(r.found, expected.moves >= 0) << what;
        EXPECT_FALSE(r.search_truncated) << what;
        if (!r.found) continue;
        ++counts[expected.moves];
        expect_valid_route(mask, s, g, r, forbid);
        EXPECT_EQ(r.move_count, expected.moves) << what;
        EXPECT_EQ(r.nodes, expected.nodes) << what;
      }
    }
  }
  EXPECT_GT(counts[2], 10);
  EXPECT_GT(counts[3], 10);
  EXPECT_GT(beyond_first_window, 5);
}

// Routes that must leave the first window: two corridors joined far to the
// east of the ends (further than the window's 64-tile margin), in a blocked
// 240x240 mask with 10% of its tiles open at random; the search must grow
// its window to find them. Against the straight-step reference.
TEST(StandardMoveTest, WindowedSearchFollowsADetourBeyondTheFirstWindow) {
  constexpr std::uint32_t kSide = 240;
  int beyond_first_window = 0;  // routes with a node the first window does not hold
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    std::mt19937_64 rng(seed);
    const auto between = [&](int low, int high) {
      return std::uniform_int_distribution<int>(low, high)(rng);
    };
    std::vector<std::uint8_t> areas(std::size_t{kSide} * kSide, 0);
    std::bernoulli_distribution open_at_random(0.1);
    for (auto& a : areas) a = open_at_random(rng) ? 1 : 0;
    const int top = between(60, 100);
    const int bottom = top + between(20, 40);
    const int west = between(10, 30);
    const int east = west + between(90, 130);
    const auto open = [&](int x, int y) { areas[static_cast<std::size_t>(y) * kSide + x] = 1; };
    for (int x = west; x <= east; ++x) {
      open(x, top);
      open(x, bottom);
    }
    for (int y = top; y <= bottom; ++y) open(east, y);
    const Mask mask(kSide, kSide, std::move(areas));
    const Point s{west + between(0, 20), top};
    const Point g{west + between(0, 20), bottom};
    for (const bool forbid : {false, true}) {
      const StraightStepReference reference(mask, forbid);
      const auto r = find_standard_move(mask, s, g, options(3, forbid));
      const auto expected = reference.route(s, g, 3);
      const std::string what = "seed " + std::to_string(seed) + (forbid ? " forbid" : "");
      ASSERT_EQ(r.found, expected.moves >= 0) << what;
      EXPECT_FALSE(r.search_truncated) << what;
      if (!r.found) continue;
      expect_valid_route(mask, s, g, r, forbid);
      EXPECT_EQ(r.move_count, expected.moves) << what;
      EXPECT_EQ(r.nodes, expected.nodes) << what;
      for (const Point n : expected.nodes) {
        if (n.x > std::max(s.x, g.x) + 64) {
          ++beyond_first_window;
          break;
        }
      }
    }
  }
  EXPECT_GT(beyond_first_window, 8);
}

// An interrupt check that never says stop, counting its calls.
struct CountingCheck {
  int calls = 0;
  std::function<bool()> check = [this] {
    ++calls;
    return false;
  };
};

void expect_same_answer(const StandardMoveResult& a, const StandardMoveResult& b) {
  EXPECT_EQ(a.found, b.found);
  EXPECT_EQ(a.moves, b.moves);
  EXPECT_EQ(a.waypoints, b.waypoints);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.move_count, b.move_count);
  EXPECT_EQ(a.search_truncated, b.search_truncated);
}

// Stops the search at the stop_at-th call of the check: it must throw
// Interrupted right there.
void expect_stops_at(const Mask& mask, Point start, Point goal, int max_moves, int stop_at) {
  int until_stop = 0;
  const std::function<bool()> stop = [&] { return ++until_stop == stop_at; };
  EXPECT_THROW((void)find_standard_move(mask, start, goal, options(max_moves), stop), Interrupted)
      << "stop at call " << stop_at << " of a " << max_moves << "-move search";
  EXPECT_EQ(until_stop, stop_at);
}

// The stitched searches call the caller's interrupt check about every 16,384
// tiles marked or swept: on a full-HD room that two moves cross, the calls
// beyond those of a one-move search (the grid of the ends' box and the
// candidates) come from the grids of the windows the sweeps outgrow and the
// sweeps from both ends, and a stop in them throws Interrupted; a check that
// never stops changes nothing.
TEST(StandardMoveTest, TwoMoveSearchStopsWhenTheInterruptCheckSaysSo) {
  // A wall down the middle with gaps of 20 tiles at the top and the bottom.
  constexpr std::uint32_t kWidth = 1920;
  constexpr std::uint32_t kHeight = 1080;
  std::vector<std::uint8_t> areas(std::size_t{kWidth} * kHeight, 1);
  for (std::uint32_t y = 20; y + 20 < kHeight; ++y) {
    areas[std::size_t{y} * kWidth + 959] = 0;
    areas[std::size_t{y} * kWidth + 960] = 0;
  }
  const Mask mask(kWidth, kHeight, std::move(areas));
  const Point start{10, 540};
  const Point goal{1900, 560};

  CountingCheck one_move;
  EXPECT_FALSE(find_standard_move(mask, start, goal, options(1), one_move.check).found);
  const auto plain = find_standard_move(mask, start, goal, options(2));
  ASSERT_TRUE(plain.found);
  ASSERT_EQ(plain.move_count, 2);
  expect_valid_route(mask, start, goal, plain, false);
  CountingCheck two_moves;
  expect_same_answer(find_standard_move(mask, start, goal, options(2), two_moves.check), plain);
  // Each sweep reaches most of its half of the room (about a million tiles).
  EXPECT_GE(two_moves.calls - one_move.calls, 50);

  expect_stops_at(mask, start, goal, 2, one_move.calls + 1);
  expect_stops_at(mask, start, goal, 2, two_moves.calls);
}

// Likewise for three moves on a full-HD mask with 30% random obstacles: the
// narrowing sweeps and the node-by-node search call the check, a stop early,
// midway or at the last call throws Interrupted, and a check that never
// stops gives the same route.
TEST(StandardMoveTest, ThreeMoveSearchStopsWhenTheInterruptCheckSaysSo) {
  std::mt19937_64 rng(20260419);
  const Mask mask = pathtest::random_mask(rng, 1920, 1080, 0.3, 1);
  // Nearby tiles that two moves do not join and three do (the guards below).
  const Point start{900, 500};
  const Point goal{920, 511};

  CountingCheck two_moves;
  ASSERT_FALSE(find_standard_move(mask, start, goal, options(2), two_moves.check).found);
  const auto plain = find_standard_move(mask, start, goal, options(3));
  ASSERT_TRUE(plain.found);
  ASSERT_EQ(plain.move_count, 3);
  expect_valid_route(mask, start, goal, plain, false);
  CountingCheck three_moves;
  expect_same_answer(find_standard_move(mask, start, goal, options(3), three_moves.check), plain);
  // The narrowing and the node-by-node sweeps stay near the two ends (a window
  // of the mask), but mark tens of thousands of tiles there.
  EXPECT_GE(three_moves.calls - two_moves.calls, 2)
      << two_moves.calls << " calls for two moves, " << three_moves.calls << " for three";

  for (const int stop_at : {1, two_moves.calls + 1, three_moves.calls / 2, three_moves.calls}) {
    expect_stops_at(mask, start, goal, 3, stop_at);
  }
}

}  // namespace
}  // namespace pathcore
