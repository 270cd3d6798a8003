#include "pathcore/distance_field.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>

#include "corridor.h"
#include "point_checks.h"

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

// A growable array of pixel indices whose append inlines (the growth does not).
class IndexList {
 public:
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::uint32_t operator[](std::size_t i) const { return data_[i]; }
  void append(std::uint32_t index) {
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
  [[nodiscard]] std::uint32_t* data() { return data_.data(); }
  [[nodiscard]] const std::uint32_t* data() const { return data_.data(); }
  void resize(std::size_t size) { size_ = size; }

 private:
  [[gnu::noinline]] void grow() { data_.resize(std::max<std::size_t>(1024, data_.size() * 2)); }

  std::vector<std::uint32_t> data_;
  std::size_t size_ = 0;
};

enum class RunResult { kSettled, kExhausted, kOverflow, kInterrupted };

// Pixels expanded between two calls of the interrupt check.
constexpr std::size_t kInterruptEvery = std::size_t{1} << 14;

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

  template <typename Word, bool kStop>
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
        if (distance[index - 1] == kUnreached<Word>) {
          distance[index - 1] = next;
          found[t++] = index - 1;
        }
        if (distance[index + 1] == kUnreached<Word>) {
          distance[index + 1] = next;
          found[t++] = index + 1;
        }
        if (distance[index - s] == kUnreached<Word>) {
          distance[index - s] = next;
          found[t++] = index - s;
        }
        if (distance[index + s] == kUnreached<Word>) {
          distance[index + s] = next;
          found[t++] = index + s;
        }
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

