// Format sniffing, dispatch, shared helpers and the RAW decoder. The other
// formats live in codec_png.cc, codec_netpbm.cc and codec_movingai.cc.
#include "pathcore/codec.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>

#include "codec_internal.h"

namespace pathcore {
namespace codec_internal {

void fail(const std::string& message) { throw DecodeError(DecodeError::Kind::kInvalid, message); }

void check_dimensions(std::uint32_t width, std::uint32_t height, std::uint64_t max_pixels) {
  if (width == 0 || height == 0) {
    fail("image dimensions must be at least 1x1, got " + std::to_string(width) + "x" +
         std::to_string(height));
  }
  // Both fit in 32 bits, so the product cannot overflow 64.
  const std::uint64_t pixels = std::uint64_t{width} * height;
  if (pixels > max_pixels) {
    throw DecodeError(DecodeError::Kind::kTooLarge,
                      "image of " + std::to_string(width) + "x" + std::to_string(height) +
                          " pixels exceeds the limit of " + std::to_string(max_pixels) + " pixels");
  }
}

std::string position(std::uint64_t x, std::uint64_t y) {
  // Appended piece by piece: `"(" + std::to_string(x)` trips GCC 12's
  // -Wrestrict false positive at -O2.
  std::string text = "(";
  text += std::to_string(x);
  text += ',';
  text += std::to_string(y);
  text += ')';
  return text;
}

std::string hex_colour(std::uint32_t rgb) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "0x";
  int digits = 6;
  while (digits < 8 && (rgb >> (4 * digits)) != 0) {
    ++digits;
  }
  for (int i = digits - 1; i >= 0; --i) {
    text.push_back(kHex[(rgb >> (4 * i)) & 0xF]);
  }
  return text;
}

std::uint8_t area_for_colour(PixelRule rule, std::uint32_t rgb, bool non_black,
                             const ColourPalette& palette) {
  switch (rule) {
    case PixelRule::kNonZero:
      return non_black ? 1 : 0;
    case PixelRule::kBlueBit7:
      return (rgb & 0x80U) != 0 ? 1 : 0;
    case PixelRule::kPalette: {
      const auto found = palette.find(rgb);
      return found == palette.end() ? kUnmappedColour : static_cast<std::uint8_t>(found->second);
    }
    case PixelRule::kAuto:
    case PixelRule::kIndex:
      break;
  }
  return 0;  // not a colour rule; callers never ask
}

std::vector<std::uint8_t> grey_table(PixelRule rule, std::uint32_t maxval, GreyTo8 to8,
                                     const ColourPalette& palette) {
  std::vector<std::uint8_t> table(std::size_t{maxval} + 1);
  for (std::uint32_t v = 0; v <= maxval; ++v) {
    if (rule == PixelRule::kIndex) {
      table[v] = v <= kMaxAreaId ? static_cast<std::uint8_t>(v) : kIdTooLarge;
      continue;
    }
    table[v] = area_for_colour(rule, grey_colour(v, maxval, to8), v != 0, palette);
  }
  return table;
}

std::uint32_t grey_colour(std::uint32_t v, std::uint32_t maxval, GreyTo8 to8) {
  const std::uint32_t grey8 =
      to8 == GreyTo8::kHighByte ? v >> 8 : (v * 255 + maxval / 2) / maxval;
  return grey8 * 0x010101U;
}

std::string grey_too_large_message(std::uint32_t value, std::uint64_t x, std::uint64_t y) {
  return "grey value " + std::to_string(value) + " at " + position(x, y) +
         " exceeds the largest area id " + std::to_string(kMaxAreaId) +
         ": under rule INDEX (the automatic rule for grey images) a grey value is an area id; "
         "for a black-and-white mask use rule NONZERO (every non-black pixel is area 1)";
}

void UnmappedColours::add(std::uint32_t rgb, std::uint64_t x, std::uint64_t y) noexcept {
  if (pixels_++ == 0) {
    first_x_ = x;
    first_y_ = y;
  }
  if (std::find(colours_, colours_ + named_, rgb) == colours_ + named_) {
    if (named_ < kNamed) {
      colours_[named_++] = rgb;
    } else {
      more_colours_ = true;
    }
  }
}

void UnmappedColours::check(bool block_unmapped) const {
  if (pixels_ == 0 || block_unmapped) {
    return;
  }
  std::string colours;
  for (std::size_t i = 0; i < named_; ++i) {
    colours += (i == 0 ? "" : ", ") + hex_colour(colours_[i]);
  }
  fail(std::to_string(pixels_) + (pixels_ == 1 ? " pixel has a colour" : " pixels have colours") +
       " the palette does not map (" + colours + (more_colours_ ? ", ..." : "") +
       "; the first at " + position(first_x_, first_y_) +
       "): add them to the palette, or set block_unmapped to store them as area 0 (blocked)");
}

}  // namespace codec_internal

namespace {

using codec_internal::fail;

constexpr std::array<std::uint8_t, 8> kPngSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

bool starts_with(std::span<const std::uint8_t> bytes, std::string_view prefix) {
  return bytes.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), bytes.begin(),
                    [](char a, std::uint8_t b) { return static_cast<std::uint8_t>(a) == b; });
}

// 'P' and a digit, followed by whitespace, a comment or the end: a Netpbm magic number.
char netpbm_kind(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 2 || bytes[0] != 'P' || bytes[1] < '1' || bytes[1] > '7') {
    return 0;
  }
  if (bytes.size() > 2) {
    const std::uint8_t next = bytes[2];
    if (next != ' ' && next != '\t' && next != '\n' && next != '\r' && next != '\v' &&
        next != '\f' && next != '#') {
      return 0;
    }
  }
  return static_cast<char>(bytes[1]);
}

