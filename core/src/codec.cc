#include "pathcore/codec.h"

// Placeholder until the codecs land: every call fails clearly.
namespace pathcore {

Mask decode_mask(std::span<const std::uint8_t>, const DecodeOptions&) {
  throw DecodeError(DecodeError::Kind::kInvalid, "decoding is not implemented yet");
}
MaskFormat sniff_format(std::span<const std::uint8_t>) { return MaskFormat::kAuto; }
const char* format_name(MaskFormat) { return "unknown"; }
std::vector<std::uint8_t> encode_png_rgba(std::uint32_t, std::uint32_t,
                                          std::span<const std::uint8_t>) {
  throw InvalidArgument("PNG encoding is not implemented yet");
}
std::vector<std::uint8_t> encode_png_areas(const Mask&) {
  throw InvalidArgument("PNG encoding is not implemented yet");
}

}  // namespace pathcore
