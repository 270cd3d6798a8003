#include "pathcore/standard_move.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "mask/interrupt_check.h"
#include "mask/point_checks.h"

namespace pathcore {
namespace {

constexpr std::array<Point, 8> kSteps = {Point{0, -1}, Point{1, -1}, Point{1, 0},  Point{1, 1},
                                         Point{0, 1},  Point{-1, 1}, Point{-1, 0}, Point{-1, -1}};
constexpr std::array<const char*, 8> kNames = {"N", "NE", "E", "SE", "S", "SW", "W", "NW"};

// Lengths closer than this count as equal (then the tie-breaks decide).
constexpr double kLengthEpsilon = 1e-9;

// The three-move search stops after its sweeps have marked this many tiles
// (per mask tile, plus a base, at most the cap), keeping the best route
// found so far.
constexpr std::size_t kThreeMoveBudgetPerTile = 256;
constexpr std::size_t kThreeMoveBudgetBase = std::size_t{1} << 20;
constexpr std::size_t kThreeMoveBudgetCap = std::size_t{1} << 26;

bool is_diagonal(int d) { return (d & 1) != 0; }

Direction direction_of(int dx, int dy) {
  for (int d = 0; d < 8; ++d) {
    if (kSteps[d].x == dx && kSteps[d].y == dy) return static_cast<Direction>(d);
  }
  return Direction::kN;  // unreachable for unit steps
}

double euclid(Point a, Point b) {
  const double dx = static_cast<double>(a.x) - b.x;
  const double dy = static_cast<double>(a.y) - b.y;
  return std::sqrt(dx * dx + dy * dy);
}

std::uint64_t chebyshev(Point a, Point b) {
  return static_cast<std::uint64_t>(
      std::max(std::llabs(std::int64_t{a.x} - b.x), std::llabs(std::int64_t{a.y} - b.y)));
}

// A rectangle of the mask: the tiles a search may step on.
struct Window {
  std::uint32_t x0 = 0;
  std::uint32_t y0 = 0;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
};

Window whole(const Mask& mask) { return {0, 0, mask.width(), mask.height()}; }

// The box with corners a and b: a single move between them never leaves it
// (its runs are monotone in x and in y), nor do the tiles beside its
// diagonal steps that forbid_corner_cutting checks.
Window box_of(Point a, Point b) {
  const auto x0 = static_cast<std::uint32_t>(std::min(a.x, b.x));
  const auto y0 = static_cast<std::uint32_t>(std::min(a.y, b.y));
  return {x0, y0, static_cast<std::uint32_t>(std::max(a.x, b.x)) - x0 + 1,
          static_cast<std::uint32_t>(std::max(a.y, b.y)) - y0 + 1};
}

// The stitched search's first window: the box of its ends and this many
// tiles around it; each retry makes the margin kWindowGrowth times larger.
constexpr std::uint32_t kFirstWindowMargin = 64;
constexpr std::uint32_t kWindowGrowth = 4;

// The box grown by margin on every side, clipped to the mask; the whole mask
// once that covers half of it (smaller windows would save little).
Window grown(Window box, std::uint32_t margin, const Mask& mask) {
  const std::uint32_t x0 = box.x0 - std::min(box.x0, margin);
  const std::uint32_t y0 = box.y0 - std::min(box.y0, margin);
  const std::uint32_t x1 =
      std::min<std::uint64_t>(std::uint64_t{box.x0} + box.width + margin, mask.width());
  const std::uint32_t y1 =
      std::min<std::uint64_t>(std::uint64_t{box.y0} + box.height + margin, mask.height());
  const Window window{x0, y0, x1 - x0, y1 - y0};
  if (std::uint64_t{window.width} * window.height * 2 > mask.pixel_count()) return whole(mask);
  return window;
}

// The walkable tiles of a window of the mask with a one-tile blocked border,
// so a step never needs a bounds check. Tiles are addressed by padded index.
class Grid {
 public:
  Grid(const Mask& mask, const StandardMoveOptions& options, Window window, InterruptCheck& check)
      : x0_(static_cast<std::int32_t>(window.x0)),
        y0_(static_cast<std::int32_t>(window.y0)),
        stride_(static_cast<std::size_t>(window.width) + 2),
        forbid_(options.forbid_corner_cutting),
        open_(stride_ * (static_cast<std::size_t>(window.height) + 2), 0) {
    std::array<std::uint8_t, kMaxAreaId + 1> lut{};
    const AreaSet enabled = options.enabled & kAllAreas;
    for (int a = 1; a <= kMaxAreaId; ++a) lut[a] = (enabled >> a) & 1U;
    const std::uint8_t* areas = mask.areas().data();
    for (std::uint32_t y = 0; y < window.height; ++y) {
      check.after(window.width);
      std::uint8_t* row = open_.data() + (static_cast<std::size_t>(y) + 1) * stride_ + 1;
      const std::uint8_t* src =
          areas + static_cast<std::size_t>(window.y0 + y) * mask.width() + window.x0;
      if (enabled == kAllAreas) {
        // Every area: a comparison the compiler vectorises, not a lookup per tile.
        for (std::uint32_t x = 0; x < window.width; ++x) row[x] = src[x] != 0 ? 1 : 0;
      } else {
        for (std::uint32_t x = 0; x < window.width; ++x) row[x] = lut[src[x]];
      }
    }
    // Where the window is not the mask's edge, its outermost open tiles are
    // flagged: a step from them may leave the window.
    const std::size_t height = window.height;
    const std::size_t width = window.width;
    const auto flag = [&](std::size_t x, std::size_t y) {
      std::uint8_t& t = open_[(y + 1) * stride_ + x + 1];
      if (t != 0) t = kOpenAtWindowEdge;
    };
    if (window.x0 > 0) {
      for (std::size_t y = 0; y < height; ++y) flag(0, y);
    }
    if (window.x0 + window.width < mask.width()) {
      for (std::size_t y = 0; y < height; ++y) flag(width - 1, y);
    }
    if (window.y0 > 0) {
      for (std::size_t x = 0; x < width; ++x) flag(x, 0);
    }
    if (window.y0 + window.height < mask.height()) {
      for (std::size_t x = 0; x < width; ++x) flag(x, height - 1);
    }
    for (int d = 0; d < 8; ++d) {
      offset_[d] = static_cast<std::ptrdiff_t>(kSteps[d].y) * static_cast<std::ptrdiff_t>(stride_) +
                   kSteps[d].x;
    }
  }

