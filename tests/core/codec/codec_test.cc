#include "pathcore/codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/random_mask.h"

namespace pathcore {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Bytes = std::vector<std::uint8_t>;

// ------------------------------------------------------------------------
// An independent PNG writer: no libpng, no zlib. Deflate "stored" blocks,
// CRC-32 and Adler-32 by hand, so the decoder is tested against the format
// rather than against the library it uses.

std::uint32_t crc32(const std::uint8_t* data, std::size_t size, std::uint32_t crc = 0) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) {
        c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
      }
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) {
    crc = table[(crc ^ data[i]) & 0xFFU] ^ (crc >> 8);
  }
  return ~crc;
}

void put_be32(Bytes& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<std::uint8_t>(value >> shift));
  }
}

void set_be32(Bytes& out, std::size_t at, std::uint32_t value) {
  for (std::size_t i = 0; i < 4; ++i) {
    out[at + i] = static_cast<std::uint8_t>(value >> (24 - 8 * i));
  }
}

// Length, type, data, CRC. (Filled by index: GCC 12 at -O2 reports false
// overflows for the push_back version.)
Bytes png_chunk(std::string_view type, const Bytes& data) {
  Bytes chunk(12 + data.size());
  set_be32(chunk, 0, static_cast<std::uint32_t>(data.size()));
  std::copy(type.begin(), type.end(), chunk.begin() + 4);
  std::copy(data.begin(), data.end(), chunk.begin() + 8);
  set_be32(chunk, 8 + data.size(), crc32(chunk.data() + 4, 4 + data.size()));
  return chunk;
}

const Bytes kPngSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

Bytes zlib_stored(const Bytes& data) {
  Bytes out = {0x78, 0x01};
  std::size_t pos = 0;
  do {
    const std::size_t n = std::min<std::size_t>(65535, data.size() - pos);
    const bool last = pos + n == data.size();
    out.push_back(last ? 1 : 0);
    out.push_back(static_cast<std::uint8_t>(n & 0xFF));
    out.push_back(static_cast<std::uint8_t>(n >> 8));
    out.push_back(static_cast<std::uint8_t>(~n & 0xFF));
    out.push_back(static_cast<std::uint8_t>((~n >> 8) & 0xFF));
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(pos),
               data.begin() + static_cast<std::ptrdiff_t>(pos + n));
    pos += n;
  } while (pos < data.size());
  std::uint32_t a = 1;
  std::uint32_t b = 0;
  for (const std::uint8_t byte : data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  put_be32(out, (b << 16) | a);
  return out;
}

enum ColourType : int { kGrey = 0, kRgb = 2, kPaletted = 3, kGreyAlpha = 4, kRgba = 6 };

int channels_of(int colour_type) {
  switch (colour_type) {
    case kGreyAlpha:
      return 2;
    case kRgb:
      return 3;
    case kRgba:
      return 4;
    default:
      return 1;
  }
}

struct TestPng {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  int colour_type = kGrey;
  int bit_depth = 8;
  std::vector<std::uint32_t> samples;  // width*height*channels, row-major, unpacked
  std::vector<std::array<std::uint8_t, 3>> palette;
  Bytes trns;  // the raw tRNS payload, if any
  bool interlaced = false;
  std::size_t idat_size = 0;  // > 0: split the data into IDAT chunks of this size
};

// Packs the given pixels (indices into a row) as one filtered scanline.
void append_scanline(const TestPng& png, std::uint32_t y, std::uint32_t x0, std::uint32_t dx,
                     Bytes& out) {
  out.push_back(0);  // filter: none
  const int channels = channels_of(png.colour_type);
  std::uint32_t bit_buffer = 0;
  int bits = 0;
  for (std::uint32_t x = x0; x < png.width; x += dx) {
    for (int c = 0; c < channels; ++c) {
      const std::uint32_t v = png.samples[(std::size_t{y} * png.width + x) * channels + c];
      if (png.bit_depth == 16) {
        out.push_back(static_cast<std::uint8_t>(v >> 8));
        out.push_back(static_cast<std::uint8_t>(v & 0xFF));
      } else if (png.bit_depth == 8) {
        out.push_back(static_cast<std::uint8_t>(v));
      } else {
        bit_buffer = (bit_buffer << png.bit_depth) | v;
        bits += png.bit_depth;
        if (bits == 8) {
          out.push_back(static_cast<std::uint8_t>(bit_buffer));
          bit_buffer = 0;
          bits = 0;
        }
      }
    }
  }
  if (bits > 0) {
    out.push_back(static_cast<std::uint8_t>(bit_buffer << (8 - bits)));
  }
}

Bytes write_png(const TestPng& png) {
  Bytes raw;
  if (!png.interlaced) {
    for (std::uint32_t y = 0; y < png.height; ++y) {
      append_scanline(png, y, 0, 1, raw);
    }
  } else {
    // Adam7: x0, y0, dx, dy per pass.
    constexpr std::array<std::array<std::uint32_t, 4>, 7> kPasses = {{{0, 0, 8, 8},
                                                                      {4, 0, 8, 8},
                                                                      {0, 4, 4, 8},
                                                                      {2, 0, 4, 4},
                                                                      {0, 2, 2, 4},
                                                                      {1, 0, 2, 2},
                                                                      {0, 1, 1, 2}}};
    for (const auto& [x0, y0, dx, dy] : kPasses) {
      if (x0 >= png.width || y0 >= png.height) {
        continue;  // an empty pass has no scanlines at all
      }
      for (std::uint32_t y = y0; y < png.height; y += dy) {
        append_scanline(png, y, x0, dx, raw);
      }
    }
  }
  Bytes out = kPngSignature;
  Bytes ihdr;
  put_be32(ihdr, png.width);
  put_be32(ihdr, png.height);
  ihdr.push_back(static_cast<std::uint8_t>(png.bit_depth));
  ihdr.push_back(static_cast<std::uint8_t>(png.colour_type));
  ihdr.push_back(0);
  ihdr.push_back(0);
  ihdr.push_back(png.interlaced ? 1 : 0);
  const auto append = [&out](const Bytes& chunk) {
    out.insert(out.end(), chunk.begin(), chunk.end());
  };
  append(png_chunk("IHDR", ihdr));
  if (!png.palette.empty()) {
    Bytes plte;
    for (const auto& colour : png.palette) {
      plte.insert(plte.end(), colour.begin(), colour.end());
    }
    append(png_chunk("PLTE", plte));
  }
  if (!png.trns.empty()) {
    append(png_chunk("tRNS", png.trns));
  }
  const Bytes compressed = zlib_stored(raw);
  const std::size_t piece = png.idat_size > 0 ? png.idat_size : compressed.size();
  for (std::size_t pos = 0; pos < compressed.size(); pos += piece) {
    const std::size_t n = std::min(piece, compressed.size() - pos);
    append(png_chunk("IDAT", Bytes(compressed.begin() + static_cast<std::ptrdiff_t>(pos),
                                   compressed.begin() + static_cast<std::ptrdiff_t>(pos + n))));
  }
  append(png_chunk("IEND", {}));
  return out;
}

// A 16-bit tRNS value for a grey image, or three for RGB.
Bytes trns16(std::initializer_list<std::uint32_t> values) {
  Bytes out;
  for (const std::uint32_t v : values) {
    out.push_back(static_cast<std::uint8_t>(v >> 8));
    out.push_back(static_cast<std::uint8_t>(v & 0xFF));
  }
  return out;
}

// ------------------------------------------------------------------------
// Helpers

Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }

DecodeOptions with_rule(PixelRule rule) {
  DecodeOptions options;
  options.rule = rule;
  return options;
}

Mask decode(const Bytes& bytes, const DecodeOptions& options = {}) {
  return decode_mask(bytes, options);
}

