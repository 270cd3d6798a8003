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

#include "corridor.h"
#include "octile_key.h"
#include "octile_sweep.h"
#include "mask/point_checks.h"

namespace pathcore {
namespace {

// Sentinels of the working grids: all ones is a walkable pixel not reached
// yet, all ones - 1 a pixel the fill may never enter (blocked, disabled, or
// the one-pixel border around the mask), so one comparison per neighbour
// tells "enter me" and no neighbour needs a bounds check.
template <typename Word>
constexpr Word kUnreached = static_cast<Word>(~Word{0});
template <typename Word>
constexpr Word kBlocked = static_cast<Word>(~Word{0} - 1);

// Working grids of the Dijkstra fill hold packed cost pairs: the straight
// part in the low half, the diagonal part in the high half (16 + 16 bits, or
// 32 + 32 when 16 overflow).
template <typename Word>
constexpr int kHalfBits = static_cast<int>(sizeof(Word) * 4);
template <typename Word>
constexpr Word kLowHalf = static_cast<Word>((Word{1} << kHalfBits<Word>)-1);
// A part this large may overflow with the next step: widen and start over.
template <typename Word>
constexpr Word kPartLimit = static_cast<Word>(kLowHalf<Word> - 0x200);

// The cost of a packed pair, for ordering. Distinct pairs never tie: two
// costs a + b sqrt 2 differ by at least about 1 / (3 |b difference|), far
// above double rounding at any magnitude a mask produces, so comparisons and
// floors of these doubles are exact.
template <typename Word>
inline double key_of(Word packed) {
  if constexpr (sizeof(Word) == 4) {
    // Both halves fit an int: the fastest conversions.
    return static_cast<double>(static_cast<std::int32_t>(packed & kLowHalf<Word>)) +
           static_cast<double>(static_cast<std::int32_t>(packed >> kHalfBits<Word>)) *
               std::numbers::sqrt2;
  }
  return static_cast<double>(static_cast<std::int64_t>(packed & kLowHalf<Word>)) +
         static_cast<double>(static_cast<std::int64_t>(packed >> kHalfBits<Word>)) *
             std::numbers::sqrt2;
}

// a < b for packed pairs, exactly. 16-bit halves: integers only (squares fit
// 64 bits); 32-bit halves: through key_of.
template <typename Word>
inline bool cheaper(Word a, Word b) {
  if constexpr (sizeof(Word) == 4) {
    // a < b  <=>  da < db sqrt 2, with da = aA - bA and db = bB - aB.
    const std::int64_t da = static_cast<std::int64_t>(a & kLowHalf<Word>) -
                            static_cast<std::int64_t>(b & kLowHalf<Word>);
    const std::int64_t db = static_cast<std::int64_t>(b >> kHalfBits<Word>) -
                            static_cast<std::int64_t>(a >> kHalfBits<Word>);
    if (db == 0) return da < 0;
    if (db > 0) return da < 0 || da * da < 2 * db * db;
    return da < 0 && da * da > 2 * db * db;
  } else {
    return key_of(a) < key_of(b);
  }
}

// The bucket of a key (keys are never negative).
inline std::size_t bucket_of(double key) {
  return static_cast<std::size_t>(static_cast<std::int64_t>(key));
}

enum class Method { kBreadthFirst16, kBreadthFirst32, kBuckets32, kBuckets64 };

// A growable array of pixel indices (or other items) whose append inlines
// (the growth does not). kLazy: growing copies only the items held and
// leaves the rest of the new room uninitialised (untouched pages are not
// faulted in), for lists whose reserve_more asks for far more than is used.
template <typename Item, bool kLazy = false>
class ItemList {
 public:
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] Item operator[](std::size_t i) const { return data_[i]; }
  void append(Item index) {
    if (size_ == data_.size()) [[unlikely]] {
      grow();
    }
    data_[size_++] = index;
  }
  void clear() { size_ = 0; }
  // Raw appends: make room for `more`, write at data()[size()], then resize().
  void reserve_more(std::size_t more) {
    while (size_ + more > data_.size()) [[unlikely]] {
        grow();
      }
  }
  [[nodiscard]] Item* data() { return data_.data(); }
  [[nodiscard]] const Item* data() const { return data_.data(); }
  void resize(std::size_t size) { size_ = size; }

