// Moving AI benchmark maps (.map): "type octile", "height H", "width W",
// "map", then H rows of W cells. LF or CRLF line endings.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "codec_internal.h"

namespace pathcore::codec_internal {
namespace {

// Hands out lines without their "\n" or "\r\n".
class LineReader {
 public:
  explicit LineReader(Bytes bytes)
      : text_(reinterpret_cast<const char*>(bytes.data()), bytes.size()) {}

  [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
  [[nodiscard]] std::size_t remaining() const { return text_.size() - pos_; }

  std::string_view next() {
    const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
    std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    return line;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

std::string_view trim(std::string_view text) {
  const auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && is_blank(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_blank(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

std::string quoted(std::string_view text) {
  constexpr std::size_t kShown = 40;
  std::string shown(text.substr(0, kShown));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) {
      c = '?';
    }
  }
  return "\"" + shown + (text.size() > kShown ? "...\"" : "\"");
}

// "height 512" -> 512; saturates above the 32-bit range so the caller can
// report it as too large.
std::optional<std::uint64_t> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 19) {
    return text.empty() ? std::nullopt : std::optional<std::uint64_t>(~std::uint64_t{0});
  }
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

// Area of a cell: '.', 'G', 'S' passable (1); '@', 'O', 'T', 'W' not (0).
int cell_area(char c) {
  switch (c) {
    case '.':
    case 'G':
    case 'S':
      return 1;
    case '@':
    case 'O':
    case 'T':
    case 'W':
      return 0;
    default:
      return -1;
  }
}

std::string describe_cell(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x21 && byte <= 0x7E) {
    return std::string("'") + c + "'";
  }
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 0xF];
}

}  // namespace

Mask decode_movingai(Bytes bytes, const DecodeOptions& options) {
  if (options.rule == PixelRule::kBlueBit7 || options.rule == PixelRule::kPalette) {
    fail(std::string("rule ") + rule_name(options.rule) +
         " does not apply to Moving AI maps; use AUTO, INDEX or NONZERO");
  }
  LineReader lines(bytes);
  const std::string_view type = trim(lines.next());
  if (type != "type octile") {
    if (type.substr(0, 5) == "type ") {
      fail("Moving AI map type " + quoted(trim(type.substr(5))) +
           " is not supported (expected octile)");
    }
    fail("not a Moving AI map: the first line must be \"type octile\"");
  }

  std::optional<std::uint64_t> declared_height;
  std::optional<std::uint64_t> declared_width;
  for (;;) {
    if (lines.at_end()) {
      fail("Moving AI map header truncated: no \"map\" line");
    }
    const std::string_view line = trim(lines.next());
    if (line == "map") {
      break;
    }
    const std::size_t space = line.find_first_of(" \t");
    const std::string_view key = line.substr(0, space);
    const std::string_view value =
        space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
    if (key != "height" && key != "width") {
      fail("unexpected line in Moving AI map header: " + quoted(line));
    }
    const std::optional<std::uint64_t> number = parse_number(value);
    if (!number) {
      fail("Moving AI map header has a bad " + std::string(key) + ": " + quoted(line));
    }
    (key == "height" ? declared_height : declared_width) = number;
  }
  if (!declared_height || !declared_width) {
    fail(std::string("Moving AI map header has no ") + (declared_height ? "width" : "height"));
  }
  constexpr std::uint64_t kLimit = std::numeric_limits<std::uint32_t>::max();
  if (*declared_height > kLimit || *declared_width > kLimit) {
    throw DecodeError(DecodeError::Kind::kTooLarge,
                      "Moving AI map header declares a " +
                          std::string(*declared_height > kLimit ? "height" : "width") + " above " +
                          std::to_string(kLimit) + " cells");
  }
  const auto height = static_cast<std::uint32_t>(*declared_height);
  const auto width = static_cast<std::uint32_t>(*declared_width);
  check_dimensions(width, height, options.max_pixels);

  std::vector<std::uint8_t> areas;
  // Grown as rows arrive, so a header promising more than the data holds
  // allocates no more than the data's size.
  areas.reserve(std::min<std::uint64_t>(std::uint64_t{width} * height, lines.remaining()));
  for (std::uint32_t y = 0; y < height; ++y) {
    if (lines.at_end()) {
      fail("map header says height " + std::to_string(height) + " but has " + std::to_string(y) +
           " rows");
    }
    const std::string_view row = lines.next();
    if (row.size() != width) {
      fail("map header says width " + std::to_string(width) + " but row " + std::to_string(y) +
           " has " + std::to_string(row.size()) + " cells");
    }
    for (std::uint32_t x = 0; x < width; ++x) {
      const int area = cell_area(row[x]);
      if (area < 0) {
        fail("map cell " + describe_cell(row[x]) + " at " + position(x, y) +
             " is not one of . G S @ O T W");
      }
      areas.push_back(static_cast<std::uint8_t>(area));
    }
  }
  std::uint64_t extra_rows = 0;
  while (!lines.at_end()) {
    if (!trim(lines.next()).empty()) {
      ++extra_rows;
    }
  }
  if (extra_rows > 0) {
    fail("map header says height " + std::to_string(height) + " but has " +
         std::to_string(std::uint64_t{height} + extra_rows) + " rows");
  }
  return Mask(width, height, std::move(areas));
}

}  // namespace pathcore::codec_internal
