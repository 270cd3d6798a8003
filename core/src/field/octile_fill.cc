// ------------------------------------------- unit-cost octile, in place
//
// The unit-cost eight-connected fill: the same bucket queue of width 1,
// with the comparisons made cheap, run on the field's own grid
// (DistanceField::kTaggedElement, then kTaggedWide; see InPlace). A pixel
// not settled yet holds its order key (OctileKey), which orders costs
// exactly, so one integer compare decides a relaxation, a step adds a
// constant, and the bucket of a pixel (floor of its cost) is a comparison
// with bucket * kQ. A pixel is settled in place when popped, so no
// candidate (a key, from kKeyBase up) is ever cheaper than a settled or
// blocked pixel, every settled pixel reads as walkable in the corner test
// (the goal too, 1), and the finished grid is the field: no pass over the
// whole grid at the end, and field() needs no second grid while filling.
// The queue entries carry the pixel's pair (the pair of a neighbour is the
// popped pixel's plus one step, no division); every improvement queues an
// entry, and an entry is current when the pixel still holds the key of its
// pair (else it moved, or was settled, and is skipped).
//
// A pixel popped from bucket k sends its straight neighbours to k + 1 and
// its diagonal ones all to k + 1 or all to k + 2, so the ring is three
// lists, written through pointers held in registers (room reserved per
// bucket: at most 8 and 4 entries per popped pixel). While the queue holds
// one entry (a one-pixel corridor) the fill follows it without the ring
// (inplace_corridor). The words are 32 bits while parts stay below 33461;
// before a bucket whose candidates could reach that (costs of about
// 33,000: long corridors) the fill moves to 64-bit words and carries on
// from that bucket (octile_widen).
//
// ------------------------------------------------------- raster sweeps
//
// On obstacle-free ground the unit-cost octile field comes from one
// forward and one backward raster sweep (octile_sweep.h), then a check
// that no edge can improve either end, which proves the values exact:
// open full HD in about 0.6 of the bucket fill's time. Only masks whose
// every row is all walkable or all blocked (no row boundaries: bands of
// open ground) are swept, where one round always reaches that fixed
// point. Measured and not kept: two rounds on masks of a few obstacles
// (up to 1 row boundary per 256 walkable pixels), where 20 rectangles on
// full HD took 0.95 of the bucket fill, but 2000 single blocked pixels or
// 11 long walls 1.5-1.6 (the sweeps fail and the bucket fill starts over).
// Only a fill that has not started sweeps, and only when it is to finish
// or to settle a pixel so far from the goal that the bucket fill would
// settle most of the mask first (the sweeps cannot stop part way).
//
// (FieldBuilder::State, fill_state.h.)

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "field/fill_state.h"
#include "field/octile_key.h"
#include "field/octile_sweep.h"

