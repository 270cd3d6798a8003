#include "store/mask_store.h"

#include <string>

namespace pathserver {
namespace {

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == '/';
}

std::string printable_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xF];
}

}  // namespace

std::optional<std::string> mask_name_problem(std::string_view name) {
  if (name.empty()) return "must not be empty";
  if (name.size() > kMaxMaskNameLength) {
    return "is " + std::to_string(name.size()) + " characters long; the limit is " +
           std::to_string(kMaxMaskNameLength);
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!is_name_char(name[i])) {
      return printable_char(name[i]) + " at position " + std::to_string(i) +
             " is not allowed (use A-Z a-z 0-9 . _ - /)";
    }
  }
  if (name.front() == '/') return "must not start with '/'";
  if (name.back() == '/') return "must not end with '/'";
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view segment = name.substr(start, end - start);
    if (segment.empty()) return "must not contain an empty segment ('//')";
    if (segment == "." || segment == "..") {
      return "must not contain a '" + std::string(segment) + "' segment";
    }
    start = end + 1;
  }
  return std::nullopt;
}

std::string corrupt_mask_message(std::string_view name) {
  return "mask '" + std::string(name) +
         "' is unreadable: its stored file was corrupt when the server started; upload it "
         "again or delete it";
}

}  // namespace pathserver