// The message of the DecodeError that decoding throws; fails the test when
// it does not throw, or throws another kind.
std::string decode_error(const Bytes& bytes, const DecodeOptions& options = {},
                         DecodeError::Kind kind = DecodeError::Kind::kInvalid) {
  try {
    (void)decode_mask(bytes, options);
  } catch (const DecodeError& error) {
    EXPECT_EQ(error.kind(), kind) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "decoded without an error";
  return "";
}

std::vector<std::uint8_t> areas_of(const Mask& mask) { return mask.areas(); }

TestPng grey_png(std::uint32_t width, std::uint32_t height, int bit_depth,
                 std::vector<std::uint32_t> values) {
  TestPng png;
  png.width = width;
  png.height = height;
  png.colour_type = kGrey;
  png.bit_depth = bit_depth;
  png.samples = std::move(values);
  return png;
}

// ------------------------------------------------------------------------
// PNG: greyscale

TEST(MaskCodecPng, GreyEveryBitDepthIsTheAreaIdUnderIndexAndAuto) {
  struct Case {
    int bit_depth;
    std::vector<std::uint32_t> values;  // 5x2, all <= 63 and within the depth
  };
  const std::vector<Case> cases = {
      {1, {0, 1, 1, 0, 1, 1, 0, 0, 0, 1}},    {2, {0, 1, 2, 3, 0, 3, 2, 1, 0, 1}},
      {4, {0, 15, 7, 8, 1, 2, 3, 14, 9, 0}},  {8, {0, 63, 1, 2, 40, 5, 6, 7, 8, 9}},
      {16, {0, 63, 1, 2, 40, 5, 6, 7, 8, 9}},
  };
  for (const auto& c : cases) {
    for (const bool interlaced : {false, true}) {
      SCOPED_TRACE("bit depth " + std::to_string(c.bit_depth) + (interlaced ? " interlaced" : ""));
      TestPng png = grey_png(5, 2, c.bit_depth, c.values);
      png.interlaced = interlaced;
      const Bytes bytes = write_png(png);
      const std::vector<std::uint8_t> expected(c.values.begin(), c.values.end());
      const Mask automatic = decode(bytes);
      EXPECT_EQ(automatic.width(), 5U);
      EXPECT_EQ(automatic.height(), 2U);
      EXPECT_EQ(areas_of(automatic), expected);
      EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kIndex))), expected);
    }
  }
}

TEST(MaskCodecPng, GreyIndexAboveLargestAreaIdNamesValueAndPosition) {
  std::vector<std::uint32_t> values(4 * 2, 1);
  values[3] = 200;  // (3,0)
  EXPECT_THAT(decode_error(write_png(grey_png(4, 2, 8, values))),
              StartsWith("grey value 200 at (3,0) exceeds the largest area id 63"));
  // 16 bits: the whole value counts, so 256 is too large although its low byte is 0.
  std::vector<std::uint32_t> wide(4 * 2, 1);
  wide[5] = 256;  // (1,1)
  EXPECT_THAT(decode_error(write_png(grey_png(4, 2, 16, wide))),
              StartsWith("grey value 256 at (1,1) exceeds the largest area id 63"));
  // 4-bit values fit, 8-bit 64 does not.
  std::vector<std::uint32_t> just_over(4 * 2, 63);
  just_over[7] = 64;
  EXPECT_THAT(decode_error(write_png(grey_png(4, 2, 8, just_over))),
              HasSubstr("grey value 64 at (3,1)"));
}

TEST(MaskCodecPng, GreyNonZeroBlueBit7AndPalette) {
  // 8-bit: NONZERO is any non-zero grey; BLUE_BIT7 is bit 7 of the grey.
  const Bytes eight = write_png(grey_png(6, 1, 8, {0, 1, 127, 128, 200, 255}));
  EXPECT_EQ(areas_of(decode(eight, with_rule(PixelRule::kNonZero))),
            (std::vector<std::uint8_t>{0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(areas_of(decode(eight, with_rule(PixelRule::kBlueBit7))),
            (std::vector<std::uint8_t>{0, 0, 0, 1, 1, 1}));
  DecodeOptions palette = with_rule(PixelRule::kPalette);
  palette.palette = {{0x808080, 5}, {0xFFFFFF, 63}, {0x010101, 2}};
  palette.block_unmapped = true;  // colours not listed: area 0
  EXPECT_EQ(areas_of(decode(eight, palette)), (std::vector<std::uint8_t>{0, 2, 0, 5, 0, 63}));

  // 2-bit grey scales to 0, 85, 170, 255: bit 7 set for the upper two.
  const Bytes two = write_png(grey_png(4, 1, 2, {0, 1, 2, 3}));
  EXPECT_EQ(areas_of(decode(two, with_rule(PixelRule::kBlueBit7))),
            (std::vector<std::uint8_t>{0, 0, 1, 1}));
  DecodeOptions two_palette = with_rule(PixelRule::kPalette);
  two_palette.palette = {{0x555555, 7}, {0xAAAAAA, 9}};
  two_palette.block_unmapped = true;  // colours not listed: area 0
  EXPECT_EQ(areas_of(decode(two, two_palette)), (std::vector<std::uint8_t>{0, 7, 9, 0}));

  // 4-bit: v * 17, bit 7 from 8 up.
  const Bytes four = write_png(grey_png(4, 1, 4, {7, 8, 15, 0}));
  EXPECT_EQ(areas_of(decode(four, with_rule(PixelRule::kBlueBit7))),
            (std::vector<std::uint8_t>{0, 1, 1, 0}));

  // 1-bit: 0 black, 1 white.
  const Bytes one = write_png(grey_png(3, 1, 1, {1, 0, 1}));
  EXPECT_EQ(areas_of(decode(one, with_rule(PixelRule::kNonZero))),
            (std::vector<std::uint8_t>{1, 0, 1}));
  EXPECT_EQ(areas_of(decode(one, with_rule(PixelRule::kBlueBit7))),
            (std::vector<std::uint8_t>{1, 0, 1}));

  // 16-bit: NONZERO sees the low byte, BLUE_BIT7 and PALETTE the high byte.
  const Bytes sixteen = write_png(grey_png(4, 1, 16, {0x0000, 0x0001, 0x7FFF, 0x80FF}));
  EXPECT_EQ(areas_of(decode(sixteen, with_rule(PixelRule::kNonZero))),
            (std::vector<std::uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(areas_of(decode(sixteen, with_rule(PixelRule::kBlueBit7))),
            (std::vector<std::uint8_t>{0, 0, 0, 1}));
  DecodeOptions wide_palette = with_rule(PixelRule::kPalette);
  wide_palette.palette = {{0x808080, 3}, {0x7F7F7F, 4}};
  wide_palette.block_unmapped = true;  // colours not listed: area 0
  EXPECT_EQ(areas_of(decode(sixteen, wide_palette)), (std::vector<std::uint8_t>{0, 0, 4, 3}));
}

TEST(MaskCodecPng, GreyTransparentColourIsAreaZero) {
  TestPng png = grey_png(4, 1, 8, {5, 9, 200, 5});
  png.trns = trns16({200});  // grey 200 is transparent: no INDEX error for it
  EXPECT_EQ(areas_of(decode(write_png(png))), (std::vector<std::uint8_t>{5, 9, 0, 5}));
  png.trns = trns16({5});
  png.samples = {5, 9, 7, 5};
  EXPECT_EQ(areas_of(decode(write_png(png), with_rule(PixelRule::kNonZero))),
            (std::vector<std::uint8_t>{0, 1, 1, 0}));
  TestPng low = grey_png(4, 1, 2, {0, 1, 2, 3});
  low.trns = trns16({2});
  EXPECT_EQ(areas_of(decode(write_png(low))), (std::vector<std::uint8_t>{0, 1, 0, 3}));
}

TEST(MaskCodecPng, GreyAlphaUsesGreyAndTreatsTransparentAsAreaZero) {
  for (const int depth : {8, 16}) {
    SCOPED_TRACE(depth);
    TestPng png;
    png.width = 4;
    png.height = 1;
    png.colour_type = kGreyAlpha;
    png.bit_depth = depth;
    const std::uint32_t opaque = depth == 16 ? 65535 : 255;
    // grey, alpha: area 3 opaque, area 200 transparent (ignored), area 7 barely visible, 0.
    png.samples = {3, opaque, 200, 0, 7, 1, 0, opaque};
    const Bytes bytes = write_png(png);
    EXPECT_EQ(areas_of(decode(bytes)), (std::vector<std::uint8_t>{3, 0, 7, 0}));
    EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kNonZero))),
              (std::vector<std::uint8_t>{1, 0, 1, 0}));
    png.samples[3] = opaque;  // now grey 200 is visible: too large an id
    EXPECT_THAT(decode_error(write_png(png)),
              StartsWith("grey value 200 at (1,0) exceeds the largest area id 63"));
  }
}

// ------------------------------------------------------------------------
// PNG: palette

TestPng palette_png(std::uint32_t width, std::uint32_t height, int bit_depth,
                    std::vector<std::uint32_t> indices, std::size_t palette_size) {
  TestPng png;
  png.width = width;
  png.height = height;
  png.colour_type = kPaletted;
  png.bit_depth = bit_depth;
  png.samples = std::move(indices);
  for (std::size_t i = 0; i < palette_size; ++i) {
    // Entry 0 black; the others non-black, blue bit 7 set on odd entries.
    const auto v = static_cast<std::uint8_t>(i);
    png.palette.push_back({v, static_cast<std::uint8_t>(i == 0 ? 0 : 0x10),
                           static_cast<std::uint8_t>(i % 2 == 1 ? 0x80 | v : v & 0x7F)});
  }
  return png;
}

TEST(MaskCodecPng, PaletteEveryBitDepthIndexIsTheAreaId) {
  for (const int depth : {1, 2, 4, 8}) {
    for (const bool interlaced : {false, true}) {
      SCOPED_TRACE("bit depth " + std::to_string(depth) + (interlaced ? " interlaced" : ""));
      const std::uint32_t max_index = std::min((1U << depth) - 1, 63U);
      std::vector<std::uint32_t> indices;
      for (std::uint32_t i = 0; i < 9 * 3; ++i) {
        indices.push_back((i * 7) % (max_index + 1));
      }
      TestPng png = palette_png(9, 3, depth, indices, std::size_t{1} << depth);
      png.interlaced = interlaced;
      const std::vector<std::uint8_t> expected(indices.begin(), indices.end());
      EXPECT_EQ(areas_of(decode(write_png(png))), expected);
      EXPECT_EQ(areas_of(decode(write_png(png), with_rule(PixelRule::kIndex))), expected);
    }
  }
}

TEST(MaskCodecPng, PaletteIndexAboveLargestAreaIdNamesIndexAndPosition) {
  std::vector<std::uint32_t> indices(16 * 8, 1);
  indices[4 * 16 + 12] = 70;
  EXPECT_EQ(decode_error(write_png(palette_png(16, 8, 8, indices, 100))),
            "palette index 70 at (12,4) exceeds the largest area id 63");
}

TEST(MaskCodecPng, PaletteColourRulesUseThePaletteColour) {
  // Entries: 0 black, 1 (1,16,0x81), 2 (2,16,2), 3 (3,16,0x83).
  const Bytes bytes = write_png(palette_png(4, 1, 2, {0, 1, 2, 3}, 4));
  EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kNonZero))),
            (std::vector<std::uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kBlueBit7))),
            (std::vector<std::uint8_t>{0, 1, 0, 1}));
  DecodeOptions options = with_rule(PixelRule::kPalette);
  options.palette = {{0x021002, 12}, {0x031083, 40}};
  options.block_unmapped = true;  // colours not listed: area 0
  EXPECT_EQ(areas_of(decode(bytes, options)), (std::vector<std::uint8_t>{0, 0, 12, 40}));
}