  [[nodiscard]] std::size_t size() const { return open_.size(); }
  [[nodiscard]] std::size_t stride() const { return stride_; }
  [[nodiscard]] std::size_t rows() const { return open_.size() / stride_ - 2; }
  [[nodiscard]] std::size_t index(Point p) const {
    return static_cast<std::size_t>(p.y - y0_ + 1) * stride_ +
           static_cast<std::size_t>(p.x - x0_ + 1);
  }
  [[nodiscard]] Point point(std::size_t i) const {
    return {static_cast<std::int32_t>(i % stride_) - 1 + x0_,
            static_cast<std::int32_t>(i / stride_) - 1 + y0_};
  }
  [[nodiscard]] bool open(std::size_t i) const { return open_[i] != 0; }
  // Is tile i open and may a step from it leave the window into the mask?
  [[nodiscard]] bool at_window_edge(std::size_t i) const { return open_[i] == kOpenAtWindowEdge; }
  [[nodiscard]] std::size_t next(std::size_t i, int d) const {
    return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i) + offset_[d]);
  }
  // Is the step from tile i in direction d passable?
  [[nodiscard]] bool passable(std::size_t i, int d) const {
    if (open_[next(i, d)] == 0) return false;
    if (!forbid_ || !is_diagonal(d)) return true;
    // The two cardinal tiles beside the diagonal: d - 1 and d + 1 (mod 8).
    return open_[next(i, (d + 7) & 7)] != 0 && open_[next(i, (d + 1) & 7)] != 0;
  }
  // Walks `steps` steps from i in direction d; false when one is blocked.
  bool walk(std::size_t& i, int d, std::uint32_t steps) const {
    for (std::uint32_t s = 0; s < steps; ++s) {
      if (!passable(i, d)) return false;
      i = next(i, d);
    }
    return true;
  }

