// Line-of-sight smoothing ("beautify") of a traced and simplified path.
//
// One pass over the path alternates two moves until neither shortens it:
//  1. drop: a point is dropped when the segment from the previous kept point
//     to the next point is walkable (the classic greedy string pulling);
//  2. corner cut: a corner A-B-C that cannot be dropped is replaced by a cut
//     A-P-Q-C, with P a pixel on the segment B->A and Q one on B->C, taken at
//     fractions of their lengths. P = A (or Q = C) slides B along a leg, so
//     the corner moves to where the string would touch the obstacle; a cut
//     with both points inside the legs adds a corner where one corner is not
//     enough. The best cut by length gained is kept.
// The pass runs forward, then on the reversed path (which sees the obstacles
// from the other side), and the result is reversed back; paths through dense
// clutter get one forward round of a narrower search (see SearchEffort).
//
// Every move is checked with segment_walkable on each new segment and is kept
// only when it makes the path strictly shorter, so the result is never longer
// than the input and all its new segments are walkable. Points stay integer
// pixels. Cost: O(points * log^2(segment length)) segment checks per round.
//
// Weighted terrain (area costs that differ): each move replaces a stretch of
// the path (the segments around the dropped point or cut corner) and is kept
// only when its new segments cost no more than that stretch, by the exact
// segment cost of pathcore/line.h (length inside each pixel times its cost).
// So smoothing never makes the path dearer: a path along a road stays on the
// road unless leaving it is really cheaper. (An earlier rule capped the
// pixels a new segment may touch at the dearest pixel of the stretch: a
// stretch that crossed grass anywhere could then be cut across much more
// grass, issue 21.) Unweighted terrain skips every cost: there a shorter
// path is a cheaper one.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "field/cost_range.h"
#include "line/segment_cost.h"
#include "line/segment_walk.h"
#include "pathcore/clearance.h"
#include "pathcore/line.h"
#include "pathcore/smoothing.h"
#include "smoothing/beautify_traced.h"

namespace pathcore {
namespace {

// A move must gain at least this many pixels of length to be kept, so the
// rounds end even where floating-point noise could report tiny gains.
constexpr double kMinGain = 1e-6;
// Drop + cut rounds per direction; each round only runs while the previous
// one gained something. On game maps most passes settle within five.
constexpr int kMaxRounds = 8;

// How hard a call searches. A path through dense scattered clutter (its
// simplified legs average under kClutterMeanLeg pixel steps over at least
// kClutterMinCorners corners) sees only a few pixels far anywhere. There the
// reversed pass, the rounds after the first and the P candidates away from
// the corner cost about 2.7x the time for 0.15-0.3% of length (30% random
// obstacles), so such paths get one drop + cut round in one direction, with
// P next to the corner or at A. The Moving AI game maps' simplified paths
// average 3.3 steps or more (most over 6) and keep the full search; paths
// on the random (25%) and maze sets average under 3.
struct SearchEffort {
  bool reversed_pass = true;
  int rounds = kMaxRounds;
  bool far_candidates = true;  // P beyond one step from the corner (A is always tried)
};
constexpr double kClutterMeanLeg = 3.0;
constexpr std::size_t kClutterMinCorners = 16;
constexpr SearchEffort kClutterEffort{false, 1, false};

// Integer coordinates square exactly in a double, so this is as exact as
// std::hypot and several times faster.
double distance(Point a, Point b) {
  const double dx = static_cast<double>(b.x) - a.x;
  const double dy = static_cast<double>(b.y) - a.y;
  return std::sqrt(dx * dx + dy * dy);
}

using segment_walk::lexicographically_less;

// Number of pixel steps along the longer axis from a to b.
std::int64_t steps_between(Point a, Point b) {
  return std::max(std::llabs(std::int64_t{b.x} - a.x), std::llabs(std::int64_t{b.y} - a.y));
}

// round(numerator / denominator), halves away from zero; denominator > 0.
std::int64_t divide_rounded(std::int64_t numerator, std::int64_t denominator) {
  const std::int64_t magnitude = (2 * std::llabs(numerator) + denominator) / (2 * denominator);
  return numerator < 0 ? -magnitude : magnitude;
}

// step * delta / steps rounded as divide_rounded does; along the longer axis
// (|delta| == steps) that is exactly +-step, and across a horizontal or
// vertical leg (delta == 0) 0, both without a division (most legs of a
// traced path are one or the other).
std::int64_t scaled(std::int64_t step, std::int64_t delta, std::int64_t steps) {
  if (delta == 0) {
    return 0;
  }
  if (delta == steps) {
    return step;
  }
  if (delta == -steps) {
    return -step;
  }
  return divide_rounded(step * delta, steps);
}

// The pixel `step` of `steps` along the segment from -> to (to itself at the
// end); steps is steps_between(from, to).
Point point_along(Point from, Point to, std::int64_t step, std::int64_t steps) {
  return {static_cast<std::int32_t>(from.x + scaled(step, std::int64_t{to.x} - from.x, steps)),
          static_cast<std::int32_t>(from.y + scaled(step, std::int64_t{to.y} - from.y, steps))};
}

// A table keyed by corners A-B-C (three points), open addressing, grown at
// half load. The slots outlive a call (see SmootherScratch): reset() empties
// the table by moving to a new generation, so a call neither allocates nor
// clears them.
template <typename Value>
class CornerTable {
 public:
  // Empties the table, with room for `expected` entries at half load (it
  // grows when more come).
  void reset(std::size_t expected) {
    std::size_t size = 64;
    while (size < 2 * expected) {
      size *= 2;
    }
    if (slots_.size() < size) {
      slots_.assign(size, Slot{});
      generation_ = 0;
    }
    if (++generation_ == 0) {  // wrapped: old stamps would look current
      std::fill(slots_.begin(), slots_.end(), Slot{});
      generation_ = 1;
    }
    count_ = 0;
  }

