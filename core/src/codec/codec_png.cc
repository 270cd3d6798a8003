// PNG decoding and encoding with libpng, from and to memory.
//
// libpng reports errors by calling our error function, which longjmps back to
// the setjmp in one of the small "guarded" functions below. C++ exceptions
// never cross libpng's C frames, and the guarded functions and callbacks hold
// only trivially destructible locals, so a longjmp skips no destructor. Every
// C++ object (buffers, tables, the libpng structs' owner) lives in the caller
// of a guarded function and outlives it; errors are turned into exceptions
// there, after the guarded function has returned.
#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <limits>
#include <new>

#include "codec_internal.h"

namespace pathcore {
namespace codec_internal {
namespace {

// PNG's own limit on either dimension (2^31 - 1).
constexpr png_uint_32 kPngMaxDimension = 0x7FFFFFFFU;

constexpr std::size_t kMessageCapacity = 256;

// What libpng's callbacks share with us: plain data only.
struct PngIo {
  const std::uint8_t* data = nullptr;  // reading: the input
  std::size_t size = 0;
  std::size_t offset = 0;
  bool truncated = false;                    // reading ran past the end of the input
  std::vector<std::uint8_t>* out = nullptr;  // writing: the output (owned by the caller)
  bool out_of_memory = false;
  char message[kMessageCapacity] = {};  // libpng's error message
};

[[noreturn]] void on_png_error(png_structp png, png_const_charp message) {
  auto* io = static_cast<PngIo*>(png_get_error_ptr(png));
  std::strncpy(io->message, message != nullptr ? message : "unknown error", kMessageCapacity - 1);
  io->message[kMessageCapacity - 1] = '\0';
  png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}  // core does not log

void read_from_memory(png_structp png, png_bytep out, png_size_t length) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  if (length > io->size - io->offset) {
    io->truncated = true;
    png_error(png, "truncated");
  }
  std::memcpy(out, io->data + io->offset, length);
  io->offset += length;
}

void write_to_memory(png_structp png, png_bytep data, png_size_t length) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  bool ok = true;
  try {
    io->out->insert(io->out->end(), data, data + length);
  } catch (const std::bad_alloc&) {
    ok = false;
  }
  if (!ok) {  // outside the handler: longjmp must not leave a catch block
    io->out_of_memory = true;
    png_error(png, "out of memory");
  }
}

void flush_memory(png_structp) {}

// Owns a read or write struct pair.
class PngStructs {
 public:
  PngStructs(bool reading, PngIo* io) : reading_(reading) {
    png_ = reading
               ? png_create_read_struct(PNG_LIBPNG_VER_STRING, io, on_png_error, on_png_warning)
               : png_create_write_struct(PNG_LIBPNG_VER_STRING, io, on_png_error, on_png_warning);
    if (png_ == nullptr) {
      throw std::bad_alloc();
    }
    info_ = png_create_info_struct(png_);
    if (info_ == nullptr) {
      destroy();
      throw std::bad_alloc();
    }
    // Our own checks (max_pixels) decide what is too large, not libpng's
    // default 1,000,000-pixel cap on each dimension.
    png_set_user_limits(png_, kPngMaxDimension, kPngMaxDimension);
  }
  PngStructs(const PngStructs&) = delete;
  PngStructs& operator=(const PngStructs&) = delete;
  ~PngStructs() { destroy(); }

  [[nodiscard]] png_structp png() const { return png_; }
  [[nodiscard]] png_infop info() const { return info_; }

 private:
  void destroy() {
    if (png_ == nullptr) {
      return;
    }
    if (reading_) {
      png_destroy_read_struct(&png_, info_ != nullptr ? &info_ : nullptr, nullptr);
    } else {
      png_destroy_write_struct(&png_, info_ != nullptr ? &info_ : nullptr);
    }
    png_ = nullptr;
    info_ = nullptr;
  }

