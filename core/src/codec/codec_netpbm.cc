// PGM (P2 plain, P5 binary) and PBM (P1 plain, P4 binary) decoding.
#include <cstdint>
#include <limits>
#include <string>

#include "codec_internal.h"

namespace pathcore::codec_internal {
namespace {

constexpr std::uint32_t kMaxMaxval = 65535;

bool is_space(std::uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_digit(std::uint8_t c) { return c >= '0' && c <= '9'; }

std::string describe_byte(std::uint8_t c) {
  if (c >= 0x21 && c <= 0x7E) {
    return std::string("'") + static_cast<char>(c) + "'";
  }
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 0xF];
}

// Walks the bytes of a Netpbm image.
class Cursor {
 public:
  Cursor(Bytes bytes, const char* format) : bytes_(bytes), format_(format) {}

  [[nodiscard]] std::size_t offset() const { return pos_; }
  [[nodiscard]] std::size_t remaining() const { return bytes_.size() - pos_; }
  [[nodiscard]] bool at_end() const { return pos_ >= bytes_.size(); }
  [[nodiscard]] std::uint8_t peek() const { return bytes_[pos_]; }
  std::uint8_t next() { return bytes_[pos_++]; }

  // Skips whitespace and '#' comments (which run to the end of the line).
  void skip_space() {
    while (!at_end()) {
      if (peek() == '#') {
        while (!at_end() && peek() != '\n' && peek() != '\r') {
          ++pos_;
        }
      } else if (is_space(peek())) {
        ++pos_;
      } else {
        return;
      }
    }
  }

  // A header field: whitespace/comments, then a decimal number. Values above
  // `limit` are reported by the caller; they saturate at limit + 1 here.
  std::uint64_t header_number(const char* field, std::uint64_t limit) {
    const std::size_t before = pos_;
    skip_space();
    if (at_end()) {
      fail(std::string(format_) + " header truncated: missing the " + field);
    }
    if (pos_ == before) {
      fail(std::string(format_) + " header needs whitespace before the " + field);
    }
    if (!is_digit(peek())) {
      fail(std::string(format_) + " header has " + describe_byte(peek()) + " where the " + field +
           " was expected");
    }
    return digits(limit);
  }

  // Decimal digits at the cursor, saturating at limit + 1.
  std::uint64_t digits(std::uint64_t limit) {
    std::uint64_t value = 0;
    while (!at_end() && is_digit(peek())) {
      value = value * 10 + (next() - '0');
      if (value > limit) {
        value = limit + 1;
      }
    }
    return value;
  }

