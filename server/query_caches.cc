#include "query_caches.h"

#include <functional>

namespace pathserver {
namespace {

void mix(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

std::size_t point_hash(pathcore::Point p) {
  return std::hash<std::uint64_t>{}(
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.x)) << 32) |
      static_cast<std::uint32_t>(p.y));
}

}  // namespace

std::size_t ComponentKeyHash::operator()(const ComponentKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  mix(seed, std::hash<std::uint64_t>{}(key.revision));
  mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  mix(seed, static_cast<std::size_t>(key.connectivity) * 2 + (key.allow_corner_cutting ? 1 : 0));
  return seed;
}

std::size_t RouteKeyHash::operator()(const RouteKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  mix(seed, std::hash<std::uint64_t>{}(key.revision));
  mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  mix(seed, point_hash(key.start));
  mix(seed, point_hash(key.goal));
  mix(seed, static_cast<std::size_t>(key.max_moves) * 2 + (key.forbid_corner_cutting ? 1 : 0));
  return seed;
}

std::size_t PathKeyHash::operator()(const PathKey& key) const {
  std::size_t seed = FieldKeyHash{}(key.field);
  mix(seed, point_hash(key.start));
  mix(seed, static_cast<std::size_t>(key.smoothing) * 2 + (key.snap_to_reachable ? 1 : 0));
  return seed;
}

}  // namespace pathserver
