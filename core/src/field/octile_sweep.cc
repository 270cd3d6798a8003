#include "octile_sweep.h"

#include <algorithm>
#include <cstring>

#include "octile_key.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PATHCORE_SWEEP_AVX2 1
#endif

namespace pathcore::octile_sweep {

#ifdef PATHCORE_SWEEP_AVX2

namespace {

using Order = OctileKey<std::uint32_t>;
constexpr std::uint32_t kStraight = Order::kQ;  // a cardinal step, in key units
constexpr std::uint32_t kDiagonal = Order::kP;  // a diagonal step
static_assert(kSweepBlocked + kDiagonal > kSweepBlocked, "a step from a sentinel must not wrap");

#define PATHCORE_AVX2 __attribute__((target("avx2")))

// Eight pixels.
using Lanes = std::uint32_t __attribute__((vector_size(32)));
constexpr std::size_t kLanes = 8;

PATHCORE_AVX2 inline Lanes load(const std::uint32_t* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
PATHCORE_AVX2 inline void store(std::uint32_t* p, Lanes v) { std::memcpy(p, &v, sizeof v); }
PATHCORE_AVX2 inline Lanes splat(std::uint32_t x) { return Lanes{} + x; }
// A lane-wise comparison's result (all ones or 0 per lane) as Lanes.
template <typename Mask>
PATHCORE_AVX2 inline Lanes ones_where(Mask condition) {
  return reinterpret_cast<Lanes>(condition);
}
PATHCORE_AVX2 inline Lanes select(Lanes mask, Lanes yes, Lanes no) {
  return (yes & mask) | (no & ~mask);
}
// True when some lane is not 0 (the three "did any lane fail" tests).
PATHCORE_AVX2 inline bool any_set(Lanes v) {
  return _mm256_testz_si256(reinterpret_cast<__m256i>(v), reinterpret_cast<__m256i>(v)) == 0;
}
PATHCORE_AVX2 inline Lanes min(Lanes a, Lanes b) {
  return reinterpret_cast<Lanes>(
      _mm256_min_epu32(reinterpret_cast<__m256i>(a), reinterpret_cast<__m256i>(b)));
}
PATHCORE_AVX2 inline Lanes max(Lanes a, Lanes b) {
  return reinterpret_cast<Lanes>(
      _mm256_max_epu32(reinterpret_cast<__m256i>(a), reinterpret_cast<__m256i>(b)));
}
// x / kQ for every 32-bit x: (x * m) >> 47 with m = ceil(2^47 / kQ) =
// 4206015611, exact while x * (m * kQ - 2^47) = x * 4343 < 2^47.
PATHCORE_AVX2 inline Lanes divide_by_q(Lanes x) {
  const __m256i multiplier = _mm256_set1_epi32(static_cast<int>(4206015611U));
  const auto xi = reinterpret_cast<__m256i>(x);
  const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(xi, multiplier), 47);
  const __m256i odd =
      _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(xi, 32), multiplier), 47);
  return reinterpret_cast<Lanes>(_mm256_or_si256(even, _mm256_slli_epi64(odd, 32)));
}

// A row's values relaxed from the row visited before it (`near`: above for
// forward sweeps, below for backward ones), into `out`. Blocked pixels keep
// their value. Without corner cutting a diagonal needs both cardinal pixels
// beside it walkable (`near`'s pixel and the row's own neighbour).
template <bool kCutting>
PATHCORE_AVX2 void relax_from_near(const std::uint32_t* cur, const std::uint32_t* near,
                                   std::uint32_t* out, std::size_t width) {
  const auto one = [&](std::uint32_t v, std::uint32_t n, std::uint32_t near_left,
                       std::uint32_t near_right, std::uint32_t left, std::uint32_t right) {
    std::uint32_t from_left = near_left + kDiagonal;
    std::uint32_t from_right = near_right + kDiagonal;
    if (!kCutting) {
      const std::uint32_t n_blocked = n >= kSweepBlocked ? ~0U : 0U;
      from_left |= n_blocked | (left >= kSweepBlocked ? ~0U : 0U);
      from_right |= n_blocked | (right >= kSweepBlocked ? ~0U : 0U);
    }
    const std::uint32_t best =
        std::min(std::min(v, n + kStraight), std::min(from_left, from_right));
    return v >= kSweepBlocked ? v : best;
  };
  const Lanes blocked = splat(kSweepBlocked);
  const Lanes straight = splat(kStraight);
  const Lanes diagonal = splat(kDiagonal);
  std::size_t x = 1;
  for (; x + kLanes <= width + 1; x += kLanes) {
    const Lanes v = load(cur + x);
    const Lanes n = load(near + x);
    // An unusable diagonal becomes all ones, which never wins.
    Lanes from_left = load(near + x - 1) + diagonal;
    Lanes from_right = load(near + x + 1) + diagonal;
    if (!kCutting) {
      const Lanes n_blocked = ones_where(n >= blocked);
      from_left |= n_blocked | ones_where(load(cur + x - 1) >= blocked);
      from_right |= n_blocked | ones_where(load(cur + x + 1) >= blocked);
    }
    const Lanes best = min(min(v, n + straight), min(from_left, from_right));
    store(out + x, select(ones_where(v >= blocked), v, best));
  }
  for (; x <= width; ++x) {
    out[x] = one(cur[x], near[x], near[x - 1], near[x + 1], cur[x - 1], cur[x + 1]);
  }
}