 private:
  static constexpr std::uint8_t kOpenAtWindowEdge = 2;  // open_ values: 0 blocked, 1 open

  std::int32_t x0_;
  std::int32_t y0_;
  std::size_t stride_;
  bool forbid_;
  std::vector<std::uint8_t> open_;
  std::array<std::ptrdiff_t, 8> offset_{};
};

// The octant of a move: cardinal C (c steps) and diagonal D (d steps).
struct Octant {
  int cardinal = 0;
  int diagonal = 0;
  std::uint32_t c = 0;
  std::uint32_t d = 0;
};

Octant octant_of(Point from, Point to) {
  const std::int64_t dx = std::int64_t{to.x} - from.x;
  const std::int64_t dy = std::int64_t{to.y} - from.y;
  const std::int64_t ax = std::llabs(dx);
  const std::int64_t ay = std::llabs(dy);
  const int sx = dx > 0 ? 1 : (dx < 0 ? -1 : 0);
  const int sy = dy > 0 ? 1 : (dy < 0 ? -1 : 0);
  Octant o;
  if (ax >= ay) {
    o.cardinal = static_cast<int>(direction_of(sx == 0 ? 1 : sx, 0));
    o.c = static_cast<std::uint32_t>(ax - ay);
    o.d = static_cast<std::uint32_t>(ay);
  } else {
    o.cardinal = static_cast<int>(direction_of(0, sy));
    o.c = static_cast<std::uint32_t>(ay - ax);
    o.d = static_cast<std::uint32_t>(ax);
  }
  // With an empty diagonal run any neighbour works; keep it well defined.
  o.diagonal = static_cast<int>(direction_of(sx == 0 ? 1 : sx, sy == 0 ? 1 : sy));
  return o;
}

void append_run(std::vector<Move>& runs, int d, std::uint32_t steps) {
  if (steps == 0) return;
  const auto direction = static_cast<Direction>(d);
  if (!runs.empty() && runs.back().direction == direction) {
    runs.back().steps += steps;
  } else {
    runs.push_back({direction, steps});
  }
}

// Calls f(principal, k, jog, jog_steps, rest) for each candidate in order of
// preference, skipping repeats; stops when f returns true.
template <typename F>
bool for_each_candidate(const Octant& o, F&& f) {
  if (o.c == 0 || o.d == 0) {
    // A straight run (the jog is empty): one candidate.
    return o.d == 0 ? f(o.cardinal, o.c, o.diagonal, 0U, 0U)
                    : f(o.diagonal, o.d, o.cardinal, 0U, 0U);
  }
  for (std::uint32_t k = 0; k <= o.c; ++k) {
    if (f(o.cardinal, k, o.diagonal, o.d, o.c - k)) return true;
  }
  // k = 0 (C^c D^d) and k = d (D^d C^c) repeat the first group's last and first.
  for (std::uint32_t k = 1; k < o.d; ++k) {
    if (f(o.diagonal, k, o.cardinal, o.c, o.d - k)) return true;
  }
  return false;
}

std::vector<Move> runs_of(int principal, std::uint32_t k, int jog, std::uint32_t j,
                          std::uint32_t rest) {
  std::vector<Move> runs;
  append_run(runs, principal, k);
  append_run(runs, jog, j);
  append_run(runs, principal, rest);
  return runs;
}