  // Runs the breadth-first fill until stop is reached (or to the end when
  // stop is 0, which is always a border pixel), widening 16-bit distances to
  // 32 bits (and starting over) when they overflow.
  bool run_breadth_first_until(std::size_t stop) {
    const bool to_end = stop == 0;
    if (method == Method::kBreadthFirst16) {
      const RunResult result = to_end ? run_breadth_first<std::uint16_t, false>(0)
                                      : run_breadth_first<std::uint16_t, true>(stop);
      if (result == RunResult::kInterrupted) throw Interrupted();
      if (result != RunResult::kOverflow) {
        return result == RunResult::kSettled;
      }
      method = Method::kBreadthFirst32;
      start_breadth_first<std::uint32_t>();
    }
    const RunResult result = to_end ? run_breadth_first<std::uint32_t, false>(0)
                                    : run_breadth_first<std::uint32_t, true>(stop);
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
    DistanceBuffer<std::uint32_t>().swap(octile_keys);
    if constexpr (sizeof(Word) == 4) {
      if (unit_costs && field.options_.connectivity == Connectivity::kEight) {
        start_octile_unit();
      }
    }
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

  // ------------------------------------------- unit-cost octile buckets
  //
  // The unit-cost eight-connected fill while parts stay below kOctileQ: the
  // same bucket queue of width 1, with the comparisons made cheap. Next to
  // the pair grid it keeps one 32-bit order key per padded pixel,
  //   key = straight * kOctileQ + diagonal * kOctileP,
  // where kOctileP / kOctileQ = 47321 / 33461 is a convergent of sqrt 2
  // (47321^2 - 2 * 33461^2 = -1). For parts below kOctileQ the key orders
  // distinct pairs exactly as straight + diagonal * sqrt 2 does and never
  // ties: for 0 < |db| < Q the best approximation property gives
  // Q |da + db sqrt 2| >= Q |19601 - 13860 sqrt 2| = 0.85, while the error
  // |db (P - Q sqrt 2)| < Q / (P + Q sqrt 2) = 0.36 (also checked
  // exhaustively). So one integer compare decides a relaxation, a step adds a
  // constant, the bucket of a pixel (floor of its cost) is a comparison with
  // bucket * Q, and the pair is recovered exactly from the key (diagonal =
  // key * P^-1 mod Q, P^-1 = 19601) when the pixel is settled: that is when
  // the pair grid is written (until then the pixel reads as unreachable, as
  // FieldBuilder allows; see below for full fills). The largest key, (Q - 1) (P + Q), fits 32 bits.
  // Blocked pixels have key 0 (no candidate is cheaper; the goal also has 0,
  // which the corner test below reads as blocked: harmless, as a diagonal
  // step around the goal reaches a pixel the goal reaches in one straight
  // step), unreached ones all ones.
  //
  // A pixel popped from bucket k sends its straight neighbours to k + 1 and
  // its diagonal ones all to k + 1 or all to k + 2, so the ring is three
  // lists, written through pointers held in registers (room reserved per
  // bucket: at most 8 and 4 entries per popped pixel). The eight neighbour
  // keys are read before any is written (they are distinct pixels). A pixel
  // is queued when it is reached or moves to an earlier bucket; entries of a
  // pixel that moved are skipped. In a full fill (no pixel waited for) the
  // pairs are written in one pass at the end instead of at each pop, which
  // measured faster. Before a bucket whose candidates could reach parts of
  // Q - 1 (costs of about 33,000: long corridors), the state moves to the
  // 32 + 32 bit fill, which carries on from that bucket (octile_to_wide).
  static constexpr std::uint32_t kOctileP = 47321;
  static constexpr std::uint32_t kOctileQ = 33461;
  static constexpr std::uint32_t kOctileInverseP = 19601;  // P * 19601 = 1 mod Q
  static constexpr std::size_t kOctilePrefetch = 8;
  DistanceBuffer<std::uint32_t> octile_keys;  // per padded pixel, see above
  bool octile = false;  // the fill runs run_octile_unit

  void start_octile_unit() {
    const std::size_t padded_size = stride * (mask->height() + 2);
    const std::uint32_t* const grid = field.words32_.data();
    octile_keys.resize(padded_size);
    std::uint32_t* const keys = octile_keys.data();
    for (std::size_t i = 0; i < padded_size; ++i) {
      keys[i] = grid[i] == kBlocked<std::uint32_t> ? 0U : 0xFFFFFFFFU;
    }
    // start_buckets queued the goal (with pair 0) in ring[0]: move it to the
    // straight list of bucket 0 and unset its pair until it is popped.
    ring.assign(3, {});
    pending = 0;
    if (grid[goal_index] == 0) {
      field.words32_[goal_index] = kUnreached<std::uint32_t>;
      keys[goal_index] = 0;
      ring[0].append(goal_index);
      pending = 1;
    }
    octile = true;
  }

  // The exact pair of an order key (see above).
  static std::uint32_t octile_pair(std::uint32_t key) {
    const std::uint32_t diagonal_part = key % kOctileQ * kOctileInverseP % kOctileQ;
    const std::uint32_t straight_part = (key - diagonal_part * kOctileP) / kOctileQ;
    return straight_part | (diagonal_part << 16);
  }

  // Writes the pair of every pixel with a key (settled: the fill is over).
  void octile_write_pairs() {
    std::uint32_t* const grid = field.words32_.data();
    const std::uint32_t* const keys = octile_keys.data();
    const std::size_t size = octile_keys.size();
    for (std::size_t i = 0; i < size; ++i) {
      const std::uint32_t key = keys[i];
      if (key != 0xFFFFFFFFU && grid[i] != kBlocked<std::uint32_t>) grid[i] = octile_pair(key);
    }
  }

  // The unit-cost octile fill stopped at the start of a bucket whose
  // candidates could outgrow its keys: move its state to the 32 + 32 bit
  // fill, which carries on from the same bucket with the same lists (every
  // pixel with a key gets its exact pair; the lists' semantics are the same).
  void octile_to_wide() {
    const std::size_t size = octile_keys.size();
    const std::uint32_t* const grid = field.words32_.data();
    const std::uint32_t* const keys = octile_keys.data();
    DistanceBuffer<std::uint64_t>& wide = field.words64_;
    wide.resize(size);
    for (std::size_t i = 0; i < size; ++i) {
      const std::uint32_t key = keys[i];
      if (grid[i] == kBlocked<std::uint32_t>) {
        wide[i] = kBlocked<std::uint64_t>;
      } else if (key == 0xFFFFFFFFU) {
        wide[i] = kUnreached<std::uint64_t>;
      } else {
        const std::uint32_t pair = octile_pair(key);
        wide[i] = (pair & 0xFFFFU) | (static_cast<std::uint64_t>(pair >> 16) << 32);
      }
    }
    DistanceBuffer<std::uint32_t>().swap(field.words32_);
    DistanceBuffer<std::uint32_t>().swap(octile_keys);
    octile = false;
    field.element_bytes_ = 8;
    position = 0;
  }

  template <bool kStop, bool kCutting>
  RunResult run_octile_unit(std::size_t stop) {
    using Word = std::uint32_t;
    Word* const grid = field.words32_.data();
    std::uint32_t* const keys = octile_keys.data();
    const std::uint32_t s = static_cast<std::uint32_t>(stride);
    // Keys beyond the caches: fetch the three key rows of the pixel
    // kOctilePrefetch entries ahead (measured: about 10% on full HD, a loss
    // on maps whose keys fit in L2).
    const bool prefetch = octile_keys.size() > (std::size_t{1} << 18);
    while (pending > 0) {
      if constexpr (kStop) {
        // Pairs are written when settled; buckets below this one are done.
        if (grid[stop] < kBlocked<Word>) return RunResult::kSettled;
      }
      if (interrupted(ring[bucket % 3].size())) return RunResult::kInterrupted;
      // Candidates from this bucket cost below bucket + 3, so both their
      // parts do: below Q - 1 they stay exact (and their keys fit 32 bits).
      if (bucket + 3 >= kOctileQ - 1) return RunResult::kOverflow;
      const std::size_t slot = bucket % 3;
      IndexList& items = ring[slot];
      IndexList& next1 = ring[slot == 2 ? 0 : slot + 1];
      IndexList& next2 = ring[slot == 0 ? 2 : slot - 1];
      const std::size_t count = items.size();
      next1.reserve_more(8 * count);
      next2.reserve_more(4 * count);
      const std::uint32_t* const in = items.data();
      std::uint32_t* out1 = next1.data() + next1.size();
      std::uint32_t* out2 = next2.data() + next2.size();
      const auto lo = static_cast<std::uint32_t>(bucket * kOctileQ);
      const auto limit1 = static_cast<std::uint32_t>((bucket + 2) * kOctileQ);  // >=: bucket k + 2 on
      const auto limit2 = static_cast<std::uint32_t>((bucket + 3) * kOctileQ);
      for (std::size_t at = 0; at < count; ++at) {
        const std::uint32_t index = in[at];
        if (prefetch && at + kOctilePrefetch < count) {
          const std::uint32_t ahead = in[at + kOctilePrefetch];
          __builtin_prefetch(keys + ahead - s, 1);
          __builtin_prefetch(keys + ahead, 1);
          __builtin_prefetch(keys + ahead + s, 1);
        }
        const std::uint32_t here = keys[index];
        if (here < lo) {
          continue;  // moved to a cheaper bucket and processed there
        }
        if constexpr (kStop) {
          grid[index] = octile_pair(here);
        }
        const std::uint32_t straight = here + kOctileQ;
        const std::uint32_t diagonal = here + kOctileP;
        const std::uint32_t e = keys[index + 1];
        const std::uint32_t w = keys[index - 1];
        const std::uint32_t so = keys[index + s];
        const std::uint32_t no = keys[index - s];
        const std::uint32_t se = keys[index + s + 1];
        const std::uint32_t sw = keys[index + s - 1];
        const std::uint32_t nw = keys[index - s - 1];
        const std::uint32_t ne = keys[index - s + 1];
        const auto relax = [&](std::uint32_t n, std::uint32_t old, bool allowed,
                               std::uint32_t candidate, std::uint32_t limit,
                               std::uint32_t*& out) __attribute__((always_inline)) {
          if (allowed & (candidate < old)) {
            keys[n] = candidate;
            *out = n;
            out += old >= limit ? 1 : 0;
          }
        };
        relax(index + 1, e, true, straight, limit1, out1);
        relax(index - 1, w, true, straight, limit1, out1);
        relax(index + s, so, true, straight, limit1, out1);
        relax(index - s, no, true, straight, limit1, out1);
        const bool far = diagonal >= limit1;  // bucket k + 2
        std::uint32_t* d = far ? out2 : out1;
        const std::uint32_t limit = far ? limit2 : limit1;
        // Blocked pixels have key 0 (so has the goal, see above).
        const bool east = kCutting || e != 0;
        const bool west = kCutting || w != 0;
        const bool south = kCutting || so != 0;
        const bool north = kCutting || no != 0;
        relax(index + s + 1, se, south & east, diagonal, limit, d);
        relax(index + s - 1, sw, south & west, diagonal, limit, d);
        relax(index - s - 1, nw, north & west, diagonal, limit, d);
        relax(index - s + 1, ne, north & east, diagonal, limit, d);
        out1 = far ? out1 : d;
        out2 = far ? d : out2;
      }
      next1.resize(static_cast<std::size_t>(out1 - next1.data()));
      next2.resize(static_cast<std::size_t>(out2 - next2.data()));
      items.clear();
      pending = next1.size() + next2.size();
      ++bucket;
    }
    if constexpr (kStop) {
      if (grid[stop] < kBlocked<Word>) return RunResult::kSettled;
    } else {
      octile_write_pairs();
    }
    return RunResult::kExhausted;
  }

  template <typename Word, bool kStop>
  RunResult run_buckets_dispatch(std::size_t stop) {
    const bool eight = field.options_.connectivity == Connectivity::kEight;
    const bool cutting = field.options_.allow_corner_cutting;
    if constexpr (sizeof(Word) == 4) {
      if (octile) {
        return cutting ? run_octile_unit<kStop, true>(stop) : run_octile_unit<kStop, false>(stop);
      }
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
    if (method == Method::kBuckets32) {
      const RunResult result = to_end ? run_buckets_dispatch<std::uint32_t, false>(0)
                                      : run_buckets_dispatch<std::uint32_t, true>(stop);
      if (result == RunResult::kInterrupted) throw Interrupted();
      if (result != RunResult::kOverflow) {
        return result == RunResult::kSettled;
      }
      method = Method::kBuckets64;
      if (octile) {
        octile_to_wide();  // carry on from here
      } else {
        start_buckets<std::uint64_t>();  // start over
      }
    }
    const RunResult result = to_end ? run_buckets_dispatch<std::uint64_t, false>(0)
                                    : run_buckets_dispatch<std::uint64_t, true>(stop);
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
  if (stored.connectivity == Connectivity::kFour && unit) {
    s.method = Method::kBreadthFirst16;
    s.start_breadth_first<std::uint16_t>();
  } else {
    s.method = Method::kBuckets32;
    s.start_buckets<std::uint32_t>();
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
    case Method::kBuckets32:
      walkable = s.field.words32_[stop] != kBlocked<std::uint32_t>;
      break;
    case Method::kBuckets64:
      walkable = s.field.words64_[stop] != kBlocked<std::uint64_t>;
      break;
  }
  const bool buckets = s.method == Method::kBuckets32 || s.method == Method::kBuckets64;
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
    s.run_buckets_until(0);
    s.compact_buckets();
    std::vector<std::uint8_t>().swap(s.step_cost);
    std::vector<IndexList>().swap(s.ring);
    DistanceBuffer<std::uint32_t>().swap(s.octile_keys);
  } else {
    s.run_breadth_first_until(0);
    s.frontier = IndexList();
    s.next_frontier = IndexList();
  }
  s.done = true;
}

bool FieldBuilder::finished() const { return state_->done; }

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