TEST(MaskCodecPng, PaletteTransparencyMakesAreaZero) {
  TestPng png = palette_png(4, 1, 8, {1, 2, 70, 3}, 80);
  png.trns = Bytes(71, 255);
  png.trns[2] = 0;   // index 2: transparent
  png.trns[70] = 0;  // index 70: transparent, so no INDEX error
  png.trns[3] = 1;   // index 3: nearly transparent, still counts
  EXPECT_EQ(areas_of(decode(write_png(png))), (std::vector<std::uint8_t>{1, 0, 0, 3}));
  EXPECT_EQ(areas_of(decode(write_png(png), with_rule(PixelRule::kNonZero))),
            (std::vector<std::uint8_t>{1, 0, 0, 1}));
}

TEST(MaskCodecPng, PaletteIndexWithoutAColourIsAnErrorForColourRules) {
  const Bytes bytes = write_png(palette_png(4, 1, 8, {0, 1, 9, 1}, 4));
  EXPECT_EQ(decode_error(bytes, with_rule(PixelRule::kNonZero)),
            "palette index 9 at (2,0) is outside the image's palette of 4 colours");
  // INDEX does not need the colours.
  EXPECT_EQ(areas_of(decode(bytes)), (std::vector<std::uint8_t>{0, 1, 9, 1}));
}

// ------------------------------------------------------------------------
// PNG: RGB and RGBA

TEST(MaskCodecPng, RgbEveryDepthUnderNonZeroBlueBit7AndPalette) {
  for (const int depth : {8, 16}) {
    for (const bool interlaced : {false, true}) {
      SCOPED_TRACE("bit depth " + std::to_string(depth) + (interlaced ? " interlaced" : ""));
      const std::uint32_t k = depth == 16 ? 257 : 1;  // 8-bit value v as v*k
      TestPng png;
      png.width = 5;
      png.height = 1;
      png.colour_type = kRgb;
      png.bit_depth = depth;
      png.interlaced = interlaced;
      png.samples = {0,        0,        0,         // black
                     0,        0x10 * k, 0,         // green
                     0,        0,        0x80 * k,  // blue, bit 7
                     0xFF * k, 0,        0x7F * k,  // red, no bit 7
                     0x12 * k, 0x34 * k, 0x56 * k};
      const Bytes bytes = write_png(png);
      EXPECT_EQ(areas_of(decode(bytes)), (std::vector<std::uint8_t>{0, 1, 1, 1, 1}));
      EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kNonZero))),
                (std::vector<std::uint8_t>{0, 1, 1, 1, 1}));
      EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kBlueBit7))),
                (std::vector<std::uint8_t>{0, 0, 1, 0, 0}));
      DecodeOptions options = with_rule(PixelRule::kPalette);
      options.palette = {{0x001000, 2}, {0x123456, 33}, {0x000000, 9}};
      options.block_unmapped = true;  // colours not listed: area 0
      EXPECT_EQ(areas_of(decode(bytes, options)), (std::vector<std::uint8_t>{9, 2, 0, 0, 33}));
    }
  }
}

TEST(MaskCodecPng, Rgb16NonZeroCountsLowBitsAndPaletteUsesTheHighByte) {
  TestPng png;
  png.width = 2;
  png.height = 1;
  png.colour_type = kRgb;
  png.bit_depth = 16;
  png.samples = {0, 0, 0x0001, 0x12FF, 0x3400, 0x56AB};
  const Bytes bytes = write_png(png);
  EXPECT_EQ(areas_of(decode(bytes)), (std::vector<std::uint8_t>{1, 1}));
  DecodeOptions options = with_rule(PixelRule::kPalette);
  options.palette = {{0x123456, 8}, {0x000000, 4}};
  options.block_unmapped = true;  // colours not listed: area 0
  EXPECT_EQ(areas_of(decode(bytes, options)), (std::vector<std::uint8_t>{4, 8}));
}

TEST(MaskCodecPng, RgbTransparentColourIsAreaZero) {
  for (const int depth : {8, 16}) {
    TestPng png;
    png.width = 3;
    png.height = 1;
    png.colour_type = kRgb;
    png.bit_depth = depth;
    png.samples = {1, 2, 3, 1, 2, 4, 0, 0, 0};
    png.trns = trns16({1, 2, 3});
    EXPECT_EQ(areas_of(decode(write_png(png))), (std::vector<std::uint8_t>{0, 1, 0}));
  }
}

TEST(MaskCodecPng, RgbaAlphaZeroIsAreaZero) {
  for (const int depth : {8, 16}) {
    for (const bool interlaced : {false, true}) {
      SCOPED_TRACE("bit depth " + std::to_string(depth) + (interlaced ? " interlaced" : ""));
      const std::uint32_t k = depth == 16 ? 257 : 1;
      TestPng png;
      png.width = 4;
      png.height = 1;
      png.colour_type = kRgba;
      png.bit_depth = depth;
      png.interlaced = interlaced;
      png.samples = {0xFF * k, 0xFF * k, 0xFF * k, 0,          // white, transparent
                     0xFF * k, 0xFF * k, 0xFF * k, 1,          // white, barely visible
                     0,        0,        0,        0xFF * k,   // black, opaque
                     0,        0,        0x90 * k, 0xFF * k};  // blue, opaque
      const Bytes bytes = write_png(png);
      EXPECT_EQ(areas_of(decode(bytes)), (std::vector<std::uint8_t>{0, 1, 0, 1}));
      EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kBlueBit7))),
                (std::vector<std::uint8_t>{0, 1, 0, 1}));
      DecodeOptions options = with_rule(PixelRule::kPalette);
      options.palette = {{0xFFFFFF, 6}, {0x000000, 5}};
      options.block_unmapped = true;  // colours not listed: area 0
      EXPECT_EQ(areas_of(decode(bytes, options)), (std::vector<std::uint8_t>{0, 6, 5, 0}));
    }
  }
}

