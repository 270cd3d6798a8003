// The hand-rolled ReachableRequest decoder against protobuf's own parser (the
// reference): on random messages with every field, repeated and merged
// fields, unknown fields of each wire type, and on many mangled byte strings,
// both must agree on whether the bytes parse and on what they hold.
#include "service/reachable_wire.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "pathfinding/v1/pathfinding.pb.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void append_tag(std::string& out, std::uint32_t field, std::uint32_t wire_type) {
  append_varint(out, (static_cast<std::uint64_t>(field) << 3) | wire_type);
}

void append_bytes_field(std::string& out, std::uint32_t field, const std::string& bytes) {
  append_tag(out, field, 2);
  append_varint(out, bytes.size());
  out += bytes;
}

// An unknown field (number 6..40, or a known number with a wrong wire type).
void append_unknown(std::mt19937_64& rng, std::string& out, int depth = 0) {
  const auto field = static_cast<std::uint32_t>(rng() % 4 == 0 ? 1 + rng() % 5 : 6 + rng() % 35);
  switch (rng() % (depth < 2 ? 5 : 4)) {
    case 0:
      append_tag(out, field, 0);
      append_varint(out, rng());
      break;
    case 1:
      append_tag(out, field, 1);
      out.append(8, static_cast<char>(rng()));
      break;
    case 2:
      append_bytes_field(out, field, std::string(rng() % 6, 'u'));
      break;
    case 3:
      append_tag(out, field, 5);
      out.append(4, static_cast<char>(rng()));
      break;
    default:
      append_tag(out, field, 3);
      append_unknown(rng, out, depth + 1);
      append_tag(out, field, 4);
      break;
  }
}

std::int64_t random_coordinate(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return static_cast<std::int64_t>(rng() % 3000);
    case 1:
      return -static_cast<std::int64_t>(rng() % 3000);  // a 10-byte varint
    case 2:
      return static_cast<std::int32_t>(rng());
    default:
      return static_cast<std::int64_t>(rng());  // truncated to 32 bits
  }
}

std::string random_point_bytes(std::mt19937_64& rng) {
  std::string bytes;
  const int fields = static_cast<int>(rng() % 4);
  for (int i = 0; i < fields; ++i) {
    if (rng() % 5 == 0) append_unknown(rng, bytes);
    append_tag(bytes, 1 + static_cast<std::uint32_t>(rng() % 2), 0);
    append_varint(bytes, static_cast<std::uint64_t>(random_coordinate(rng)));
  }
  return bytes;
}

std::string random_pair_bytes(std::mt19937_64& rng) {
  std::string bytes;
  const int fields = static_cast<int>(rng() % 4);  // 3: a field twice (merged)
  for (int i = 0; i < fields; ++i) {
    if (rng() % 6 == 0) append_unknown(rng, bytes);
    append_bytes_field(bytes, 1 + static_cast<std::uint32_t>(rng() % 2), random_point_bytes(rng));
  }
  return bytes;
}

std::string random_request_bytes(std::mt19937_64& rng) {
  static const std::vector<std::string> kNames = {
      "", "level", "maps/dungeon-3", "\xc3\xa9t\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x99\x82"};
  std::string bytes;
  const int fields = static_cast<int>(rng() % 12);
  for (int i = 0; i < fields; ++i) {
    switch (rng() % 8) {
      case 0:
        append_bytes_field(bytes, 1, kNames[rng() % kNames.size()]);
        break;
      case 1:
      case 2:
        append_bytes_field(bytes, 2, random_pair_bytes(rng));
        break;
      case 3:
        append_tag(bytes, 3, 0);
        append_varint(bytes, rng());
        break;
      case 4:
        append_tag(bytes, 4, 0);
        append_varint(bytes, static_cast<std::uint64_t>(random_coordinate(rng)));
        break;
      case 5:
        append_tag(bytes, 5, 0);
        append_varint(bytes, rng() % 1000);
        break;
      case 6:
        if (rng() % 2 == 0) {  // an obstacle: a rect, a circle, pixels, or fields unknown to it
          v1::Obstacle obstacle;
          switch (rng() % 3) {
            case 0:
              obstacle.mutable_rect()->set_x(static_cast<std::uint32_t>(rng() % 100));
              obstacle.mutable_rect()->set_width(static_cast<std::uint32_t>(rng() % 5));
              break;
            case 1:
              obstacle.mutable_circle()->set_radius(static_cast<double>(rng() % 9) / 2);
              break;
            default:
              *obstacle.mutable_pixels()->add_pixels() = v1::Point();
          }
          std::string shape = obstacle.SerializeAsString();
          if (rng() % 4 == 0) append_unknown(rng, shape);
          append_bytes_field(bytes, 6, shape);
          break;
        }
        append_unknown(rng, bytes);
        break;
      default:
        append_unknown(rng, bytes);
        break;
    }
  }
  return bytes;
}