  bool reading_;
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
};

// ---------------------------------------------------------------- decoding

struct PngHeader {
  png_uint_32 width = 0;
  png_uint_32 height = 0;
  int bit_depth = 0;
  int colour_type = 0;
  int interlace = 0;
  int palette_size = 0;
  std::uint8_t palette[256][3] = {};
  int alpha_count = 0;  // tRNS entries for a palette image
  std::uint8_t palette_alpha[256] = {};
  bool has_trans_colour = false;  // tRNS for a grey or RGB image
  png_color_16 trans_colour = {};
};

// Guarded: reads the chunks up to the first IDAT.
bool read_header(png_structp png, png_infop info, PngHeader* header) {
  if (setjmp(png_jmpbuf(png))) {
    return false;
  }
  png_read_info(png, info);
  png_get_IHDR(png, info, &header->width, &header->height, &header->bit_depth, &header->colour_type,
               &header->interlace, nullptr, nullptr);
  png_colorp palette = nullptr;
  int palette_size = 0;
  if (png_get_PLTE(png, info, &palette, &palette_size) != 0) {
    header->palette_size = std::clamp(palette_size, 0, 256);
    for (int i = 0; i < header->palette_size; ++i) {
      header->palette[i][0] = palette[i].red;
      header->palette[i][1] = palette[i].green;
      header->palette[i][2] = palette[i].blue;
    }
  }
  png_bytep alpha = nullptr;
  int alpha_count = 0;
  png_color_16p trans_colour = nullptr;
  if (png_get_tRNS(png, info, &alpha, &alpha_count, &trans_colour) != 0) {
    if (header->colour_type == PNG_COLOR_TYPE_PALETTE && alpha != nullptr) {
      header->alpha_count = std::clamp(alpha_count, 0, 256);
      std::memcpy(header->palette_alpha, alpha, static_cast<std::size_t>(header->alpha_count));
    } else if (trans_colour != nullptr && (header->colour_type == PNG_COLOR_TYPE_GRAY ||
                                           header->colour_type == PNG_COLOR_TYPE_RGB)) {
      header->has_trans_colour = true;
      header->trans_colour = *trans_colour;
    }
  }
  return true;
}

const char* colour_type_name(int colour_type) {
  switch (colour_type) {
    case PNG_COLOR_TYPE_GRAY:
      return "greyscale";
    case PNG_COLOR_TYPE_GRAY_ALPHA:
      return "greyscale+alpha";
    case PNG_COLOR_TYPE_PALETTE:
      return "palette";
    case PNG_COLOR_TYPE_RGB:
      return "RGB";
    case PNG_COLOR_TYPE_RGB_ALPHA:
      return "RGBA";
    default:
      return "unknown colour type";
  }
}

// A pixel that could not be converted, for the error message.
struct BadPixel {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t value = 0;
  std::uint8_t code = 0;  // kIdTooLarge or kOutsidePalette
};

// Turns rows of samples (after png_set_packing: one byte per sample below
// 8 bits, two big-endian bytes at 16 bits) into area ids.
class RowConverter {
 public:
  RowConverter(const PngHeader& header, PixelRule rule, const ColourPalette& palette,
               UnmappedColours* unmapped)
      : width_(header.width),
        sixteen_(header.bit_depth == 16),
        channels_(png_channels_for(header.colour_type)),
        rule_(rule),
        palette_(palette),
        unmapped_(unmapped) {
    const int colour_type = header.colour_type;
    if (colour_type == PNG_COLOR_TYPE_PALETTE) {
      table_.assign(256, 0);
      table_colours_.assign(256, 0);
      for (int i = 0; i < 256; ++i) {
        if (rule == PixelRule::kIndex) {
          table_[i] = i <= kMaxAreaId ? static_cast<std::uint8_t>(i) : kIdTooLarge;
        } else if (i >= header.palette_size) {
          table_[i] = kOutsidePalette;
        } else {
          const std::uint8_t* c = header.palette[i];
          const std::uint32_t rgb = (std::uint32_t{c[0]} << 16) | (std::uint32_t{c[1]} << 8) | c[2];
          table_[i] = area_for_colour(rule, rgb, rgb != 0, palette);
          table_colours_[i] = rgb;
        }
      }
      for (int i = 0; i < header.alpha_count; ++i) {
        if (header.palette_alpha[i] == 0) {
          table_[i] = 0;  // fully transparent: area 0 under every rule
        }
      }
    } else if (colour_type == PNG_COLOR_TYPE_GRAY || colour_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
      const std::uint32_t maxval = (1U << header.bit_depth) - 1;
      const GreyTo8 to8 = sixteen_ ? GreyTo8::kHighByte : GreyTo8::kScale;
      table_ = grey_table(rule, maxval, to8, palette);
      if (rule == PixelRule::kPalette) {  // the colours, for unmapped ones
        table_colours_.resize(table_.size());
        for (std::uint32_t v = 0; v <= maxval; ++v) table_colours_[v] = grey_colour(v, maxval, to8);
      }
      if (header.has_trans_colour && header.trans_colour.gray <= maxval) {
        table_[header.trans_colour.gray] = 0;
      }
    } else if (header.has_trans_colour) {
      has_trans_rgb_ = true;
      trans_r_ = header.trans_colour.red;
      trans_g_ = header.trans_colour.green;
      trans_b_ = header.trans_colour.blue;
    }
  }