  // Bytes held.
  [[nodiscard]] std::size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }
  // Gives the slots back (reset() before the next use).
  void release() {
    std::vector<Slot>().swap(slots_);
    count_ = 0;
  }

  // The value kept for corner a-b-c, or null.
  [[nodiscard]] const Value* find(Point a, Point b, Point c) const {
    if (slots_.empty()) {
      return nullptr;
    }
    const std::size_t last = slots_.size() - 1;
    for (std::size_t i = hash(a, b, c) & last;; i = (i + 1) & last) {
      const Slot& slot = slots_[i];
      if (slot.generation != generation_) {
        return nullptr;
      }
      if (slot.a == a && slot.b == b && slot.c == c) {
        return &slot.value;
      }
    }
  }
  [[nodiscard]] bool contains(Point a, Point b, Point c) const { return find(a, b, c) != nullptr; }

  // Keeps value for a-b-c (a corner already there keeps its value).
  void insert(Point a, Point b, Point c, const Value& value = {}) {
    if (2 * (count_ + 1) > slots_.size()) {
      std::vector<Slot> old(slots_.size() * 2);
      old.swap(slots_);
      const std::uint32_t old_generation = generation_;
      generation_ = 1;
      count_ = 0;
      for (const Slot& slot : old) {
        if (slot.generation == old_generation) {
          insert(slot.a, slot.b, slot.c, slot.value);
        }
      }
    }
    const std::size_t last = slots_.size() - 1;
    std::size_t i = hash(a, b, c) & last;
    while (slots_[i].generation == generation_) {
      if (slots_[i].a == a && slots_[i].b == b && slots_[i].c == c) {
        return;
      }
      i = (i + 1) & last;
    }
    slots_[i] = Slot{a, b, c, value, generation_};
    ++count_;
  }

 private:
  struct Slot {
    Point a;
    Point b;
    Point c;
    Value value{};
    std::uint32_t generation = 0;  // in the table when this is generation_
  };

