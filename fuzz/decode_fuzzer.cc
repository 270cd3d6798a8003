// Fuzzes decode_mask for one format (PATHFINDER_FUZZ_FORMAT, fixed at build
// time; kAuto sniffs). The first bytes choose the options:
//   byte 0      rule = byte % 5 (auto, index, nonzero, blue-bit7, palette),
//               palette entries = (byte >> 3) & 7
//   bytes 1, 2  raw_width, raw_height (RAW); other formats: byte 1, when not
//               0, lowers max_pixels to byte * 16 (the size limit's path)
//   then        4 bytes per palette entry: R, G, B, area id (not limited to 0..63)
//   the rest    the image
// A decode either throws DecodeError or gives a mask that keeps the
// invariants below; anything else (another exception, a crash, a leak, UB)
// is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <span>
#include <vector>

#include "pathcore/codec.h"
#include "pathcore/mask.h"

namespace {

using pathcore::DecodeError;
using pathcore::DecodeOptions;
using pathcore::Mask;
using pathcore::MaskFormat;
using pathcore::PixelRule;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "decode invariant failed: %s\n", what);
  std::abort();
}

void check(bool ok, const char* what) {
  if (!ok) fail(what);
}

// Small enough that one input decodes in milliseconds.
constexpr std::uint64_t kMaxPixels = 1U << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  const auto byte = [&](std::size_t i) -> std::uint8_t { return i < size ? data[i] : 0; };
  DecodeOptions options;
  options.format = MaskFormat::PATHFINDER_FUZZ_FORMAT;
  options.rule = static_cast<PixelRule>(byte(0) % 5);
  options.raw_width = byte(1);
  options.raw_height = byte(2);
  options.max_pixels = kMaxPixels;
  if (options.format != MaskFormat::kRaw && byte(1) != 0) {
    options.max_pixels = std::uint64_t{byte(1)} * 16;
  }
  const std::size_t palette_entries = (byte(0) >> 3) & 7U;
  std::size_t at = 3;
  std::set<std::uint32_t> palette_areas;
  for (std::size_t i = 0; i < palette_entries; ++i, at += 4) {
    const std::uint32_t colour = (std::uint32_t{byte(at)} << 16) |
                                 (std::uint32_t{byte(at + 1)} << 8) | byte(at + 2);
    options.palette[colour] = byte(at + 3);
    palette_areas.insert(byte(at + 3));
  }
  const std::span<const std::uint8_t> image = at < size ? input.subspan(at) : input.subspan(size);

  std::vector<std::uint8_t> areas;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  try {
    const Mask mask = pathcore::decode_mask(image, options);
    width = mask.width();
    height = mask.height();
    areas = mask.areas();
  } catch (const DecodeError& error) {
    check(error.what()[0] != '\0', "a DecodeError without a message");
    return 0;
  }

  check(width >= 1 && height >= 1, "an empty mask");
  check(std::uint64_t{width} * height <= options.max_pixels, "more pixels than max_pixels");
  check(areas.size() == std::size_t{width} * height, "area grid size");
  for (const std::uint8_t area : areas) {
    check(area <= pathcore::kMaxAreaId, "an area id above 63");
    if (options.rule == PixelRule::kNonZero || options.rule == PixelRule::kBlueBit7) {
      check(area <= 1, "a two-valued rule gave an area above 1");
    }
    if (options.rule == PixelRule::kPalette) {
      check(area == 0 || palette_areas.count(area) == 1, "an area not in the palette");
    }
  }
  if (options.format == MaskFormat::kRaw) {
    check(width == options.raw_width && height == options.raw_height, "RAW dimensions");
    check(image.size() == areas.size(), "RAW accepted the wrong number of bytes");
    for (std::size_t i = 0; i < areas.size(); ++i) {
      const std::uint8_t want = options.rule == PixelRule::kNonZero ? (image[i] != 0 ? 1 : 0)
                                                                    : image[i];
      check(areas[i] == want, "RAW pixel is not its byte");
    }
  }

  // A sniffed decode reads the bytes as the sniffed format would.
  if (options.format == MaskFormat::kAuto) {
    DecodeOptions explicit_format = options;
    explicit_format.format = pathcore::sniff_format(image);
    check(explicit_format.format != MaskFormat::kAuto, "decoded bytes that do not sniff");
    const Mask same = pathcore::decode_mask(image, explicit_format);
    check(same.width() == width && same.height() == height && same.areas() == areas,
          "the sniffed format decodes differently");
  }

  // The mask survives a round trip through core's own PNG encoder, with the
  // same digest (what the server stores and reports).
  const Mask mask(width, height, areas);
  const std::vector<std::uint8_t> png = pathcore::encode_png_areas(mask);
  DecodeOptions index;
  index.format = MaskFormat::kPng;
  index.rule = PixelRule::kIndex;
  const Mask again = pathcore::decode_mask(png, index);
  check(again.width() == width && again.height() == height, "round trip changed the size");
  check(again.areas() == areas, "round trip changed the areas");
  check(pathcore::area_grid_sha256(again) == pathcore::area_grid_sha256(mask),
        "round trip changed the digest");
  return 0;
}
