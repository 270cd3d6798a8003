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
inline constexpr std::uint8_t kUnmappedColour = 0xFD;  // PALETTE: a colour the palette lacks

// The pixels whose colour a PALETTE rule's palette does not list: how many,
// where the first is, and the first few distinct colours, for the message.
// Fixed size, no allocation: the PNG decoder records between libpng calls.
class UnmappedColours {
 public:
  void add(std::uint32_t rgb, std::uint64_t x, std::uint64_t y) noexcept;
  // Throws DecodeError naming the colours when any pixel was recorded,
  // unless block_unmapped (those pixels were stored as area 0).
  void check(bool block_unmapped) const;

 private:
  static constexpr std::size_t kNamed = 4;
  std::uint32_t colours_[kNamed] = {};
  std::size_t named_ = 0;
  bool more_colours_ = false;  // a distinct colour past the named ones
  std::uint64_t pixels_ = 0;
  std::uint64_t first_x_ = 0;
  std::uint64_t first_y_ = 0;
};

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
// kUnmappedColour for a colour kPalette's palette does not list.
[[nodiscard]] std::uint8_t area_for_colour(PixelRule rule, std::uint32_t rgb, bool non_black,
                                           const ColourPalette& palette);

// How a grey sample 0..maxval becomes an 8-bit grey for the colour rules.
enum class GreyTo8 {
  kScale,     // round(v * 255 / maxval): exact for 1/2/4/8-bit PNG, any PGM maxval
  kHighByte,  // v >> 8: 16-bit PNG
};

// The 0xRRGGBB colour of grey sample v (0..maxval) for the colour rules.
[[nodiscard]] std::uint32_t grey_colour(std::uint32_t v, std::uint32_t maxval, GreyTo8 to8);

// Area per grey sample value 0..maxval under a resolved rule (not kAuto);
// kIdTooLarge where INDEX meets a value above kMaxAreaId, kUnmappedColour
// where PALETTE's palette lacks the grey.
[[nodiscard]] std::vector<std::uint8_t> grey_table(PixelRule rule, std::uint32_t maxval,
                                                   GreyTo8 to8, const ColourPalette& palette);

// "grey value V at (x,y) exceeds the largest area id 63", with what to do
// about it: grey values are area ids under INDEX, the automatic rule for
// grey images, and a black-and-white mask wants NONZERO.
[[nodiscard]] std::string grey_too_large_message(std::uint32_t value, std::uint64_t x,
                                                 std::uint64_t y);

// The format decoders. `bytes` is not empty; options.palette is validated.
[[nodiscard]] Mask decode_png(Bytes bytes, const DecodeOptions& options);
[[nodiscard]] Mask decode_netpbm(Bytes bytes, const DecodeOptions& options);
[[nodiscard]] Mask decode_movingai(Bytes bytes, const DecodeOptions& options);

}  // namespace pathcore::codec_internal
