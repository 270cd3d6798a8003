#pragma once

#include <cstdint>

namespace pathcore {

// Order keys of the unit-cost octile fills (FieldBuilder::State's
// run_octile_inplace, and octile_sweep): key = straight * kQ + diagonal * kP, where kP / kQ is a
// convergent of sqrt 2 with kP^2 - 2 kQ^2 = -1. For parts below kQ the key
// orders distinct pairs exactly as straight + diagonal * sqrt 2 does and
// never ties: for 0 < |db| < kQ the best approximation property gives
// kQ |da + db sqrt 2| >= kQ |p' - q' sqrt 2| = 0.85, where p' / q' =
// kInverseP / (kQ - kInverseP) is the previous convergent, while the error
// |db (kP - kQ sqrt 2)| < kQ / (kP + kQ sqrt 2) = 0.35 (both figures to two
// digits for either pair below; the 32-bit one also checked exhaustively).
// The pair comes back exactly from the key: kP^2 = -1 mod kQ, so diagonal =
// key * kInverseP mod kQ with kInverseP = 2 kQ - kP, the previous
// convergent's numerator.
template <typename Key>
struct OctileKey;

// Parts below 33461 (costs up to about 33,000): keys below 2^31.
template <>
struct OctileKey<std::uint32_t> {
  static constexpr std::uint32_t kP = 47321;
  static constexpr std::uint32_t kQ = 33461;
  static constexpr std::uint32_t kInverseP = 19601;  // P * 19601 = 1 mod Q
  // The 16 + 16 bit pair of a key.
  static std::uint32_t pair(std::uint32_t key) {
    const std::uint32_t diagonal_part = key % kQ * kInverseP % kQ;
    const std::uint32_t straight_part = (key - diagonal_part * kP) / kQ;
    return straight_part | (diagonal_part << 16);
  }
};

// Parts below 1311738121 (every mask of fewer walkable pixels: a part counts
// the steps of a simple path): keys below (kQ - 1) (kP + kQ) < 2^62.
template <>
struct OctileKey<std::uint64_t> {
  static constexpr std::uint64_t kP = 1855077841;
  static constexpr std::uint64_t kQ = 1311738121;
  static constexpr std::uint64_t kInverseP = 768398401;  // P * 768398401 = 1 mod Q
  // The 32 + 32 bit pair of a key (divisions by constants: multiplications).
  static std::uint64_t pair(std::uint64_t key) {
    const std::uint64_t diagonal_part = key % kQ * kInverseP % kQ;  // < 2^31 * 2^30
    const std::uint64_t straight_part = (key - diagonal_part * kP) / kQ;
    return straight_part | (diagonal_part << 32);
  }
};

}  // namespace pathcore