  static std::uint64_t packed(Point p) {
    return (std::uint64_t{static_cast<std::uint32_t>(p.x)} << 32) |
           static_cast<std::uint32_t>(p.y);
  }
  // Three independent multiplies, folded so the low bits (the slot index)
  // depend on every coordinate.
  static std::size_t hash(Point a, Point b, Point c) {
    const std::uint64_t h = (packed(a) * 0x9E3779B97F4A7C15ULL) ^
                            (packed(b) * 0xC2B2AE3D27D4EB4FULL) ^
                            (packed(c) * 0x165667B19E3779F9ULL);
    return static_cast<std::size_t>(h ^ (h >> 29) ^ (h >> 47));
  }

  std::vector<Slot> slots_;
  std::size_t count_ = 0;
  std::uint32_t generation_ = 0;
};

// The corners A-B-C a pass has already failed to cut. Whether a corner can be
// cut depends only on its three points (and the mask), so a later round
// skips corners it has seen fail: after the first round, only the corners
// next to a change are tried again (on a cluttered full-HD mask that is
// three quarters of the segment checks). Also, as (P, P, Q), pairs of
// points that do not see each other.
struct NoValue {};
using FailedCorners = CornerTable<NoValue>;

// How a corner A-B-C tried came out: no cut, or B replaced by P (unless P is
// A) and Q (unless Q is C). A function of the corner, the search effort and
// the smoother's mask, areas, rule, costs and clearance alone, so calls that
// share all of those (the paths of one batch toward one goal, whose corners
// repeat where the paths merge) look it up instead of searching again
// (SmoothingScratch::remember_corners), one table per search effort.
struct CornerOutcome {
  bool cut = false;
  Point p;
  Point q;
};
using CornerCuts = CornerTable<CornerOutcome>;

// The sets a call uses, kept between calls in the caller's SmoothingScratch
// so that smoothing does not allocate on the hot path. A call that needed
// more than kKeptBytes gives the memory back when it ends, so one huge path
// does not pin it.
struct SmootherScratch {
  static constexpr std::size_t kKeptBytes = std::size_t{256} << 10;
  FailedCorners hidden;  // pairs (P, P, Q): P does not see Q
  FailedCorners failed;  // corners a pass failed to cut
  // With SmoothingScratch::remember_corners: every corner's outcome, kept
  // across calls until forget_corners (not trimmed).
  bool remember_corners = false;
  CornerCuts cuts;             // the full search's outcomes
  CornerCuts light_cuts;       // the lighter search's (SearchEffort)
  bool hidden_shared = false;  // hidden holds the remembering calls' pairs

  void trim() {
    for (FailedCorners* set : {&hidden, &failed}) {
      if (set == &hidden && hidden_shared) {
        continue;
      }
      if (set->memory_bytes() > kKeptBytes) {
        set->release();
      }
    }
  }
};


// For one corner A-B-C: the pixels Q_j (j steps from B toward C) its
// searches asked about, and whether each sees C once known (a small list;
// once full, the rest are computed and checked every time). Every P of the
// corner asks about the same first few j.
class CornerQs {
 public:
  struct Entry {
    std::int64_t j;
    Point q;
    int sees_c;         // 1 or 0 when known, -1 when not
    double cost_to_c;   // weighted terrain: the cost of Q-C, once sees_c == 1
  };

  // The entry for j, or null.
  [[nodiscard]] Entry* find(std::int64_t j) {
    for (std::size_t i = 0; i < count_; ++i) {
      if (entries_[i].j == j) {
        return &entries_[i];
      }
    }
    return nullptr;
  }
  // Adds an entry (when there is room) and returns it, or null.
  Entry* add(std::int64_t j, Point q) {
    if (count_ == entries_.size()) {
      return nullptr;
    }
    entries_[count_] = Entry{j, q, -1, 0.0};
    return &entries_[count_++];
  }