// The first clear candidate between padded tiles (empty when none). Each
// candidate counts as its c + d steps for the interrupt check, an upper bound
// of what its walk does.
std::vector<Move> clear_move(const Grid& grid, std::size_t from_i, Point from, Point to,
                             InterruptCheck& check) {
  if (from == to) return {};
  const Octant o = octant_of(from, to);
  std::vector<Move> found;
  for_each_candidate(o, [&](int principal, std::uint32_t k, int jog, std::uint32_t j,
                            std::uint32_t rest) {
    check.after(std::size_t{o.c} + o.d);
    std::size_t i = from_i;
    if (!grid.walk(i, principal, k) || !grid.walk(i, jog, j) || !grid.walk(i, principal, rest)) {
      return false;
    }
    found = runs_of(principal, k, jog, j, rest);
    return true;
  });
  return found;
}

// Marks every tile one standard move can reach from an origin (see the
// header comment). Scratch is reused between sweeps; clear() resets it in
// time proportional to what the last sweep touched. Each run it marks counts
// for the interrupt check as the tiles it marks, plus one.
class OneMoveSweep {
 public:
  OneMoveSweep(const Grid& grid, InterruptCheck& check)
      : grid_(grid), check_(check), bits_(grid.size(), 0) {}

  // Calls visit(i) once for every tile reached, the origin included (first).
  template <typename Visit>
  void run(std::size_t origin, Visit&& visit) {
    for (int x = 0; x < 8; ++x) {
      for (const int y : {(x + 1) & 7, (x + 7) & 7}) {
        // Shape X^a Y^j X^b.
        std::size_t q = origin;
        while (true) {
          std::size_t r = q;
          while (true) {
            std::size_t t = r;
            const auto bit = static_cast<std::uint8_t>(1U << x);
            std::size_t marked = 1;
            while (true) {
              const std::uint8_t b = bits_[t];
              if ((b & bit) != 0) break;  // the rest of this run is marked already
              if (b == 0) {
                touched_.push_back(t);
                reached_window_edge_ = reached_window_edge_ || grid_.at_window_edge(t);
                visit(t);
              }
              bits_[t] = b | bit;
              ++marked;
              if (!grid_.passable(t, x)) break;
              t = grid_.next(t, x);
            }
            check_.after(marked);
            if (!grid_.passable(r, y)) break;
            r = grid_.next(r, y);
          }
          if (!grid_.passable(q, x)) break;
          q = grid_.next(q, x);
        }
      }
    }
  }

  [[nodiscard]] const std::vector<std::size_t>& touched() const { return touched_; }
  // Did a sweep so far mark a tile at the window's edge (see Grid)? Then its
  // answer in the window may differ from the one in the whole mask.
  [[nodiscard]] bool reached_window_edge() const { return reached_window_edge_; }

  void clear() {
    for (const std::size_t t : touched_) bits_[t] = 0;
    touched_.clear();
  }

 private:
  const Grid& grid_;
  InterruptCheck& check_;
  std::vector<std::uint8_t> bits_;  // bit X: reached by a last run in direction X
  std::vector<std::size_t> touched_;
  bool reached_window_edge_ = false;
};

// Every tile a standard move reaches from some tile of `sources`, the
// sources included, by principal direction X: the runs X^a from every
// source, then Y^j (Y = X turned 45 degrees either way) from every tile
// those reach, then X^b from every tile the jogs reach. A run stops at a tile
// already reached by a run of the same kind (the rest of it is reached
// already), so each tile is marked at most 4 times per X, and the work is
// proportional to the tiles reached, not to the grid: on cluttered maps
// that is a small neighbourhood of the sources. Each run counts for the
// interrupt check as the tiles it marks, plus one. visit(i) may be called
// more than once for a tile (once per X at most).
class MultiSourceSweep {
 public:
  MultiSourceSweep(const Grid& grid, InterruptCheck& check)
      : grid_(grid), check_(check), kinds_(grid.size(), 0) {}

