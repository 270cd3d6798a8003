// find_any_angle_path: an interval search over AnyAngleMesh (Polyanya's,
// specialised to rectangles whose left and right sides are walls).
//
// A search node is a root (the start, or a corner the path bends at, with
// the exact length g of the path to it) and an interval [xl, xr] of a
// rectangle's top or bottom edge that the root sees: it stands for every
// path that runs straight from the root through the interval into that
// rectangle. Expanding it projects the interval's cone onto the rectangle's
// far edge (observable successors, same root) and, where an interval end is a
// convex corner, bends there: the corner becomes the root of what lies beyond
// the cone in that rectangle (non-observable successors). A point node (a
// root with a whole rectangle in view) starts the search, crosses pinch
// portals, and follows a path along a rectangle's edge to the next corner.
// f = g + the exact length from the root through the interval to the goal
// (the goal mirrored across the interval's line when on the root's side), a
// consistent estimate, so the first goal node taken is the shortest path.
// Root-level pruning: a node whose root was since reached shorter is dropped.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "mask/interrupt_check.h"
#include "pathcore/any_angle.h"

namespace pathcore {
namespace {

// Geometric tolerance, in pixels. Coordinates stay below 2^14, so doubles
// hold the projections to about 1e-12; an interval end within this of a
// segment's end is that end (a corner the path may bend at).
constexpr double kEps = 1e-9;
// Two ways to a corner tie when they differ by less than this (relative):
// the rounding of sums of square roots taken in another order.
constexpr double kTie = 1e-12;

struct Vec {
  double x = 0;
  double y = 0;
};

double distance(Vec a, Vec b) {
  const double dx = a.x - b.x;
  const double dy = a.y - b.y;
  return std::sqrt(dx * dx + dy * dy);
}

// The exact length of the shortest straight-then-straight way from root
// through [xl, xr] on line y = line to goal (goal mirrored first when on the
// root's side: the path must cross the line).
double through_interval(Vec root, Vec goal, double xl, double xr, double line) {
  if ((root.y < line) == (goal.y < line) || goal.y == line) goal.y = 2 * line - goal.y;
  const double cross_x = root.x + (goal.x - root.x) * (line - root.y) / (goal.y - root.y);
  if (cross_x < xl) return distance(root, {xl, line}) + distance({xl, line}, goal);
  if (cross_x > xr) return distance(root, {xr, line}) + distance({xr, line}, goal);
  return distance(root, goal);
}

// The best root record of each corner reached, by corner key: open
// addressing with linear probing (std::unordered_map's node per entry cost
// a tenth of the search on clutter). Grows with the corners reached, never
// with the mask.
class BestRoots {
 public:
  struct Entry {
    std::uint64_t key = kEmpty;
    double g = 0;
    std::uint32_t record = 0;
  };
  BestRoots() : entries_(1024) {}
  // The entry of key, and whether it was added now.
  std::pair<Entry*, bool> insert(std::uint64_t key) {
    if (2 * (size_ + 1) > entries_.size()) grow();
    Entry* entry = slot(key);
    if (entry->key == key) return {entry, false};
    entry->key = key;
    ++size_;
    return {entry, true};
  }
  // The entry of a key inserted before.
  [[nodiscard]] Entry* find(std::uint64_t key) { return slot(key); }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  Entry* slot(std::uint64_t key) {
    const std::size_t mask = entries_.size() - 1;
    std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
    while (entries_[i].key != key && entries_[i].key != kEmpty) i = (i + 1) & mask;
    return &entries_[i];
  }
  void grow() {
    std::vector<Entry> old(entries_.size() * 2);
    old.swap(entries_);
    for (const Entry& entry : old) {
      if (entry.key != kEmpty) *slot(entry.key) = entry;
    }
  }
  std::vector<Entry> entries_;
  std::size_t size_ = 0;
};

class Search {
 public:
  Search(const AnyAngleMesh& mesh, Point start, Point goal, const std::function<bool()>& interrupt)
      : mesh_(mesh),
        rects_(mesh.rects()),
        segments_(mesh.segments()),
        portals_(mesh.portals()),
        start_{start.x + 0.5, start.y + 0.5},
        goal_{goal.x + 0.5, goal.y + 0.5},
        goal_rect_(mesh.rect_at(goal)),
        check_(interrupt) {}

