#include "cache/any_angle_caches.h"

#include <functional>

#include "cache/hash_mix.h"

namespace pathserver {

std::size_t AnyAngleGraphKeyHash::operator()(const AnyAngleGraphKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  hash_mix(seed, std::hash<std::uint64_t>{}(key.revision));
  hash_mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  hash_mix(seed, key.allow_corner_cutting ? 1 : 0);
  hash_mix(seed, std::hash<double>{}(key.clearance));
  return seed;
}

std::size_t AnyAngleGoalKeyHash::operator()(const AnyAngleGoalKey& key) const {
  std::size_t seed = AnyAngleGraphKeyHash{}(key.graph);
  hash_mix(seed, std::hash<std::uint64_t>{}(
                     (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.goal.x)) << 32) |
                     static_cast<std::uint32_t>(key.goal.y)));
  return seed;
}

}  // namespace pathserver
