// The generic bucket fill: Dijkstra with a bucket queue (Dial), for area costs,
// four-connected costs and whatever the in-place octile fill does not take, and
// the compact storage of a finished bucket fill (FieldBuilder::State, fill_state.h).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "field/fill_state.h"

namespace pathcore {

template <typename Word>
void FieldBuilder::State::start_buckets() {
  const std::size_t width = mask->width();
  const std::size_t height = mask->height();
  const std::size_t padded_size = stride * (height + 2);
  const AreaSet enabled = field.options_.enabled;
  const AreaCosts& costs = field.options_.area_costs;
  std::array<std::uint8_t, kMaxAreaId + 1> cost_of{};
  std::array<Word, kMaxAreaId + 1> initial{};
  std::uint32_t highest = 1;
  for (int id = 0; id <= kMaxAreaId; ++id) {
    const bool on = ((enabled >> id) & 1U) != 0;
    cost_of[static_cast<std::size_t>(id)] = on ? costs[static_cast<std::size_t>(id)] : 0;
    initial[static_cast<std::size_t>(id)] = on ? kUnreached<Word> : kBlocked<Word>;
    if (on) highest = std::max<std::uint32_t>(highest, costs[static_cast<std::size_t>(id)]);
  }
  DistanceBuffer<Word>& grid = fresh_grid<Word>(padded_size);  // every element is written below
  if (!unit_costs) step_cost.assign(padded_size, 0);
  Word* const out = grid.data();
  std::fill(out, out + stride + 1, kBlocked<Word>);
  std::fill(out + (height + 1) * stride, out + padded_size, kBlocked<Word>);
  const std::uint8_t* areas = mask->areas().data();
  for (std::size_t y = 0; y < height; ++y) {
    const std::uint8_t* row = areas + y * width;
    const std::size_t line = (y + 1) * stride + 1;
    for (std::size_t x = 0; x < width; ++x) {
      out[line + x] = initial[row[x]];
    }
    out[line + width] = kBlocked<Word>;  // right border, and the next row's left one
    out[line + width + 1] = kBlocked<Word>;
    if (!unit_costs) {
      for (std::size_t x = 0; x < width; ++x) {
        step_cost[line + x] = cost_of[row[x]];
      }
    }
  }
  field.element_bytes_ = sizeof(Word);
  field.four_ = field.options_.connectivity == Connectivity::kFour;
  field.stride_ = stride;
  field.origin_ = stride + 1;

  const auto longest_step =
      static_cast<std::size_t>(static_cast<double>(highest) * std::numbers::sqrt2);
  ring.assign(longest_step + 2, {});
  bucket = 0;
  position = 0;
  pending = 0;
  if (grid[goal_index] == kUnreached<Word>) {
    grid[goal_index] = 0;
    ring[0].append(goal_index);
    pending = 1;
  }
  octile = false;
}

template <typename Word, bool kStop, bool kEight, bool kCutting, bool kUnit>
RunResult FieldBuilder::State::run_buckets(std::size_t stop) {
  Word* const grid = words<Word>().data();
  const std::uint8_t* const cost = step_cost.data();
  const auto s = static_cast<std::uint32_t>(stride);
  const std::size_t size = ring.size();
  while (pending > 0) {
    if constexpr (kStop) {
      // Every cost in this bucket or below is final.
      const Word known = grid[stop];
      if (known < kBlocked<Word> && bucket_of(key_of(known)) <= bucket) {
        return RunResult::kSettled;
      }
    }
    if (interrupted(ring[bucket % size].size() - position)) return RunResult::kInterrupted;
    const std::size_t slot = bucket % size;
    // The ring slot of a later bucket (at most size - 1 ahead), without a division.
    const auto slot_of = [&](std::size_t target) __attribute__((always_inline)) {
      const std::size_t t = slot + (target - bucket);
      return t >= size ? t - size : t;
    };
    IndexList& items = ring[slot];
    // Locals, so the hot loop keeps them in registers.
    std::size_t at = position;
    std::size_t left = pending;
    while (at < items.size()) {
      const std::uint32_t index = items[at++];
      --left;
      const Word here = grid[index];
      const double here_key = key_of(here);
      if (bucket_of(here_key) != bucket) {
        continue;  // moved to a cheaper bucket, processed there
      }
      if ((here & kLowHalf<Word>) >= kPartLimit<Word> ||
          (here >> kHalfBits<Word>) >= kPartLimit<Word>) {
        position = at;
        pending = left;
        return RunResult::kOverflow;
      }
      const Word c = kUnit ? Word{1} : Word{cost[index]};
      const Word straight = here + c;
      const Word diagonal = here + (c << kHalfBits<Word>);
      const std::size_t straight_bucket = bucket_of(key_of(straight));
      const std::size_t diagonal_bucket = bucket_of(key_of(diagonal));
      const auto relax = [&](std::uint32_t n, Word candidate, std::size_t target)
          __attribute__((always_inline)) {
        const Word old = grid[n];
        if (old == kUnreached<Word>) {
          grid[n] = candidate;
          ring[slot_of(target)].append(n);
          ++left;
          return;
        }
        if (old == kBlocked<Word> || !cheaper(candidate, old)) {
          return;
        }
        grid[n] = candidate;
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
  if constexpr (kStop) {
    if (grid[stop] < kBlocked<Word>) return RunResult::kSettled;
  }
  return RunResult::kExhausted;
}

// run_buckets with the loop these options take, to `stop` (0: to the end).
template <typename Word, bool kStop>
RunResult FieldBuilder::State::run_generic_buckets(std::size_t stop) {
  const bool eight = field.options_.connectivity == Connectivity::kEight;
  const bool cutting = field.options_.allow_corner_cutting;
  if (unit_costs) {
    if (!eight) return run_buckets<Word, kStop, false, false, true>(stop);
    return cutting ? run_buckets<Word, kStop, true, true, true>(stop)
                   : run_buckets<Word, kStop, true, false, true>(stop);
  }
  if (!eight) return run_buckets<Word, kStop, false, false, false>(stop);
  return cutting ? run_buckets<Word, kStop, true, true, false>(stop)
                 : run_buckets<Word, kStop, true, false, false>(stop);
}

// The finished bucket fill's storage: kFour keeps one integer per pixel
// (2 bytes when they fit, else 4); kEight keeps the padded 16 + 16 bit
// grid as it is, and narrows a 32 + 32 bit one when its parts fit 16 bits.
void FieldBuilder::State::compact_buckets() {
  const std::size_t width = mask->width();
  const std::size_t height = mask->height();
  const auto copy = [&](const auto& grid, auto& out, auto encode) {
    out.resize(width * height);
    for (std::size_t y = 0; y < height; ++y) {
      const auto* in = grid.data() + (y + 1) * stride + 1;
      for (std::size_t x = 0; x < width; ++x) {
        out[y * width + x] = encode(in[x]);
      }
    }
  };
  if (method == Method::kBuckets32) {
    if (!field.four_) return;
    // Straight parts only, all below 0xFFF0.
    DistanceBuffer<std::uint32_t> grid;
    grid.swap(field.words32_);
    copy(grid, field.words16_, [](std::uint32_t v) {
      return v < kBlocked<std::uint32_t> ? static_cast<std::uint16_t>(v) : std::uint16_t{0xFFFF};
    });
    field.element_bytes_ = 2;
  } else if (field.element_bytes_ == DistanceField::kTaggedWide) {
    // The in-place octile fill's 64-bit grid, kept as it is unless both
    // parts of every cost fit 16 bits. Some cost is at least bucket - 3
    // (the last bucket with entries was reached from a pop at most two
    // buckets before it), so past kNarrowable a part is 0xFFFF or more
    // without a scan (the spiral's costs reach a million).
    constexpr auto kNarrowable = static_cast<std::size_t>(0xFFFE * (1 + std::numbers::sqrt2)) + 3;
    if (bucket > kNarrowable) return;
    const auto settled = [](std::uint64_t v) { return v - 1 < kKeyBase<std::uint64_t> - 1; };
    std::uint64_t max_straight = 0;
    std::uint64_t max_diagonal = 0;
    for (const std::uint64_t v : field.words64_) {
      if (settled(v)) {
        max_straight = std::max<std::uint64_t>(max_straight, (v & 0xFFFFFFFFULL) - 1);
        max_diagonal = std::max<std::uint64_t>(max_diagonal, v >> 32);
      }
    }
    if (max_straight >= 0xFFFFU || max_diagonal >= 0xFFFFU) return;
    DistanceBuffer<std::uint64_t> grid;
    grid.swap(field.words64_);
    copy(grid, field.words32_, [&](std::uint64_t v) {
      return settled(v) ? static_cast<std::uint32_t>(((v & 0xFFFFU) - 1) | ((v >> 32) << 16))
                        : 0xFFFFFFFFU;
    });
    field.element_bytes_ = 4;
  } else {
    DistanceBuffer<std::uint64_t> grid;
    grid.swap(field.words64_);
    std::uint64_t max_straight = 0;
    std::uint64_t max_diagonal = 0;
    for (const std::uint64_t v : grid) {
      if (v < kBlocked<std::uint64_t>) {
        max_straight = std::max<std::uint64_t>(max_straight, v & 0xFFFFFFFFULL);
        max_diagonal = std::max<std::uint64_t>(max_diagonal, v >> 32);
      }
    }
    if (field.four_) {
      copy(grid, field.words32_, [](std::uint64_t v) {
        return v < kBlocked<std::uint64_t> ? static_cast<std::uint32_t>(v) : 0xFFFFFFFFU;
      });
      field.element_bytes_ = 4;
    } else if (max_straight < 0xFFFFU && max_diagonal < 0xFFFFU) {
      copy(grid, field.words32_, [](std::uint64_t v) {
        return v < kBlocked<std::uint64_t>
                   ? static_cast<std::uint32_t>((v & 0xFFFFU) | ((v >> 32) << 16))
                   : 0xFFFFFFFFU;
      });
      field.element_bytes_ = 4;
    } else {
      grid.swap(field.words64_);  // keep the padded 8-byte grid
      return;
    }
  }
  field.stride_ = width;
  field.origin_ = 0;
}

template void FieldBuilder::State::start_buckets<std::uint32_t>();
template void FieldBuilder::State::start_buckets<std::uint64_t>();
template RunResult FieldBuilder::State::run_generic_buckets<std::uint32_t, false>(std::size_t);
template RunResult FieldBuilder::State::run_generic_buckets<std::uint32_t, true>(std::size_t);
template RunResult FieldBuilder::State::run_generic_buckets<std::uint64_t, false>(std::size_t);
template RunResult FieldBuilder::State::run_generic_buckets<std::uint64_t, true>(std::size_t);

}  // namespace pathcore
