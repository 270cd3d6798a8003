#include "cache/query_caches.h"

#include <functional>

#include "cache/hash_mix.h"

namespace pathserver {
namespace {

std::size_t point_hash(pathcore::Point p) {
  return std::hash<std::uint64_t>{}(
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.x)) << 32) |
      static_cast<std::uint32_t>(p.y));
}

}  // namespace

std::size_t ComponentKeyHash::operator()(const ComponentKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  hash_mix(seed, std::hash<std::uint64_t>{}(key.revision));
  hash_mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  hash_mix(seed,
           static_cast<std::size_t>(key.connectivity) * 2 + (key.allow_corner_cutting ? 1 : 0));
  hash_mix(seed, std::hash<double>{}(key.clearance));
  return seed;
}

std::size_t RouteKeyHash::operator()(const RouteKey& key) const {
  std::size_t seed = std::hash<std::string>{}(key.mask);
  hash_mix(seed, std::hash<std::uint64_t>{}(key.revision));
  hash_mix(seed, std::hash<std::uint64_t>{}(key.enabled));
  hash_mix(seed, point_hash(key.start));
  hash_mix(seed, point_hash(key.goal));
  hash_mix(seed, static_cast<std::size_t>(key.max_moves) * 2 + (key.forbid_corner_cutting ? 1 : 0));
  return seed;
}

std::size_t PathKeyHash::operator()(const PathKey& key) const {
  std::size_t seed = FieldKeyHash{}(key.field);
  hash_mix(seed, point_hash(key.start));
  hash_mix(seed, static_cast<std::size_t>(key.smoothing) * 2 + (key.snap_to_reachable ? 1 : 0));
  return seed;
}

std::size_t RouteBytes::operator()(const pathcore::StandardMoveResult& route) const {
  return sizeof(route) + route.moves.capacity() * sizeof(pathcore::Move) +
         (route.waypoints.capacity() + route.nodes.capacity()) * sizeof(pathcore::Point);
}

std::size_t PathBytes::operator()(const pathcore::PathResult& path) const {
  return sizeof(path) + path.points.capacity() * sizeof(pathcore::Point);
}

SecondMissFilter::SecondMissFilter(std::size_t slots) {
  std::size_t size = 1;
  while (size < slots) size *= 2;
  fingerprints_ = std::make_unique<std::atomic<std::uint64_t>[]>(size);
  mask_ = size - 1;
}

bool SecondMissFilter::missed_before(std::size_t key_hash) {
  // The slot comes from the hash's high bits (Fibonacci hashing), the
  // fingerprint is the whole hash (never 0, which marks an empty slot).
  const std::uint64_t fingerprint = static_cast<std::uint64_t>(key_hash) | 1;
  const std::size_t slot =
      static_cast<std::size_t>((fingerprint * 0x9E3779B97F4A7C15ULL) >> 32) & mask_;
  return fingerprints_[slot].exchange(fingerprint, std::memory_order_relaxed) == fingerprint;
}

}  // namespace pathserver
