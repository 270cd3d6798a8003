#pragma once
// The distance field of a mask with a few more pixels blocked, read as the
// field of the mask without them (cached) overlaid with the pixels the
// blocking changed: what path_around_obstacles (detour.cc) traces on. It
// answers like that field wherever a trace from its start can look (see
// detour.cc), and is built only there.

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/obstacles.h"

namespace pathcore {

class RepairedField {
 public:
  // base: the field of the unblocked mask; blocked: the pixels blocked on top.
  RepairedField(const DistanceField& base, const ObstacleSet& blocked)
      : base_(base),
        blocked_(blocked),
        affected_((static_cast<std::size_t>(base.width()) * base.height() + 63) / 64, 0) {}

  [[nodiscard]] std::uint32_t width() const { return base_.width(); }
  [[nodiscard]] std::uint32_t height() const { return base_.height(); }
  [[nodiscard]] const FieldOptions& options() const { return base_.options(); }
  [[nodiscard]] Point goal() const { return base_.goal(); }
  [[nodiscard]] Point goal(std::size_t /*index*/) const { return base_.goal(); }
  [[nodiscard]] static bool several_goals() { return false; }
  [[nodiscard]] static std::uint32_t goal_index(Point /*p*/) { return 0; }
  // No stored words to read directly: traces read exact().
  template <typename Word>
  [[nodiscard]] static const Word* four_costs() {
    return nullptr;
  }

  [[nodiscard]] bool contains(Point p) const { return base_.contains(p); }
  // The base field's, except blocked pixels (never) and pixels whose cost
  // the blocking raised (only once repaired).
  [[nodiscard]] bool reachable(Point p) const {
    if (!base_.reachable(p) || blocked_.blocks(p)) return false;
    const std::size_t i = index(p);
    return !affected(i) || repaired_.contains(i);
  }
  // p must be reachable.
  [[nodiscard]] GridCost exact(Point p) const {
    const std::size_t i = index(p);
    return affected(i) ? repaired_.at(i) : base_.exact(p);
  }

  // For the repair (detour.cc).
  [[nodiscard]] const DistanceField& base() const { return base_; }
  [[nodiscard]] const ObstacleSet& blocked() const { return blocked_; }
  [[nodiscard]] std::size_t index(Point p) const {
    return static_cast<std::size_t>(p.y) * base_.width() + static_cast<std::size_t>(p.x);
  }
  [[nodiscard]] bool affected(std::size_t i) const { return ((affected_[i / 64] >> (i % 64)) & 1U) != 0; }
  void mark_affected(std::size_t i) { affected_[i / 64] |= std::uint64_t{1} << (i % 64); }
  [[nodiscard]] bool repaired(std::size_t i) const { return repaired_.contains(i); }
  void repair(std::size_t i, GridCost cost) { repaired_.emplace(i, cost); }

 private:
  const DistanceField& base_;
  const ObstacleSet& blocked_;
  // Pixels every cheapest step of which the blocking cut (their cost rose).
  std::vector<std::uint64_t> affected_;
  // Their new costs, as far as the repair went.
  std::unordered_map<std::size_t, GridCost> repaired_;
};

}  // namespace pathcore
