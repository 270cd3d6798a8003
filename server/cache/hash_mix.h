#pragma once

#include <cstddef>

namespace pathserver {

// Folds value into seed: boost::hash_combine's mixing step, widened for
// 64-bit. The cache keys' hashes combine their fields with it.
inline void hash_mix(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace pathserver
