#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "pathcore/mask.h"

namespace pathcore {

// Image formats a mask can be decoded from.
//  kPng      every colour type and bit depth; interlaced or not.
//  kPgm/kPbm Netpbm greyscale (P2 plain, P5 binary; maxval 1..65535, two
//            big-endian bytes per sample above 255) and bitmap (P1, P4).
//            The magic number decides, so either value reads both. Bytes
//            after the first image are ignored.
//  kMovingAi a Moving AI benchmark map: "type octile", "height H", "width W"
//            (either order), "map", then H rows of W cells, LF or CRLF.
//            '.', 'G', 'S' are area 1; '@', 'O', 'T', 'W' area 0.
//  kRaw      exactly raw_width*raw_height bytes, each an area id, row-major.
// PPM (P3/P6) and PAM (P7) are refused: use PNG for colour images.
enum class MaskFormat { kAuto, kPng, kPgm, kPbm, kMovingAi, kRaw };

// How pixels become area ids (0..63). Under every rule a fully transparent
// pixel (alpha 0 in an alpha channel, or matching/marked by a tRNS chunk) is
// area 0.
//  kIndex    the palette index or grey value is the area id; a value above 63
//            is an error naming it and its position. At 16 bits the whole
//            value counts (so it must be 0..63). Refused for RGB/RGBA.
//  kNonZero  non-black is area 1, black area 0 (palette images: the palette
//            colour; 16-bit images: any non-zero bit). Under the colour rules
//            (kNonZero, kBlueBit7, kPalette) a palette index beyond the
//            image's PLTE is an error.
//  kBlueBit7 area 1 where bit 7 of the 8-bit blue channel is set (grey: of
//            the grey value scaled to 8 bits; palette: of the palette colour).
//  kPalette  DecodeOptions::palette maps 0xRRGGBB (8 bits per channel; 16-bit
//            images use the high byte, grey g reads as 0xgggggg) to area ids;
//            unlisted colours are area 0. The palette must not be empty, and
//            it is refused with any other rule.
//  kAuto     kIndex for palette and greyscale (with or without alpha) images,
//            PGM, PBM, Moving AI maps and RAW; kNonZero for RGB/RGBA.
// PGM samples are scaled to 8 bits as round(v * 255 / maxval) for kBlueBit7
// and kPalette. A PBM reads as a 1-bit greyscale image, black (bit 1) = 0 and
// white (bit 0) = 1: white is area 1 and black walls area 0 under kIndex,
// kNonZero and kBlueBit7; kPalette sees 0xffffff and 0x000000. Moving AI maps
// accept kAuto, kIndex and kNonZero (all alike); RAW accepts kAuto and kIndex
// (bytes are ids) and kNonZero (non-zero bytes are area 1).
enum class PixelRule { kAuto, kIndex, kNonZero, kBlueBit7, kPalette };

// The default largest mask: 64 megapixels (8192 x 8192).
inline constexpr std::uint64_t kDefaultMaxPixels = 64ULL * 1024 * 1024;

struct DecodeOptions {
  MaskFormat format = MaskFormat::kAuto;  // kAuto sniffs the bytes
  PixelRule rule = PixelRule::kAuto;      // kAuto: INDEX for palette/grey, NONZERO for colour
  std::map<std::uint32_t, std::uint32_t> palette;  // 0xRRGGBB -> area id, for kPalette
  // kPalette: a pixel whose colour the palette does not list is area 0 when
  // set; unset, the image is refused (DecodeError naming the colours).
  bool block_unmapped = false;
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

// Decodes image bytes into a mask. Throws DecodeError. Declared dimensions
// are checked against options.max_pixels before any pixel buffer is
// allocated; width or height 0 is kInvalid.
[[nodiscard]] Mask decode_mask(std::span<const std::uint8_t> bytes, const DecodeOptions& options);

// Guesses the format from the leading bytes; kAuto when unknown (RAW cannot be sniffed).
[[nodiscard]] MaskFormat sniff_format(std::span<const std::uint8_t> bytes);

// Lower-case name of a format for messages ("png", "pgm", ...).
[[nodiscard]] const char* format_name(MaskFormat format);

// Upper-case name of a rule for messages ("INDEX", "BLUE_BIT7", ...).
[[nodiscard]] const char* rule_name(PixelRule rule);

// Encodes 8-bit RGBA pixels (width*height*4 bytes) as PNG. Throws InvalidArgument.
[[nodiscard]] std::vector<std::uint8_t> encode_png_rgba(std::uint32_t width, std::uint32_t height,
                                                        std::span<const std::uint8_t> rgba);

// Encodes a mask as an 8-bit greyscale PNG whose grey value is the area id,
// so decode_mask with PixelRule::kIndex gives the mask back.
[[nodiscard]] std::vector<std::uint8_t> encode_png_areas(const Mask& mask);

}  // namespace pathcore