 private:
  // Only the first count_ entries are ever read.
  std::array<Entry, 32> entries_;
  std::size_t count_ = 0;
};

class Smoother {
 public:
  // points: the input path's size (sizes the sets in scratch, which the
  // smoother empties and then owns until it is destroyed).
  Smoother(const Mask& mask, AreaSet enabled, LineRule rule, const AreaCosts& costs,
           const ClearanceMap* clearance, SmootherScratch& scratch, std::size_t points,
           SearchEffort effort)
      : effort_(effort),
        mask_(mask),
        enabled_(enabled),
        rule_(rule),
        clearance_(clearance != nullptr && clearance->serves(mask, enabled) ? clearance : nullptr),
        coster_(mask, enabled, costs),
        weighted_(coster_.uniform_charge() == 0),
        scratch_(scratch),
        hidden_(scratch.hidden) {
    // Remembering calls share the hidden pairs too (a function of the two
    // points and the same inputs as a corner's outcome).
    if (!scratch.remember_corners || !scratch.hidden_shared) {
      hidden_.reset(points);
      scratch.hidden_shared = scratch.remember_corners;
    }
  }

  // Weighted terrain: the area costs of the enabled areas present differ.
  [[nodiscard]] bool weighted() const { return weighted_; }

  // The exact cost of path (weighted terrain; see polyline_cost).
  [[nodiscard]] double cost(const Path& path) const {
    double total = 0;
    for (std::size_t i = 1; i < path.size(); ++i) {
      total += coster_.cost(path[i - 1], path[i]);
    }
    return total;
  }

  // Lets the smoother rely on every segment of the paths it is given being
  // visible (see implied_visible). The caller checks this once per input;
  // every segment a move adds is checked, so it stays true for both passes.
  void trust_path_segments() { trusted_ = true; }

  // Lets the smoother rely on every point of the input lying inside the mask:
  // then so does every point it asks about (a path point, or a pixel between
  // two of them).
  void trust_points_inside() { inside_ = true; }

  // segment_walkable, from the clearance map when there is one; made inline
  // without looking at the bounds once the points are known to be inside.
  [[nodiscard]] bool walkable(Point a, Point b) const {
    if (inside_) {
      return clearance_ != nullptr ? segment_walk::walkable_inside(*clearance_, a, b, rule_)
                                   : segment_walk::walkable_inside(mask_, enabled_, a, b, rule_);
    }
    return clearance_ != nullptr ? segment_walkable(*clearance_, a, b, rule_)
                                 : segment_walkable(mask_, enabled_, a, b, rule_);
  }

  [[nodiscard]] bool reversed_pass() const { return effort_.reversed_pass; }

  // Drop and cut rounds in the path's own direction.
  [[nodiscard]] Path pass(Path path) const {
    drop_visible(path);
    FailedCorners& failed = scratch_.failed;
    failed.reset(path.size());
    for (int round = 0; round < effort_.rounds; ++round) {
      if (!cut_corners(path, failed)) {
        break;
      }
      drop_visible(path);
    }
    return path;
  }

 private:
  // On unweighted terrain, whether a sees c is a function of the two points
  // alone (and symmetric), so the pairs found hidden are remembered for the
  // whole call: the drop passes of later rounds and of the reversed pass ask
  // about them again, and so does the corner search (the cut A-C). Stored as
  // (P, P, Q) with P the lexicographically smaller point.
  [[nodiscard]] bool known_hidden(Point a, Point c) const {
    if (weighted_) {
      return false;
    }
    return lexicographically_less(a, c) ? hidden_.contains(a, a, c) : hidden_.contains(c, c, a);
  }
  void note_hidden(Point a, Point c) const {
    if (weighted_) {
      return;
    }
    if (lexicographically_less(a, c)) {
      hidden_.insert(a, a, c);
    } else {
      hidden_.insert(c, c, a);
    }
  }