  template <typename Visit>
  void run(const std::vector<std::size_t>& sources, Visit&& visit) {
    constexpr std::uint8_t kPrincipal = 1;
    constexpr std::array<std::uint8_t, 2> kJog = {2, 4};
    constexpr std::uint8_t kLast = 8;
    for (int x = 0; x < 8; ++x) {
      principal_ends_.clear();
      for (const std::size_t source : sources) {
        mark_run(source, x, kPrincipal, [&](std::size_t t) { principal_ends_.push_back(t); });
      }
      jog_ends_.clear();
      for (int side = 0; side < 2; ++side) {
        const int y = side == 0 ? (x + 1) & 7 : (x + 7) & 7;
        for (const std::size_t t : principal_ends_) {
          mark_run(t, y, kJog[side], [&](std::size_t u) { jog_ends_.push_back(u); });
        }
      }
      for (const std::size_t t : jog_ends_) mark_run(t, x, kLast, visit);
      for (const std::size_t t : touched_) kinds_[t] = 0;
      touched_.clear();
    }
  }

  // As OneMoveSweep's.
  [[nodiscard]] bool reached_window_edge() const { return reached_window_edge_; }

 private:
  // Marks the run from tile i in direction d with `kind` up to a blocked step
  // or a tile marked with it already, calling reached(t) for each new tile.
  template <typename Reached>
  void mark_run(std::size_t i, int d, std::uint8_t kind, Reached&& reached) {
    std::size_t marked = 1;
    std::size_t t = i;
    while (true) {
      const std::uint8_t k = kinds_[t];
      if ((k & kind) != 0) break;
      if (k == 0) {
        touched_.push_back(t);
        reached_window_edge_ = reached_window_edge_ || grid_.at_window_edge(t);
      }
      kinds_[t] = k | kind;
      reached(t);
      ++marked;
      if (!grid_.passable(t, d)) break;
      t = grid_.next(t, d);
    }
    check_.after(marked);
  }

  const Grid& grid_;
  InterruptCheck& check_;
  std::vector<std::uint8_t> kinds_;  // the kinds of run that reached a tile (this X)
  std::vector<std::size_t> touched_;
  std::vector<std::size_t> principal_ends_;
  std::vector<std::size_t> jog_ends_;
  bool reached_window_edge_ = false;
};

// A block of partner nodes for the three-move bound: their bounding box and
// the least distance from one of them to the far end of the route.
struct PartnerBlock {
  std::int32_t x0 = std::numeric_limits<std::int32_t>::max();
  std::int32_t y0 = std::numeric_limits<std::int32_t>::max();
  std::int32_t x1 = std::numeric_limits<std::int32_t>::min();
  std::int32_t y1 = std::numeric_limits<std::int32_t>::min();
  double to_end = std::numeric_limits<double>::infinity();

  // At most |n P| + |P end| for every partner P of the block.
  [[nodiscard]] double lower_bound_from(Point n) const {
    const double dx = n.x < x0 ? x0 - n.x : (n.x > x1 ? n.x - x1 : 0);
    const double dy = n.y < y0 ? y0 - n.y : (n.y > y1 ? n.y - y1 : 0);
    return std::sqrt(dx * dx + dy * dy) + to_end;
  }
};

// Groups the partners into square blocks, so that origins x blocks stays
// near 2^24 bound evaluations (between 16 and 4096 blocks).
std::vector<PartnerBlock> partner_blocks(const Grid& grid, const std::vector<std::size_t>& partners,
                                         Point end, std::size_t origins, InterruptCheck& check) {
  const std::size_t wanted =
      std::clamp<std::size_t>((std::size_t{1} << 24) / std::max<std::size_t>(origins, 1), 16, 4096);
  const std::size_t cols = grid.stride() - 2;
  const std::size_t rows = grid.rows();
  const auto side = static_cast<std::size_t>(
      std::max(1.0, std::ceil(std::sqrt(static_cast<double>(cols * rows) / wanted))));
  const std::size_t per_row = (cols + side - 1) / side;
  std::vector<PartnerBlock> blocks(per_row * ((rows + side - 1) / side));
  for (const std::size_t i : partners) {
    check.after(1);
    const Point p = grid.point(i);
    const std::size_t column = i % grid.stride() - 1;  // in the window
    const std::size_t row = i / grid.stride() - 1;
    PartnerBlock& b = blocks[(row / side) * per_row + column / side];
    b.x0 = std::min(b.x0, p.x);
    b.y0 = std::min(b.y0, p.y);
    b.x1 = std::max(b.x1, p.x);
    b.y1 = std::max(b.y1, p.y);
    b.to_end = std::min(b.to_end, euclid(p, end));
  }
  std::erase_if(blocks, [](const PartnerBlock& b) { return b.x0 > b.x1; });
  return blocks;
}