 private:
  [[gnu::noinline]] void grow() {
    const std::size_t room = std::max<std::size_t>(1024, data_.size() * 2);
    if constexpr (kLazy) {
      Storage bigger(room);  // uninitialised
      std::copy(data_.data(), data_.data() + size_, bigger.data());
      data_.swap(bigger);
    } else {
      data_.resize(room);
    }
  }

  using Storage = std::conditional_t<kLazy, DistanceBuffer<Item>, std::vector<Item>>;
  Storage data_;
  std::size_t size_ = 0;
};

using IndexList = ItemList<std::uint32_t>;

enum class RunResult { kSettled, kExhausted, kOverflow, kInterrupted };

// Masks whose walkable and blocked pixels mix at pixel scale (random
// clutter, one-pixel mazes: 0.5-0.9 row boundaries per walkable pixel; the
// Moving AI game maps have at most 0.2) make a relaxation's branch
// mispredict about as often as not. There the level and bucket loops relax
// without branches: every neighbour is stored (its old value or the new
// one) and queued, and the queue's end advances only past improvements.
// Elsewhere that costs 1.2-2x (each store feeds a later pixel's load, where
// a predicted branch runs ahead), so it is chosen per mask.
[[nodiscard]] bool cluttered(const Mask& mask) {
  return 10 * mask.row_boundaries() >= 3 * mask.walkable_pixels();
}

// Makes a 0-or-1 flag opaque to the optimiser, so the arithmetic built on it
// stays arithmetic (GCC turns a select on a known comparison back into a
// branch).
inline void keep_branch_free(std::size_t& flag) { asm("" : "+r"(flag)); }

// Pixels expanded between two calls of the interrupt check.
constexpr std::size_t kInterruptEvery = std::size_t{1} << 14;

// The stored words and queue entries of the in-place octile fill
// (FieldBuilder::State's run_octile_inplace) with Key-bit words. Pairs are
// packed like the field's: straight | diagonal << (half of Key's bits).
// Stored: a pixel not settled yet holds its order key plus kKeyBase (the top
// bit), a settled one its pair with the straight part plus one (below
// kKeyBase), a blocked one 0, an unreached one all ones.
template <typename Key>
constexpr Key kKeyBase = static_cast<Key>(Key{1} << (sizeof(Key) * 8 - 1));

// The stored word of a pixel not settled yet whose cost is `pair`.
template <typename Key>
inline Key inplace_key(Key pair) {
  const Key straight = pair & kLowHalf<Key>;
  const Key diagonal = pair >> kHalfBits<Key>;
  return straight * OctileKey<Key>::kQ + diagonal * OctileKey<Key>::kP + kKeyBase<Key>;
}

template <typename Key>
struct InPlace;

// Queue entries carry the pixel's padded index in the low 28 bits of a
// 32-bit field and its arrival code (see kArriveAny) in the top 4: the code
// costs no memory, where a byte per pixel beside the grid measured slower.
constexpr std::uint32_t kIndexBits = 28;
constexpr std::uint32_t kIndexMask = (std::uint32_t{1} << kIndexBits) - 1;
// The in-place octile fill runs on padded grids of fewer pixels than this.
constexpr std::size_t kInPlaceMaxPixels = std::size_t{1} << kIndexBits;

template <>
struct InPlace<std::uint32_t> {
  using Entry = std::uint64_t;  // index | arrival << 28 | pair << 32
  static std::uint32_t index(Entry entry) { return static_cast<std::uint32_t>(entry) & kIndexMask; }
  static unsigned arrival(Entry entry) {
    return static_cast<unsigned>(static_cast<std::uint32_t>(entry) >> kIndexBits);
  }
  static std::uint32_t pair(Entry entry) { return static_cast<std::uint32_t>(entry >> 32); }
  static Entry make(std::uint32_t index, std::uint32_t pair, unsigned arrival) {
    return index | (Entry{arrival} << kIndexBits) | (Entry{pair} << 32);
  }
  // The same pixel's entry one straight (diagonal) step further, without
  // its arrival code.
  static Entry straight_step(Entry entry) {
    return (entry & ~Entry{~kIndexMask}) + (Entry{1} << 32);
  }
  static Entry diagonal_step(Entry entry) {
    return (entry & ~Entry{~kIndexMask}) + (Entry{1} << 48);
  }
  // The entry of the pixel `offset` away from a step's entry, arriving by
  // `arrival` (the index never borrows from the pair).
  static Entry moved(Entry entry, std::ptrdiff_t offset, unsigned arrival) {
    return entry + static_cast<Entry>(offset + (std::ptrdiff_t{arrival} << kIndexBits));
  }
};

template <>
struct InPlace<std::uint64_t> {
  struct Entry {
    std::uint64_t pair;
    std::uint32_t index;
  };
  static std::uint32_t index(Entry entry) { return entry.index & kIndexMask; }
  static unsigned arrival(Entry entry) { return entry.index >> kIndexBits; }
  static std::uint64_t pair(Entry entry) { return entry.pair; }
  static Entry make(std::uint32_t index, std::uint64_t pair, unsigned arrival) {
    return {pair, index | (arrival << kIndexBits)};
  }
  static Entry straight_step(Entry entry) { return {entry.pair + 1, entry.index & kIndexMask}; }
  static Entry diagonal_step(Entry entry) {
    return {entry.pair + (std::uint64_t{1} << 32), entry.index & kIndexMask};
  }
  static Entry moved(Entry entry, std::ptrdiff_t offset, unsigned arrival) {
    return {entry.pair, entry.index + static_cast<std::uint32_t>(
                                          offset + (std::ptrdiff_t{arrival} << kIndexBits))};
  }
};

template <typename Key>
using EntryList = ItemList<typename InPlace<Key>::Entry, true>;

// Arrival codes of the octile fill (the direction of the step that set a
// pixel's key): 0-3 the straight steps of octile_steps (east, south, west,
// north), 4 + k the diagonal of straight steps k and k + 1 (mod 4),
// kArriveAny none (the goal: every neighbour is relaxed).
constexpr unsigned kDiagonalArrival = 4;
constexpr unsigned kArriveAny = 8;

// The four straight steps in a padded grid of row length `stride`, turning
// clockwise on screen (east, south, west, north): step k + 1 is step k
// turned right.
inline std::array<std::ptrdiff_t, 4> octile_steps(std::size_t stride) {
  const auto row = static_cast<std::ptrdiff_t>(stride);
  return {1, row, -1, -row};
}

}  // namespace