// Parses with both; expects the same verdict and, when both parse, the same content.
void expect_same(const std::string& bytes, const std::string& what) {
  v1::ReachableRequest reference;
  const bool reference_ok = reference.ParseFromString(bytes);
  WireReachableRequest decoded;
  const bool decoded_ok = decode_reachable_request(
      std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), decoded);
  ASSERT_EQ(decoded_ok, reference_ok) << what;
  if (!decoded_ok) return;
  ASSERT_EQ(decoded.mask, reference.mask()) << what;
  ASSERT_EQ(decoded.enabled_areas, reference.enabled_areas()) << what;
  ASSERT_EQ(decoded.connectivity, static_cast<std::int32_t>(reference.connectivity())) << what;
  ASSERT_EQ(decoded.expected_revision, reference.expected_revision()) << what;
  ASSERT_EQ(decoded.obstacles.size(), reference.obstacles_size()) << what;
  for (int i = 0; i < reference.obstacles_size(); ++i) {
    ASSERT_EQ(decoded.obstacles[i].SerializeAsString(), reference.obstacles(i).SerializeAsString())
        << what << " obstacle " << i;
  }
  ASSERT_EQ(decoded.pairs.size(), static_cast<std::size_t>(reference.pairs_size())) << what;
  for (int i = 0; i < reference.pairs_size(); ++i) {
    const v1::PointPair& want = reference.pairs(i);
    const WirePointPair& got = decoded.pairs[static_cast<std::size_t>(i)];
    ASSERT_EQ(got.has_a, want.has_a()) << what << " pair " << i;
    ASSERT_EQ(got.has_b, want.has_b()) << what << " pair " << i;
    ASSERT_EQ(got.a.x, want.a().x()) << what << " pair " << i;
    ASSERT_EQ(got.a.y, want.a().y()) << what << " pair " << i;
    ASSERT_EQ(got.b.x, want.b().x()) << what << " pair " << i;
    ASSERT_EQ(got.b.y, want.b().y()) << what << " pair " << i;
  }
}

TEST(ReachableWire, DecodesWhatProtobufSerializes) {
  v1::ReachableRequest request;
  request.set_mask("level");
  request.set_enabled_areas(6);
  request.set_connectivity(v1::CONNECTIVITY_EIGHT);
  request.set_expected_revision(7);
  for (int i = 0; i < 100; ++i) {
    auto* pair = request.add_pairs();
    pair->mutable_a()->set_x(i);
    pair->mutable_a()->set_y(-i);
    if (i % 3 != 0) pair->mutable_b()->set_x(1000 + i);  // b absent every third pair
  }
  const std::string bytes = request.SerializeAsString();
  WireReachableRequest decoded;
  ASSERT_TRUE(decode_reachable_request(
      std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), decoded));
  EXPECT_EQ(decoded.mask, "level");
  EXPECT_EQ(decoded.connectivity, 2);
  ASSERT_EQ(decoded.pairs.size(), 100U);
  EXPECT_EQ(decoded.pairs[5].a.y, -5);
  EXPECT_FALSE(decoded.pairs[3].has_b);
  EXPECT_TRUE(decoded.pairs[4].has_b);
  EXPECT_EQ(decoded.pairs[4].b.x, 1004);
  expect_same(bytes, "serialized");
}

TEST(ReachableWire, AgreesWithProtobufOnRandomMessages) {
  std::mt19937_64 rng(0x5eed0777);
  for (int round = 0; round < 20000; ++round) {
    expect_same(random_request_bytes(rng), "round " + std::to_string(round));
  }
}

// Truncations, flipped bytes, inserted and deleted bytes: most no longer
// parse, some still do (with other content); both parsers must say the same.
TEST(ReachableWire, AgreesWithProtobufOnMangledBytes) {
  const google::protobuf::LogSilencer quiet;  // protobuf logs every non-UTF-8 string it refuses
  std::mt19937_64 rng(0x5eed0778);
  int still_parse = 0;
  for (int round = 0; round < 60000; ++round) {
    std::string bytes = random_request_bytes(rng);
    if (bytes.empty()) continue;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      const std::size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0:
          bytes.resize(at);
          break;
        case 1:
          bytes[at] = static_cast<char>(rng());
          break;
        case 2:
          bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng()));
          break;
        default:
          bytes.erase(at, 1);
          break;
      }
    }
    v1::ReachableRequest probe;
    still_parse += probe.ParseFromString(bytes) ? 1 : 0;
    expect_same(bytes, "mangled round " + std::to_string(round));
  }
  EXPECT_GT(still_parse, 1000);  // both verdicts were exercised
}

TEST(ReachableWire, MalformedInputsAreRefused) {
  const auto decodes = [](const std::string& bytes) {
    WireReachableRequest out;
    return decode_reachable_request(
        std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), out);
  };
  EXPECT_TRUE(decodes(""));
  EXPECT_FALSE(decodes(std::string("\x0a\x05lev", 5)));       // length past the end
  EXPECT_FALSE(decodes(std::string("\x0a\x02\xc3\x28", 4)));  // mask not UTF-8
  EXPECT_FALSE(decodes(std::string("\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12)));
  EXPECT_FALSE(decodes(std::string("\x00", 1)));      // field number 0
  EXPECT_FALSE(decodes(std::string("\x0c", 1)));      // stray end-group
  EXPECT_FALSE(decodes(std::string("\x0b\x14", 2)));  // group closed by another number
  EXPECT_TRUE(decodes(std::string("\x0b\x0c", 2)));   // an empty unknown group
  EXPECT_FALSE(decodes(std::string("\x0e", 1)));      // wire type 6
}

}  // namespace
}  // namespace pathserver
