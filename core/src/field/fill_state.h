#pragma once

// The state of a distance field being filled (FieldBuilder::State), shared by
// the fills of this folder, and the helpers more than one of them uses (not
// installed). Each fill defines its members in a file of its own, its hot loop
// and the helpers that loop inlines together: level_fill.cc (four-connected,
// unit costs), bucket_fill.cc (Dijkstra with a bucket queue, any costs),
// octile_fill.cc (eight-connected unit costs, in place, with the raster sweeps
// of octile_sweep.cc); distance_field.cc chooses between them.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numbers>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "field/octile_key.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathcore {

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
[[nodiscard]] inline bool cluttered(const Mask& mask) {
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
  // set_progress's report, and what it divides: pixels expanded so far over
  // the walkable pixels (an estimate: a widened fill starts over, sweeps
  // count whole rows; so capped below 1).
  ProgressReport progress;
  std::size_t expanded = 0;
  std::size_t walkable = 0;  // counted at the first report: small fills never pay for it
  [[nodiscard]] std::size_t count_walkable() const;
  bool interrupted(std::size_t work) {
    if (!interrupt && !progress) return false;
    since_check += work + 1;  // + 1: a one-pixel level still counts
    expanded += work;
    if (since_check < kInterruptEvery) return false;
    since_check = 0;
    if (progress) {
      if (walkable == 0) walkable = std::max<std::size_t>(count_walkable(), 1);
      progress(std::min(0.99, static_cast<double>(expanded) / static_cast<double>(walkable)));
    }
    return interrupt && interrupt();
  }

  // Buffers to build the field in (FieldBuilder's recycled argument), until
  // the first start_* takes what fits.
  FieldStorage recycled;

  // The field's grid of padded_size Word-sized elements (uninitialised), for
  // a fill that starts: a recycled buffer when one fits, else a new one; every
  // other buffer of the field (and the recycled ones) is freed.
  template <typename Word>
  DistanceBuffer<Word>& fresh_grid(std::size_t padded_size) {
    DistanceBuffer<std::uint16_t>().swap(field.words16_);
    DistanceBuffer<std::uint32_t>().swap(field.words32_);
    DistanceBuffer<std::uint64_t>().swap(field.words64_);
    DistanceBuffer<Word>& grid = words<Word>();
    DistanceBuffer<Word>* spare = nullptr;
    if constexpr (sizeof(Word) == 2) {
      spare = &recycled.words16;
    } else if constexpr (sizeof(Word) == 4) {
      spare = &recycled.words32;
    } else {
      spare = &recycled.words64;
    }
    // Not much larger than needed: the field keeps (and a cache charges) it all.
    if (spare->capacity() >= padded_size && spare->capacity() - padded_size <= padded_size / 8) {
      grid.swap(*spare);
    }
    recycled = FieldStorage{};
    grid.resize(padded_size);  // uninitialised (the capacity suffices, or it is empty)
    return grid;
  }

  // The field's grid of Word-sized elements: the level fill's distances (16
  // or 32 bits), the bucket fills' packed pairs and keys (32 or 64 bits).
  template <typename Word>
  DistanceBuffer<Word>& words() {
    if constexpr (sizeof(Word) == 2) {
      return field.words16_;
    } else if constexpr (sizeof(Word) == 4) {
      return field.words32_;
    } else {
      return field.words64_;
    }
  }

  // The in-place octile fill (octile_fill.cc).
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

  // The raster sweeps (octile_fill.cc, octile_sweep.h).
  bool sweepable = false;  // decided once, from the mask and the options
  bool untouched = false;  // start_octile_unit's state: nothing expanded yet
  bool swept = false;      // the field came from sweeps
  std::vector<std::uint32_t> sweep_row;

  // Defined with each fill (their comments are there): the level fill
  // (level_fill.cc),
  template <typename Word>
  void start_breadth_first();
  template <typename Word, bool kStop, bool kBranchFree>
  inline RunResult run_breadth_first(std::size_t stop);
  template <typename Word>
  inline RunResult run_breadth_first_dispatch(std::size_t stop);
  bool run_breadth_first_until(std::size_t stop);
  // the bucket fill (bucket_fill.cc),
  template <typename Word>
  void start_buckets();
  template <typename Word, bool kStop, bool kEight, bool kCutting, bool kUnit>
  inline RunResult run_buckets(std::size_t stop);
  template <typename Word, bool kStop>
  RunResult run_generic_buckets(std::size_t stop);
  void compact_buckets();
  // the in-place octile fill (octile_fill.cc),
  void start_octile_unit();
  [[nodiscard]] inline bool far_enough(std::optional<Point> target) const;
  bool try_sweeps(std::optional<Point> target);
  template <typename Key, bool kCutting, bool kPrune, bool kBranchFree = false>
  [[gnu::always_inline]] static inline void inplace_expand(
      Key* grid, const std::array<std::ptrdiff_t, 4>& steps, typename InPlace<Key>::Entry entry,
      Key here, Key limit1, typename InPlace<Key>::Entry*& out1,
      typename InPlace<Key>::Entry*& out2);
  template <typename Key, bool kStop, bool kCutting, bool kPrune>
  [[gnu::noinline]] void inplace_corridor(typename InPlace<Key>::Entry entry, std::size_t stop);
  template <typename Key, bool kStop, bool kCutting>
  inline RunResult run_octile_inplace(std::size_t stop);
  template <typename Key, bool kStop>
  RunResult run_octile(std::size_t stop);
  void octile_widen();
  void octile_to_generic();
  // the fill toward several goals (multi_source_fill.cc),
  bool several = false;
  void start_several(std::span<const Point> goals);
  template <bool kEight, bool kCutting, bool kUnit>
  RunResult run_several();
  void run_several_to_end();
  // the choice between them (distance_field.cc).
  template <typename Word, bool kStop>
  RunResult run_buckets_dispatch(std::size_t stop);
  bool run_buckets_until(std::size_t stop);
};

}  // namespace pathcore