// A stitched route's rank: shorter, then fewer steps, then scan order.
struct Score {
  double length = 0;
  std::uint64_t steps = 0;
  std::size_t first = 0;   // padded index of the first node (scan order)
  std::size_t second = 0;  // of the second node (three moves)
};

bool better(const Score& a, const Score& b) {
  if (a.length < b.length - kLengthEpsilon) return true;
  if (a.length > b.length + kLengthEpsilon) return false;
  if (a.steps != b.steps) return a.steps < b.steps;
  if (a.first != b.first) return a.first < b.first;
  return a.second < b.second;
}

StandardMoveResult route_through(const Grid& grid, const std::vector<Point>& tiles,
                                 InterruptCheck& check) {
  StandardMoveResult result;
  result.found = true;
  for (std::size_t leg = 0; leg + 1 < tiles.size(); ++leg) {
    const std::vector<Move> runs =
        clear_move(grid, grid.index(tiles[leg]), tiles[leg], tiles[leg + 1], check);
    for (const Move& m : runs) append_run(result.moves, static_cast<int>(m.direction), m.steps);
  }
  result.nodes.assign(tiles.begin() + 1, tiles.end() - 1);
  result.move_count = static_cast<int>(tiles.size()) - 1;
  Point at = tiles.front();
  result.waypoints.push_back(at);
  for (const Move& m : result.moves) {
    const Point s = step_of(m.direction);
    at = {at.x + s.x * static_cast<std::int32_t>(m.steps),
          at.y + s.y * static_cast<std::int32_t>(m.steps)};
    result.waypoints.push_back(at);
  }
  return result;
}