void validate_palette(const DecodeOptions& options) {
  if (options.rule != PixelRule::kPalette) {
    if (!options.palette.empty()) {
      fail(std::string("a palette was given but the rule is ") + rule_name(options.rule) +
           "; the palette is only used with rule PALETTE");
    }
    return;
  }
  if (options.palette.empty()) {
    fail("rule PALETTE needs a palette mapping 0xRRGGBB colours to area ids");
  }
  for (const auto& [colour, area] : options.palette) {
    if (colour > 0xFFFFFFU) {
      fail("palette colour " + codec_internal::hex_colour(colour) + " is not a 0xRRGGBB value");
    }
    if (area > static_cast<std::uint32_t>(kMaxAreaId)) {
      fail("palette maps colour " + codec_internal::hex_colour(colour) + " to area " +
           std::to_string(area) + ", the largest area id is " + std::to_string(kMaxAreaId));
    }
  }
}

Mask decode_raw(std::span<const std::uint8_t> bytes, const DecodeOptions& options) {
  if (options.rule == PixelRule::kBlueBit7 || options.rule == PixelRule::kPalette) {
    fail(std::string("rule ") + rule_name(options.rule) +
         " does not apply to RAW data (its bytes are area ids); use INDEX or NONZERO");
  }
  const std::uint32_t width = options.raw_width;
  const std::uint32_t height = options.raw_height;
  if (width == 0 || height == 0) {
    fail("RAW needs width and height");
  }
  codec_internal::check_dimensions(width, height, options.max_pixels);
  const std::uint64_t expected = std::uint64_t{width} * height;
  if (bytes.size() != expected) {
    fail("RAW data has " + std::to_string(bytes.size()) + " bytes, expected " +
         std::to_string(expected) + " for " + std::to_string(width) + "x" + std::to_string(height));
  }
  std::vector<std::uint8_t> areas(bytes.begin(), bytes.end());
  if (options.rule == PixelRule::kNonZero) {
    for (auto& id : areas) {
      id = id != 0 ? 1 : 0;
    }
  } else {
    const auto bad =
        std::find_if(areas.begin(), areas.end(), [](std::uint8_t id) { return id > kMaxAreaId; });
    if (bad != areas.end()) {
      const auto index = static_cast<std::uint64_t>(bad - areas.begin());
      fail("area id " + std::to_string(*bad) + " at " +
           codec_internal::position(index % width, index / width) +
           " exceeds the largest area id " + std::to_string(kMaxAreaId));
    }
  }
  return Mask(width, height, std::move(areas));
}

}  // namespace

MaskFormat sniff_format(std::span<const std::uint8_t> bytes) {
  if (bytes.size() >= kPngSignature.size() &&
      std::equal(kPngSignature.begin(), kPngSignature.end(), bytes.begin())) {
    return MaskFormat::kPng;
  }
  switch (netpbm_kind(bytes)) {
    case '1':
    case '4':
      return MaskFormat::kPbm;
    case '2':
    case '5':
      return MaskFormat::kPgm;
    default:
      break;
  }
  if (starts_with(bytes, "type octile")) {
    return MaskFormat::kMovingAi;
  }
  return MaskFormat::kAuto;
}

const char* format_name(MaskFormat format) {
  switch (format) {
    case MaskFormat::kAuto:
      return "auto";
    case MaskFormat::kPng:
      return "png";
    case MaskFormat::kPgm:
      return "pgm";
    case MaskFormat::kPbm:
      return "pbm";
    case MaskFormat::kMovingAi:
      return "movingai";
    case MaskFormat::kRaw:
      return "raw";
  }
  return "unknown";
}

const char* rule_name(PixelRule rule) {
  switch (rule) {
    case PixelRule::kAuto:
      return "AUTO";
    case PixelRule::kIndex:
      return "INDEX";
    case PixelRule::kNonZero:
      return "NONZERO";
    case PixelRule::kBlueBit7:
      return "BLUE_BIT7";
    case PixelRule::kPalette:
      return "PALETTE";
  }
  return "UNKNOWN";
}

Mask decode_mask(std::span<const std::uint8_t> bytes, const DecodeOptions& options) {
  if (bytes.empty()) {
    fail("image is empty");
  }
  validate_palette(options);
  MaskFormat format = options.format;
  if (format == MaskFormat::kAuto) {
    format = sniff_format(bytes);
  }
  switch (format) {
    case MaskFormat::kPng:
      return codec_internal::decode_png(bytes, options);
    case MaskFormat::kPgm:
    case MaskFormat::kPbm:
      return codec_internal::decode_netpbm(bytes, options);
    case MaskFormat::kMovingAi:
      return codec_internal::decode_movingai(bytes, options);
    case MaskFormat::kRaw:
      return decode_raw(bytes, options);
    case MaskFormat::kAuto:
      break;
  }
  switch (netpbm_kind(bytes)) {
    case '3':
    case '6':
      fail("PPM colour images are not supported; use PNG");
    case '7':
      fail("PAM images are not supported; use PNG");
    default:
      break;
  }
  fail(
      "could not recognise the image format (expected PNG, PGM, PBM or Moving AI map; RAW needs "
      "format RAW with width and height)");
}

}  // namespace pathcore
