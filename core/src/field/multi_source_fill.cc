// The fill toward several goals (FieldBuilder over a list of goals): the
// generic bucket fill's Dijkstra, every walkable goal a source at cost 0,
// each pixel carrying a goal index beside its cost (FieldBuilder::State,
// fill_state.h). Kept apart from the one-goal fills, whose loops it leaves
// exactly as they are.

#include <cstddef>
#include <cstdint>
#include <span>

#include "field/fill_state.h"

namespace pathcore {

void FieldBuilder::State::start_several(std::span<const Point> goals) {
  several = true;
  method = Method::kBuckets64;
  // The one-goal constructor may have started the in-place octile fill.
  std::vector<EntryList<std::uint32_t>>().swap(entries);
  std::vector<EntryList<std::uint64_t>>().swap(wide_entries);
  sweepable = false;
  start_buckets<std::uint64_t>();  // seeds goals[0] (goal_index) when walkable
  std::uint64_t* const grid = field.words64_.data();
  field.labels_.resize(field.words64_.size());  // read only where a pixel is reached
  field.labels_[goal_index] = 0;
  for (std::size_t i = 1; i < goals.size(); ++i) {
    const Point g = goals[i];
    const std::size_t index =
        (static_cast<std::size_t>(g.y) + 1) * stride + static_cast<std::size_t>(g.x) + 1;
    if (grid[index] != kUnreached<std::uint64_t>) continue;  // blocked, or an earlier goal's
    grid[index] = 0;
    field.labels_[index] = static_cast<std::uint16_t>(i);
    ring[0].append(static_cast<std::uint32_t>(index));
    ++pending;
  }
  field.goals_.assign(goals.begin(), goals.end());
}

// run_buckets with labels: a pixel reached at a lower cost takes the label
// of the pixel it was reached from; reached at its cost again, the lower of
// the two. Every pixel on a cheapest step from p is settled (a bucket below
// p's) before p is expanded, so p's label is final then: the lowest goal
// index among its cheapest steps', which is the lowest index among the goals
// it reaches at its cost. To the end; resumable after kInterrupted.
template <bool kEight, bool kCutting, bool kUnit>
RunResult FieldBuilder::State::run_several() {
  using Word = std::uint64_t;
  Word* const grid = field.words64_.data();
  std::uint16_t* const labels = field.labels_.data();
  const std::uint8_t* const cost = step_cost.data();
  const auto s = static_cast<std::uint32_t>(stride);
  const std::size_t size = ring.size();
  while (pending > 0) {
    if (interrupted(ring[bucket % size].size() - position)) return RunResult::kInterrupted;
    const std::size_t slot = bucket % size;
    const auto slot_of = [&](std::size_t target) {
      const std::size_t t = slot + (target - bucket);
      return t >= size ? t - size : t;
    };
    IndexList& items = ring[slot];
    std::size_t at = position;
    std::size_t left = pending;
    while (at < items.size()) {
      const std::uint32_t index = items[at++];
      --left;
      const Word here = grid[index];
      if (bucket_of(key_of(here)) != bucket) continue;  // moved to a cheaper bucket
      const std::uint16_t label = labels[index];
      const Word c = kUnit ? Word{1} : Word{cost[index]};
      const Word straight = here + c;
      const Word diagonal = here + (c << kHalfBits<Word>);
      const std::size_t straight_bucket = bucket_of(key_of(straight));
      const std::size_t diagonal_bucket = bucket_of(key_of(diagonal));
      const auto relax = [&](std::uint32_t n, Word candidate, std::size_t target) {
        const Word old = grid[n];
        if (old == kBlocked<Word>) return;
        if (old == kUnreached<Word>) {
          grid[n] = candidate;
          labels[n] = label;
          ring[slot_of(target)].append(n);
          ++left;
          return;
        }
        if (old == candidate) {
          if (label < labels[n]) labels[n] = label;
          return;
        }
        if (!cheaper(candidate, old)) return;
        grid[n] = candidate;
        labels[n] = label;
        if (bucket_of(key_of(old)) != target) {
          ring[slot_of(target)].append(n);
          ++left;
        }
      };
      relax(index + 1, straight, straight_bucket);
      relax(index + s, straight, straight_bucket);
      relax(index - 1, straight, straight_bucket);
      relax(index - s, straight, straight_bucket);
      if constexpr (kEight) {
        const bool east = kCutting || grid[index + 1] != kBlocked<Word>;
        const bool west = kCutting || grid[index - 1] != kBlocked<Word>;
        const bool south = kCutting || grid[index + s] != kBlocked<Word>;
        const bool north = kCutting || grid[index - s] != kBlocked<Word>;
        if (south && east) relax(index + s + 1, diagonal, diagonal_bucket);
        if (south && west) relax(index + s - 1, diagonal, diagonal_bucket);
        if (north && west) relax(index - s - 1, diagonal, diagonal_bucket);
        if (north && east) relax(index - s + 1, diagonal, diagonal_bucket);
      }
    }
    items.clear();
    position = 0;
    pending = left;
    ++bucket;
  }
  return RunResult::kExhausted;
}

void FieldBuilder::State::run_several_to_end() {
  const bool eight = field.options_.connectivity == Connectivity::kEight;
  const bool cutting = field.options_.allow_corner_cutting;
  RunResult result = RunResult::kExhausted;
  if (unit_costs) {
    result = !eight   ? run_several<false, false, true>()
             : cutting ? run_several<true, true, true>()
                       : run_several<true, false, true>();
  } else {
    result = !eight   ? run_several<false, false, false>()
             : cutting ? run_several<true, true, false>()
                       : run_several<true, false, false>();
  }
  if (result == RunResult::kInterrupted) throw Interrupted();
}

}  // namespace pathcore
