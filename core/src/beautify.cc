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
// from the other side), and the result is reversed back.
//
// Every move is checked with segment_walkable on each new segment and is kept
// only when it makes the path strictly shorter, so the result is never longer
// than the input and all its new segments are walkable. Points stay integer
// pixels. Cost: O(points * log^2(segment length)) segment checks per round.
//
// Weighted terrain (area costs that differ): each move replaces a stretch of
// the path (the segments around the dropped point or cut corner); its new
// segments may only touch (per the line rule) pixels whose cost is at most the
// highest cost of the pixels that stretch runs through (its Bresenham pixels). So smoothing never
// pulls the path onto terrain dearer than what it already crossed there, which keeps the path's
// weighted cost close to the traced optimum: a path along a road stays on the road, and a path that
// crosses a field anyway may cut across that field. (Comparing weighted lengths exactly would need
// a cost model for segments between pixel centres that the grid field does not have; the cap is
// simple, local and symmetric.)
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "cost_range.h"
#include "pathcore/clearance.h"
#include "pathcore/path.h"

namespace pathcore {
namespace {

// A move must gain at least this many pixels of length to be kept, so the
// rounds end even where floating-point noise could report tiny gains.
constexpr double kMinGain = 1e-6;
// Drop + cut rounds per direction; each round only runs while the previous
// one gained something. On game maps most passes settle within five.
constexpr int kMaxRounds = 8;

// Integer coordinates square exactly in a double, so this is as exact as
// std::hypot and several times faster.
double distance(Point a, Point b) {
  const double dx = static_cast<double>(b.x) - a.x;
  const double dy = static_cast<double>(b.y) - a.y;
  return std::sqrt(dx * dx + dy * dy);
}

// x, then y: the order that names an unordered pair of points one way.
bool lexicographically_less(Point a, Point b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

// Number of pixel steps along the longer axis from a to b.
std::int64_t steps_between(Point a, Point b) {
  return std::max(std::llabs(std::int64_t{b.x} - a.x), std::llabs(std::int64_t{b.y} - a.y));
}

// round(numerator / denominator), halves away from zero; denominator > 0.
std::int64_t divide_rounded(std::int64_t numerator, std::int64_t denominator) {
  const std::int64_t magnitude = (2 * std::llabs(numerator) + denominator) / (2 * denominator);
  return numerator < 0 ? -magnitude : magnitude;
}

// The pixel `step` of `steps` along the segment from -> to (to itself at the end).
Point point_along(Point from, Point to, std::int64_t step, std::int64_t steps) {
  return {static_cast<std::int32_t>(from.x +
                                    divide_rounded(step * (std::int64_t{to.x} - from.x), steps)),
          static_cast<std::int32_t>(from.y +
                                    divide_rounded(step * (std::int64_t{to.y} - from.y), steps))};
}

// The corners A-B-C a pass has already failed to cut. Whether a corner can be
// cut depends only on its three points (and the mask), so a later round
// skips corners it has seen fail: after the first round, only the corners
// next to a change are tried again (on a cluttered full-HD mask that is
// three quarters of the segment checks). Open addressing, grown at half load.
class FailedCorners {
 public:
  // Room for `expected` entries at half load; grows when more come.
  explicit FailedCorners(std::size_t expected) {
    std::size_t size = 64;
    while (size < 2 * expected) {
      size *= 2;
    }
    slots_.resize(size);
  }

  [[nodiscard]] bool contains(Point a, Point b, Point c) const {
    for (std::size_t i = hash(a, b, c) & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[i];
      if (!slot.used) {
        return false;
      }
      if (slot.a == a && slot.b == b && slot.c == c) {
        return true;
      }
    }
  }

  void insert(Point a, Point b, Point c) {
    if (2 * (count_ + 1) > slots_.size()) {
      std::vector<Slot> old(slots_.size() * 2);
      old.swap(slots_);
      count_ = 0;
      for (const Slot& slot : old) {
        if (slot.used) {
          insert(slot.a, slot.b, slot.c);
        }
      }
    }
    std::size_t i = hash(a, b, c) & (slots_.size() - 1);
    while (slots_[i].used) {
      if (slots_[i].a == a && slots_[i].b == b && slots_[i].c == c) {
        return;
      }
      i = (i + 1) & (slots_.size() - 1);
    }
    slots_[i] = Slot{a, b, c, true};
    ++count_;
  }

 private:
  struct Slot {
    Point a;
    Point b;
    Point c;
    bool used = false;
  };

  static std::size_t hash(Point a, Point b, Point c) {
    std::uint64_t h = 0;
    for (const Point p : {a, b, c}) {
      h = (h ^ ((std::uint64_t{static_cast<std::uint32_t>(p.x)} << 32) |
                static_cast<std::uint32_t>(p.y))) *
          0x9E3779B97F4A7C15ULL;
      h ^= h >> 29;
    }
    return static_cast<std::size_t>(h);
  }

  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

// For one corner A-B-C: whether Q_j (j steps from B toward C) sees C, for
// the few j a corner's searches ask about (a small list; once full, the
// rest are checked every time).
class SeesC {
 public:
  // 1 or 0 when known, -1 when not.
  [[nodiscard]] int find(std::int64_t j) const {
    for (std::size_t i = 0; i < count_; ++i) {
      if (steps_[i] == j) {
        return sees_[i] ? 1 : 0;
      }
    }
    return -1;
  }
  void add(std::int64_t j, bool sees) {
    if (count_ < steps_.size()) {
      steps_[count_] = j;
      sees_[count_] = sees;
      ++count_;
    }
  }

 private:
  std::array<std::int64_t, 24> steps_{};
  std::array<bool, 24> sees_{};
  std::size_t count_ = 0;
};

// No cap on the cost of touched pixels (unweighted terrain).
constexpr int kNoCap = 256;

class Smoother {
 public:
  Smoother(const Mask& mask, AreaSet enabled, LineRule rule, const AreaCosts& costs,
           const ClearanceMap* clearance)
      : mask_(mask),
        enabled_(enabled),
        rule_(rule),
        costs_(costs),
        clearance_(clearance != nullptr && clearance->serves(mask, enabled) ? clearance : nullptr) {
    const CostRange range = area_cost_range(mask, enabled, costs);
    weighted_ = range.cheapest < range.dearest;
  }

  // Lets the smoother rely on every segment of the paths it is given being
  // visible (see implied_visible). The caller checks this once per input;
  // every segment a move adds is checked, so it stays true for both passes.
  void trust_path_segments() { trusted_ = true; }

  // segment_walkable, from the clearance map when there is one.
  [[nodiscard]] bool walkable(Point a, Point b) const {
    return clearance_ != nullptr ? segment_walkable(*clearance_, a, b, rule_)
                                 : segment_walkable(mask_, enabled_, a, b, rule_);
  }

  // Drop and cut rounds in the path's own direction.
  [[nodiscard]] Path pass(Path path) const {
    path = drop_visible(path);
    FailedCorners failed(path.size());
    for (int round = 0; round < kMaxRounds; ++round) {
      if (!cut_corners(path, failed)) {
        break;
      }
      path = drop_visible(path);
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

  // a sees b: the segment is walkable and touches no pixel dearer than cap.
  [[nodiscard]] bool visible(Point a, Point b, int cap) const {
    if (!weighted_) {
      return walkable(a, b);
    }
    const int highest = segment_max_cost(mask_, enabled_, a, b, rule_, costs_);
    return highest != 0 && highest <= cap;
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

  // The highest cost an existing segment of the path touches (kNoCap when
  // the terrain is not weighted).
  [[nodiscard]] int cost_cap(Point a, Point b) const {
    if (!weighted_) {
      return kNoCap;
    }
    // The pixels the segment runs through (its Bresenham pixels; for the
    // straight runs of a traced path, exactly the path's pixels).
    const int highest = segment_max_cost(mask_, enabled_, a, b, LineRule::kBresenham, costs_);
    if (highest != 0) {
      return highest;
    }
    // Not walkable per rule (not a path this library traced): its endpoints.
    const auto cost = [&](Point p) {
      const int c = mask_.contains(p) ? costs_[mask_.area(p)] : 1;
      return c == 0 ? 1 : c;
    };
    return std::max(cost(a), cost(b));
  }

  // Greedy line of sight: a point is dropped when the previous kept point
  // sees the next one (pairs known hidden are not checked again).
  [[nodiscard]] Path drop_visible(const Path& path) const {
    if (path.size() <= 2) {
      return path;
    }
    Path kept(path.size());
    std::size_t count = 0;
    kept[count++] = path.front();
    int cap = cost_cap(path[0], path[1]);  // over the stretch from the last kept point to path[i]
    for (std::size_t i = 1; i + 1 < path.size(); ++i) {
      const int next_cap = cost_cap(path[i], path[i + 1]);
      const int stretch_cap = std::max(cap, next_cap);
      const Point from = kept[count - 1];
      const Point to = path[i + 1];
      bool sees = false;
      if (weighted_) {
        sees = visible(from, to, stretch_cap);
      } else if (!known_hidden(from, to)) {
        sees = visible(from, to, stretch_cap);
        if (!sees) {
          note_hidden(from, to);
        }
      }
      if (sees) {
        cap = stretch_cap;
      } else {
        kept[count++] = path[i];
        cap = next_cap;
      }
    }
    kept[count++] = path.back();
    kept.resize(count);
    return kept;
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
      if (cut_corner(path, k)) {
        changed = true;
      } else {
        failed.insert(a, b, c);
      }
    }
    return changed;
  }

  // Replaces path[k] (B, between A and C) by the cut A-P-Q-C that gains the
  // most length, if any gains. k then indexes the last point of the cut
  // before C (A itself when B was simply dropped).
  bool cut_corner(Path& path, std::size_t& k) const {
    const Point a = path[k - 1];
    const Point b = path[k];
    const Point c = path[k + 1];
    const double before = distance(a, b) + distance(b, c);
    const int cap = std::max(cost_cap(a, b), cost_cap(b, c));
    const std::int64_t to_a = steps_between(b, a);
    const std::int64_t to_c = steps_between(b, c);
    if (to_a == 0 || to_c == 0) {
      path.erase(path.begin() + static_cast<std::ptrdiff_t>(k));
      --k;
      return true;
    }

    double best_gain = kMinGain;
    Point best_p = a;
    Point best_q = c;
    bool found = false;
    // P is tried i = 1, 2, 4, ... steps from the corner and as many from A, and at A.
    // Whether Q_j sees C does not depend on P: remembered across the P tried.
    SeesC sees_c;
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
      if (!p_is_a && !implied_visible(b, p, a) && !visible(a, p, cap)) {
        return;
      }
      const std::int64_t j = farthest_cut(p, b, c, to_c, cap, sees_c, p_is_a);
      if (j == 0) {
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
      if (to_a - i > i) {
        try_p(to_a - i);
      }
    }
    try_p(to_a);
    if (!found) {
      return false;
    }
    Path replacement;
    if (best_p != a) {
      replacement.push_back(best_p);
    }
    if (best_q != c) {
      replacement.push_back(best_q);
    }
    const auto at = path.begin() + static_cast<std::ptrdiff_t>(k);
    path.erase(at);
    path.insert(path.begin() + static_cast<std::ptrdiff_t>(k), replacement.begin(),
                replacement.end());
    k = k + replacement.size() - 1;
    return true;
  }

  // The largest j in 1..to_c such that p sees Q_j (the pixel j steps from b
  // toward c) and Q_j sees c; 0 when even j = 1 fails. Visibility shrinks as
  // Q moves away from the corner, so the boundary is found by doubling and
  // then bisection; a pillar inside the corner can make the answer one of
  // several boundaries, which is still a valid (checked) cut.
  // p_is_a: p is the corner's A, whose sight of c the drop passes may know.
  [[nodiscard]] std::int64_t farthest_cut(Point p, Point b, Point c, std::int64_t to_c, int cap,
                                          SeesC& sees_c, bool p_is_a) const {
    const auto q_sees_c = [&](std::int64_t j, Point q) {
      if (const int known = sees_c.find(j); known >= 0) {
        return known != 0;
      }
      const bool sees = implied_visible(b, q, c) || visible(q, c, cap);
      sees_c.add(j, sees);
      return sees;
    };
    const auto cut_ok = [&](std::int64_t j) {
      const Point q = point_along(b, c, j, to_c);
      if (j == to_c) {
        if (p_is_a) {
          if (known_hidden(p, q)) {
            return false;
          }
          const bool sees = visible(p, q, cap);
          if (!sees) {
            note_hidden(p, q);
          }
          return sees;
        }
        return visible(p, q, cap);
      }
      const int known = sees_c.find(j);
      if (known == 0) {
        return false;
      }
      return visible(p, q, cap) && (known == 1 || q_sees_c(j, q));
    };
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

  const Mask& mask_;
  AreaSet enabled_;
  LineRule rule_;
  const AreaCosts& costs_;
  const ClearanceMap* clearance_;  // null, or serving mask_ and enabled_
  bool weighted_ = false;
  bool trusted_ = false;
  mutable FailedCorners hidden_{512};  // pairs (P, P, Q): P does not see Q (unweighted only)
};

}  // namespace

Path beautify(const Path& path, const Mask& mask, AreaSet enabled, LineRule rule,
              const AreaCosts& costs, const ClearanceMap* clearance) {
  if (path.size() <= 2) {
    return path;
  }
  Smoother smoother(mask, enabled & kAllAreas, rule, costs, clearance);
  // A traced path's segments are all walkable; an arbitrary input's may not be.
  bool walkable = true;
  for (std::size_t i = 1; i < path.size() && walkable; ++i) {
    walkable = smoother.walkable(path[i - 1], path[i]);
  }
  if (walkable) {
    smoother.trust_path_segments();
  }
  Path smoothed = smoother.pass(path);
  std::reverse(smoothed.begin(), smoothed.end());
  smoothed = smoother.pass(std::move(smoothed));
  std::reverse(smoothed.begin(), smoothed.end());
  // Every move above gained length; this guards against rounding only.
  return polyline_length(smoothed) <= polyline_length(path) ? smoothed : path;
}

}  // namespace pathcore