  // True when `on`, a point of the path segment from-to, lies exactly on it
  // and the segment from `on` to `to` is then known to be visible without a
  // check: its pixels are among the segment's own. For the supercover that
  // holds for any sub-segment (it is the set of pixel squares the segment
  // touches); Bresenham pixels are only that simple on horizontal, vertical
  // and 45-degree lines. Unweighted terrain only (with costs, a sub-segment's
  // supercover may touch dearer pixels than the path's Bresenham pixels).
  [[nodiscard]] bool implied_visible(Point from, Point on, Point to) const {
    if (!trusted_ || weighted_) {
      return false;
    }
    const std::int64_t dx = std::int64_t{to.x} - from.x;
    const std::int64_t dy = std::int64_t{to.y} - from.y;
    if ((std::int64_t{on.x} - from.x) * dy != (std::int64_t{on.y} - from.y) * dx) {
      return false;
    }
    return rule_ == LineRule::kNoCornerCutting || dx == 0 || dy == 0 ||
           std::llabs(dx) == std::llabs(dy);
  }

  // Greedy line of sight: a point is dropped when the previous kept point
  // sees the next one (pairs known hidden are not checked again).
  // In place: the kept points are written over the front of the path, never
  // ahead of the point being read.
  void drop_visible(Path& path) const {
    if (path.size() <= 2) {
      return;
    }
    if (weighted_) {
      drop_cheaper(path);
      return;
    }
    Path& kept = path;
    std::size_t count = 1;  // path[0] stays
    for (std::size_t i = 1; i + 1 < path.size(); ++i) {
      const Point from = kept[count - 1];
      const Point to = path[i + 1];
      bool sees = false;
      if (!known_hidden(from, to)) {
        sees = walkable(from, to);
        if (!sees) {
          note_hidden(from, to);
        }
      }
      if (!sees) {
        kept[count++] = path[i];
      }
    }
    kept[count++] = path.back();
    kept.resize(count);
  }

  // drop_visible on weighted terrain: a point is dropped when the previous
  // kept point sees the next one and that segment costs no more than the
  // path it replaces (from the kept point through path[i] to path[i + 1]).
  // Writes as drop_visible: at step i, path[i] and path[i + 1] are unchanged.
  void drop_cheaper(Path& path) const {
    Path& kept = path;
    std::size_t count = 1;  // path[0] stays
    double stretch = coster_.cost(path[0], path[1]);  // from the last kept point to path[i]
    for (std::size_t i = 1; i + 1 < path.size(); ++i) {
      const double next = coster_.cost(path[i], path[i + 1]);
      const Point from = kept[count - 1];
      const Point to = path[i + 1];
      if (walkable(from, to)) {
        const double direct = coster_.cost(from, to);
        if (direct <= stretch + next) {
          stretch = direct;
          continue;
        }
      }
      kept[count++] = path[i];
      stretch = next;
    }
    kept[count++] = path.back();
    kept.resize(count);
  }

  // Tries a cut at every corner not known to fail, left to right. True when
  // one was made.
  bool cut_corners(Path& path, FailedCorners& failed) const {
    bool changed = false;
    for (std::size_t k = 1; k + 1 < path.size(); ++k) {
      const Point a = path[k - 1];
      const Point b = path[k];
      const Point c = path[k + 1];
      if (failed.contains(a, b, c)) {
        continue;
      }
      CornerOutcome outcome;
      CornerCuts& remembered = effort_.far_candidates ? scratch_.cuts : scratch_.light_cuts;
      if (const CornerOutcome* known =
              scratch_.remember_corners ? remembered.find(a, b, c) : nullptr) {
        outcome = *known;
      } else {
        outcome = best_cut(a, b, c);
        if (scratch_.remember_corners) {
          remembered.insert(a, b, c, outcome);
        }
      }
      if (outcome.cut) {
        apply_cut(path, k, outcome);
        changed = true;
      } else {
        failed.insert(a, b, c);
      }
    }
    return changed;
  }

  // B (path[k]) replaced by the outcome's P (unless it is A) and Q (unless
  // it is C), in place (moving the rest of the path only when the count
  // changes). k then indexes the last point of the cut before C (A itself
  // when B was simply dropped).
  static void apply_cut(Path& path, std::size_t& k, const CornerOutcome& cut) {
    const Point a = path[k - 1];
    const Point c = path[k + 1];
    std::array<Point, 2> replacement{};
    std::size_t count = 0;
    if (cut.p != a) {
      replacement[count++] = cut.p;
    }
    if (cut.q != c) {
      replacement[count++] = cut.q;
    }
    const auto at = path.begin() + static_cast<std::ptrdiff_t>(k);
    if (count == 0) {
      path.erase(at);
    } else {
      *at = replacement[0];
      if (count == 2) {
        path.insert(at + 1, replacement[1]);
      }
    }
    k = k + count - 1;
  }

