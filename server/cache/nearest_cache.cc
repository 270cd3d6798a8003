#include "cache/nearest_cache.h"

#include <functional>

#include "cache/hash_mix.h"

namespace pathserver {

std::size_t NearestKeyHash::operator()(const NearestKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  hash_mix(seed, std::hash<std::uint64_t>{}(key.revision));
  hash_mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  hash_mix(seed, std::hash<double>{}(key.clearance));
  hash_mix(seed, std::hash<int>{}(static_cast<int>(key.connectivity)));
  hash_mix(seed, std::hash<bool>{}(key.allow_corner_cutting));
  hash_mix(seed, std::hash<std::uint32_t>{}(key.component));
  return seed;
}

}  // namespace pathserver
