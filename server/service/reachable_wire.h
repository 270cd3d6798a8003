#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <google/protobuf/repeated_ptr_field.h>

#include "pathcore/mask.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace pathserver {

// One PointPair of a ReachableRequest: a point a field omitted reads as absent.
struct WirePointPair {
  pathcore::Point a;
  pathcore::Point b;
  bool has_a = false;
  bool has_b = false;
};

// A pathfinding.v1.ReachableRequest, decoded straight from its wire bytes.
// Reachable requests carry up to 10,000 pairs, i.e. three nested messages per
// pair; protobuf's generated parser allocates each of them (on an arena: about
// a fifth of the server's CPU per 100-pair call), while this decoder fills
// one flat vector. It follows protobuf's wire rules exactly for these
// messages (checked against protobuf's own parser on random and mangled
// messages in tests/server/service/reachable_wire_test.cc):
//  - fields in any order; for a repeated singular scalar or string, the last
//    one wins; a repeated PointPair.a or .b is merged into the first (each of
//    its own fields again last-wins), as protobuf merges embedded messages;
//  - int32 fields arrive as 64-bit varints and are truncated to 32 bits;
//  - unknown field numbers, and known numbers with another wire type, are
//    skipped (groups included);
//  - each obstacles entry (field 6) is parsed by protobuf itself, and one
//    it cannot parse makes the request malformed, as it would there;
//  - truncated or overlong varints, lengths past the end, a stray end-group,
//    and a mask name that is not UTF-8 make the message malformed.
struct WireReachableRequest {
  std::string mask;
  std::vector<WirePointPair> pairs;  // the first max_pairs of them
  std::size_t pair_count = 0;        // every pair the message carries
  std::uint64_t enabled_areas = 0;
  std::int32_t connectivity = 0;  // the enum's number, unchecked
  std::uint64_t expected_revision = 0;
  // The request's temporary obstacles (few, and rare: parsed by protobuf).
  google::protobuf::RepeatedPtrField<pathfinding::v1::Obstacle> obstacles;
};

// Decodes `bytes` into `out` (cleared first, its storage reused). False when
// the bytes are not a valid ReachableRequest (see above). Keeps at most
// `max_pairs` pairs (the rest are checked and counted in pair_count), so a
// request of millions of empty pairs costs no more memory than its limit.
[[nodiscard]] bool decode_reachable_request(
    std::span<const std::uint8_t> bytes, WireReachableRequest& out,
    std::size_t max_pairs = std::numeric_limits<std::size_t>::max());

}  // namespace pathserver