struct FieldBuilder::State {
  const Mask* mask = nullptr;
  DistanceField field;
  Method method = Method::kBreadthFirst16;
  bool done = false;
  std::size_t stride = 0;  // padded width
  std::uint32_t goal_index = 0;

  // Level-synchronous: the pixels at distance `level` (the frontier), the
  // next entry of it to expand, and the pixels found at level + 1. Only two
  // frontiers are held, so a corridor needs a few bytes where a queue of
  // every pixel would need 4 per pixel.
  IndexList frontier;
  IndexList next_frontier;
  std::size_t frontier_position = 0;
  std::uint32_t level = 0;
  // The level and bucket loops relax without branches (see cluttered()).
  bool branch_free = false;

  // Dijkstra with a bucket queue: bucket k holds the pixels whose cost lies
  // in [k, k + 1). Every step costs at least 1, so no pixel of a bucket can
  // improve another of the same bucket: all its costs are final when the
  // bucket is reached, and it is processed in any order (Dinitz's rule; for
  // integer costs this is Dial's algorithm). A step costs at most 255 sqrt 2,
  // so a ring of ceil(that) + 1 buckets suffices (3 with unit costs). A pixel
  // is queued again only when an improvement moves it to another bucket;
  // entries whose pixel moved are skipped.
  std::vector<std::uint8_t> step_cost;  // per padded pixel; empty with unit costs
  std::vector<IndexList> ring;
  std::size_t bucket = 0;    // the bucket being processed
  std::size_t position = 0;  // next entry in it
  std::size_t pending = 0;   // entries in the ring not processed yet
  bool unit_costs = true;

