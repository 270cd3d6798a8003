#include "service/reachable_wire.h"

#include <string_view>

namespace pathserver {
namespace {

enum WireType : std::uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Protobuf's default nesting limit for messages and groups: deeper is malformed.
constexpr int kMaxDepth = 100;

// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates,
// nothing above U+10FFFF), as protobuf requires of proto3 strings.
bool valid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto* const end = p + text.size();
  while (p < end) {
    const std::uint8_t lead = *p;
    if (lead < 0x80) {
      ++p;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t low = 0x80;   // the smallest second byte allowed
    std::uint32_t high = 0xBF;  // and the largest
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
    } else {
      return false;
    }
    if (static_cast<std::size_t>(end - p) < length) return false;
    if (p[1] < low || p[1] > high) return false;
    for (std::size_t i = 2; i < length; ++i) {
      if (p[i] < 0x80 || p[i] > 0xBF) return false;
    }
    p += length;
  }
  return true;
}

// A cursor over one message's bytes.
class Reader {
 public:
  Reader(const std::uint8_t* begin, const std::uint8_t* end) : at_(begin), end_(end) {}

  [[nodiscard]] bool done() const { return at_ == end_; }

  // A varint of at most 10 bytes; bits past 64 are dropped, as protobuf does.
  bool varint(std::uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ == end_) return false;
      const std::uint8_t byte = *at_++;
      value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if (byte < 0x80) return true;
    }
    return false;
  }

  // A tag: field number and wire type. As protobuf reads them: at most 5
  // bytes, bits past 32 dropped. Field number 0 is malformed.
  bool tag(std::uint32_t& field, std::uint32_t& wire_type) {
    std::uint32_t value = 0;
    for (int i = 0; i < 5; ++i) {
      if (at_ == end_) return false;
      const std::uint8_t byte = *at_++;
      value |= static_cast<std::uint32_t>(byte & 0x7F) << (7 * i);
      if (byte < 0x80) {
        field = value >> 3;
        wire_type = value & 7;
        return field != 0;
      }
    }
    return false;
  }

  // The payload of a length-delimited field, as its own reader.
  bool sub(Reader& out) {
    std::uint64_t length = 0;
    if (!varint(length) || length > static_cast<std::uint64_t>(end_ - at_)) return false;
    out = Reader(at_, at_ + length);
    at_ += length;
    return true;
  }

  bool skip_bytes(std::size_t count) {
    if (static_cast<std::size_t>(end_ - at_) < count) return false;
    at_ += count;
    return true;
  }

  // Skips the value of an unknown field (a whole group for a start-group).
  // depth: the nesting protobuf still allows here (kMaxDepth at the top
  // level, one less per enclosing message or group).
  bool skip(std::uint32_t field, std::uint32_t wire_type, int depth) {
    switch (wire_type) {
      case kVarint: {
        std::uint64_t ignored = 0;
        return varint(ignored);
      }
      case kFixed64:
        return skip_bytes(8);
      case kLengthDelimited: {
        Reader ignored(nullptr, nullptr);
        return sub(ignored);
      }
      case kFixed32:
        return skip_bytes(4);
      case kStartGroup: {
        if (depth <= 0) return false;
        while (true) {
          std::uint32_t inner_field = 0;
          std::uint32_t inner_type = 0;
          if (!tag(inner_field, inner_type)) return false;
          if (inner_type == kEndGroup) return inner_field == field;
          if (!skip(inner_field, inner_type, depth - 1)) return false;
        }
      }
      default:  // a stray end-group, or wire types 6 and 7
        return false;
    }
  }

  std::string_view rest() const {
    return {reinterpret_cast<const char*>(at_), static_cast<std::size_t>(end_ - at_)};
  }

 private:
  const std::uint8_t* at_;
  const std::uint8_t* end_;
};

// Merges a Point message into p: x = 1, y = 2 (int32, last one wins).
bool read_point(Reader reader, pathcore::Point& p) {
  while (!reader.done()) {
    std::uint32_t field = 0;
    std::uint32_t wire_type = 0;
    if (!reader.tag(field, wire_type)) return false;
    if ((field == 1 || field == 2) && wire_type == kVarint) {
      std::uint64_t value = 0;
      if (!reader.varint(value)) return false;
      (field == 1 ? p.x : p.y) = static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
    } else if (!reader.skip(field, wire_type, kMaxDepth - 2)) {
      return false;
    }
  }
  return true;
}

// Merges a PointPair message into pair: a = 1, b = 2.
bool read_pair(Reader reader, WirePointPair& pair) {
  while (!reader.done()) {
    std::uint32_t field = 0;
    std::uint32_t wire_type = 0;
    if (!reader.tag(field, wire_type)) return false;
    if ((field == 1 || field == 2) && wire_type == kLengthDelimited) {
      Reader point(nullptr, nullptr);
      if (!reader.sub(point)) return false;
      if (field == 1) {
        pair.has_a = true;
        if (!read_point(point, pair.a)) return false;
      } else {
        pair.has_b = true;
        if (!read_point(point, pair.b)) return false;
      }
    } else if (!reader.skip(field, wire_type, kMaxDepth - 1)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool decode_reachable_request(std::span<const std::uint8_t> bytes, WireReachableRequest& out,
                              std::size_t max_pairs) {
  out.mask.clear();
  out.pairs.clear();
  out.pair_count = 0;
  out.enabled_areas = 0;
  out.connectivity = 0;
  out.expected_revision = 0;
  out.obstacles.Clear();
  Reader reader(bytes.data(), bytes.data() + bytes.size());
  while (!reader.done()) {
    std::uint32_t field = 0;
    std::uint32_t wire_type = 0;
    if (!reader.tag(field, wire_type)) return false;
    if (field == 1 && wire_type == kLengthDelimited) {
      Reader text(nullptr, nullptr);
      if (!reader.sub(text)) return false;
      const std::string_view mask = text.rest();
      if (!valid_utf8(mask)) return false;
      out.mask.assign(mask);
    } else if (field == 2 && wire_type == kLengthDelimited) {
      Reader pair(nullptr, nullptr);
      if (!reader.sub(pair)) return false;
      ++out.pair_count;
      if (out.pairs.size() < max_pairs) {
        if (!read_pair(pair, out.pairs.emplace_back())) return false;
      } else {
        WirePointPair beyond;  // checked, not kept
        if (!read_pair(pair, beyond)) return false;
      }
    } else if (field == 6 && wire_type == kLengthDelimited) {
      Reader shape(nullptr, nullptr);
      if (!reader.sub(shape)) return false;
      const std::string_view bytes = shape.rest();
      if (!out.obstacles.Add()->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        return false;
      }
    } else if ((field == 3 || field == 4 || field == 5) && wire_type == kVarint) {
      std::uint64_t value = 0;
      if (!reader.varint(value)) return false;
      if (field == 3) out.enabled_areas = value;
      if (field == 4)
        out.connectivity = static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
      if (field == 5) out.expected_revision = value;
    } else if (!reader.skip(field, wire_type, kMaxDepth)) {
      return false;
    }
  }
  return true;
}

}  // namespace pathserver