template <bool kForward, bool kCutting>
PATHCORE_AVX2 void sweep_rows_avx2(std::uint32_t* grid, std::uint32_t* row, std::size_t stride,
                                   std::size_t width, std::size_t height, std::size_t first,
                                   std::size_t count) {
  for (std::size_t i = first; i < first + count; ++i) {
    const std::size_t y = kForward ? i + 1 : height - i;
    std::uint32_t* const cur = grid + y * stride;
    relax_from_near<kCutting>(cur, kForward ? cur - stride : cur + stride, row, width);
    // Then along the row, from the side visited first. The chain runs in 64
    // bits: a step out of a blocked pixel adds 2^32, so the next pixel keeps
    // its own value, and a blocked pixel (own value kSweepBlocked) is never
    // lowered.
    constexpr std::uint64_t kWall = std::uint64_t{1} << 32;
    std::uint64_t chain = kSweepBlocked;
    const auto step = [&](std::size_t x) __attribute__((always_inline)) {
      const std::uint64_t own = row[x];
      chain = std::min(own, chain + (own >= kSweepBlocked ? kWall : kStraight));
      cur[x] = static_cast<std::uint32_t>(chain);
    };
    if constexpr (kForward) {
      for (std::size_t x = 1; x <= width; ++x) step(x);
    } else {
      for (std::size_t x = width; x >= 1; --x) step(x);
    }
  }
}

// All ones where the edge a - b (`usable`: its diagonal does not cut a
// corner) joins two walkable pixels and could lower one end.
PATHCORE_AVX2 inline Lanes improvable(Lanes a, Lanes b, Lanes step, Lanes usable) {
  const Lanes high = max(a, b);
  return ones_where(high < splat(kSweepBlocked)) & ones_where(high - min(a, b) > step) & usable;
}

template <bool kCutting>
PATHCORE_AVX2 bool fixed_point_avx2(const std::uint32_t* grid, std::size_t stride,
                                    std::size_t width, std::size_t height) {
  // Every edge of the padded grid, each once from its upper or left end:
  // east, south, south-east, south-west. Row ends and the padding are
  // blocked, so the flat index range [first, last] covers every pixel.
  const std::size_t first = stride + 1;
  const std::size_t last = height * stride + width;
  const Lanes blocked = splat(kSweepBlocked);
  const Lanes straight = splat(kStraight);
  const Lanes diagonal = splat(kDiagonal);
  Lanes found{};
  std::size_t i = first;
  for (; i + kLanes <= last + 1; i += kLanes) {
    const std::uint32_t* here = grid + i;
    const Lanes a = load(here);
    const Lanes east = load(here + 1);
    const Lanes south = load(here + stride);
    const Lanes everywhere = ~Lanes{};
    found |= improvable(a, east, straight, everywhere);
    found |= improvable(a, south, straight, everywhere);
    Lanes south_east_usable = everywhere;
    Lanes south_west_usable = everywhere;
    if (!kCutting) {
      const Lanes south_open = ones_where(south < blocked);
      south_east_usable = south_open & ones_where(east < blocked);
      south_west_usable = south_open & ones_where(load(here - 1) < blocked);
    }
    found |= improvable(a, load(here + stride + 1), diagonal, south_east_usable);
    found |= improvable(a, load(here + stride - 1), diagonal, south_west_usable);
    if ((i & 0xFFF) < kLanes) {  // now and then, to stop early
      if (any_set(found)) return false;
    }
  }
  if (any_set(found)) return false;
  const auto improvable_one = [](std::uint32_t a, std::uint32_t b, std::uint32_t step) {
    const std::uint32_t high = std::max(a, b);
    return high < kSweepBlocked && high - std::min(a, b) > step;
  };
  for (; i <= last; ++i) {
    const std::uint32_t* here = grid + i;
    const bool south_open = here[stride] < kSweepBlocked;
    if (improvable_one(here[0], here[1], kStraight) ||
        improvable_one(here[0], here[stride], kStraight) ||
        ((kCutting || (south_open && here[1] < kSweepBlocked)) &&
         improvable_one(here[0], here[stride + 1], kDiagonal)) ||
        ((kCutting || (south_open && here[-1] < kSweepBlocked)) &&
         improvable_one(here[0], here[stride - 1], kDiagonal))) {
      return false;
    }
  }
  return true;
}