  // set_interrupt's check, called at a level or bucket boundary (where the
  // fill can stop and resume) once about kInterruptEvery pixels were expanded.
  std::function<bool()> interrupt;
  std::size_t since_check = 0;
  // True when the fill should stop here; `work` pixels are about to be expanded.
  bool interrupted(std::size_t work) {
    if (!interrupt) return false;
    since_check += work + 1;  // + 1: a one-pixel level still counts
    if (since_check < kInterruptEvery) return false;
    since_check = 0;
    return interrupt();
  }

  // ---------------------------------------------------------- breadth first

  template <typename Word>
  DistanceBuffer<Word>& words() {
    if constexpr (sizeof(Word) == 2) {
      return field.words16_;
    } else {
      return field.words32_;
    }
  }

  template <typename Word>
  void start_breadth_first() {
    const std::size_t width = mask->width();
    const std::size_t height = mask->height();
    const std::size_t padded_size = stride * (height + 2);
    const AreaSet enabled = field.options_.enabled;
    std::array<Word, kMaxAreaId + 1> initial{};
    for (int id = 0; id <= kMaxAreaId; ++id) {
      initial[static_cast<std::size_t>(id)] =
          ((enabled >> id) & 1U) != 0 ? kUnreached<Word> : kBlocked<Word>;
    }
    DistanceBuffer<std::uint16_t>().swap(field.words16_);
    DistanceBuffer<std::uint32_t>().swap(field.words32_);
    DistanceBuffer<Word>& grid = words<Word>();
    grid.resize(padded_size);
    Word* const out = grid.data();
    std::fill(out, out + stride + 1, kBlocked<Word>);
    const std::uint8_t* areas = mask->areas().data();
    for (std::size_t y = 0; y < height; ++y) {
      const std::uint8_t* row = areas + y * width;
      Word* const line = out + (y + 1) * stride + 1;
      for (std::size_t x = 0; x < width; ++x) {
        line[x] = initial[row[x]];
      }
      line[width] = kBlocked<Word>;  // right border, and the next row's left one
      line[width + 1] = kBlocked<Word>;
    }
    std::fill(out + (height + 1) * stride, out + padded_size, kBlocked<Word>);
    field.element_bytes_ = sizeof(Word);
    field.four_ = true;
    field.stride_ = stride;
    field.origin_ = stride + 1;

    frontier.clear();
    next_frontier.clear();
    frontier_position = 0;
    level = 0;
    if (grid[goal_index] == kUnreached<Word>) {
      grid[goal_index] = 0;
      frontier.append(goal_index);
    }
  }