  // The shortest path from the start (in start_rect) to the goal; nullopt
  // when the search runs out of nodes first.
  std::optional<AnyAnglePath> run(std::uint32_t start_rect, AnyAngleSearchStats* stats) {
    records_.push_back({start_, kNoRecord, false});
    push_point(0, 0, start_rect);
    std::optional<AnyAnglePath> answer;
    while (!open_.empty()) {
      std::pop_heap(open_.begin(), open_.end(), Later{});
      const Node node = nodes_[open_.back().node];
      free_.push_back(open_.back().node);  // its slot is reused by the next push
      open_.pop_back();
      if (node.kind == Kind::kGoal) {
        answer = path_from(node);
        break;
      }
      const Record& root = records_[node.root];
      if (root.vertex && best_.find(key(root.at))->record != node.root) continue;  // reached shorter
      ++expanded_;
      check_.after(1);
      if (node.kind == Kind::kPoint) {
        expand_point(node);
      } else {
        expand_interval(node);
      }
    }
    if (stats != nullptr) {
      stats->expanded += expanded_;
      stats->pushed += pushed_;
    }
    return answer;
  }

 private:
  static constexpr std::uint32_t kNoRecord = 0xFFFFFFFFU;
  enum class Kind : std::uint8_t { kInterval, kPoint, kGoal };
  // A root: where a path bends (or starts), and the root before it.
  struct Record {
    Vec at;
    std::uint32_t parent = kNoRecord;
    bool vertex = false;  // a square corner (pruned by its best length)
  };
  struct Node {
    double f = 0;
    double g = 0;  // the path's length to its root (to the goal for kGoal)
    std::uint32_t root = 0;
    std::uint32_t rect = 0;
    double xl = 0;
    double xr = 0;
    std::int32_t line = 0;
    Kind kind = Kind::kInterval;
  };
  // The open set holds (f, node index) only, so sifting moves 16 bytes.
  // Heap order: smallest f first, then the lower slot (either way the
  // answer depends on nothing but the mesh, start and goal).
  struct Open {
    double f;
    std::uint32_t node;
  };
  struct Later {
    bool operator()(const Open& a, const Open& b) const {
      if (a.f != b.f) return a.f > b.f;
      return a.node > b.node;
    }
  };

  [[nodiscard]] std::uint64_t key(Vec corner) const {
    return static_cast<std::uint64_t>(corner.y) * (std::uint64_t{mesh_.width()} + 1) +
           static_cast<std::uint64_t>(corner.x);
  }

  // Root-level pruning: the root record for corner reached at length g
  // from `parent`, or kNoRecord when it was reached as short already (to
  // within rounding). Keeping only the first of tying ways is safe: a way
  // through the corner that is shortest after the one kept is taut after it
  // too, so the kept root's nodes reach everything the dropped one would.
  // Keeping both would double the search at every tie, and symmetric masks
  // tie everywhere.
  std::uint32_t root_at(Vec corner, double g, std::uint32_t parent) {
    const auto [best, inserted] = best_.insert(key(corner));
    if (!inserted) {
      if (g >= best->g - kTie * std::max(1.0, g)) return kNoRecord;
    }
    best->g = g;
    records_.push_back({corner, parent, true});
    best->record = static_cast<std::uint32_t>(records_.size() - 1);
    return best->record;
  }