// The best route of two or three moves (as options.max_moves allows) from
// start to goal, none when there is none, or nullopt when a sweep reached
// the edge of the grid's window (a larger window may answer differently).
std::optional<StandardMoveResult> stitched_route(const Mask& mask, const Grid& grid, Point start,
                                                 Point goal, const StandardMoveOptions& options,
                                                 InterruptCheck& check) {
  const std::size_t s = grid.index(start);
  const std::size_t g = grid.index(goal);
  // Two moves: nodes reached from both ends (passability is symmetric
  // between walkable tiles, so "reached from the goal" = "reaches the goal").
  // What the searches learn about a tile, as flags by padded index.
  constexpr std::uint8_t kFromStart = 1;            // one move from the start
  constexpr std::uint8_t kToGoal = 2;               // one move to the goal
  constexpr std::uint8_t kReachesGoalSet = 4;       // one move to a kToGoal tile
  constexpr std::uint8_t kReachedFromStartSet = 8;  // one move from a kFromStart tile
  constexpr std::uint8_t kPartner = 16;             // the three-move search's other side
  std::vector<std::uint8_t> flags(grid.size(), 0);
  OneMoveSweep sweep(grid, check);
  sweep.run(s, [&](std::size_t i) { flags[i] |= kFromStart; });
  const std::vector<std::size_t> from_start = sweep.touched();
  sweep.clear();
  bool have_best = false;
  Score best;
  sweep.run(g, [&](std::size_t i) {
    flags[i] |= kToGoal;
    if ((flags[i] & kFromStart) == 0 || i == s || i == g) return;
    const Point n = grid.point(i);
    const Score score{euclid(start, n) + euclid(n, goal), chebyshev(start, n) + chebyshev(n, goal),
                      i, 0};
    if (!have_best || better(score, best)) {
      best = score;
      have_best = true;
    }
  });
  const std::vector<std::size_t> to_goal = sweep.touched();
  sweep.clear();
  if (sweep.reached_window_edge()) return std::nullopt;
  if (have_best) return route_through(grid, {start, grid.point(best.first), goal}, check);
  if (options.max_moves < 3) return StandardMoveResult{};

  // Three moves. Only first nodes N1 that reach the goal's set B in one move
  // and second nodes N2 reached from the start's set A in one move can take
  // part (two multi-source sweeps over what one move reaches from B and from
  // A; none of the second when no N1 exists). The smaller of the two sets is
  // swept from, one node at a time in order of the lower bound
  // |s N| + |N g|, until no remaining node can win or the work budget is
  // spent.
  MultiSourceSweep multi(grid, check);
  multi.run(to_goal, [&](std::size_t i) { flags[i] |= kReachesGoalSet; });
  if (multi.reached_window_edge()) return std::nullopt;
  std::vector<std::size_t> firsts;  // candidate N1
  for (const std::size_t i : from_start) {
    check.after(1);
    if (i != s && i != g && (flags[i] & kReachesGoalSet) != 0) firsts.push_back(i);
  }
  if (firsts.empty()) return StandardMoveResult{};
  multi.run(from_start, [&](std::size_t i) { flags[i] |= kReachedFromStartSet; });
  if (multi.reached_window_edge()) return std::nullopt;
  std::vector<std::size_t> seconds;  // candidate N2
  for (const std::size_t i : to_goal) {
    check.after(1);
    if (i != s && i != g && (flags[i] & kReachedFromStartSet) != 0) seconds.push_back(i);
  }
  const bool from_firsts = firsts.size() <= seconds.size();
  for (const std::size_t i : from_firsts ? seconds : firsts) flags[i] |= kPartner;
  // Lower bound of a route through origin N (an N1, or an N2 when sweeping
  // from the seconds): the straight line from its end to N, plus the
  // shortest way from N through any partner P to the other end, where P's
  // part |N P| is bounded below by the distance to the box of P's block.
  const std::vector<std::size_t>& origins = from_firsts ? firsts : seconds;
  const std::vector<std::size_t>& partners = from_firsts ? seconds : firsts;
  const Point near_end = from_firsts ? start : goal;  // the origin's end
  const Point far_end = from_firsts ? goal : start;   // the partners' end
  const std::vector<PartnerBlock> blocks =
      partner_blocks(grid, partners, far_end, origins.size(), check);
  std::vector<std::pair<double, std::size_t>> order;
  order.reserve(origins.size());
  for (const std::size_t i : origins) {
    check.after(blocks.size());
    const Point n = grid.point(i);
    double rest = std::numeric_limits<double>::infinity();
    for (const PartnerBlock& b : blocks) rest = std::min(rest, b.lower_bound_from(n));
    order.emplace_back(euclid(near_end, n) + rest, i);
  }
  // Millions of origins on open maps: each comparison counts, so the sort
  // stops too (order is dropped then).
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    check.after(1);
    return a < b;
  });
  std::size_t budget =
      options.three_move_work_limit != 0
          ? static_cast<std::size_t>(options.three_move_work_limit)
          : std::min(kThreeMoveBudgetPerTile * mask.pixel_count() + kThreeMoveBudgetBase,
                     kThreeMoveBudgetCap);
  bool truncated = false;
  for (const auto& [bound, node] : order) {
    // A copy: lambdas may capture structured bindings only from clang 16 on.
    const std::size_t origin = node;
    if (have_best && bound > best.length + kLengthEpsilon) break;
    if (sweep.touched().size() >= budget) {
      truncated = true;
      break;
    }
    budget -= sweep.touched().size();
    sweep.clear();
    sweep.run(origin, [&](std::size_t i) {
      if ((flags[i] & kPartner) == 0 || i == origin) return;
      const std::size_t n1 = from_firsts ? origin : i;
      const std::size_t n2 = from_firsts ? i : origin;
      const Point p1 = grid.point(n1);
      const Point p2 = grid.point(n2);
      const Score score{euclid(start, p1) + euclid(p1, p2) + euclid(p2, goal),
                        chebyshev(start, p1) + chebyshev(p1, p2) + chebyshev(p2, goal), n1, n2};
      if (!have_best || better(score, best)) {
        best = score;
        have_best = true;
      }
    });
    if (sweep.reached_window_edge()) return std::nullopt;
  }
  sweep.clear();
  StandardMoveResult result;
  if (have_best) {
    result =
        route_through(grid, {start, grid.point(best.first), grid.point(best.second), goal}, check);
  }
  result.search_truncated = truncated;
  return result;
}

}  // namespace