  // The cut A-P-Q-C of corner A-B-C that gains the most length, if any
  // gains (B dropped, P = A and Q = C, when it lies on A or C).
  [[nodiscard]] CornerOutcome best_cut(Point a, Point b, Point c) const {
    const double before = distance(a, b) + distance(b, c);
    // Weighted terrain: what a cut may cost at most.
    const double before_cost = weighted_ ? coster_.cost(a, b) + coster_.cost(b, c) : 0.0;
    const std::int64_t to_a = steps_between(b, a);
    const std::int64_t to_c = steps_between(b, c);
    if (to_a == 0 || to_c == 0) {
      return {true, a, c};
    }

    double best_gain = kMinGain;
    Point best_p = a;
    Point best_q = c;
    bool found = false;
    // P is tried i = 1, 2, 4, ... steps from the corner and as many from A, and at A.
    // Q_j and whether it sees C do not depend on P: remembered across the P tried.
    CornerQs qs;
    const auto try_p = [&](std::int64_t i) {
      const Point p = point_along(b, a, i, to_a);
      const bool p_is_a = i == to_a;
      // No cut through P can be shorter than A-P-C (triangle inequality), so
      // once a cut is found, a P for which even that would not beat it (with a
      // margin far above rounding) is skipped unchecked: same result, fewer
      // checks. (Before any cut is found the bound never prunes: A-P-C is never
      // longer than A-B-C.)
      if (found &&
          before - ((p_is_a ? 0.0 : distance(a, p)) + distance(p, c)) <= best_gain - kMinGain) {
        return;
      }
      // A-P is asked last: P lies on (or next to) the leg A-B, which is
      // visible, so that check almost always passes, while most P have no
      // cut toward C at all. (Either order gives the same cut: both must hold,
      // and farthest_cut only remembers facts about Q_j.) On weighted terrain
      // A-P comes first: its cost is part of every cut's through P.
      double cost_to_p = 0;
      if (weighted_ && !p_is_a) {
        if (!walkable(a, p)) {
          return;
        }
        cost_to_p = coster_.cost(a, p);
      }
      const std::int64_t j = farthest_cut(p, b, c, to_c, qs, p_is_a, cost_to_p, before_cost);
      if (j == 0) {
        return;
      }
      if (!weighted_ && !p_is_a && !implied_visible(b, p, a) && !walkable(a, p)) {
        return;
      }
      const Point q = point_along(b, c, j, to_c);
      const double after =
          (p_is_a ? 0.0 : distance(a, p)) + distance(p, q) + (j == to_c ? 0.0 : distance(q, c));
      if (before - after > best_gain) {
        best_gain = before - after;
        best_p = p;
        best_q = q;
        found = true;
      }
    };
    for (std::int64_t i = 1; i < to_a; i *= 2) {
      try_p(i);
      if (!effort_.far_candidates) {
        break;
      }
      if (to_a - i > i) {
        try_p(to_a - i);
      }
    }
    try_p(to_a);
    return {found, best_p, best_q};
  }