  void push(Node node) {
    ++pushed_;
    std::uint32_t index = 0;
    if (free_.empty()) {
      index = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(node);
    } else {
      index = free_.back();
      free_.pop_back();
      nodes_[index] = node;
    }
    open_.push_back({node.f, index});
    std::push_heap(open_.begin(), open_.end(), Later{});
  }
  void push_interval(std::uint32_t root, double g, double xl, double xr, std::int32_t line,
                     std::uint32_t rect) {
    const double f = g + through_interval(records_[root].at, goal_, xl, xr, line);
    push({f, g, root, rect, xl, xr, line, Kind::kInterval});
  }
  void push_point(std::uint32_t root, double g, std::uint32_t rect) {
    push({g + distance(records_[root].at, goal_), g, root, rect, 0, 0, 0, Kind::kPoint});
  }
  void push_goal(std::uint32_t root, double length) {
    push({length, length, root, 0, 0, 0, 0, Kind::kGoal});
  }
  // A corner `from` (the root `record`, at length g) sees: the path bends
  // there and goes on into `rect` with the whole of it in view.
  void bend_into(std::uint32_t record, double g, Vec corner, std::uint32_t rect) {
    const double at = g + distance(records_[record].at, corner);
    const std::uint32_t root = root_at(corner, at, record);
    if (root != kNoRecord) push_point(root, at, rect);
  }

  // The part [lo, hi] of the edge segments [first, last) (sorted by x) on
  // `line`, as intervals seen from root. An end within kEps of a segment's
  // end becomes that end; a single point is kept only at a convex corner
  // (a path may bend there).
  void push_segments(std::uint32_t root, double g, double lo, double hi, std::int32_t line,
                     std::uint32_t first, std::uint32_t last) {
    if (lo > hi + kEps) return;
    const auto begin = segments_.begin() + first;
    const auto end = segments_.begin() + last;
    auto segment = std::lower_bound(begin, end, lo - kEps,
                                    [](const AnyAngleMesh::Segment& s, double x) { return s.x1 < x; });
    for (; segment != end && segment->x0 <= hi + kEps; ++segment) {
      double a = std::max(lo, double(segment->x0));
      double b = std::min(hi, double(segment->x1));
      if (a < segment->x0 + kEps) a = segment->x0;
      if (b > segment->x1 - kEps) b = segment->x1;
      if (a > b) {
        if (a - b > kEps) continue;
        b = a;
      }
      if (a == b && !(a == std::floor(a) && mesh_.convex_corner(std::int64_t(a), line))) continue;
      push_interval(root, g, a, b, line, segment->across);
    }
  }

  // Targets inside a rectangle: the goal and the pinch portals, reached
  // from root (the root record seeing them) or not at all.
  void reach_targets(const AnyAngleMesh::Rect& rect, std::uint32_t rect_index, std::uint32_t record,
                     double g, const std::function<int(Vec)>& side,
                     const std::uint32_t* bend_records, const double* bend_g) {
    const auto reach = [&](Vec target) -> std::pair<std::uint32_t, double> {
      const int s = side(target);
      if (s == 0) return {record, g};
      const int i = s < 0 ? 0 : 1;
      return {bend_records[i], bend_g[i]};
    };
    if (rect_index == goal_rect_) {
      const auto [from, at] = reach(goal_);
      if (from != kNoRecord) push_goal(from, at + distance(records_[from].at, goal_));
    }
    for (std::uint32_t p = rect.portal_begin; p < rect.portal_end; ++p) {
      const Vec corner{double(portals_[p].x), double(portals_[p].y)};
      const auto [from, at] = reach(corner);
      if (from == kNoRecord) continue;
      const Vec root = records_[from].at;
      if (root.x == corner.x && root.y == corner.y) continue;  // the portal it came through
      bend_into(from, at, corner, portals_[p].across);
    }
  }