  template <typename Word, bool kStop, bool kBranchFree>
  RunResult run_breadth_first(std::size_t stop) {
    Word* const distance = words<Word>().data();
    const auto s = static_cast<std::uint32_t>(stride);
    while (frontier.size() > 0) {
      if (interrupted(frontier.size() - frontier_position)) return RunResult::kInterrupted;
      if (frontier.size() == 1 && frontier_position == 0) {
        // A frontier of one pixel: follow the corridor (see corridor.h).
        const detail::CorridorEnd end =
            detail::walk_corridor<Word, kStop>(distance, s, frontier[0], level, stop);
        frontier.clear();
        frontier.reserve_more(end.count);
        std::copy(end.found.begin(), end.found.begin() + static_cast<std::ptrdiff_t>(end.count),
                  frontier.data());
        frontier.resize(end.count);
        level = end.level;
        if (end.settled) {
          return RunResult::kSettled;
        }
        if (end.count == 0) {
          break;
        }
      }
      const auto next = static_cast<Word>(level + 1);
      if (next >= kBlocked<Word>) {
        return RunResult::kOverflow;
      }
      const std::size_t count = frontier.size();
      // Each pixel finds at most 4 new ones.
      next_frontier.reserve_more(4 * (count - frontier_position));
      const std::uint32_t* const current = frontier.data();
      std::uint32_t* const found = next_frontier.data();
      std::size_t t = next_frontier.size();
      std::size_t h = frontier_position;
      bool settled = false;
      for (; h < count; ++h) {
        if constexpr (kStop) {
          if (distance[stop] != kUnreached<Word>) {
            settled = true;
            break;
          }
        }
        const std::uint32_t index = current[h];
        const auto relax = [&](std::uint32_t neighbour) __attribute__((always_inline)) {
          const Word old = distance[neighbour];
          if constexpr (kBranchFree) {
            std::size_t fresh = old == kUnreached<Word> ? 1 : 0;
            keep_branch_free(fresh);
            distance[neighbour] = static_cast<Word>(old ^ ((old ^ next) & (0 - fresh)));
            found[t] = neighbour;
            t += fresh;
          } else if (old == kUnreached<Word>) {
            distance[neighbour] = next;
            found[t++] = neighbour;
          }
        };
        relax(index - 1);
        relax(index + 1);
        relax(index - s);
        relax(index + s);
      }
      next_frontier.resize(t);
      frontier_position = h;
      if (settled) {
        return RunResult::kSettled;
      }
      std::swap(frontier, next_frontier);
      next_frontier.clear();
      frontier_position = 0;
      level = next;
    }
    if constexpr (kStop) {
      if (distance[stop] != kUnreached<Word>) return RunResult::kSettled;
    }
    return RunResult::kExhausted;
  }

  // run_breadth_first with the loop this mask takes, to `stop` (0: to the end).
  template <typename Word>
  RunResult run_breadth_first_dispatch(std::size_t stop) {
    const bool to_end = stop == 0;
    if (branch_free) {
      return to_end ? run_breadth_first<Word, false, true>(0)
                    : run_breadth_first<Word, true, true>(stop);
    }
    return to_end ? run_breadth_first<Word, false, false>(0)
                  : run_breadth_first<Word, true, false>(stop);
  }

  // Runs the breadth-first fill until stop is reached (or to the end when
  // stop is 0, which is always a border pixel), widening 16-bit distances to
  // 32 bits (and starting over) when they overflow.
  bool run_breadth_first_until(std::size_t stop) {
    if (method == Method::kBreadthFirst16) {
      const RunResult result = run_breadth_first_dispatch<std::uint16_t>(stop);
      if (result == RunResult::kInterrupted) throw Interrupted();
      if (result != RunResult::kOverflow) {
        return result == RunResult::kSettled;
      }
      method = Method::kBreadthFirst32;
      start_breadth_first<std::uint32_t>();
    }
    const RunResult result = run_breadth_first_dispatch<std::uint32_t>(stop);
    if (result == RunResult::kInterrupted) throw Interrupted();
    if (result == RunResult::kOverflow) {
      throw InvalidArgument("distances overflow 32 bits");  // unreachable for valid masks
    }
    return result == RunResult::kSettled;
  }

  // ------------------------------------------------------------ buckets

  template <typename Word>
  DistanceBuffer<Word>& pairs() {
    if constexpr (sizeof(Word) == 4) {
      return field.words32_;
    } else {
      return field.words64_;
    }
  }