TEST(MaskCodecPng, IndexRuleRefusesColourImages) {
  TestPng png;
  png.width = 1;
  png.height = 1;
  png.colour_type = kRgb;
  png.samples = {1, 2, 3};
  EXPECT_EQ(decode_error(write_png(png), with_rule(PixelRule::kIndex)),
            "rule INDEX needs a palette or greyscale image, got RGB");
  png.colour_type = kRgba;
  png.samples = {1, 2, 3, 4};
  EXPECT_EQ(decode_error(write_png(png), with_rule(PixelRule::kIndex)),
            "rule INDEX needs a palette or greyscale image, got RGBA");
}

// Every colour type and depth, random pixels, interlaced or not, against a
// reference computed here for rule AUTO.
TEST(MaskCodecPng, RandomImagesOfEveryKindMatchAReference) {
  struct Kind {
    int colour_type;
    int bit_depth;
  };
  const std::vector<Kind> kinds = {
      {kGrey, 1},       {kGrey, 2},     {kGrey, 4},     {kGrey, 8},     {kGrey, 16},
      {kPaletted, 1},   {kPaletted, 2}, {kPaletted, 4}, {kPaletted, 8}, {kGreyAlpha, 8},
      {kGreyAlpha, 16}, {kRgb, 8},      {kRgb, 16},     {kRgba, 8},     {kRgba, 16}};
  std::mt19937_64 rng(7);
  for (const Kind& kind : kinds) {
    for (const bool interlaced : {false, true}) {
      for (const auto& [width, height] :
           std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}, {13, 11}, {33, 7}}) {
        SCOPED_TRACE("colour type " + std::to_string(kind.colour_type) + " depth " +
                     std::to_string(kind.bit_depth) + " " + std::to_string(width) + "x" +
                     std::to_string(height) + (interlaced ? " interlaced" : ""));
        const std::uint32_t max_sample = (1U << kind.bit_depth) - 1;
        const bool indexed = kind.colour_type == kGrey || kind.colour_type == kPaletted ||
                             kind.colour_type == kGreyAlpha;
        const std::uint32_t max_value = indexed ? std::min(max_sample, 63U) : max_sample;
        std::uniform_int_distribution<std::uint32_t> value(0, max_value);
        std::bernoulli_distribution coin(0.3);
        TestPng png;
        png.width = width;
        png.height = height;
        png.colour_type = kind.colour_type;
        png.bit_depth = kind.bit_depth;
        png.interlaced = interlaced;
        png.idat_size = 50;  // several IDAT chunks
        if (kind.colour_type == kPaletted) {
          png.palette.assign(std::size_t{1} << kind.bit_depth, {1, 2, 3});
        }
        const int channels = channels_of(kind.colour_type);
        std::vector<std::uint8_t> expected;
        for (std::uint32_t i = 0; i < width * height; ++i) {
          std::vector<std::uint32_t> pixel;
          for (int c = 0; c < channels; ++c) {
            // Zeros often, so black and transparent pixels occur.
            pixel.push_back(coin(rng) ? 0 : value(rng));
          }
          png.samples.insert(png.samples.end(), pixel.begin(), pixel.end());
          const bool transparent = (kind.colour_type == kGreyAlpha && pixel[1] == 0) ||
                                   (kind.colour_type == kRgba && pixel[3] == 0);
          std::uint8_t area = 0;
          if (transparent) {
            area = 0;
          } else if (indexed) {
            area = static_cast<std::uint8_t>(pixel[0]);
          } else {
            area = (pixel[0] | pixel[1] | pixel[2]) != 0 ? 1 : 0;
          }
          expected.push_back(area);
        }
        const Mask mask = decode(write_png(png));
        ASSERT_EQ(mask.width(), width);
        ASSERT_EQ(mask.height(), height);
        EXPECT_EQ(areas_of(mask), expected);
      }
    }
  }
}

// ------------------------------------------------------------------------
// PNG: encoding

TEST(MaskCodecPng, EncodeAreasRoundTripsRandomMasks) {
  std::mt19937_64 rng(42);
  for (const auto& [width, height] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {1, 1}, {2, 3}, {64, 64}, {1000, 3}, {3, 700}, {257, 129}}) {
    const Mask mask = pathtest::random_mask(rng, width, height, 0.3, 63);
    const Bytes png = encode_png_areas(mask);
    EXPECT_EQ(sniff_format(png), MaskFormat::kPng);
    const Mask automatic = decode(png);
    EXPECT_EQ(automatic.width(), width);
    EXPECT_EQ(automatic.height(), height);
    EXPECT_EQ(automatic.areas(), mask.areas());
    EXPECT_EQ(area_grid_sha256(automatic), area_grid_sha256(mask));
    EXPECT_EQ(decode(png, with_rule(PixelRule::kIndex)).areas(), mask.areas());
  }
}

TEST(MaskCodecPng, EncodeRgbaDecodesUnderColourRules) {
  // 3x2: black opaque, white opaque, transparent white; blue, red, green.
  const Bytes rgba = {0, 0, 0,    255, 255, 255, 255, 255, 255, 255, 255, 0,
                      0, 0, 0x80, 255, 255, 0,   0,   255, 0,   255, 0,   255};
  const Bytes png = encode_png_rgba(3, 2, rgba);
  const Mask mask = decode(png);
  EXPECT_EQ(mask.width(), 3U);
  EXPECT_EQ(mask.height(), 2U);
  EXPECT_EQ(areas_of(mask), (std::vector<std::uint8_t>{0, 1, 0, 1, 1, 1}));
  EXPECT_EQ(areas_of(decode(png, with_rule(PixelRule::kBlueBit7))),
            (std::vector<std::uint8_t>{0, 1, 0, 1, 0, 0}));
  DecodeOptions options = with_rule(PixelRule::kPalette);
  options.palette = {{0x00FF00, 1}, {0x000080, 2}};  // green always, blue after the gate
  options.block_unmapped = true;  // colours not listed: area 0
  EXPECT_EQ(areas_of(decode(png, options)), (std::vector<std::uint8_t>{0, 0, 0, 2, 0, 1}));
}

TEST(MaskCodecPng, EncodeRgbaRejectsBadSizes) {
  EXPECT_THROW((void)encode_png_rgba(2, 2, Bytes(15)), InvalidArgument);
  EXPECT_THROW((void)encode_png_rgba(0, 2, Bytes()), InvalidArgument);
  EXPECT_THROW((void)encode_png_rgba(2, 0, Bytes()), InvalidArgument);
}

// ------------------------------------------------------------------------
// PNG: damaged and hostile input

Bytes small_png() {
  std::vector<std::uint32_t> values;
  for (std::uint32_t i = 0; i < 12 * 9; ++i) {
    values.push_back(i % 64);
  }
  return write_png(grey_png(12, 9, 8, values));
}

TEST(MaskCodecPng, TruncatedAtEveryOffsetThrowsDecodeError) {
  TestPng interlaced = palette_png(9, 3, 2, std::vector<std::uint32_t>(27, 1), 4);
  interlaced.interlaced = true;
  for (const Bytes& whole :
       {small_png(), encode_png_areas(Mask(5, 4, Bytes(20, 3))), write_png(interlaced)}) {
    ASSERT_NO_THROW((void)decode(whole));
    for (std::size_t size = 0; size < whole.size(); ++size) {
      SCOPED_TRACE(size);
      const Bytes cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(size));
      EXPECT_THROW((void)decode(cut), DecodeError);
      DecodeOptions png_format;
      png_format.format = MaskFormat::kPng;
      EXPECT_THROW((void)decode(cut, png_format), DecodeError);
    }
  }
  const Bytes whole = small_png();
  const Bytes cut(whole.begin(), whole.begin() + 60);
  EXPECT_THAT(decode_error(cut), HasSubstr("PNG data truncated"));
}