namespace pathcore {

// Starts the fill with 32-bit words written straight from the mask.
void FieldBuilder::State::start_octile_unit() {
  const std::size_t width = mask->width();
  const std::size_t height = mask->height();
  const std::size_t padded_size = stride * (height + 2);
  const AreaSet enabled = field.options_.enabled;
  std::array<std::uint32_t, kMaxAreaId + 1> initial{};
  for (int id = 0; id <= kMaxAreaId; ++id) {
    initial[static_cast<std::size_t>(id)] = ((enabled >> id) & 1U) != 0 ? 0xFFFFFFFFU : 0U;
  }
  fresh_grid<std::uint32_t>(padded_size);  // every element is written below
  std::uint32_t* const keys = field.words32_.data();
  std::fill(keys, keys + stride + 1, 0U);
  std::fill(keys + (height + 1) * stride, keys + padded_size, 0U);
  const std::uint8_t* areas = mask->areas().data();
  // Every area present enabled (the usual request): walkable is nonzero,
  // which vectorises where the table lookup does not.
  const AreaSet present = mask->areas_present() & kAllAreas;
  const bool all_enabled = (enabled & present) == present;
  for (std::size_t y = 0; y < height; ++y) {
    const std::uint8_t* row = areas + y * width;
    std::uint32_t* const line = keys + (y + 1) * stride + 1;
    if (all_enabled) {
      for (std::size_t x = 0; x < width; ++x) {
        line[x] = row[x] != 0 ? 0xFFFFFFFFU : 0U;
      }
    } else {
      for (std::size_t x = 0; x < width; ++x) {
        line[x] = initial[row[x]];
      }
    }
    line[width] = 0U;  // right border, and the next row's left one
    line[width + 1] = 0U;
  }
  field.element_bytes_ = DistanceField::kTaggedElement;
  field.four_ = false;
  field.stride_ = stride;
  field.origin_ = stride + 1;
  entries.assign(3, {});
  wide_entries.clear();
  bucket = 0;
  position = 0;
  pending = 0;
  if (keys[goal_index] != 0) {
    keys[goal_index] = kKeyBase<std::uint32_t>;  // key 0
    entries[0].append(InPlace<std::uint32_t>::make(goal_index, 0, kArriveAny));
    pending = 1;
  }
  octile = true;
  untouched = true;
}

// True when the unit-cost octile fill to `target` (none: to the end) would
// settle most of the mask on open ground: the box around the goal out to
// target's octile distance covers at least 60% of it.
[[nodiscard]] bool FieldBuilder::State::far_enough(std::optional<Point> target) const {
  if (!target) return true;
  const std::int64_t gx = field.goal_.x;
  const std::int64_t gy = field.goal_.y;
  const std::int64_t sx = target->x;
  const std::int64_t sy = target->y;
  const std::int64_t dx = std::abs(sx - gx);
  const std::int64_t dy = std::abs(sy - gy);
  const auto reach =
      static_cast<std::int64_t>(static_cast<double>(std::max(dx, dy)) +
                                (std::numbers::sqrt2 - 1) * static_cast<double>(std::min(dx, dy)));
  const auto span = [&](std::int64_t centre, std::int64_t size) {
    return std::min(centre + reach, size - 1) - std::max(centre - reach, std::int64_t{0}) + 1;
  };
  const std::int64_t box = span(gx, static_cast<std::int64_t>(mask->width())) *
                           span(gy, static_cast<std::int64_t>(mask->height()));
  return 5 * static_cast<std::uint64_t>(box) >= 3 * mask->pixel_count();
}

// Fills the whole field by sweeps when worth trying (see above): true when
// it did; false with the fill as start_octile_unit leaves it. Throws
// Interrupted (the fill back at its start) when the interrupt check asks.
bool FieldBuilder::State::try_sweeps(std::optional<Point> target) {
  if (!sweepable || !untouched || pending != 1 || !far_enough(target)) return false;
  sweepable = false;  // one try
  const std::size_t width = mask->width();
  const std::size_t height = mask->height();
  const bool cutting = field.options_.allow_corner_cutting;
  std::uint32_t* const grid = field.words32_.data();
  octile_sweep::prepare(grid, field.words32_.size(), goal_index);
  sweep_row.resize(stride);
  const std::size_t rows_per_check = std::max<std::size_t>(1, kInterruptEvery / width);
  for (const bool forward : {true, false}) {
    for (std::size_t first = 0; first < height; first += rows_per_check) {
      const std::size_t count = std::min(rows_per_check, height - first);
      if (interrupted(count * width)) {
        start_octile_unit();
        sweepable = true;  // the next call may try again
        throw Interrupted();
      }
      octile_sweep::sweep_rows(forward, cutting, grid, sweep_row.data(), stride, width, height,
                               first, count);
    }
  }
  std::vector<std::uint32_t>().swap(sweep_row);
  // The fixed point always holds on open bands (the check is the proof);
  // the words fail only for costs past 2^15 (the bucket fill widens).
  if (octile_sweep::fixed_point(cutting, grid, stride, width, height) &&
      octile_sweep::to_field(grid, field.words32_.size())) {
    entries[0].clear();
    pending = 0;
    untouched = false;
    swept = true;
    return true;
  }
  start_octile_unit();
  return false;
}

// Expands the popped pixel of `entry` (stored key `here`) of bucket k:
// relaxes its neighbours, queueing those of bucket k + 1 at out1 and of
// k + 2 at out2 (limit1: the stored key where bucket k + 2 starts).
//
// With kPrune and without corner cutting, only the neighbours the pixel
// can be the last step to are relaxed (the entry carries the arrival code
// of the step that set the pixel's key; the goal's is kArriveAny; with
// corner cutting other rules would apply). A neighbour m of n,
// which was reached from p, is skipped when some path p -> m that avoids
// n is strictly shorter than p -> n -> m: then dist(m) < dist(n) +
// step(n, m), so the step n -> m lies on no shortest path, whichever
// shortest path reached n. Every step of every shortest path is still
// relaxed (by induction over the settle order, the key of n was set by a
// settled p with dist(p) + step = dist(n)), so the costs stay exact. With
// ties (equal lengths) the step is kept. What is left: after a straight
// step e, the next e, the two diagonals e + l and e + r, and a side l (r)
// only when the pixel behind it, l - e, is blocked (else p -> n + l is
// one diagonal, sqrt 2 < 2); after a diagonal step a + b, a, b and a + b
// (the other steps have a strictly shorter path through p + a or p + b,
// both walkable since the step p -> n did not cut a corner). On open
// ground that is 3 relaxations a pixel instead of 8.
//
// kBranchFree (with every neighbour relaxed, not kPrune): see cluttered().
template <typename Key, bool kCutting, bool kPrune, bool kBranchFree>
[[gnu::always_inline]] void FieldBuilder::State::inplace_expand(
    Key* grid, const std::array<std::ptrdiff_t, 4>& steps, typename InPlace<Key>::Entry entry,
    Key here, Key limit1, typename InPlace<Key>::Entry*& out1,
    typename InPlace<Key>::Entry*& out2) {
  using Order = OctileKey<Key>;
  using Layout = InPlace<Key>;
  using Entry = typename Layout::Entry;
  static_assert(!(kPrune && kBranchFree));
  const Key straight = here + Order::kQ;
  const Key diagonal = here + Order::kP;
  Key* const at = grid + Layout::index(entry);
  // Entries of the neighbours: pair + one step, then index + offset.
  const Entry straight_entry = Layout::straight_step(entry);
  const Entry diagonal_entry = Layout::diagonal_step(entry);
  const bool far = diagonal >= limit1;  // diagonals go to bucket k + 2
  Entry* d = nullptr;  // where diagonals go: set once the straight steps are queued
  // Each neighbour is read just before it is relaxed (they are distinct
  // pixels): fewer live registers than reading all eight first.
  const auto relax = [&](std::ptrdiff_t offset, unsigned code) __attribute__((always_inline)) {
    const Key old = at[offset];
    if constexpr (kBranchFree) {
      std::size_t better = straight < old ? 1 : 0;
      keep_branch_free(better);
      at[offset] = better != 0 ? straight : old;  // a conditional move
      *out1 = Layout::moved(straight_entry, offset, code);
      out1 += better;
    } else if (straight < old) {
      at[offset] = straight;
      *out1++ = Layout::moved(straight_entry, offset, code);
    }
  };
  // Blocked pixels hold 0. The sides are tested only once the diagonal
  // would improve (fewer instructions on the common path), and read again
  // then (still 0 exactly when blocked): fewer live registers.
  const auto relax_diagonal = [&](std::ptrdiff_t side1, std::ptrdiff_t side2, unsigned code)
      __attribute__((always_inline)) {
    const std::ptrdiff_t offset = side1 + side2;
    const Key old = at[offset];
    if constexpr (kBranchFree) {
      std::size_t better = diagonal < old ? 1 : 0;
      if constexpr (!kCutting) better &= (at[side1] != 0 ? 1U : 0U) & (at[side2] != 0 ? 1U : 0U);
      keep_branch_free(better);
      at[offset] = better != 0 ? diagonal : old;
      *d = Layout::moved(diagonal_entry, offset, code);
      d += better;
    } else if (diagonal < old) {
      if (kCutting || (at[side1] != 0 && at[side2] != 0)) {
        at[offset] = diagonal;
        *d++ = Layout::moved(diagonal_entry, offset, code);
      }
    }
  };
  const unsigned from = kCutting || !kPrune ? kArriveAny : Layout::arrival(entry);
  if (from < kDiagonalArrival) {  // a straight step, steps[from]
    const unsigned left = (from + 3) & 3U;
    const unsigned right = (from + 1) & 3U;
    const std::ptrdiff_t forward = steps[from];
    relax(forward, from);
    if (at[steps[left] - forward] == 0) relax(steps[left], left);
    if (at[steps[right] - forward] == 0) relax(steps[right], right);
    d = far ? out2 : out1;
    relax_diagonal(forward, steps[left], kDiagonalArrival + left);
    relax_diagonal(forward, steps[right], kDiagonalArrival + from);
  } else if (from < kArriveAny) {  // a diagonal step, steps[a] + steps[b]
    const unsigned a = from - kDiagonalArrival;
    const unsigned b = (a + 1) & 3U;
    relax(steps[a], a);
    relax(steps[b], b);
    d = far ? out2 : out1;
    relax_diagonal(steps[a], steps[b], from);
  } else {  // the goal, corner cutting or no kPrune: every neighbour
    relax(steps[0], 0);
    relax(steps[1], 1);
    relax(steps[2], 2);
    relax(steps[3], 3);
    d = far ? out2 : out1;
    relax_diagonal(steps[0], steps[1], kDiagonalArrival + 0);
    relax_diagonal(steps[1], steps[2], kDiagonalArrival + 1);
    relax_diagonal(steps[2], steps[3], kDiagonalArrival + 2);
    relax_diagonal(steps[3], steps[0], kDiagonalArrival + 3);
  }
  out1 = far ? out1 : d;
  out2 = far ? d : out2;
}

// The queue holds one current entry, of the current bucket: pop it, and
// while a pop queues exactly one entry, go on from that one (a one-pixel
// corridor, where a bucket's bookkeeping would cost more than the pixel).
// Ends, with the ring as run_octile_inplace would leave it after the last
// pop, when a pop queues none or several, before a bucket that could
// overflow the keys, with kStop after popping `stop`, or after
// kInterruptEvery pops (counted for the interrupt check).
template <typename Key, bool kStop, bool kCutting, bool kPrune>
[[gnu::noinline]] void FieldBuilder::State::inplace_corridor(typename InPlace<Key>::Entry entry,
                                                             std::size_t stop) {
  using Order = OctileKey<Key>;
  using Layout = InPlace<Key>;
  using Entry = typename Layout::Entry;
  Key* const grid = words<Key>().data();
  std::vector<EntryList<Key>>& ring_lists = entries_of<Key>();
  const std::array<std::ptrdiff_t, 4> moves = octile_steps(stride);
  ring_lists[bucket % 3].clear();
  std::size_t b = bucket;
  std::size_t steps = 0;
  std::array<Entry, 8> found1{};
  std::array<Entry, 4> found2{};
  for (;;) {
    const std::uint32_t index = Layout::index(entry);
    const Key here = grid[index];
    grid[index] = Layout::pair(entry) + 1;  // settled
    Entry* out1 = found1.data();
    Entry* out2 = found2.data();
    inplace_expand<Key, kCutting, kPrune>(grid, moves, entry, here,
                                          static_cast<Key>((b + 2) * Order::kQ) + kKeyBase<Key>,
                                          out1, out2);
    ++steps;
    const std::size_t count1 = static_cast<std::size_t>(out1 - found1.data());
    const std::size_t count2 = static_cast<std::size_t>(out2 - found2.data());
    const std::size_t next = count1 != 0 ? b + 1 : b + 2;
    const bool stopped = kStop && index == stop;
    if (count1 + count2 != 1 || stopped || next + 3 >= Order::kQ - 1 || steps >= kInterruptEvery) {
      EntryList<Key>& list1 = ring_lists[(b + 1) % 3];
      EntryList<Key>& list2 = ring_lists[(b + 2) % 3];
      for (std::size_t i = 0; i < count1; ++i) list1.append(found1[i]);
      for (std::size_t i = 0; i < count2; ++i) list2.append(found2[i]);
      bucket = b + 1;
      pending = count1 + count2;
      since_check += steps;
      return;
    }
    entry = count1 != 0 ? found1[0] : found2[0];
    b = next;
  }
}

template <typename Key, bool kStop, bool kCutting>
RunResult FieldBuilder::State::run_octile_inplace(std::size_t stop) {
  using Order = OctileKey<Key>;
  using Layout = InPlace<Key>;
  using Entry = typename Layout::Entry;
  Key* const grid = words<Key>().data();
  std::vector<EntryList<Key>>& ring_lists = entries_of<Key>();
  const auto s = static_cast<std::uint32_t>(stride);
  const std::array<std::ptrdiff_t, 4> moves = octile_steps(stride);
  // The grid beyond the caches: fetch the three rows of the pixel
  // kOctilePrefetch entries ahead (a loss on maps that fit in L2).
  const std::size_t grid_bytes = words<Key>().size() * sizeof(Key);
  const bool prefetch = grid_bytes > kPrefetchMinBytes;
  const bool prune = grid_bytes <= kPruneMaxBytes;  // the corridor walk's choice too
  while (pending > 0) {
    if constexpr (kStop) {
      // Pixels are settled when popped; buckets below this one are done.
      if (grid[stop] - 1U < kKeyBase<Key> - 1U) return RunResult::kSettled;
    }
    if (interrupted(ring_lists[bucket % 3].size())) return RunResult::kInterrupted;
    // Candidates from this bucket cost below bucket + 3, so both their
    // parts do: below kQ - 1 they stay exact (and their keys fit).
    if (bucket + 3 >= Order::kQ - 1) return RunResult::kOverflow;
    const std::size_t slot = bucket % 3;
    EntryList<Key>& items = ring_lists[slot];
    const std::size_t count = items.size();
    if (pending == 1 && count == 1 &&
        grid[Layout::index(items[0])] == inplace_key<Key>(Layout::pair(items[0]))) {
      if (!prune) {
        inplace_corridor<Key, kStop, kCutting, false>(items[0], stop);
      } else {
        inplace_corridor<Key, kStop, kCutting, true>(items[0], stop);
      }
      continue;
    }
    EntryList<Key>& next1 = ring_lists[slot == 2 ? 0 : slot + 1];
    EntryList<Key>& next2 = ring_lists[slot == 0 ? 2 : slot - 1];
    next1.reserve_more(8 * count);
    next2.reserve_more(4 * count);
    const Entry* const in = items.data();
    Entry* out1 = next1.data() + next1.size();
    Entry* out2 = next2.data() + next2.size();
    const auto limit1 = static_cast<Key>((bucket + 2) * Order::kQ) + kKeyBase<Key>;
    // The pop loop, with and without prefetching, pruning and branches as
    // separate loops: fewer live values (spilled registers cost in this loop).
    const auto pop_all = [&]<bool kPrefetch, bool kPrune, bool kBranchFree = false>(
        std::bool_constant<kPrefetch>, std::bool_constant<kPrune>,
        std::bool_constant<kBranchFree> = {}) __attribute__((always_inline)) {
      const Entry* const end = in + count;
      for (const Entry* next = in; next != end; ++next) {
        const Entry entry = *next;
        const std::uint32_t index = Layout::index(entry);
        if constexpr (kPrefetch) {
          if (end - next > static_cast<std::ptrdiff_t>(kOctilePrefetch)) {
            const std::uint32_t ahead = Layout::index(next[kOctilePrefetch]);
            __builtin_prefetch(grid + ahead - s, 1);
            __builtin_prefetch(grid + ahead, 1);
            __builtin_prefetch(grid + ahead + s, 1);
          }
        }
        const Key here = grid[index];
        const Key pair = Layout::pair(entry);
        if (here != inplace_key<Key>(pair)) {
          continue;  // moved to a cheaper key (or settled) since
        }
        grid[index] = pair + 1;  // settled
        inplace_expand<Key, kCutting, kPrune, kBranchFree>(grid, moves, entry, here, limit1, out1,
                                                           out2);
      }
    };
    if (branch_free) {  // every neighbour: pruning's arrival branch would mispredict
      if (prefetch) {
        pop_all(std::true_type{}, std::false_type{}, std::true_type{});
      } else {
        pop_all(std::false_type{}, std::false_type{}, std::true_type{});
      }
    } else if (!prune) {  // so prefetch too (kPrefetchMinBytes < kPruneMaxBytes)
      pop_all(std::true_type{}, std::false_type{});
    } else if (prefetch) {
      pop_all(std::true_type{}, std::true_type{});
    } else {
      pop_all(std::false_type{}, std::true_type{});
    }
    next1.resize(static_cast<std::size_t>(out1 - next1.data()));
    next2.resize(static_cast<std::size_t>(out2 - next2.data()));
    items.clear();
    pending = next1.size() + next2.size();
    ++bucket;
  }
  if constexpr (kStop) {
    if (grid[stop] - 1U < kKeyBase<Key> - 1U) return RunResult::kSettled;
  }
  return RunResult::kExhausted;
}

// run_octile_inplace with the corner rule of the options, to `stop` (0: to the end).
template <typename Key, bool kStop>
RunResult FieldBuilder::State::run_octile(std::size_t stop) {
  return field.options_.allow_corner_cutting ? run_octile_inplace<Key, kStop, true>(stop)
                                             : run_octile_inplace<Key, kStop, false>(stop);
}

namespace {

// Calls visit(slot, entry) for each entry of the three lists of an octile
// ring whose pixel still holds the key of the entry's pair (the entries not
// skipped when popped), in ring order; returns how many it visited.
template <typename Key, typename Visit>
std::size_t for_each_current(const std::vector<EntryList<Key>>& ring_lists, const Key* grid,
                             Visit&& visit) {
  using Layout = InPlace<Key>;
  std::size_t count = 0;
  for (std::size_t slot = 0; slot < 3; ++slot) {
    const EntryList<Key>& list = ring_lists[slot];
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (grid[Layout::index(list[i])] == inplace_key<Key>(Layout::pair(list[i]))) {
        visit(slot, list[i]);
        ++count;
      }
    }
  }
  return count;
}

}  // namespace

