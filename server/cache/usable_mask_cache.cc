#include "cache/usable_mask_cache.h"

#include <functional>

namespace pathserver {
namespace {

void mix(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace

std::size_t UsableMaskKeyHash::operator()(const UsableMaskKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  mix(seed, std::hash<std::uint64_t>{}(key.revision));
  mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  mix(seed, std::hash<double>{}(key.clearance));
  return seed;
}

FieldKey usable_grid_flight_key(const UsableMaskKey& key) {
  FieldKey flight;
  flight.mask = key.mask;
  flight.revision = key.revision;
  flight.enabled = key.enabled;
  flight.clearance = key.clearance;
  flight.goal = {-1, -1};
  return flight;
}

}  // namespace pathserver