TEST(MaskCodecPng, CorruptCrcIsAnError) {
  Bytes png = small_png();
  png[8 + 8 + 13] ^= 0x01;  // first byte of the IHDR CRC
  EXPECT_THAT(decode_error(png), HasSubstr("PNG is corrupt"));
  Bytes idat = small_png();
  idat[idat.size() - 12 - 4] ^= 0x40;  // the IDAT's CRC (just before IEND)
  EXPECT_EQ(decode_error(idat), "PNG is corrupt: IDAT: CRC error");
  Bytes payload = small_png();
  payload[payload.size() - 12 - 4 - 1] ^= 0x40;  // the IDAT's last byte: zlib's Adler-32
  EXPECT_THAT(decode_error(payload), HasSubstr("PNG is corrupt: IDAT: incorrect data check"));
}

// Flips a byte of the IDAT payload and mends the chunk's CRC, so only zlib
// can notice.
Bytes with_idat_byte_changed(Bytes png, std::size_t index_in_payload, std::uint8_t mask) {
  std::size_t pos = 8;
  while (pos + 8 <= png.size()) {
    const std::uint32_t length = (std::uint32_t{png[pos]} << 24) |
                                 (std::uint32_t{png[pos + 1]} << 16) |
                                 (std::uint32_t{png[pos + 2]} << 8) | png[pos + 3];
    if (std::string_view(reinterpret_cast<const char*>(&png[pos + 4]), 4) == "IDAT") {
      png[pos + 8 + index_in_payload % length] ^= mask;
      set_be32(png, pos + 8 + length, crc32(&png[pos + 4], length + 4));
      return png;
    }
    pos += 12 + length;
  }
  ADD_FAILURE() << "no IDAT";
  return png;
}

TEST(MaskCodecPng, CorruptCompressedDataIsAnError) {
  // The zlib header: "incorrect header check".
  EXPECT_THAT(decode_error(with_idat_byte_changed(small_png(), 0, 0xFF)),
              HasSubstr("PNG is corrupt"));
  // A stored block's length no longer matches its complement.
  EXPECT_THAT(decode_error(with_idat_byte_changed(small_png(), 3, 0x01)),
              HasSubstr("PNG is corrupt"));
}

TEST(MaskCodecPng, RandomCorruptionNeverCrashes) {
  std::mt19937_64 rng(1);
  const std::vector<Bytes> originals = {
      small_png(), encode_png_areas(pathtest::random_mask(rng, 40, 30, 0.3, 63)),
      encode_png_rgba(7, 5, Bytes(7 * 5 * 4, 0x90))};
  for (const Bytes& original : originals) {
    std::uniform_int_distribution<std::size_t> where(0, original.size() - 1);
    std::uniform_int_distribution<int> bit(0, 7);
    for (int trial = 0; trial < 400; ++trial) {
      Bytes damaged = trial % 2 == 0
                          ? original
                          : with_idat_byte_changed(original, where(rng),
                                                   static_cast<std::uint8_t>(1U << bit(rng)));
      if (trial % 2 == 0) {
        damaged[where(rng)] ^= static_cast<std::uint8_t>(1U << bit(rng));
      }
      try {
        const Mask mask = decode(damaged);
        EXPECT_GE(mask.pixel_count(), 1U);
      } catch (const DecodeError&) {
        // expected for most damage
      }
    }
  }
}

Bytes png_with_ihdr(std::uint32_t width, std::uint32_t height, bool with_idat) {
  Bytes ihdr;
  put_be32(ihdr, width);
  put_be32(ihdr, height);
  ihdr.insert(ihdr.end(), {8, 0, 0, 0, 0});  // 8-bit grey
  Bytes out = kPngSignature;
  const Bytes chunk = png_chunk("IHDR", ihdr);
  out.insert(out.end(), chunk.begin(), chunk.end());
  if (with_idat) {
    const Bytes idat = png_chunk("IDAT", zlib_stored(Bytes(10, 0)));
    out.insert(out.end(), idat.begin(), idat.end());
    const Bytes iend = png_chunk("IEND", {});
    out.insert(out.end(), iend.begin(), iend.end());
  }
  return out;
}

TEST(MaskCodecPng, HugeDeclaredSizeIsTooLargeBeforeAnyPixels) {
  for (const bool with_idat : {false, true}) {
    EXPECT_EQ(
        decode_error(png_with_ihdr(100000, 100000, with_idat), {}, DecodeError::Kind::kTooLarge),
        "image of 100000x100000 pixels exceeds the limit of 67108864 pixels");
  }
  DecodeOptions options;
  options.max_pixels = 10;
  EXPECT_EQ(decode_error(small_png(), options, DecodeError::Kind::kTooLarge),
            "image of 12x9 pixels exceeds the limit of 10 pixels");
  options.max_pixels = 12 * 9;
  EXPECT_EQ(decode(small_png(), options).pixel_count(), 108U);
  // PNG's own limit is 2^31 - 1: above it the IHDR is invalid, not too large.
  EXPECT_THAT(decode_error(png_with_ihdr(0x80000000U, 1, true)), HasSubstr("PNG is corrupt"));
  EXPECT_THAT(decode_error(png_with_ihdr(0, 1, true)), HasSubstr("PNG is corrupt"));
}

TEST(MaskCodecPng, WideImageBeyondLibpngDefaultLimitDecodes) {
  const Mask mask(1'100'000, 1, Bytes(1'100'000, 2));
  const Mask decoded = decode(encode_png_areas(mask));
  EXPECT_EQ(decoded.width(), 1'100'000U);
  EXPECT_EQ(decoded.areas(), mask.areas());
}

TEST(MaskCodecPng, NotAPngWhenFormatIsForced) {
  DecodeOptions options;
  options.format = MaskFormat::kPng;
  EXPECT_THAT(decode_error(bytes_of("P5 1 1 255\n\x01"), options), HasSubstr("not a PNG image"));
}

// ------------------------------------------------------------------------
// Palette option validation

TEST(MaskCodecPalette, RuleAndPaletteMustAgree) {
  const Bytes png = small_png();
  DecodeOptions empty = with_rule(PixelRule::kPalette);
  EXPECT_THAT(decode_error(png, empty), HasSubstr("rule PALETTE needs a palette"));
  DecodeOptions too_large = with_rule(PixelRule::kPalette);
  too_large.palette = {{0x123456, 70}};
  EXPECT_EQ(decode_error(png, too_large),
            "palette maps colour 0x123456 to area 70, the largest area id is 63");
  DecodeOptions not_a_colour = with_rule(PixelRule::kPalette);
  not_a_colour.palette = {{0x1000000, 1}};
  EXPECT_THAT(decode_error(png, not_a_colour), HasSubstr("0x1000000 is not a 0xRRGGBB value"));
  DecodeOptions unused = with_rule(PixelRule::kIndex);
  unused.palette = {{0x123456, 1}};
  EXPECT_THAT(decode_error(png, unused), HasSubstr("only used with rule PALETTE"));
}

// ------------------------------------------------------------------------
// PGM and PBM

TEST(MaskCodecPgm, BinaryWithCommentsAndWhitespace) {
  std::string text = "P5\n# a level\n3  # width\n\t2\n# max\n63\n";
  text += std::string{0, 1, 2, 63, 10, 0};
  const Mask mask = decode(bytes_of(text));
  EXPECT_EQ(mask.width(), 3U);
  EXPECT_EQ(mask.height(), 2U);
  EXPECT_EQ(areas_of(mask), (std::vector<std::uint8_t>{0, 1, 2, 63, 10, 0}));
  EXPECT_EQ(sniff_format(bytes_of(text)), MaskFormat::kPgm);
}