  void expand_point(const Node& node) {
    const AnyAngleMesh::Rect& rect = rects_[node.rect];
    const Vec root = records_[node.root].at;
    for (std::uint32_t s = rect.top_begin; s < rect.bottom_end; ++s) {
      const AnyAngleMesh::Segment& segment = segments_[s];
      const std::int32_t line = s < rect.bottom_begin ? rect.y0 : rect.y1;
      if (root.y != line) {
        push_interval(node.root, node.g, segment.x0, segment.x1, line, segment.across);
        continue;
      }
      // Along the edge to the segment's near end, a corner, then into the
      // rectangle across.
      double end = 0;
      if (segment.x0 > root.x) {
        end = segment.x0;
      } else if (segment.x1 < root.x) {
        end = segment.x1;
      } else {
        continue;  // the root's own edge: what lies across it the root came from
      }
      if (!mesh_.convex_corner(std::int64_t(end), line)) continue;
      bend_into(node.root, node.g, {end, double(line)}, segment.across);
    }
    const std::uint32_t none[2] = {kNoRecord, kNoRecord};
    const double zero[2] = {0, 0};
    reach_targets(rect, node.rect, node.root, node.g, [](Vec) { return 0; }, none, zero);
  }

  void expand_interval(const Node& node) {
    const AnyAngleMesh::Rect& rect = rects_[node.rect];
    const Vec root = records_[node.root].at;
    const bool down = rect.y0 == node.line;
    const std::int32_t far = down ? rect.y1 : rect.y0;
    const std::uint32_t far_first = down ? rect.bottom_begin : rect.top_begin;
    const std::uint32_t far_last = down ? rect.bottom_end : rect.bottom_begin;
    const std::uint32_t near_first = down ? rect.top_begin : rect.bottom_begin;
    const std::uint32_t near_last = down ? rect.bottom_begin : rect.bottom_end;
    const double line = node.line;
    const auto ray_at = [&](double x_on_line, double y) {
      return root.x + (x_on_line - root.x) * (y - root.y) / (line - root.y);
    };
    const double far_left = ray_at(node.xl, far);
    const double far_right = ray_at(node.xr, far);

    // Observable: the cone on the far edge.
    push_segments(node.root, node.g, std::max(far_left, double(rect.x0)),
                  std::min(far_right, double(rect.x1)), far, far_first, far_last);

    // Non-observable: bend at an interval end that is a convex corner, for
    // what lies beyond the cone on that side: the rest of the far edge and
    // the near edge's segments further along (reached along the edge).
    std::uint32_t bend_records[2] = {kNoRecord, kNoRecord};
    double bend_g[2] = {0, 0};
    for (const int side : {0, 1}) {
      const double x = side == 0 ? node.xl : node.xr;
      if (x != std::floor(x) || !mesh_.convex_corner(std::int64_t(x), node.line)) continue;
      if (side == 1 && node.xl == node.xr && bend_records[0] != kNoRecord) {
        bend_records[1] = bend_records[0];
        bend_g[1] = bend_g[0];
      } else {
        const Vec corner{x, line};
        const double at = node.g + distance(root, corner);
        bend_records[side] = root_at(corner, at, node.root);
        if (bend_records[side] == kNoRecord) continue;
        bend_g[side] = at;
      }
      const std::uint32_t record = bend_records[side];
      const double at = bend_g[side];
      if (side == 0) {
        if (far_left > rect.x0 + kEps) {
          push_segments(record, at, rect.x0, std::min(far_left, double(rect.x1)), far, far_first,
                        far_last);
        }
        for (std::uint32_t s = near_first; s < near_last && segments_[s].x1 < x; ++s) {
          const double end = segments_[s].x1;
          if (mesh_.convex_corner(std::int64_t(end), node.line)) {
            bend_into(record, at, {end, line}, segments_[s].across);
          }
        }
      } else {
        if (far_right < rect.x1 - kEps) {
          push_segments(record, at, std::max(far_right, double(rect.x0)), rect.x1, far, far_first,
                        far_last);
        }
        for (std::uint32_t s = near_last; s > near_first && segments_[s - 1].x0 > x; --s) {
          const double end = segments_[s - 1].x0;
          if (mesh_.convex_corner(std::int64_t(end), node.line)) {
            bend_into(record, at, {end, line}, segments_[s - 1].across);
          }
        }
      }
    }

    // Targets: in the cone from the root, else beyond a bend.
    const auto side = [&](Vec target) {
      if (target.x < ray_at(node.xl, target.y) - kEps) return -1;
      if (target.x > ray_at(node.xr, target.y) + kEps) return 1;
      return 0;
    };
    reach_targets(rect, node.rect, node.root, node.g, side, bend_records, bend_g);
  }