 private:
  Bytes bytes_;
  const char* format_;
  std::size_t pos_ = 0;
};

std::uint32_t read_dimension(Cursor& cursor, const char* format, const char* field) {
  constexpr std::uint64_t kLimit = std::numeric_limits<std::uint32_t>::max();
  const std::uint64_t value = cursor.header_number(field, kLimit);
  if (value > kLimit) {
    throw DecodeError(DecodeError::Kind::kTooLarge, std::string(format) + " header declares a " +
                                                        field + " above " + std::to_string(kLimit) +
                                                        " pixels");
  }
  return static_cast<std::uint32_t>(value);
}

// After the last header field of a binary image: exactly one whitespace
// character (or a comment ending in a newline) before the raster.
void skip_raster_separator(Cursor& cursor, const char* format) {
  if (cursor.at_end()) {
    return;  // the raster size check reports the missing data
  }
  if (cursor.peek() == '#') {
    while (!cursor.at_end() && cursor.peek() != '\n') {
      cursor.next();
    }
    if (!cursor.at_end()) {
      cursor.next();
    }
    return;
  }
  if (!is_space(cursor.peek())) {
    fail(std::string(format) + " header must end with whitespace before the pixels, found " +
         describe_byte(cursor.peek()));
  }
  cursor.next();
}

Mask decode_pgm(Cursor& cursor, bool plain, const DecodeOptions& options) {
  const std::uint32_t width = read_dimension(cursor, "PGM", "width");
  const std::uint32_t height = read_dimension(cursor, "PGM", "height");
  check_dimensions(width, height, options.max_pixels);
  const std::uint64_t maxval = cursor.header_number("maxval", kMaxMaxval);
  if (maxval == 0 || maxval > kMaxMaxval) {
    fail("PGM maxval " +
         (maxval > kMaxMaxval ? "above " + std::to_string(kMaxMaxval) : std::to_string(maxval)) +
         " is out of range 1.." + std::to_string(kMaxMaxval));
  }
  const std::uint64_t pixels = std::uint64_t{width} * height;
  const PixelRule rule = options.rule == PixelRule::kAuto ? PixelRule::kIndex : options.rule;
  const std::vector<std::uint8_t> table =
      grey_table(rule, static_cast<std::uint32_t>(maxval), GreyTo8::kScale, options.palette);
  UnmappedColours unmapped;

  auto to_area = [&](std::uint64_t value, std::uint64_t index) -> std::uint8_t {
    const std::uint32_t x = static_cast<std::uint32_t>(index % width);
    const std::uint32_t y = static_cast<std::uint32_t>(index / width);
    if (value > maxval) {
      fail("PGM sample " +
           (value > kMaxMaxval ? "above " + std::to_string(kMaxMaxval) : std::to_string(value)) +
           " at " + position(x, y) + " exceeds the maxval " + std::to_string(maxval));
    }
    const std::uint8_t area = table[value];
    if (area == kUnmappedColour) {
      unmapped.add(grey_colour(static_cast<std::uint32_t>(value),
                               static_cast<std::uint32_t>(maxval), GreyTo8::kScale),
                   x, y);
      return 0;
    }
    if (area > kMaxAreaId) {
      fail(grey_too_large_message(static_cast<std::uint32_t>(value), x, y));
    }
    return area;
  };

  if (!plain) {
    skip_raster_separator(cursor, "PGM");
    const std::uint64_t sample_bytes = maxval > 255 ? 2 : 1;
    const std::uint64_t expected = pixels * sample_bytes;
    if (cursor.remaining() < expected) {
      fail("PGM data truncated: expected " + std::to_string(expected) + " bytes of pixels, got " +
           std::to_string(cursor.remaining()));
    }
    // Bytes after the raster are ignored: a Netpbm file may hold more images.
    std::vector<std::uint8_t> areas(pixels);
    for (std::uint64_t i = 0; i < pixels; ++i) {
      std::uint64_t value = cursor.next();
      if (sample_bytes == 2) {
        value = (value << 8) | cursor.next();
      }
      areas[i] = to_area(value, i);
    }
    unmapped.check(options.block_unmapped);
    return Mask(width, height, std::move(areas));
  }

  // Plain: each sample is at least one digit, separated by whitespace.
  if ((cursor.remaining() + 1) / 2 < pixels) {
    fail("PGM data truncated: expected " + std::to_string(pixels) + " pixels, but only " +
         std::to_string(cursor.remaining()) + " bytes follow the header");
  }
  std::vector<std::uint8_t> areas(pixels);
  for (std::uint64_t i = 0; i < pixels; ++i) {
    cursor.skip_space();
    if (cursor.at_end()) {
      fail("PGM data truncated: expected " + std::to_string(pixels) + " pixels, got " +
           std::to_string(i));
    }
    if (!is_digit(cursor.peek())) {
      fail("PGM data has " + describe_byte(cursor.peek()) + " at byte " +
           std::to_string(cursor.offset()) + " where a sample was expected");
    }
    areas[i] = to_area(cursor.digits(kMaxMaxval), i);
  }
  unmapped.check(options.block_unmapped);
  return Mask(width, height, std::move(areas));
}

// A PBM bit is 1 for black, 0 for white. Read as a 1-bit greyscale image
// (black 0, white 1), so under INDEX, NONZERO and BLUE_BIT7 white is area 1
// and black area 0; under PALETTE the colours are 0xffffff and 0x000000.
Mask decode_pbm(Cursor& cursor, bool plain, const DecodeOptions& options) {
  const std::uint32_t width = read_dimension(cursor, "PBM", "width");
  const std::uint32_t height = read_dimension(cursor, "PBM", "height");
  check_dimensions(width, height, options.max_pixels);
  const std::uint64_t pixels = std::uint64_t{width} * height;
  const PixelRule rule = options.rule == PixelRule::kAuto ? PixelRule::kIndex : options.rule;
  const std::vector<std::uint8_t> grey = grey_table(rule, 1, GreyTo8::kScale, options.palette);
  const std::uint8_t white = grey[1];
  const std::uint8_t black = grey[0];
  UnmappedColours unmapped;
  auto area_of = [&](bool black_bit, std::uint64_t index) -> std::uint8_t {
    const std::uint8_t area = black_bit ? black : white;
    if (area != kUnmappedColour) return area;
    unmapped.add(black_bit ? 0x000000U : 0xFFFFFFU, index % width, index / width);
    return 0;
  };

  if (!plain) {
    skip_raster_separator(cursor, "PBM");
    const std::uint64_t row_bytes = (std::uint64_t{width} + 7) / 8;
    const std::uint64_t expected = row_bytes * height;
    if (cursor.remaining() < expected) {
      fail("PBM data truncated: expected " + std::to_string(expected) + " bytes of pixels, got " +
           std::to_string(cursor.remaining()));
    }
    std::vector<std::uint8_t> areas(pixels);
    std::uint64_t i = 0;
    for (std::uint32_t y = 0; y < height; ++y) {
      std::uint8_t bits = 0;
      for (std::uint32_t x = 0; x < width; ++x) {
        if (x % 8 == 0) {
          bits = cursor.next();
        }
        areas[i] = area_of((bits & (0x80U >> (x % 8))) != 0, i);
        ++i;
      }
    }
    unmapped.check(options.block_unmapped);
    return Mask(width, height, std::move(areas));
  }

  // Plain: one '0' or '1' per pixel; whitespace between them is optional.
  if (cursor.remaining() < pixels) {
    fail("PBM data truncated: expected " + std::to_string(pixels) + " pixels, but only " +
         std::to_string(cursor.remaining()) + " bytes follow the header");
  }
  std::vector<std::uint8_t> areas(pixels);
  for (std::uint64_t i = 0; i < pixels; ++i) {
    cursor.skip_space();
    if (cursor.at_end()) {
      fail("PBM data truncated: expected " + std::to_string(pixels) + " pixels, got " +
           std::to_string(i));
    }
    const std::uint8_t c = cursor.peek();
    if (c != '0' && c != '1') {
      fail("PBM data has " + describe_byte(c) + " at byte " + std::to_string(cursor.offset()) +
           " where a 0 or 1 was expected");
    }
    cursor.next();
    areas[i] = area_of(c == '1', i);
  }
  unmapped.check(options.block_unmapped);
  return Mask(width, height, std::move(areas));
}

}  // namespace

Mask decode_netpbm(Bytes bytes, const DecodeOptions& options) {
  // PGM and PBM share one decoder: the magic number decides, whichever of
  // the two formats was asked for.
  const char kind = bytes.size() >= 2 && bytes[0] == 'P' ? static_cast<char>(bytes[1]) : 0;
  switch (kind) {
    case '1':
    case '4': {
      Cursor cursor(bytes, "PBM");
      cursor.next();
      cursor.next();
      return decode_pbm(cursor, kind == '1', options);
    }
    case '2':
    case '5': {
      Cursor cursor(bytes, "PGM");
      cursor.next();
      cursor.next();
      return decode_pgm(cursor, kind == '2', options);
    }
    case '3':
    case '6':
      fail("PPM colour images are not supported; use PNG");
    case '7':
      fail("PAM images are not supported; use PNG");
    default:
      fail("not a PGM or PBM image: the magic number P1, P2, P4 or P5 is missing");
  }
}

}  // namespace pathcore::codec_internal