TEST(MaskCodecPgm, BinaryTwoByteSamplesAboveMaxval255) {
  std::string text = "P5 3 1 1000\n";
  text += std::string{0, 5, 0, 0, 3, static_cast<char>(0xE8)};  // 5, 0, 1000
  const Bytes bytes = bytes_of(text);
  EXPECT_THAT(decode_error(bytes), HasSubstr("grey value 1000 at (2,0) exceeds"));
  EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kNonZero))),
            (std::vector<std::uint8_t>{1, 0, 1}));
  // Scaled to 8 bits: 5 -> 1, 1000 -> 255.
  EXPECT_EQ(areas_of(decode(bytes, with_rule(PixelRule::kBlueBit7))),
            (std::vector<std::uint8_t>{0, 0, 1}));
  std::string small = "P5 2 1 1000\n";
  small += std::string{0, 5, 0, 0};
  EXPECT_EQ(areas_of(decode(bytes_of(small))), (std::vector<std::uint8_t>{5, 0}));
  std::string over = "P5 2 1 1000\n";
  over += std::string{0, 5, 3, static_cast<char>(0xE9)};
  EXPECT_EQ(decode_error(bytes_of(over)), "PGM sample 1001 at (1,0) exceeds the maxval 1000");
}

TEST(MaskCodecPgm, PlainWithComments) {
  const Bytes bytes = bytes_of("P2\n# plain\n4 2\n63\n0 1 2 3\n# row two\n63 0\n  5\t6\n");
  const Mask mask = decode(bytes);
  EXPECT_EQ(areas_of(mask), (std::vector<std::uint8_t>{0, 1, 2, 3, 63, 0, 5, 6}));
  EXPECT_EQ(sniff_format(bytes), MaskFormat::kPgm);
  EXPECT_THAT(decode_error(bytes_of("P2 2 1 255 7 99")),
              StartsWith("grey value 99 at (1,0) exceeds the largest area id 63"));
  EXPECT_EQ(decode_error(bytes_of("P2 2 1 50 7 51")),
            "PGM sample 51 at (1,0) exceeds the maxval 50");
  EXPECT_THAT(decode_error(bytes_of("P2 2 2 9 1 2 3 x")), HasSubstr("'x'"));
  EXPECT_THAT(decode_error(bytes_of("P2 3 2 9 1 2 3 4    ")),
              HasSubstr("PGM data truncated: expected 6 pixels, got 4"));
  EXPECT_THAT(decode_error(bytes_of("P2 3 2 9 1 2")), HasSubstr("PGM data truncated"));
}

TEST(MaskCodecPgm, TruncatedBinaryData) {
  std::string text = "P5\n640 480\n255\n";
  text += std::string(1000, '\x01');
  EXPECT_EQ(decode_error(bytes_of(text)),
            "PGM data truncated: expected 307200 bytes of pixels, got 1000");
  EXPECT_THAT(decode_error(bytes_of("P5 2 2 65535\n\x01\x02\x03")),
              HasSubstr("expected 8 bytes of pixels, got 3"));
}

TEST(MaskCodecPgm, HeaderErrors) {
  EXPECT_EQ(decode_error(bytes_of("P5\n100000 100000\n255\n"), {}, DecodeError::Kind::kTooLarge),
            "image of 100000x100000 pixels exceeds the limit of 67108864 pixels");
  EXPECT_THAT(decode_error(bytes_of("P5 99999999999999999999999 2 255\n"), {},
                           DecodeError::Kind::kTooLarge),
              HasSubstr("width above 4294967295"));
  EXPECT_THAT(decode_error(bytes_of("P5 0 2 255\n")), HasSubstr("at least 1x1"));
  EXPECT_THAT(decode_error(bytes_of("P5 2 2 0\n")), HasSubstr("maxval 0 is out of range"));
  EXPECT_THAT(decode_error(bytes_of("P5 2 2 65536\n")), HasSubstr("out of range 1..65535"));
  EXPECT_THAT(decode_error(bytes_of("P5 2")), HasSubstr("missing the height"));
  EXPECT_THAT(decode_error(bytes_of("P5 2 x 255\n")), HasSubstr("'x' where the height"));
  EXPECT_THAT(decode_error(bytes_of("P5 1 1 255x")), HasSubstr("must end with whitespace"));
}

TEST(MaskCodecPbm, PlainWhiteIsWalkableBlackIsWall) {
  // Whitespace between bits is optional in plain PBM.
  const Bytes bytes = bytes_of("P1\n# walls\n5 2\n1 0 0 0 1\n10#c\n001\n");
  const Mask mask = decode(bytes);
  EXPECT_EQ(sniff_format(bytes), MaskFormat::kPbm);
  EXPECT_EQ(areas_of(mask), (std::vector<std::uint8_t>{0, 1, 1, 1, 0, 0, 1, 1, 1, 0}));
  for (const PixelRule rule : {PixelRule::kIndex, PixelRule::kNonZero, PixelRule::kBlueBit7}) {
    EXPECT_EQ(areas_of(decode(bytes, with_rule(rule))), areas_of(mask));
  }
  DecodeOptions palette = with_rule(PixelRule::kPalette);
  palette.palette = {{0x000000, 9}};
  palette.block_unmapped = true;  // colours not listed: area 0
  EXPECT_EQ(areas_of(decode(bytes, palette)),
            (std::vector<std::uint8_t>{9, 0, 0, 0, 9, 9, 0, 0, 0, 9}));
  EXPECT_THAT(decode_error(bytes_of("P1 3 1 1 2 0")), HasSubstr("'2' at byte"));
  EXPECT_THAT(decode_error(bytes_of("P1 3 2 1 0 1 0")), HasSubstr("PBM data truncated"));
}

TEST(MaskCodecPbm, BinaryRowsArePaddedToBytes) {
  // 10x2: row bytes 2 each. Row 0: 1000000001 (padding 111111), row 1: 0101010101.
  std::string text = "P4\n# c\n10 2\n";
  text +=
      std::string{static_cast<char>(0x80), static_cast<char>(0x7F), 0x55, static_cast<char>(0x40)};
  const Bytes bytes = bytes_of(text);
  EXPECT_EQ(sniff_format(bytes), MaskFormat::kPbm);
  EXPECT_EQ(areas_of(decode(bytes)), (std::vector<std::uint8_t>{0, 1, 1, 1, 1, 1, 1, 1, 1, 0,
                                                                1, 0, 1, 0, 1, 0, 1, 0, 1, 0}));
  EXPECT_EQ(decode_error(bytes_of("P4 10 2\n\x80")),
            "PBM data truncated: expected 4 bytes of pixels, got 1");
  EXPECT_EQ(decode_error(bytes_of("P4 100000 100000\n"), {}, DecodeError::Kind::kTooLarge),
            "image of 100000x100000 pixels exceeds the limit of 67108864 pixels");
}

TEST(MaskCodecNetpbm, ColourFormatsAreRefused) {
  EXPECT_EQ(decode_error(bytes_of("P6\n2 2\n255\n")),
            "PPM colour images are not supported; use PNG");
  EXPECT_EQ(decode_error(bytes_of("P3 1 1 255 0 0 0")),
            "PPM colour images are not supported; use PNG");
  DecodeOptions pgm;
  pgm.format = MaskFormat::kPgm;
  EXPECT_EQ(decode_error(bytes_of("P6\n2 2\n255\n"), pgm),
            "PPM colour images are not supported; use PNG");
  // PGM and PBM share a decoder: the magic number decides.
  EXPECT_EQ(areas_of(decode(bytes_of("P1 2 1 0 1"), pgm)), (std::vector<std::uint8_t>{1, 0}));
}

// ------------------------------------------------------------------------
// Moving AI maps

TEST(MaskCodecMovingAi, SmallMapLfAndCrlf) {
  const std::string lf = "type octile\nheight 3\nwidth 4\nmap\n.@G.\nSTOW\n....\n";
  std::string crlf;
  for (const char c : lf) {
    if (c == '\n') {
      crlf += '\r';
    }
    crlf += c;
  }
  for (const std::string& text : {lf, crlf, lf.substr(0, lf.size() - 1)}) {
    const Bytes bytes = bytes_of(text);
    EXPECT_EQ(sniff_format(bytes), MaskFormat::kMovingAi);
    const Mask mask = decode(bytes);
    EXPECT_EQ(mask.width(), 4U);
    EXPECT_EQ(mask.height(), 3U);
    EXPECT_EQ(areas_of(mask), (std::vector<std::uint8_t>{1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1}));
  }
  // Width before height is fine too.
  EXPECT_EQ(decode(bytes_of("type octile\nwidth 2\nheight 1\nmap\n.@\n")).width(), 2U);
}