// The 32-bit fill stopped at the start of a bucket whose candidates could
// outgrow its keys: move the grid and the ring to 64-bit words, which
// carry on from the same bucket (settled pairs spread to 32 + 32 bits, the
// few keys not settled yet recomputed).
void FieldBuilder::State::octile_widen() {
  using Narrow = InPlace<std::uint32_t>;
  const std::size_t size = field.words32_.size();
  const std::uint32_t* const narrow = field.words32_.data();
  field.words64_.resize(size);  // uninitialised: every element is written below
  std::uint64_t* const wide = field.words64_.data();
  const auto wide_pair = [](std::uint32_t pair) {
    return (pair & 0xFFFFU) | (std::uint64_t{pair >> 16} << 32);
  };
  for (std::size_t i = 0; i < size; ++i) {
    const std::uint32_t value = narrow[i];
    if (value >= kKeyBase<std::uint32_t> && value != 0xFFFFFFFFU) [[unlikely]] {
      const std::uint32_t key = value - kKeyBase<std::uint32_t>;
      wide[i] = inplace_key<std::uint64_t>(wide_pair(OctileKey<std::uint32_t>::pair(key)));
      continue;
    }
    // Blocked (0) and settled pixels spread, unreached stays all ones.
    wide[i] = value == 0xFFFFFFFFU ? kUnreached<std::uint64_t> : wide_pair(value);
  }
  wide_entries.assign(3, {});
  pending = for_each_current(entries, narrow, [&](std::size_t slot, Narrow::Entry entry) {
    wide_entries[slot].append(InPlace<std::uint64_t>::make(
        Narrow::index(entry), wide_pair(Narrow::pair(entry)), Narrow::arrival(entry)));
  });
  entries.clear();
  DistanceBuffer<std::uint32_t>().swap(field.words32_);
  field.element_bytes_ = DistanceField::kTaggedWide;
  position = 0;
}