  [[nodiscard]] std::size_t row_bytes() const {
    return std::size_t{width_} * static_cast<std::size_t>(channels_) * (sixteen_ ? 2 : 1);
  }

  // Converts row y into out (width bytes). On a pixel that has no area,
  // fills *bad and returns false. Never throws: runs between libpng calls.
  bool convert(const std::uint8_t* row, std::uint32_t y, std::uint8_t* out,
               BadPixel* bad) noexcept {
    for (std::uint32_t x = 0; x < width_; ++x) {
      const std::size_t first = std::size_t{x} * static_cast<std::size_t>(channels_);
      std::uint8_t area = 0;
      if (channels_ <= 2) {
        const std::uint32_t value = sample(row, first);
        const bool transparent = channels_ == 2 && sample(row, first + 1) == 0;
        area = transparent ? 0 : table_[value];
        if (area == kUnmappedColour) {
          unmapped_->add(table_colours_[value], x, y);
          area = 0;
        }
        if (area > kMaxAreaId) {
          *bad = BadPixel{x, y, value, area};
          return false;
        }
      } else {
        area = colour_area(row, first, x, y);
      }
      out[x] = area;
    }
    return true;
  }

 private:
  static int png_channels_for(int colour_type) {
    switch (colour_type) {
      case PNG_COLOR_TYPE_GRAY_ALPHA:
        return 2;
      case PNG_COLOR_TYPE_RGB:
        return 3;
      case PNG_COLOR_TYPE_RGB_ALPHA:
        return 4;
      default:
        return 1;  // grey, palette
    }
  }

  [[nodiscard]] std::uint32_t sample(const std::uint8_t* row, std::size_t index) const {
    if (sixteen_) {
      return (std::uint32_t{row[2 * index]} << 8) | row[2 * index + 1];
    }
    return row[index];
  }

  std::uint8_t colour_area(const std::uint8_t* row, std::size_t first, std::uint32_t x,
                           std::uint32_t y) noexcept {
    const std::uint32_t r = sample(row, first);
    const std::uint32_t g = sample(row, first + 1);
    const std::uint32_t b = sample(row, first + 2);
    if (channels_ == 4 && sample(row, first + 3) == 0) {
      return 0;
    }
    if (has_trans_rgb_ && r == trans_r_ && g == trans_g_ && b == trans_b_) {
      return 0;
    }
    const int shift = sixteen_ ? 8 : 0;
    const std::uint32_t rgb = ((r >> shift) << 16) | ((g >> shift) << 8) | (b >> shift);
    const bool non_black = (r | g | b) != 0;
    if (rule_ != PixelRule::kPalette) {
      return area_for_colour(rule_, rgb, non_black, palette_);
    }
    // Neighbouring pixels mostly share a colour: skip the map lookup then.
    if (!have_last_ || rgb != last_rgb_) {
      last_area_ = area_for_colour(rule_, rgb, non_black, palette_);
      last_rgb_ = rgb;
      have_last_ = true;
    }
    if (last_area_ == kUnmappedColour) {
      unmapped_->add(rgb, x, y);
      return 0;
    }
    return last_area_;
  }