// The field's words of eight sweep values; sets lanes of out_of_range
// where a cost does not fit them.
PATHCORE_AVX2 inline Lanes tagged_words(Lanes key, Lanes& out_of_range) {
  // Keys this close to kSweepUnreached could hide a reachable pixel left
  // unreached (an edge to it could not lower it below the sentinel), and the
  // field's words hold parts below 2^15 (the top bit marks keys).
  constexpr std::uint32_t kKeyLimit = kSweepUnreached - 2 * kDiagonal;
  constexpr std::uint32_t kPartLimit = 0x7FFF;
  const Lanes q = splat(Order::kQ);
  const Lanes unreached = splat(kSweepUnreached);
  // diagonal = key * kInverseP mod kQ, straight = (key - diagonal * kP) / kQ
  const Lanes reduced = key - divide_by_q(key) * q;  // < kQ, so * kInverseP < 2^30
  const Lanes scaled = reduced * splat(Order::kInverseP);
  const Lanes diagonal_part = scaled - divide_by_q(scaled) * q;
  const Lanes straight_part = divide_by_q(key - diagonal_part * splat(Order::kP));
  const Lanes reached = ones_where(key < unreached);
  out_of_range |= reached & (ones_where(key >= splat(kKeyLimit)) |
                             ones_where(straight_part >= splat(kPartLimit)) |
                             ones_where(diagonal_part >= splat(kPartLimit)));
  // Unreached: all ones; blocked: 0.
  return select(reached, (straight_part + 1) | (diagonal_part << 16), ones_where(key == unreached));
}

PATHCORE_AVX2 bool to_field_avx2(std::uint32_t* grid, std::size_t size) {
  Lanes out_of_range{};
  std::size_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    store(grid + i, tagged_words(load(grid + i), out_of_range));
  }
  if (i < size) {
    std::uint32_t tail[kLanes] = {};
    std::memcpy(tail, grid + i, (size - i) * sizeof(std::uint32_t));
    store(tail, tagged_words(load(tail), out_of_range));
    std::memcpy(grid + i, tail, (size - i) * sizeof(std::uint32_t));
  }
  return !any_set(out_of_range);
}

}  // namespace

bool available() { return __builtin_cpu_supports("avx2") != 0; }

void sweep_rows(bool forward, bool corner_cutting, std::uint32_t* grid, std::uint32_t* row,
                std::size_t stride, std::size_t width, std::size_t height, std::size_t first,
                std::size_t count) {
  if (forward) {
    corner_cutting ? sweep_rows_avx2<true, true>(grid, row, stride, width, height, first, count)
                   : sweep_rows_avx2<true, false>(grid, row, stride, width, height, first, count);
  } else {
    corner_cutting ? sweep_rows_avx2<false, true>(grid, row, stride, width, height, first, count)
                   : sweep_rows_avx2<false, false>(grid, row, stride, width, height, first, count);
  }
}

bool fixed_point(bool corner_cutting, const std::uint32_t* grid, std::size_t stride,
                 std::size_t width, std::size_t height) {
  return corner_cutting ? fixed_point_avx2<true>(grid, stride, width, height)
                        : fixed_point_avx2<false>(grid, stride, width, height);
}

bool to_field(std::uint32_t* grid, std::size_t size) { return to_field_avx2(grid, size); }

#else

bool available() { return false; }
void sweep_rows(bool, bool, std::uint32_t*, std::uint32_t*, std::size_t, std::size_t, std::size_t,
                std::size_t, std::size_t) {}
bool fixed_point(bool, const std::uint32_t*, std::size_t, std::size_t, std::size_t) {
  return false;
}
bool to_field(std::uint32_t*, std::size_t) { return false; }

#endif

void prepare(std::uint32_t* grid, std::size_t size, std::size_t goal_index) {
  for (std::size_t i = 0; i < size; ++i) {
    grid[i] = grid[i] == 0 ? kSweepBlocked : kSweepUnreached;
  }
  grid[goal_index] = 0;
}

}  // namespace pathcore::octile_sweep
