#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

enum class MaskFormat { kAuto, kPng, kPgm, kPbm, kMovingAi, kRaw };
enum class PixelRule { kAuto, kIndex, kNonZero, kBlueBit7, kPalette };

// The default largest mask: 64 megapixels (8192 x 8192).
inline constexpr std::uint64_t kDefaultMaxPixels = 64ULL * 1024 * 1024;

struct DecodeOptions {
  MaskFormat format = MaskFormat::kAuto;  // kAuto sniffs the bytes
  PixelRule rule = PixelRule::kAuto;      // kAuto: INDEX for palette/grey, NONZERO for colour
  std::map<std::uint32_t, std::uint32_t> palette;  // 0xRRGGBB -> area id, for kPalette
  std::uint32_t raw_width = 0;   // kRaw only
  std::uint32_t raw_height = 0;  // kRaw only
  // Images declaring more pixels than this are refused before any allocation.
  std::uint64_t max_pixels = kDefaultMaxPixels;
};

// Why an image could not be decoded. kTooLarge: the image declares more
// pixels than allowed; kInvalid: anything else (truncated, corrupt,
// unsupported, an area id out of range). what() names the problem.
class DecodeError : public std::runtime_error {
 public:
  enum class Kind { kInvalid, kTooLarge };
  DecodeError(Kind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  [[nodiscard]] Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// Decodes image bytes into a mask. Throws DecodeError.
[[nodiscard]] Mask decode_mask(std::span<const std::uint8_t> bytes, const DecodeOptions& options);

// Guesses the format from the leading bytes; kAuto when unknown (RAW cannot be sniffed).
[[nodiscard]] MaskFormat sniff_format(std::span<const std::uint8_t> bytes);

// Lower-case name of a format for messages ("png", "pgm", ...).
[[nodiscard]] const char* format_name(MaskFormat format);

// Encodes 8-bit RGBA pixels (width*height*4 bytes) as PNG. Throws InvalidArgument.
[[nodiscard]] std::vector<std::uint8_t> encode_png_rgba(std::uint32_t width, std::uint32_t height,
                                                        std::span<const std::uint8_t> rgba);

// Encodes a mask as an 8-bit greyscale PNG whose grey value is the area id,
// so decode_mask with PixelRule::kIndex gives the mask back.
[[nodiscard]] std::vector<std::uint8_t> encode_png_areas(const Mask& mask);

}  // namespace pathcore