  template <typename Word>
  void start_buckets() {
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
    DistanceBuffer<std::uint32_t>().swap(field.words32_);
    DistanceBuffer<std::uint64_t>().swap(field.words64_);
    DistanceBuffer<Word>& grid = pairs<Word>();
    grid.resize(padded_size);  // uninitialised: every element is written below
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
  RunResult run_buckets(std::size_t stop) {
    Word* const grid = pairs<Word>().data();
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
  static constexpr std::size_t kOctilePrefetch = 8;
  // Grids up to this size relax only the neighbours inplace_expand keeps
  // (kPrune); larger ones relax all eight. Measured in one process: pruned,
  // the fill is 17-48% faster on the larger game maps (Berlin_0_256 32%) and
  // on open ground up to 960x540 (2 MB), within 5% on the smallest maps,
  // 15-20% slower on random512 and maze512 (clutter: the arrival direction
  // mispredicts) and 5-20% slower on full HD (8 MB: the loop waits on the
  // row ahead either way).
  static constexpr std::size_t kPruneMaxBytes = std::size_t{4} << 20;
  // Grids past this size prefetch (run_octile_inplace); every grid too large
  // to prune does.
  static constexpr std::size_t kPrefetchMinBytes = std::size_t{1} << 20;
  static_assert(kPruneMaxBytes > kPrefetchMinBytes);
  bool octile = false;  // run_octile_inplace (else the generic run_buckets)
  std::vector<EntryList<std::uint32_t>> entries;       // the ring, 32-bit words
  std::vector<EntryList<std::uint64_t>> wide_entries;  // the ring, 64-bit words

  template <typename Key>
  std::vector<EntryList<Key>>& entries_of() {
    if constexpr (sizeof(Key) == 4) {
      return entries;
    } else {
      return wide_entries;
    }
  }

  // Starts the fill with 32-bit words written straight from the mask.
  void start_octile_unit() {
    const std::size_t width = mask->width();
    const std::size_t height = mask->height();
    const std::size_t padded_size = stride * (height + 2);
    const AreaSet enabled = field.options_.enabled;
    std::array<std::uint32_t, kMaxAreaId + 1> initial{};
    for (int id = 0; id <= kMaxAreaId; ++id) {
      initial[static_cast<std::size_t>(id)] = ((enabled >> id) & 1U) != 0 ? 0xFFFFFFFFU : 0U;
    }
    DistanceBuffer<std::uint32_t>().swap(field.words32_);
    DistanceBuffer<std::uint64_t>().swap(field.words64_);
    field.words32_.resize(padded_size);  // uninitialised: every element is written below
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
  bool sweepable = false;  // decided once, from the mask and the options
  bool untouched = false;  // start_octile_unit's state: nothing expanded yet
  bool swept = false;      // the field came from sweeps
  std::vector<std::uint32_t> sweep_row;

  // True when the unit-cost octile fill to `target` (none: to the end) would
  // settle most of the mask on open ground: the box around the goal out to
  // target's octile distance covers at least 60% of it.
  [[nodiscard]] bool far_enough(std::optional<Point> target) const {
    if (!target) return true;
    const std::int64_t gx = field.goal_.x;
    const std::int64_t gy = field.goal_.y;
    const std::int64_t sx = target->x;
    const std::int64_t sy = target->y;
    const std::int64_t dx = std::abs(sx - gx);
    const std::int64_t dy = std::abs(sy - gy);
    const auto reach = static_cast<std::int64_t>(static_cast<double>(std::max(dx, dy)) +
                                                 (std::numbers::sqrt2 - 1) *
                                                     static_cast<double>(std::min(dx, dy)));
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
  bool try_sweeps(std::optional<Point> target) {
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
  template <typename Key, bool kCutting, bool kPrune, bool kBranchFree = false>
  [[gnu::always_inline]] static void inplace_expand(Key* grid,
                                                    const std::array<std::ptrdiff_t, 4>& steps,
                                                    typename InPlace<Key>::Entry entry, Key here,
                                                    Key limit1, typename InPlace<Key>::Entry*& out1,
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
  [[gnu::noinline]] void inplace_corridor(typename InPlace<Key>::Entry entry, std::size_t stop) {
    using Order = OctileKey<Key>;
    using Layout = InPlace<Key>;
    using Entry = typename Layout::Entry;
    Key* const grid = pairs<Key>().data();
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
      if (count1 + count2 != 1 || stopped || next + 3 >= Order::kQ - 1 ||
          steps >= kInterruptEvery) {
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
  RunResult run_octile_inplace(std::size_t stop) {
    using Order = OctileKey<Key>;
    using Layout = InPlace<Key>;
    using Entry = typename Layout::Entry;
    Key* const grid = pairs<Key>().data();
    std::vector<EntryList<Key>>& ring_lists = entries_of<Key>();
    const auto s = static_cast<std::uint32_t>(stride);
    const std::array<std::ptrdiff_t, 4> moves = octile_steps(stride);
    // The grid beyond the caches: fetch the three rows of the pixel
    // kOctilePrefetch entries ahead (a loss on maps that fit in L2).
    const std::size_t grid_bytes = pairs<Key>().size() * sizeof(Key);
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

  // The 32-bit fill stopped at the start of a bucket whose candidates could
  // outgrow its keys: move the grid and the ring to 64-bit words, which
  // carry on from the same bucket (settled pairs spread to 32 + 32 bits, the
  // few keys not settled yet recomputed).
  void octile_widen() {
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
    pending = 0;
    for (std::size_t slot = 0; slot < 3; ++slot) {
      const EntryList<std::uint32_t>& list = entries[slot];
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::uint32_t index = Narrow::index(list[i]);
        const std::uint32_t pair = Narrow::pair(list[i]);
        if (narrow[index] == inplace_key<std::uint32_t>(pair)) {
          wide_entries[slot].append(
              InPlace<std::uint64_t>::make(index, wide_pair(pair), Narrow::arrival(list[i])));
          ++pending;
        }
      }
    }
    entries.clear();
    DistanceBuffer<std::uint32_t>().swap(field.words32_);
    field.element_bytes_ = DistanceField::kTaggedWide;
    position = 0;
  }

  // The 64-bit keys could overflow (a mask of over a billion walkable
  // pixels): hand over to the generic 32 + 32 bit fill, which carries on from
  // the same bucket with the same lists (pixels not settled yet keep their
  // cost as an upper bound).
  void octile_to_generic() {
    using Wide = InPlace<std::uint64_t>;
    std::uint64_t* const grid = field.words64_.data();
    ring.assign(3, {});
    pending = 0;
    for (std::size_t slot = 0; slot < 3; ++slot) {
      const EntryList<std::uint64_t>& list = wide_entries[slot];
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::uint32_t index = Wide::index(list[i]);
        if (grid[index] == inplace_key<std::uint64_t>(Wide::pair(list[i]))) {
          ring[slot].append(index);
          ++pending;
        }
      }
    }
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
  template <typename Word, bool kStop>
  RunResult run_buckets_dispatch(std::size_t stop) {
    const bool eight = field.options_.connectivity == Connectivity::kEight;
    const bool cutting = field.options_.allow_corner_cutting;
    if (octile) {
      return cutting ? run_octile_inplace<Word, kStop, true>(stop)
                     : run_octile_inplace<Word, kStop, false>(stop);
    }
    if (unit_costs) {
      if (!eight) return run_buckets<Word, kStop, false, false, true>(stop);
      return cutting ? run_buckets<Word, kStop, true, true, true>(stop)
                     : run_buckets<Word, kStop, true, false, true>(stop);
    }
    if (!eight) return run_buckets<Word, kStop, false, false, false>(stop);
    return cutting ? run_buckets<Word, kStop, true, true, false>(stop)
                   : run_buckets<Word, kStop, true, false, false>(stop);
  }

  // Runs the bucket fill until stop is settled (or to the end when stop is
  // 0, a border pixel), widening 16-bit parts to 32 bits (and starting over)
  // when they overflow.
  bool run_buckets_until(std::size_t stop) {
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

  // The finished bucket fill's storage: kFour keeps one integer per pixel
  // (2 bytes when they fit, else 4); kEight keeps the padded 16 + 16 bit
  // grid as it is, and narrows a 32 + 32 bit one when its parts fit 16 bits.
  void compact_buckets() {
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
};

FieldOptions normalized(const FieldOptions& options) {
  FieldOptions out = options;
  out.enabled &= kAllAreas;  // area 0 is never walkable
  if (out.connectivity == Connectivity::kFour) out.allow_corner_cutting = false;
  out.area_costs[0] = 1;
  for (auto& cost : out.area_costs) {
    if (cost == 0) cost = 1;
  }
  return out;
}

FieldBuilder::FieldBuilder(const Mask& mask, Point goal, const FieldOptions& options)
    : state_(std::make_unique<State>()) {
  require_inside(mask, goal, "goal");
  State& s = *state_;
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
  if (s.method == Method::kBuckets32 || s.method == Method::kBuckets64) {
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

}  // namespace pathcore