  std::optional<AnyAnglePath> path_from(const Node& goal_node) const {
    AnyAnglePath path;
    path.length = 0;
    path.points.push_back({goal_.x, goal_.y});
    for (std::uint32_t r = goal_node.root; r != kNoRecord; r = records_[r].parent) {
      path.points.push_back({records_[r].at.x, records_[r].at.y});
    }
    std::reverse(path.points.begin(), path.points.end());
    for (std::size_t i = 0; i < path.points.size(); ++i) {
      const PointD p = path.points[i];
      if (i > 0) path.length += distance({path.points[i - 1].x, path.points[i - 1].y}, {p.x, p.y});
      if (i == 0 || i + 1 == path.points.size()) {
        path.pixels.push_back({static_cast<std::int32_t>(p.x), static_cast<std::int32_t>(p.y)});
      } else {
        path.pixels.push_back(mesh_.pixel_touching(std::int64_t(p.x), std::int64_t(p.y)));
      }
    }
    return path;
  }

  const AnyAngleMesh& mesh_;
  const std::vector<AnyAngleMesh::Rect>& rects_;
  const std::vector<AnyAngleMesh::Segment>& segments_;
  const std::vector<AnyAngleMesh::Portal>& portals_;
  Vec start_;
  Vec goal_;
  std::uint32_t goal_rect_;
  InterruptCheck check_;
  std::vector<Record> records_;
  // The nodes in the open set, by slot; a popped node's slot is reused, so
  // memory follows the open set, not every node ever pushed.
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> free_;
  std::vector<Open> open_;
  BestRoots best_;
  std::uint32_t pushed_ = 0;
  std::size_t expanded_ = 0;
};

}  // namespace

std::size_t AnyAnglePath::memory_bytes() const {
  return sizeof(*this) + points.capacity() * sizeof(PointD) + pixels.capacity() * sizeof(Point);
}

std::optional<AnyAnglePath> find_any_angle_path(const AnyAngleMesh& mesh, Point start, Point goal,
                                                const std::function<bool()>& interrupt,
                                                AnyAngleSearchStats* stats) {
  for (const Point p : {start, goal}) {
    if (p.x < 0 || p.y < 0 || static_cast<std::uint32_t>(p.x) >= mesh.width() ||
        static_cast<std::uint32_t>(p.y) >= mesh.height()) {
      throw InvalidArgument(p == start ? "any-angle start outside the mask"
                                       : "any-angle goal outside the mask");
    }
  }
  const std::uint32_t start_rect = mesh.rect_at(start);
  const std::uint32_t goal_rect = mesh.rect_at(goal);
  if (start_rect == AnyAngleMesh::kNone || goal_rect == AnyAngleMesh::kNone ||
      mesh.component(start_rect) != mesh.component(goal_rect)) {
    return std::nullopt;
  }
  const PointD start_centre{start.x + 0.5, start.y + 0.5};
  const PointD goal_centre{goal.x + 0.5, goal.y + 0.5};
  if (start == goal) return AnyAnglePath{{start_centre}, {start}, 0};
  // One rectangle is convex: the straight segment.
  if (start_rect == goal_rect) {
    return AnyAnglePath{{start_centre, goal_centre},
                        {start, goal},
                        distance({start_centre.x, start_centre.y}, {goal_centre.x, goal_centre.y})};
  }
  Search search(mesh, start, goal, interrupt);
  return search.run(start_rect, stats);
}

}  // namespace pathcore
