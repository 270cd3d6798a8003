#include "cache/any_angle_caches.h"

#include <functional>

namespace pathserver {
namespace {

void mix(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace

std::size_t AnyAngleGraphKeyHash::operator()(const AnyAngleGraphKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  mix(seed, std::hash<std::uint64_t>{}(key.revision));
  mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  mix(seed, key.allow_corner_cutting ? 1 : 0);
  mix(seed, std::hash<double>{}(key.clearance));
  return seed;
}

std::size_t AnyAngleGoalKeyHash::operator()(const AnyAngleGoalKey& key) const {
  std::size_t seed = AnyAngleGraphKeyHash{}(key.graph);
  mix(seed, std::hash<std::uint64_t>{}(
                (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.goal.x)) << 32) |
                static_cast<std::uint32_t>(key.goal.y)));
  return seed;
}

}  // namespace pathserver
