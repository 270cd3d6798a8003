#include "cache/any_angle_caches.h"

#include <functional>
#include <string>

#include "cache/hash_mix.h"

namespace pathserver {

std::size_t AnyAngleMeshKeyHash::operator()(const AnyAngleMeshKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  hash_mix(seed, std::hash<std::uint64_t>{}(key.revision));
  hash_mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  hash_mix(seed, key.allow_corner_cutting ? 1 : 0);
  hash_mix(seed, std::hash<double>{}(key.clearance));
  return seed;
}

FieldKey any_angle_structure_flight_key(const AnyAngleMeshKey& key) {
  FieldKey flight;
  flight.mask = key.mask;
  flight.revision = key.revision;
  flight.enabled = key.enabled;
  flight.allow_corner_cutting = key.allow_corner_cutting;
  flight.clearance = key.clearance;
  flight.goal = {-2, -2};  // usable grids' flights have {-1, -1}
  return flight;
}

std::string any_angle_structure_name(const AnyAngleMeshKey& key) {
  std::string name =
      "any-angle structure for mask '" + key.mask + "' rev " + std::to_string(key.revision);
  if (key.clearance != 0) name += " (clearance " + std::to_string(key.clearance) + ")";
  return name;
}

}  // namespace pathserver