TEST(MaskCodecMovingAi, Errors) {
  EXPECT_EQ(decode_error(bytes_of("type octile\nheight 2\nwidth 4\nmap\n....\n...\n")),
            "map header says width 4 but row 1 has 3 cells");
  EXPECT_EQ(decode_error(bytes_of("type octile\nheight 3\nwidth 2\nmap\n..\n..\n")),
            "map header says height 3 but has 2 rows");
  EXPECT_EQ(decode_error(bytes_of("type octile\nheight 1\nwidth 2\nmap\n..\n..\n@@\n\n")),
            "map header says height 1 but has 3 rows");
  EXPECT_EQ(decode_error(bytes_of("type octile\nheight 2\nwidth 3\nmap\n...\n.x.\n")),
            "map cell 'x' at (1,1) is not one of . G S @ O T W");
  EXPECT_THAT(decode_error(bytes_of("type octile\nheight 2\nwidth 3\nmap\n...\n.\t.\n")),
              HasSubstr("byte 0x09 at (1,1)"));
  DecodeOptions movingai;
  movingai.format = MaskFormat::kMovingAi;
  EXPECT_THAT(decode_error(bytes_of("type tile\nheight 1\nwidth 1\nmap\n.\n"), movingai),
              HasSubstr("type \"tile\" is not supported"));
  EXPECT_THAT(decode_error(bytes_of("type octile\nheight 1\nmap\n.\n")),
              HasSubstr("header has no width"));
  EXPECT_THAT(decode_error(bytes_of("type octile\nheight one\nwidth 1\nmap\n.\n")),
              HasSubstr("bad height"));
  EXPECT_THAT(decode_error(bytes_of("type octile\nheight 1\nwidth 1\nsize 3\nmap\n.\n")),
              HasSubstr("unexpected line"));
  EXPECT_THAT(decode_error(bytes_of("type octile\nheight 1\nwidth 1\n")),
              HasSubstr("no \"map\" line"));
  EXPECT_EQ(decode_error(bytes_of("type octile\nheight 100000\nwidth 100000\nmap\n"), {},
                         DecodeError::Kind::kTooLarge),
            "image of 100000x100000 pixels exceeds the limit of 67108864 pixels");
  EXPECT_THAT(decode_error(bytes_of("type octile\nheight 9999999999999\nwidth 1\nmap\n"), {},
                           DecodeError::Kind::kTooLarge),
              HasSubstr("height above"));
  EXPECT_THAT(decode_error(bytes_of("type octile\nheight 0\nwidth 1\nmap\n")),
              HasSubstr("at least 1x1"));
  EXPECT_THAT(decode_error(bytes_of("type octile\nheight 1\nwidth 1\nmap\n.\n"),
                           with_rule(PixelRule::kBlueBit7)),
              HasSubstr("does not apply to Moving AI maps"));
}

struct MapFile {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint64_t passable = 0;
};

// Reads a .map file's header and counts its passable cells, independently
// of the decoder.
MapFile count_map(const std::string& text) {
  std::istringstream in(text);
  MapFile map;
  std::string word;
  in >> word >> word;  // type octile
  for (int i = 0; i < 2; ++i) {
    std::uint32_t value = 0;
    in >> word >> value;
    (word == "height" ? map.height : map.width) = value;
  }
  in >> word;  // map
  for (const char c : text.substr(static_cast<std::size_t>(in.tellg()))) {
    map.passable += (c == '.' || c == 'G' || c == 'S') ? 1 : 0;
  }
  return map;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(MaskCodecMovingAi, EveryBenchmarkMapDecodes) {
  const std::filesystem::path root = PATHFINDER_MOVINGAI_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(root)) << "no Moving AI data at " << root;
  int maps = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".map") {
      continue;
    }
    SCOPED_TRACE(entry.path().string());
    const std::string text = read_file(entry.path());
    const MapFile expected = count_map(text);
    const Bytes bytes = bytes_of(text);
    EXPECT_EQ(sniff_format(bytes), MaskFormat::kMovingAi);
    const Mask mask = decode(bytes);
    EXPECT_EQ(mask.width(), expected.width);
    EXPECT_EQ(mask.height(), expected.height);
    EXPECT_EQ(mask.walkable_pixels(), expected.passable);
    EXPECT_EQ(mask.areas_present() & ~AreaSet{0b11}, 0U);
    ++maps;
  }
  EXPECT_GT(maps, 0);
}

// ------------------------------------------------------------------------
// RAW

TEST(MaskCodecRaw, BytesAreAreaIds) {
  DecodeOptions options;
  options.format = MaskFormat::kRaw;
  options.raw_width = 4;
  options.raw_height = 3;
  const Bytes bytes = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 63};
  const Mask mask = decode(bytes, options);
  EXPECT_EQ(mask.width(), 4U);
  EXPECT_EQ(mask.height(), 3U);
  EXPECT_EQ(mask.areas(), bytes);
  options.rule = PixelRule::kNonZero;
  EXPECT_EQ(areas_of(decode(Bytes{0, 70, 200, 1, 0, 0, 0, 0, 0, 0, 0, 255}, options)),
            (std::vector<std::uint8_t>{0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1}));
}

TEST(MaskCodecRaw, Errors) {
  DecodeOptions options;
  options.format = MaskFormat::kRaw;
  EXPECT_EQ(decode_error(Bytes(12, 1), options), "RAW needs width and height");
  options.raw_width = 4;
  EXPECT_EQ(decode_error(Bytes(12, 1), options), "RAW needs width and height");
  options.raw_height = 3;
  EXPECT_EQ(decode_error(Bytes(10, 1), options), "RAW data has 10 bytes, expected 12 for 4x3");
  EXPECT_EQ(decode_error(Bytes(13, 1), options), "RAW data has 13 bytes, expected 12 for 4x3");
  Bytes bad(12, 1);
  bad[2 * 4 + 1] = 70;
  EXPECT_EQ(decode_error(bad, options), "area id 70 at (1,2) exceeds the largest area id 63");
  options.rule = PixelRule::kPalette;
  options.palette = {{0, 1}};
  options.block_unmapped = true;  // colours not listed: area 0
  EXPECT_THAT(decode_error(Bytes(12, 1), options), HasSubstr("does not apply to RAW"));
  DecodeOptions huge;
  huge.format = MaskFormat::kRaw;
  huge.raw_width = 100000;
  huge.raw_height = 100000;
  EXPECT_EQ(decode_error(Bytes(12, 1), huge, DecodeError::Kind::kTooLarge),
            "image of 100000x100000 pixels exceeds the limit of 67108864 pixels");
}

// ------------------------------------------------------------------------
// Sniffing and names

TEST(MaskCodecSniff, RecognisesEachFormat) {
  EXPECT_EQ(sniff_format(small_png()), MaskFormat::kPng);
  EXPECT_EQ(sniff_format(bytes_of("P1\n")), MaskFormat::kPbm);
  EXPECT_EQ(sniff_format(bytes_of("P4 ")), MaskFormat::kPbm);
  EXPECT_EQ(sniff_format(bytes_of("P2#")), MaskFormat::kPgm);
  EXPECT_EQ(sniff_format(bytes_of("P5")), MaskFormat::kPgm);
  EXPECT_EQ(sniff_format(bytes_of("type octile\n")), MaskFormat::kMovingAi);
  EXPECT_EQ(sniff_format(bytes_of("P6\n")), MaskFormat::kAuto);
  EXPECT_EQ(sniff_format(bytes_of("P5x")), MaskFormat::kAuto);
  EXPECT_EQ(sniff_format(bytes_of("GIF89a")), MaskFormat::kAuto);
  EXPECT_EQ(sniff_format(Bytes{}), MaskFormat::kAuto);
  const Bytes png = small_png();
  EXPECT_EQ(sniff_format(Bytes(png.begin(), png.begin() + 7)), MaskFormat::kAuto);
}

TEST(MaskCodecSniff, UnknownAndEmptyInput) {
  EXPECT_EQ(decode_error(Bytes{}), "image is empty");
  DecodeOptions raw;
  raw.format = MaskFormat::kRaw;
  raw.raw_width = 1;
  raw.raw_height = 1;
  EXPECT_EQ(decode_error(Bytes{}, raw), "image is empty");
  EXPECT_EQ(decode_error(bytes_of("GIF89a....")),
            "could not recognise the image format (expected PNG, PGM, PBM or Moving AI map; RAW "
            "needs format RAW with width and height)");
  EXPECT_EQ(decode_error(bytes_of("P7\nWIDTH 1\n")), "PAM images are not supported; use PNG");
}