  std::uint32_t width_;
  bool sixteen_;
  int channels_;
  PixelRule rule_;
  const ColourPalette& palette_;
  UnmappedColours* unmapped_;
  std::vector<std::uint8_t> table_;            // grey or palette images: sample -> area
  std::vector<std::uint32_t> table_colours_;  // ... -> 0xRRGGBB (colour rules only)
  bool has_trans_rgb_ = false;
  std::uint32_t trans_r_ = 0;
  std::uint32_t trans_g_ = 0;
  std::uint32_t trans_b_ = 0;
  bool have_last_ = false;
  std::uint32_t last_rgb_ = 0;
  std::uint8_t last_area_ = 0;
};

// Everything read_pixels needs; the buffers belong to its caller.
struct PixelJob {
  std::uint32_t height = 0;
  bool interlaced = false;
  bool packed = false;                // bit depth below 8: expand to a byte per sample
  std::size_t row_bytes = 0;          // after the transformations
  std::uint8_t* raw = nullptr;        // one row, or every row when interlaced
  png_bytep* row_pointers = nullptr;  // interlaced: into raw
  RowConverter* converter = nullptr;
  std::uint8_t* areas = nullptr;  // width*height, the result
  std::size_t width = 0;
  bool has_bad_pixel = false;
  BadPixel bad;
};

// Guarded: reads and converts the pixels, then the chunks after them.
bool read_pixels(png_structp png, png_infop info, PixelJob* job) {
  if (setjmp(png_jmpbuf(png))) {
    return false;
  }
  if (job->packed) {
    png_set_packing(png);
  }
  if (job->interlaced) {
    png_set_interlace_handling(png);
  }
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != job->row_bytes) {
    png_error(png, "unexpected row size after transformations");
  }
  if (job->interlaced) {
    png_read_image(png, job->row_pointers);
    for (std::uint32_t y = 0; y < job->height; ++y) {
      if (!job->converter->convert(job->row_pointers[y], y, job->areas + y * job->width,
                                   &job->bad)) {
        job->has_bad_pixel = true;
        return true;
      }
    }
  } else {
    for (std::uint32_t y = 0; y < job->height; ++y) {
      png_read_row(png, job->raw, nullptr);
      if (!job->converter->convert(job->raw, y, job->areas + y * job->width, &job->bad)) {
        job->has_bad_pixel = true;
        return true;
      }
    }
  }
  png_read_end(png, nullptr);  // checks the rest of the file, so truncation is caught
  return true;
}

[[noreturn]] void fail_from_libpng(const PngIo& io) {
  if (io.truncated) {
    fail("PNG data truncated: the image ends after " + std::to_string(io.size) + " bytes");
  }
  fail(std::string("PNG is corrupt: ") + io.message);
}

std::string bad_pixel_message(const BadPixel& bad, const PngHeader& header) {
  const std::string where = position(bad.x, bad.y);
  if (bad.code == kOutsidePalette) {
    return "palette index " + std::to_string(bad.value) + " at " + where +
           " is outside the image's palette of " + std::to_string(header.palette_size) + " colours";
  }
  if (header.colour_type != PNG_COLOR_TYPE_PALETTE) {
    return grey_too_large_message(bad.value, bad.x, bad.y);
  }
  return "palette index " + std::to_string(bad.value) + " at " + where +
         " exceeds the largest area id " + std::to_string(kMaxAreaId);
}

// ---------------------------------------------------------------- encoding

struct ImageToWrite {
  png_uint_32 width = 0;
  png_uint_32 height = 0;
  int colour_type = 0;
  const std::uint8_t* pixels = nullptr;  // 8-bit samples, rows of row_bytes
  std::size_t row_bytes = 0;
};

// Guarded: writes the whole PNG.
bool write_png(png_structp png, png_infop info, const ImageToWrite* image) {
  if (setjmp(png_jmpbuf(png))) {
    return false;
  }
  png_set_IHDR(png, info, image->width, image->height, 8, image->colour_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (png_uint_32 y = 0; y < image->height; ++y) {
    png_write_row(png, image->pixels + std::size_t{y} * image->row_bytes);
  }
  png_write_end(png, nullptr);
  return true;
}

std::vector<std::uint8_t> encode(const ImageToWrite& image) {
  std::vector<std::uint8_t> out;
  PngIo io;
  io.out = &out;
  PngStructs structs(/*reading=*/false, &io);
  png_set_write_fn(structs.png(), &io, write_to_memory, flush_memory);
  if (!write_png(structs.png(), structs.info(), &image)) {
    if (io.out_of_memory) {
      throw std::bad_alloc();
    }
    throw std::runtime_error(std::string("PNG encoding failed: ") + io.message);
  }
  return out;
}

// An early look at the IHDR (always the first chunk), so that an oversized
// image is reported as such even when the data after the IHDR is cut off or
// absent. png_read_info's IHDR stays authoritative and is checked again.
void check_declared_size(Bytes bytes, std::uint64_t max_pixels) {
  constexpr std::size_t kIhdrEnd = 8 + 8 + 8;  // signature, length + type, width + height
  if (bytes.size() < kIhdrEnd || std::memcmp(bytes.data() + 12, "IHDR", 4) != 0) {
    return;
  }
  const auto be32 = [&](std::size_t at) {
    return (std::uint32_t{bytes[at]} << 24) | (std::uint32_t{bytes[at + 1]} << 16) |
           (std::uint32_t{bytes[at + 2]} << 8) | bytes[at + 3];
  };
  const std::uint32_t width = be32(16);
  const std::uint32_t height = be32(20);
  if (width != 0 && height != 0 && width <= kPngMaxDimension && height <= kPngMaxDimension) {
    check_dimensions(width, height, max_pixels);  // throws only kTooLarge here
  }
}

}  // namespace

