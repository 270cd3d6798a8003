#include "cache/usable_mask_cache.h"

#include <functional>

#include "cache/hash_mix.h"

namespace pathserver {

std::size_t UsableMaskKeyHash::operator()(const UsableMaskKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  hash_mix(seed, std::hash<std::uint64_t>{}(key.revision));
  hash_mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  hash_mix(seed, std::hash<double>{}(key.clearance));
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