Point step_of(Direction d) { return kSteps[static_cast<std::size_t>(d)]; }

const char* direction_name(Direction d) { return kNames[static_cast<std::size_t>(d)]; }

std::vector<std::vector<Move>> standard_move_candidates(Point from, Point to) {
  std::vector<std::vector<Move>> candidates;
  if (from == to) return candidates;
  for_each_candidate(octant_of(from, to), [&](int principal, std::uint32_t k, int jog,
                                              std::uint32_t j, std::uint32_t rest) {
    candidates.push_back(runs_of(principal, k, jog, j, rest));
    return false;
  });
  return candidates;
}

std::vector<Move> clear_standard_move(const Mask& mask, Point from, Point to,
                                      const StandardMoveOptions& options) {
  require_inside(mask, from, "from");
  require_inside(mask, to, "to");
  const std::function<bool()> never_interrupt;
  InterruptCheck check(never_interrupt);
  const Grid grid(mask, options, box_of(from, to), check);
  return clear_move(grid, grid.index(from), from, to, check);
}

StandardMoveResult find_standard_move(const Mask& mask, Point start, Point goal,
                                      const StandardMoveOptions& options,
                                      const std::function<bool()>& interrupt) {
  require_inside(mask, start, "start");
  require_inside(mask, goal, "goal");
  if (options.max_moves < 1 || options.max_moves > 3) {
    throw InvalidArgument("max_moves: " + std::to_string(options.max_moves) + " is outside 1..3");
  }
  const AreaSet enabled = options.enabled & kAllAreas;
  if (!mask.walkable(start, enabled) || !mask.walkable(goal, enabled)) return {};
  if (start == goal) {
    StandardMoveResult result;
    result.found = true;
    result.waypoints = {start};
    return result;
  }
  InterruptCheck check(interrupt);
  const Window box = box_of(start, goal);
  if (options.max_moves == 1) {
    // A single move stays inside the box of its ends.
    const Grid grid(mask, options, box, check);
    if (clear_move(grid, grid.index(start), start, goal, check).empty()) return {};
    return route_through(grid, {start, goal}, check);
  }
  // The stitched search runs in a window around the ends, grown until its
  // sweeps stay off the window's edge (then the answer is the whole mask's):
  // on cluttered maps the moves are short and a small window does. The loop
  // ends at the latest with the whole mask, whose window has no such edge.
  for (std::uint32_t margin = kFirstWindowMargin;; margin *= kWindowGrowth) {
    const Grid grid(mask, options, grown(box, margin, mask), check);
    if (margin == kFirstWindowMargin &&
        !clear_move(grid, grid.index(start), start, goal, check).empty()) {
      return route_through(grid, {start, goal}, check);
    }
    if (std::optional<StandardMoveResult> result =
            stitched_route(mask, grid, start, goal, options, check)) {
      return *std::move(result);
    }
  }
}

}  // namespace pathcore