TEST(MaskCodecNames, FormatAndRuleNames) {
  EXPECT_STREQ(format_name(MaskFormat::kAuto), "auto");
  EXPECT_STREQ(format_name(MaskFormat::kPng), "png");
  EXPECT_STREQ(format_name(MaskFormat::kPgm), "pgm");
  EXPECT_STREQ(format_name(MaskFormat::kPbm), "pbm");
  EXPECT_STREQ(format_name(MaskFormat::kMovingAi), "movingai");
  EXPECT_STREQ(format_name(MaskFormat::kRaw), "raw");
  EXPECT_STREQ(rule_name(PixelRule::kAuto), "AUTO");
  EXPECT_STREQ(rule_name(PixelRule::kIndex), "INDEX");
  EXPECT_STREQ(rule_name(PixelRule::kNonZero), "NONZERO");
  EXPECT_STREQ(rule_name(PixelRule::kBlueBit7), "BLUE_BIT7");
  EXPECT_STREQ(rule_name(PixelRule::kPalette), "PALETTE");
}

// ------------------------------------------------------------------------
// The bundled demo level (scripts/make-demo-mask.py)

TEST(MaskCodecDemo, DemoLevelDecodesAndNeedsADetour) {
  const std::filesystem::path path = PATHFINDER_DEMO_MASK;
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const std::string text = read_file(path);
  const Mask mask = decode(bytes_of(text));
  ASSERT_EQ(mask.width(), 640U);
  ASSERT_EQ(mask.height(), 360U);
  const Point start{20, 20};
  const Point goal{600, 340};
  EXPECT_TRUE(mask.walkable(start, kAllAreas));
  EXPECT_TRUE(mask.walkable(goal, kAllAreas));
  EXPECT_EQ(mask.areas_present(), AreaSet{0b111});  // walls, floor, road
  // The border is wall.
  for (std::int32_t x = 0; x < 640; ++x) {
    EXPECT_EQ(mask.area({x, 0}), 0);
    EXPECT_EQ(mask.area({x, 359}), 0);
  }
  // The beeline is blocked (Bresenham)...
  bool beeline_blocked = false;
  {
    int x = start.x;
    int y = start.y;
    const int dx = goal.x - start.x;
    const int dy = -(goal.y - start.y);
    int error = dx + dy;
    while (true) {
      beeline_blocked = beeline_blocked || mask.area({x, y}) == 0;
      if (x == goal.x && y == goal.y) {
        break;
      }
      const int e2 = 2 * error;
      if (e2 >= dy) {
        error += dy;
        ++x;
      }
      if (e2 <= dx) {
        error += dx;
        ++y;
      }
    }
  }
  EXPECT_TRUE(beeline_blocked);
  // ...but a four-connected path exists.
  std::vector<bool> seen(mask.pixel_count(), false);
  std::queue<Point> open;
  open.push(start);
  seen[mask.index(start)] = true;
  while (!open.empty()) {
    const Point p = open.front();
    open.pop();
    for (const Point d : {Point{1, 0}, Point{-1, 0}, Point{0, 1}, Point{0, -1}}) {
      const Point q{p.x + d.x, p.y + d.y};
      if (mask.walkable(q, kAllAreas) && !seen[mask.index(q)]) {
        seen[mask.index(q)] = true;
        open.push(q);
      }
    }
  }
  EXPECT_TRUE(seen[mask.index(goal)]);
}


// ------------------------------------------------------------------------
// Friendly refusals: what to do about a black-and-white grey image, and
// palette uploads whose pixels have colours the palette does not map.

TEST(MaskCodecAdvice, BlackAndWhiteGreyImagePointsAtTheNonZeroRule) {
  const std::vector<std::uint32_t> black_and_white = {0, 255, 255, 0, 255, 255};
  const Bytes png = write_png(grey_png(3, 2, 8, black_and_white));
  EXPECT_THAT(decode_error(png), HasSubstr("grey value 255 at (1,0)"));
  EXPECT_THAT(decode_error(png), HasSubstr("use rule NONZERO"));
  EXPECT_THAT(decode_error(bytes_of("P2 3 2 255 0 255 255 0 255 255")),
              HasSubstr("use rule NONZERO"));
  // Following the advice works: non-black is area 1.
  EXPECT_EQ(areas_of(decode(png, with_rule(PixelRule::kNonZero))),
            (std::vector<std::uint8_t>{0, 1, 1, 0, 1, 1}));
}

TEST(MaskCodecAdvice, UnmappedPaletteColoursAreRefusedByNameUnlessBlocked) {
  // RGBA: black, green, red, grey, red, teal; the palette maps only green.
  const Bytes rgba = {0,    0,    0,    255, 0,    255,  0,    255, 255, 0, 0, 255,
                      0x80, 0x80, 0x80, 255, 255,  0,    0,    255, 0,   0x80, 0x80, 255};
  const Bytes png = encode_png_rgba(3, 2, rgba);
  DecodeOptions options = with_rule(PixelRule::kPalette);
  options.palette = {{0x00FF00, 3}};
  const std::string message = decode_error(png, options);
  EXPECT_THAT(message, StartsWith("5 pixels have colours the palette does not map"));
  EXPECT_THAT(message, HasSubstr("(0x000000, 0xff0000, 0x808080, 0x008080; the first at (0,0))"));
  EXPECT_THAT(message, HasSubstr("block_unmapped"));
  options.block_unmapped = true;
  EXPECT_EQ(areas_of(decode(png, options)), (std::vector<std::uint8_t>{0, 3, 0, 0, 0, 0}));
}

TEST(MaskCodecAdvice, UnmappedColoursAreFoundInEveryImageKind) {
  DecodeOptions options = with_rule(PixelRule::kPalette);
  options.palette = {{0xFFFFFF, 2}};
  // Paletted PNG: entry 1 is (1, 0x10, 0x81), entry 2 (2, 0x10, 0x02); index 2 at (2,0).
  EXPECT_THAT(decode_error(write_png(palette_png(3, 1, 8, {0, 0, 2}, 3)), options),
              HasSubstr("0x000000, 0x021002; the first at (0,0)"));
  // Grey PNG, 16 bits: the high byte is the grey level.
  EXPECT_THAT(decode_error(write_png(grey_png(2, 1, 16, {0xFFFF, 0x8000})), options),
              StartsWith("1 pixel has a colour the palette does not map (0x808080; the first at (1,0))"));
  // PGM and PBM (a set PBM bit is black).
  EXPECT_THAT(decode_error(bytes_of("P2 2 1 255 255 17"), options),
              HasSubstr("(0x111111; the first at (1,0))"));
  EXPECT_THAT(decode_error(bytes_of("P1 2 1 0 1"), options),
              HasSubstr("(0x000000; the first at (1,0))"));
  const Bytes p4 = {'P', '4', ' ', '2', ' ', '1', '\n', 0x40};
  EXPECT_THAT(decode_error(p4, options), HasSubstr("(0x000000; the first at (1,0))"));
  options.block_unmapped = true;
  EXPECT_EQ(areas_of(decode(bytes_of("P1 2 1 0 1"), options)), (std::vector<std::uint8_t>{2, 0}));
  EXPECT_EQ(areas_of(decode(p4, options)), (std::vector<std::uint8_t>{2, 0}));
}

TEST(MaskCodecAdvice, ManyUnmappedColoursNameTheFirstFourAndSaySoMore) {
  Bytes rgba(6 * 4, 0);
  for (std::size_t i = 0; i < 6; ++i) {
    rgba[4 * i] = static_cast<std::uint8_t>(i + 1);  // red 1..6
    rgba[4 * i + 3] = 255;
  }
  DecodeOptions options = with_rule(PixelRule::kPalette);
  options.palette = {{0x010000, 1}};
  EXPECT_THAT(decode_error(encode_png_rgba(6, 1, rgba), options),
              HasSubstr("5 pixels have colours the palette does not map (0x020000, 0x030000, "
                        "0x040000, 0x050000, ...; the first at (1,0))"));
}

}  // namespace
}  // namespace pathcore