  // The largest j in 1..to_c such that p sees Q_j (the pixel j steps from b
  // toward c) and Q_j sees c; 0 when even j = 1 fails. Visibility shrinks as
  // Q moves away from the corner, so the boundary is found by doubling and
  // then bisection; a pillar inside the corner can make the answer one of
  // several boundaries, which is still a valid (checked) cut.
  // p_is_a: p is the corner's A, whose sight of c the drop passes may know.
  // Weighted terrain: the cut A-P-Q_j-C must also cost at most before_cost,
  // cost_to_p being that of A-P (the boundary is then one of cost or sight).
  [[nodiscard]] std::int64_t farthest_cut(Point p, Point b, Point c, std::int64_t to_c,
                                          CornerQs& qs, bool p_is_a, double cost_to_p,
                                          double before_cost) const {
    if (weighted_) {
      return farthest_cut_weighted(p, b, c, to_c, qs, cost_to_p, before_cost);
    }
    const auto cut_ok = [&](std::int64_t j) {
      if (j == to_c) {  // Q is C itself
        if (p_is_a) {
          if (known_hidden(p, c)) {
            return false;
          }
          const bool sees = walkable(p, c);
          if (!sees) {
            note_hidden(p, c);
          }
          return sees;
        }
        return walkable(p, c);
      }
      CornerQs::Entry* entry = qs.find(j);
      if (entry != nullptr && entry->sees_c == 0) {
        return false;
      }
      if (entry == nullptr) {
        const Point q = point_along(b, c, j, to_c);
        entry = qs.add(j, q);
        if (entry == nullptr) {  // no room: as below, unremembered
          return walkable(p, q) && (implied_visible(b, q, c) || walkable(q, c));
        }
      }
      const Point q = entry->q;
      if (!walkable(p, q)) {
        return false;
      }
      if (entry->sees_c < 0) {
        entry->sees_c = implied_visible(b, q, c) || walkable(q, c) ? 1 : 0;
      }
      return entry->sees_c == 1;
    };
    return boundary(to_c, cut_ok);
  }

  // farthest_cut on weighted terrain.
  [[nodiscard]] std::int64_t farthest_cut_weighted(Point p, Point b, Point c, std::int64_t to_c,
                                                   CornerQs& qs, double cost_to_p,
                                                   double before_cost) const {
    const auto cut_ok = [&](std::int64_t j) {
      if (j == to_c) {  // Q is C itself
        return walkable(p, c) && cost_to_p + coster_.cost(p, c) <= before_cost;
      }
      CornerQs::Entry* entry = qs.find(j);
      if (entry != nullptr && entry->sees_c == 0) {
        return false;
      }
      CornerQs::Entry unremembered{j, point_along(b, c, j, to_c), -1, 0.0};
      if (entry == nullptr) {
        entry = qs.add(j, unremembered.q);
        if (entry == nullptr) {  // no room: computed every time
          entry = &unremembered;
        }
      }
      const Point q = entry->q;
      if (!walkable(p, q)) {
        return false;
      }
      if (entry->sees_c < 0) {
        entry->sees_c = walkable(q, c) ? 1 : 0;
        if (entry->sees_c == 1) {
          entry->cost_to_c = coster_.cost(q, c);
        }
      }
      return entry->sees_c == 1 &&
             cost_to_p + coster_.cost(p, q) + entry->cost_to_c <= before_cost;
    };
    return boundary(to_c, cut_ok);
  }

  // The j farthest_cut answers, given cut_ok(j) for one j.
  template <typename CutOk>
  [[nodiscard]] static std::int64_t boundary(std::int64_t to_c, CutOk&& cut_ok) {
    if (cut_ok(to_c)) {
      return to_c;
    }
    if (to_c == 1 || !cut_ok(1)) {
      return 0;
    }
    std::int64_t good = 1;
    std::int64_t bad = to_c;
    while (good * 2 < bad && cut_ok(good * 2)) {
      good *= 2;
    }
    bad = std::min(bad, good * 2);
    while (bad - good > 1) {
      const std::int64_t middle = good + (bad - good) / 2;
      (cut_ok(middle) ? good : bad) = middle;
    }
    return good;
  }

