#pragma once

// Shared by the codec_*.cc files; not part of the public API.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "pathcore/codec.h"
#include "pathcore/mask.h"

namespace pathcore::codec_internal {

using Bytes = std::span<const std::uint8_t>;
using ColourPalette = std::map<std::uint32_t, std::uint32_t>;

// Table entries above kMaxAreaId mark pixels that cannot be converted.
inline constexpr std::uint8_t kIdTooLarge = 0xFF;      // INDEX: the value exceeds kMaxAreaId
inline constexpr std::uint8_t kOutsidePalette = 0xFE;  // a palette index with no colour

// Throws DecodeError kInvalid with the message.
[[noreturn]] void fail(const std::string& message);

// Throws DecodeError kInvalid for a zero dimension and kTooLarge when
// width*height exceeds max_pixels. Call before allocating anything sized by
// the image.
void check_dimensions(std::uint32_t width, std::uint32_t height, std::uint64_t max_pixels);

// "(x,y)", for messages.
[[nodiscard]] std::string position(std::uint64_t x, std::uint64_t y);

// "0x12ab34", for messages.
[[nodiscard]] std::string hex_colour(std::uint32_t rgb);

// The area of an opaque pixel of colour 0xRRGGBB (8 bits per channel) under
// a colour rule (kNonZero, kBlueBit7 or kPalette). `non_black` is passed
// separately so 16-bit images can count low-byte-only values as non-black.
[[nodiscard]] std::uint8_t area_for_colour(PixelRule rule, std::uint32_t rgb, bool non_black,
                                           const ColourPalette& palette);

// How a grey sample 0..maxval becomes an 8-bit grey for the colour rules.
enum class GreyTo8 {
  kScale,     // round(v * 255 / maxval): exact for 1/2/4/8-bit PNG, any PGM maxval
  kHighByte,  // v >> 8: 16-bit PNG
};

// Area per grey sample value 0..maxval under a resolved rule (not kAuto);
// kIdTooLarge where INDEX meets a value above kMaxAreaId.
[[nodiscard]] std::vector<std::uint8_t> grey_table(PixelRule rule, std::uint32_t maxval,
                                                   GreyTo8 to8, const ColourPalette& palette);

// The format decoders. `bytes` is not empty; options.palette is validated.
[[nodiscard]] Mask decode_png(Bytes bytes, const DecodeOptions& options);
[[nodiscard]] Mask decode_netpbm(Bytes bytes, const DecodeOptions& options);
[[nodiscard]] Mask decode_movingai(Bytes bytes, const DecodeOptions& options);

}  // namespace pathcore::codec_internal
