// FieldBuilder: which fill a mask and its options take, and running it to a
// pixel or to the end; the fills themselves are level_fill.cc, bucket_fill.cc
// and octile_fill.cc (see fill_state.h).
#include "pathcore/distance_field.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "field/fill_state.h"
#include "field/octile_sweep.h"
#include "mask/point_checks.h"

namespace pathcore {

// The choice between the two bucket fills: the in-place octile fill
// (octile_fill.cc) while `octile` holds, else the generic one (bucket_fill.cc).
template <typename Word, bool kStop>
RunResult FieldBuilder::State::run_buckets_dispatch(std::size_t stop) {
  return octile ? run_octile<Word, kStop>(stop) : run_generic_buckets<Word, kStop>(stop);
}

// Runs the bucket fill until stop is settled (or to the end when stop is
// 0, a border pixel), widening 16-bit parts to 32 bits (and starting over)
// when they overflow.
bool FieldBuilder::State::run_buckets_until(std::size_t stop) {
  const bool to_end = stop == 0;
  untouched = false;
  if (method == Method::kBuckets32) {
    const RunResult result = to_end ? run_buckets_dispatch<std::uint32_t, false>(0)
                                    : run_buckets_dispatch<std::uint32_t, true>(stop);
    if (result == RunResult::kInterrupted) throw Interrupted();
    if (result != RunResult::kOverflow) {
      return result == RunResult::kSettled;
    }
    method = Method::kBuckets64;
    if (octile) {
      octile_widen();  // carry on from here
    } else {
      start_buckets<std::uint64_t>();  // start over
    }
  }
  const auto run = [&] {
    return to_end ? run_buckets_dispatch<std::uint64_t, false>(0)
                  : run_buckets_dispatch<std::uint64_t, true>(stop);
  };
  RunResult result = run();
  if (result == RunResult::kOverflow && octile) {
    octile_to_generic();  // carry on from here
    result = run();
  }
  if (result == RunResult::kInterrupted) throw Interrupted();
  if (result == RunResult::kOverflow) {
    throw InvalidArgument("costs overflow 32 bits");  // excluded by the constructor's check
  }
  return result == RunResult::kSettled;
}

FieldOptions normalized(const FieldOptions& options) {
  FieldOptions out = options;
  out.enabled &= kAllAreas;  // area 0 is never walkable
  if (out.connectivity == Connectivity::kFour) out.allow_corner_cutting = false;
  // Costs of areas the options do not enable never count: one key for them all.
  for (std::size_t area = 0; area < out.area_costs.size(); ++area) {
    auto& cost = out.area_costs[area];
    if (cost == 0 || ((out.enabled >> area) & 1U) == 0) cost = 1;
  }
  return out;
}

FieldBuilder::FieldBuilder(const Mask& mask, Point goal, const FieldOptions& options)
    : FieldBuilder(mask, goal, options, FieldStorage{}) {}

FieldBuilder::FieldBuilder(const Mask& mask, Point goal, const FieldOptions& options,
                           FieldStorage recycled)
    : state_(std::make_unique<State>()) {
  require_inside(mask, goal, "goal");
  State& s = *state_;
  s.recycled = std::move(recycled);
  s.mask = &mask;
  const std::size_t width = mask.width();
  const std::size_t height = mask.height();
  s.stride = width + 2;
  const std::size_t padded_size = s.stride * (height + 2);
  if (padded_size >= 0xFFFFFFF0ULL) {
    throw InvalidArgument("mask of " + std::to_string(width) + "x" + std::to_string(height) +
                          " is too large for a distance field");
  }
  const FieldOptions stored = normalized(options);
  bool unit = true;
  std::uint32_t max_cost = 1;
  for (int id = 0; id <= kMaxAreaId; ++id) {
    const std::uint8_t cost = stored.area_costs[static_cast<std::size_t>(id)];
    if ((((stored.enabled & mask.areas_present()) >> id) & 1U) != 0) {
      unit = unit && cost == 1;
      max_cost = std::max<std::uint32_t>(max_cost, cost);
    }
  }
  // Every part of a cost is a sum over at most walkable_pixels steps.
  if (mask.walkable_pixels() * max_cost >= 0xFFFFF000ULL) {
    throw InvalidArgument("mask of " + std::to_string(width) + "x" + std::to_string(height) +
                          " is too large for a distance field with area costs up to " +
                          std::to_string(max_cost));
  }
  s.field.width_ = mask.width();
  s.field.height_ = mask.height();
  s.field.goal_ = goal;
  s.field.options_ = stored;
  s.goal_index = static_cast<std::uint32_t>((static_cast<std::size_t>(goal.y) + 1) * s.stride +
                                            static_cast<std::size_t>(goal.x) + 1);
  s.unit_costs = unit;
  s.branch_free = cluttered(mask);
  if (stored.connectivity == Connectivity::kFour && unit) {
    s.method = Method::kBreadthFirst16;
    s.start_breadth_first<std::uint16_t>();
  } else {
    s.method = Method::kBuckets32;
    // The in-place fill's queue entries hold 28-bit indices; larger grids
    // (beyond the server's default pixel limit) take the generic fill.
    if (unit && stored.connectivity == Connectivity::kEight && padded_size < kInPlaceMaxPixels) {
      s.start_octile_unit();
      const AreaSet present = mask.areas_present() & kAllAreas;
      s.sweepable = (stored.enabled & present) == present && mask.row_boundaries() == 0 &&
                    octile_sweep::available();
    } else {
      s.start_buckets<std::uint32_t>();
    }
  }
}

FieldBuilder::FieldBuilder(const Mask& mask, std::span<const Point> goals,
                           const FieldOptions& options, FieldStorage recycled) {
  if (goals.empty()) throw InvalidArgument("goals: at least one goal is needed");
  if (goals.size() > kMaxFieldGoals) {
    throw InvalidArgument("goals: more than " + std::to_string(kMaxFieldGoals) + " goals");
  }
  for (std::size_t i = 0; i < goals.size(); ++i) {
    const std::string name = "goals[" + std::to_string(i) + "]";
    require_inside(mask, goals[i], name.c_str());
  }
  *this = FieldBuilder(mask, goals[0], options, std::move(recycled));
  if (goals.size() > 1) state_->start_several(goals);
}

FieldBuilder::~FieldBuilder() = default;
FieldBuilder::FieldBuilder(FieldBuilder&&) noexcept = default;
FieldBuilder& FieldBuilder::operator=(FieldBuilder&&) noexcept = default;

bool FieldBuilder::run_until_settled(Point p) {
  State& s = *state_;
  if (!s.field.contains(p)) {
    finish();
    return false;
  }
  if (s.done) {
    return s.field.reachable(p);
  }
  if (s.several) {
    finish();
    return s.field.reachable(p);
  }
  const std::size_t stop =
      (static_cast<std::size_t>(p.y) + 1) * s.stride + static_cast<std::size_t>(p.x) + 1;
  bool walkable = false;
  switch (s.method) {
    case Method::kBreadthFirst16:
      walkable = s.field.words16_[stop] != kBlocked<std::uint16_t>;
      break;
    case Method::kBreadthFirst32:
      walkable = s.field.words32_[stop] != kBlocked<std::uint32_t>;
      break;
    case Method::kBuckets32:
      // The octile fill's grid has 0 for blocked pixels (DistanceField::kTaggedElement).
      walkable = s.field.words32_[stop] != (s.octile ? 0U : kBlocked<std::uint32_t>);
      break;
    case Method::kBuckets64:
      walkable = s.field.words64_[stop] != (s.octile ? 0U : kBlocked<std::uint64_t>);
      break;
  }
  const bool buckets = s.method == Method::kBuckets32 || s.method == Method::kBuckets64;
  if (walkable && buckets && s.try_sweeps(p)) {
    if (s.field.reachable(p)) return true;
    finish();
    return false;
  }
  if (!walkable || !(buckets ? s.run_buckets_until(stop) : s.run_breadth_first_until(stop))) {
    finish();
    return false;
  }
  return true;
}

void FieldBuilder::finish() {
  State& s = *state_;
  if (s.done) return;
  if (s.several) {
    // The padded 8-byte grid is kept as it is: the labels share its layout.
    s.run_several_to_end();
    std::vector<std::uint8_t>().swap(s.step_cost);
    std::vector<IndexList>().swap(s.ring);
  } else if (s.method == Method::kBuckets32 || s.method == Method::kBuckets64) {
    s.try_sweeps(std::nullopt);
    s.run_buckets_until(0);
    s.compact_buckets();
    std::vector<std::uint8_t>().swap(s.step_cost);
    std::vector<IndexList>().swap(s.ring);
    std::vector<EntryList<std::uint32_t>>().swap(s.entries);
    std::vector<EntryList<std::uint64_t>>().swap(s.wide_entries);
  } else {
    s.run_breadth_first_until(0);
    s.frontier = IndexList();
    s.next_frontier = IndexList();
  }
  s.done = true;
}

bool FieldBuilder::finished() const { return state_->done; }

bool FieldBuilder::swept() const { return state_->swept; }

void FieldBuilder::set_interrupt(std::function<bool()> check) {
  state_->interrupt = std::move(check);
  state_->since_check = 0;
}

std::size_t FieldBuilder::State::count_walkable() const {
  if (mask == nullptr) return 0;
  const AreaSet enabled = field.options().enabled;
  const std::span<const std::uint8_t> areas = mask->areas();
  if ((enabled | 1U) == kAllAreas) {  // every area but 0: the usual case, a plain count
    return areas.size() - static_cast<std::size_t>(std::count(areas.begin(), areas.end(), 0));
  }
  std::size_t walkable = 0;
  for (const std::uint8_t area : areas) walkable += (enabled >> area) & 1U;
  return walkable;
}

void FieldBuilder::set_progress(ProgressReport report) { state_->progress = std::move(report); }

const DistanceField& FieldBuilder::field() const { return state_->field; }

DistanceField FieldBuilder::take() {
  finish();
  DistanceField field = std::move(state_->field);
  state_.reset();
  return field;
}

DistanceField::DistanceField(std::uint32_t width, std::uint32_t height, Point goal,
                             FieldOptions options, std::vector<Distance> distances)
    : width_(width),
      height_(height),
      goal_(goal),
      options_(options),
      four_(true),
      element_bytes_(4),
      stride_(width),
      origin_(0),
      words32_(distances.begin(), distances.end()) {
  if (words32_.size() != static_cast<std::size_t>(width) * height) {
    throw InvalidArgument("distance field size does not match its dimensions");
  }
  options_.connectivity = Connectivity::kFour;
}

DistanceField compute_distance_field(const Mask& mask, Point goal, const FieldOptions& options) {
  FieldBuilder builder(mask, goal, options);
  builder.finish();
  return builder.take();
}

DistanceField compute_distance_field(const Mask& mask, std::span<const Point> goals,
                                     const FieldOptions& options) {
  FieldBuilder builder(mask, goals, options);
  builder.finish();
  return builder.take();
}

}  // namespace pathcore