  SearchEffort effort_;
  const Mask& mask_;
  AreaSet enabled_;
  LineRule rule_;
  const ClearanceMap* clearance_;  // null, or serving mask_ and enabled_
  SegmentCoster coster_;
  bool weighted_ = false;
  bool trusted_ = false;
  bool inside_ = false;
  SmootherScratch& scratch_;
  FailedCorners& hidden_;  // pairs (P, P, Q): P does not see Q (unweighted only)
};

// The lighter search for paths through dense clutter (see SearchEffort).
SearchEffort effort_for(const Path& path) {
  const std::size_t corners = path.size() < 2 ? 0 : path.size() - 2;
  if (corners < kClutterMinCorners) {
    return {};
  }
  std::int64_t steps = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    steps += steps_between(path[i - 1], path[i]);
  }
  const auto legs = static_cast<double>(path.size() - 1);
  return static_cast<double>(steps) < kClutterMeanLeg * legs ? kClutterEffort : SearchEffort{};
}

}  // namespace

struct SmoothingScratch::Sets : SmootherScratch {};

SmoothingScratch::SmoothingScratch() : sets_(std::make_unique<Sets>()) {}
SmoothingScratch::~SmoothingScratch() = default;

void SmoothingScratch::remember_corners() {
  if (!sets_->remember_corners) {
    sets_->cuts.reset(0);
    sets_->light_cuts.reset(0);
  }
  sets_->remember_corners = true;
}

void SmoothingScratch::forget_corners() {
  sets_->remember_corners = false;
  sets_->hidden_shared = false;
  sets_->cuts.release();
  sets_->light_cuts.release();
  sets_->trim();
}

std::size_t SmoothingScratch::remembered_bytes() const {
  if (!sets_->remember_corners) {
    return 0;
  }
  return sets_->cuts.memory_bytes() + sets_->light_cuts.memory_bytes() +
         (sets_->hidden_shared ? sets_->hidden.memory_bytes() : 0);
}

namespace {

// beautify; traced: the caller vouches for what beautify checks first (every
// point inside, every segment walkable per rule).
Path smooth(const Path& path, const Mask& mask, AreaSet enabled, LineRule rule,
            const AreaCosts& costs, const ClearanceMap* clearance, SmoothingScratch* scratch,
            bool traced) {
  if (path.size() <= 2) {
    return path;
  }
  std::optional<SmoothingScratch> own;
  SmootherScratch& sets = (scratch != nullptr ? *scratch : own.emplace()).sets();
  Smoother smoother(mask, enabled & kAllAreas, rule, costs, clearance, sets, path.size(),
                    effort_for(path));
  // A traced path's segments are all walkable; an arbitrary input's may not be.
  const bool inside = traced || std::all_of(path.begin(), path.end(),
                                            [&mask](Point p) { return mask.contains(p); });
  if (inside) {
    smoother.trust_points_inside();
  }
  bool walkable = inside;  // a segment with an end outside is not walkable
  for (std::size_t i = 1; i < path.size() && walkable && !traced; ++i) {
    walkable = smoother.walkable(path[i - 1], path[i]);
  }
  if (walkable) {
    smoother.trust_path_segments();
  }
  Path smoothed = smoother.pass(path);
  if (smoother.reversed_pass()) {
    std::reverse(smoothed.begin(), smoothed.end());
    smoothed = smoother.pass(std::move(smoothed));
    std::reverse(smoothed.begin(), smoothed.end());
  }
  sets.trim();
  // Every move above gained length and (weighted terrain) cost no more than
  // it replaced; this guards against rounding only.
  if (polyline_length(smoothed) > polyline_length(path)) {
    return path;
  }
  if (smoother.weighted() && smoother.cost(smoothed) > smoother.cost(path)) {
    return path;
  }
  return smoothed;
}

}  // namespace

Path beautify(const Path& path, const Mask& mask, AreaSet enabled, LineRule rule,
              const AreaCosts& costs, const ClearanceMap* clearance, SmoothingScratch* scratch) {
  return smooth(path, mask, enabled, rule, costs, clearance, scratch, /*traced=*/false);
}

Path beautify_traced(const Path& path, const Mask& mask, AreaSet enabled, LineRule rule,
                     const AreaCosts& costs, const ClearanceMap* clearance,
                     SmoothingScratch* scratch) {
  return smooth(path, mask, enabled, rule, costs, clearance, scratch, /*traced=*/true);
}

}  // namespace pathcore