// The 64-bit keys could overflow (a mask of over a billion walkable
// pixels): hand over to the generic 32 + 32 bit fill, which carries on from
// the same bucket with the same lists (pixels not settled yet keep their
// cost as an upper bound).
void FieldBuilder::State::octile_to_generic() {
  using Wide = InPlace<std::uint64_t>;
  std::uint64_t* const grid = field.words64_.data();
  ring.assign(3, {});
  pending = for_each_current(wide_entries, grid, [&](std::size_t slot, Wide::Entry entry) {
    ring[slot].append(Wide::index(entry));
  });
  wide_entries.clear();
  for (std::size_t i = 0; i < field.words64_.size(); ++i) {
    const std::uint64_t value = grid[i];
    grid[i] = value == 0                           ? kBlocked<std::uint64_t>
              : value == kUnreached<std::uint64_t> ? value
              : value < kKeyBase<std::uint64_t>
                  ? value - 1
                  : OctileKey<std::uint64_t>::pair(value - kKeyBase<std::uint64_t>);
  }
  field.element_bytes_ = 8;
  octile = false;
  position = 0;
}

template RunResult FieldBuilder::State::run_octile<std::uint32_t, false>(std::size_t);
template RunResult FieldBuilder::State::run_octile<std::uint32_t, true>(std::size_t);
template RunResult FieldBuilder::State::run_octile<std::uint64_t, false>(std::size_t);
template RunResult FieldBuilder::State::run_octile<std::uint64_t, true>(std::size_t);

}  // namespace pathcore