Mask decode_png(Bytes bytes, const DecodeOptions& options) {
  if (png_sig_cmp(bytes.data(), 0, std::min<std::size_t>(bytes.size(), 8)) != 0) {
    fail("not a PNG image: the PNG signature is missing");
  }
  if (bytes.size() < 8) {
    fail("PNG data truncated: the image ends after " + std::to_string(bytes.size()) + " bytes");
  }
  check_declared_size(bytes, options.max_pixels);
  PngIo io;
  io.data = bytes.data();
  io.size = bytes.size();
  PngStructs structs(/*reading=*/true, &io);
  png_set_read_fn(structs.png(), &io, read_from_memory);

  PngHeader header;
  if (!read_header(structs.png(), structs.info(), &header)) {
    fail_from_libpng(io);
  }
  // Before any buffer is sized by the image.
  check_dimensions(header.width, header.height, options.max_pixels);

  const bool is_colour =
      header.colour_type == PNG_COLOR_TYPE_RGB || header.colour_type == PNG_COLOR_TYPE_RGB_ALPHA;
  PixelRule rule = options.rule;
  if (rule == PixelRule::kAuto) {
    rule = is_colour ? PixelRule::kNonZero : PixelRule::kIndex;
  }
  if (rule == PixelRule::kIndex && is_colour) {
    fail(std::string("rule INDEX needs a palette or greyscale image, got ") +
         colour_type_name(header.colour_type));
  }

  UnmappedColours unmapped;
  RowConverter converter(header, rule, options.palette, &unmapped);
  const bool interlaced = header.interlace != PNG_INTERLACE_NONE;
  const std::size_t row_bytes = converter.row_bytes();
  std::vector<std::uint8_t> raw(interlaced ? row_bytes * header.height : row_bytes);
  std::vector<png_bytep> row_pointers;
  if (interlaced) {
    row_pointers.resize(header.height);
    for (std::size_t y = 0; y < header.height; ++y) {
      row_pointers[y] = raw.data() + y * row_bytes;
    }
  }
  std::vector<std::uint8_t> areas(std::size_t{header.width} * header.height);

  PixelJob job;
  job.height = header.height;
  job.width = header.width;
  job.interlaced = interlaced;
  job.packed = header.bit_depth < 8;
  job.row_bytes = row_bytes;
  job.raw = raw.data();
  job.row_pointers = row_pointers.data();
  job.converter = &converter;
  job.areas = areas.data();
  if (!read_pixels(structs.png(), structs.info(), &job)) {
    fail_from_libpng(io);
  }
  if (job.has_bad_pixel) {
    fail(bad_pixel_message(job.bad, header));
  }
  unmapped.check(options.block_unmapped);
  return Mask(header.width, header.height, std::move(areas));
}

}  // namespace codec_internal

std::vector<std::uint8_t> encode_png_rgba(std::uint32_t width, std::uint32_t height,
                                          std::span<const std::uint8_t> rgba) {
  if (width == 0 || height == 0 || width > codec_internal::kPngMaxDimension ||
      height > codec_internal::kPngMaxDimension) {
    throw InvalidArgument("PNG dimensions must be 1.." +
                          std::to_string(codec_internal::kPngMaxDimension) + ", got " +
                          std::to_string(width) + "x" + std::to_string(height));
  }
  const std::uint64_t expected = std::uint64_t{width} * height * 4;
  if (rgba.size() != expected) {
    throw InvalidArgument("RGBA pixels for " + std::to_string(width) + "x" +
                          std::to_string(height) + " need " + std::to_string(expected) +
                          " bytes, got " + std::to_string(rgba.size()));
  }
  codec_internal::ImageToWrite image;
  image.width = width;
  image.height = height;
  image.colour_type = PNG_COLOR_TYPE_RGB_ALPHA;
  image.pixels = rgba.data();
  image.row_bytes = std::size_t{width} * 4;
  return codec_internal::encode(image);
}

std::vector<std::uint8_t> encode_png_areas(const Mask& mask) {
  codec_internal::ImageToWrite image;
  image.width = mask.width();
  image.height = mask.height();
  image.colour_type = PNG_COLOR_TYPE_GRAY;
  image.pixels = mask.areas().data();
  image.row_bytes = mask.width();
  return codec_internal::encode(image);
}

}  // namespace pathcore
