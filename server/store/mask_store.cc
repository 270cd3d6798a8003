#include "store/mask_store.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

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

std::shared_ptr<MaskEntry> make_mask_entry(std::string name, std::uint64_t revision,
                                           pathcore::Mask mask) {
  auto entry = std::make_shared<MaskEntry>();
  entry->name = std::move(name);
  entry->revision = revision;
  entry->mask = std::make_shared<const pathcore::Mask>(std::move(mask));
  entry->sha256 = pathcore::area_grid_sha256(*entry->mask);
  entry->clearance = std::make_shared<const pathcore::ClearanceMap>(*entry->mask, pathcore::kAllAreas);
  return entry;
}

void check_patch(const MaskPatch& patch) {
  if (patch.width == 0 || patch.height == 0) {
    throw InvalidPatch("width: the rectangle is empty (" + std::to_string(patch.width) + "x" +
                       std::to_string(patch.height) + ")");
  }
  const std::uint64_t cells = std::uint64_t{patch.width} * patch.height;
  if (patch.areas.size() != cells) {
    throw InvalidPatch("areas: " + std::to_string(patch.areas.size()) + " bytes for a " +
                       std::to_string(patch.width) + "x" + std::to_string(patch.height) +
                       " rectangle (expected " + std::to_string(cells) + ")");
  }
  for (std::size_t i = 0; i < patch.areas.size(); ++i) {
    if (patch.areas[i] > pathcore::kMaxAreaId) {
      throw InvalidPatch("areas: area id " + std::to_string(patch.areas[i]) + " at byte " +
                         std::to_string(i) + " is out of range 0.." +
                         std::to_string(pathcore::kMaxAreaId));
    }
  }
}

void check_expected_revision(const MaskPatch& patch, std::string_view name,
                             std::uint64_t revision) {
  if (patch.expected_revision != 0 && patch.expected_revision != revision) {
    throw RevisionMismatch("expected revision " + std::to_string(patch.expected_revision) +
                           " but mask '" + std::string(name) + "' is at revision " +
                           std::to_string(revision));
  }
}

bool patch_changes_nothing(const MaskEntry& current, const MaskPatch& patch) {
  const pathcore::Mask& mask = *current.mask;
  if (std::uint64_t{patch.x} + patch.width > mask.width() ||
      std::uint64_t{patch.y} + patch.height > mask.height() ||
      patch.areas.size() != std::size_t{patch.width} * patch.height) {
    return false;
  }
  const std::uint8_t* areas = mask.areas().data();
  for (std::uint32_t row = 0; row < patch.height; ++row) {
    if (std::memcmp(areas + (std::size_t{patch.y} + row) * mask.width() + patch.x,
                    patch.areas.data() + std::size_t{row} * patch.width, patch.width) != 0) {
      return false;
    }
  }
  return true;
}

pathcore::Mask apply_patch(const MaskEntry& current, const MaskPatch& patch) {
  const pathcore::Mask& old_mask = *current.mask;
  if (std::uint64_t{patch.x} + patch.width > old_mask.width()) {
    throw InvalidPatch("x: columns " + std::to_string(patch.x) + ".." +
                       std::to_string(std::uint64_t{patch.x} + patch.width - 1) +
                       " are not inside mask '" + current.name + "' of width " +
                       std::to_string(old_mask.width()));
  }
  if (std::uint64_t{patch.y} + patch.height > old_mask.height()) {
    throw InvalidPatch("y: rows " + std::to_string(patch.y) + ".." +
                       std::to_string(std::uint64_t{patch.y} + patch.height - 1) +
                       " are not inside mask '" + current.name + "' of height " +
                       std::to_string(old_mask.height()));
  }
  std::vector<std::uint8_t> areas = old_mask.areas();
  for (std::uint32_t row = 0; row < patch.height; ++row) {
    std::memcpy(areas.data() + (std::size_t{patch.y} + row) * old_mask.width() + patch.x,
                patch.areas.data() + std::size_t{row} * patch.width, patch.width);
  }
  return pathcore::Mask(old_mask.width(), old_mask.height(), std::move(areas));
}

void check_store_limits(const StoreLimits& limits, const StoredTotals& stored,
                        std::string_view name, const pathcore::Mask& mask,
                        std::optional<std::uint64_t> old_bytes) {
  const std::uint64_t new_bytes = mask.pixel_count();
  const std::string what = "cannot store mask '" + std::string(name) + "' (" +
                           std::to_string(mask.width()) + "x" + std::to_string(mask.height()) +
                           " = " + std::to_string(new_bytes) + " bytes): ";
  if (new_bytes > limits.max_pixels) {
    throw StoreLimitExceeded(what + "the limit is " + std::to_string(limits.max_pixels) +
                             " pixels per mask (--max-pixels)");
  }
  if (!old_bytes && stored.masks >= limits.max_masks) {
    throw StoreLimitExceeded(what + "the store holds " + std::to_string(stored.masks) +
                             " masks, the limit is " + std::to_string(limits.max_masks) +
                             " masks stored (--max-masks)");
  }
  const std::uint64_t replaced = old_bytes.value_or(0);
  const std::uint64_t total = stored.bytes - replaced + new_bytes;
  if (new_bytes > replaced && total > limits.max_bytes) {
    throw StoreLimitExceeded(what + "bytes stored would be " + std::to_string(total) +
                             ", the limit is " + std::to_string(limits.max_bytes) +
                             " bytes stored (--max-stored-mb)");
  }
}

PixelRect bounding_union(const PixelRect& a, const PixelRect& b) {
  if (a.width == 0 || a.height == 0) return b;
  if (b.width == 0 || b.height == 0) return a;
  const std::uint64_t left = std::min(a.x, b.x);
  const std::uint64_t top = std::min(a.y, b.y);
  const std::uint64_t right = std::max(std::uint64_t{a.x} + a.width, std::uint64_t{b.x} + b.width);
  const std::uint64_t bottom =
      std::max(std::uint64_t{a.y} + a.height, std::uint64_t{b.y} + b.height);
  return {static_cast<std::uint32_t>(left), static_cast<std::uint32_t>(top),
          static_cast<std::uint32_t>(right - left), static_cast<std::uint32_t>(bottom - top)};
}

}  // namespace pathserver
