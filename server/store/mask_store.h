#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pathcore/clearance.h"
#include "pathcore/mask.h"

namespace pathserver {

// Longest valid mask name, in characters.
inline constexpr std::size_t kMaxMaskNameLength = 128;

// Why `name` is not a valid mask name, or std::nullopt when it is valid.
// Valid: 1..128 characters from [A-Za-z0-9._/-], no leading or trailing '/',
// no empty segment ("a//b"), no "." or ".." segment.
[[nodiscard]] std::optional<std::string> mask_name_problem(std::string_view name);

// The file a mask of this (valid) name is stored in, relative to the data
// dir: the name with '/' replaced by '~' (not a name character, so the
// mapping is one-to-one) plus ".pfmask".
[[nodiscard]] std::string mask_file_name(std::string_view name);

// The data dir cannot be used, or a mask could not be written or removed
// durably. The message names the path and the system error.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by MaskStore::put / remove for an invalid name; what() starts "name: ".
class InvalidMaskName : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// MaskStore::patch: no mask of that name.
class MaskNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// MaskStore::patch on a name whose stored file was unreadable at load
// (MaskStore::is_corrupt). what() names the mask, never the file's path.
class MaskCorrupt : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The message of MaskCorrupt and of the service's DATA_LOSS answers.
[[nodiscard]] std::string corrupt_mask_message(std::string_view name);

// MaskStore::patch: the mask is not at the expected revision.
class RevisionMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// MaskStore::patch: the rectangle or its area ids do not fit the mask; what()
// starts with the field name ("x: ", "width: ", "areas: ").
class InvalidPatch : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// MaskStore::put: storing the mask would exceed a StoreLimits limit. what()
// names the limit, the flag that sets it and the numbers. Nothing changed.
class StoreLimitExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Default StoreLimits::max_masks.
inline constexpr std::size_t kDefaultMaxMasks = 10000;
// Default StoreLimits::max_bytes: 4 GiB of area grids, e.g. 2000 full-HD masks
// or 64 masks at the default --max-pixels. Every stored mask is also held in
// memory (twice its bytes, see StoreLimits), so this bounds the server's
// resident mask data too.
inline constexpr std::uint64_t kDefaultMaxStoredBytes = 4096ULL * 1024 * 1024;

// How much the store may hold. Bytes stored = the sum of width*height over the
// stored masks: their decoded area grids, one byte per pixel (each file on
// disk adds a header of 128 + name bytes, not counted). In memory the server
// keeps each grid and its clearance map (MaskEntry), two bytes per pixel.
struct StoreLimits {
  std::size_t max_masks = kDefaultMaxMasks;          // masks stored (by name)
  std::uint64_t max_bytes = kDefaultMaxStoredBytes;  // bytes stored, as above
};

// A rectangle of area ids to write over a mask (PatchMask).
struct MaskPatch {
  std::uint64_t expected_revision = 0;  // 0 = any
  std::uint32_t x = 0;                  // left column
  std::uint32_t y = 0;                  // top row
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::span<const std::uint8_t> areas;  // width*height ids 0..63, row-major
};

// One stored mask at one revision. Immutable: a new upload makes a new entry.
struct MaskEntry {
  std::string name;
  std::uint64_t revision = 0;  // 1 on first upload, +1 per replacement
  std::shared_ptr<const pathcore::Mask> mask;
  std::string sha256;  // pathcore::area_grid_sha256(*mask), computed once
  // For every area (what requests use unless they pick areas): lets FindPath's
  // line-of-sight checks skip across open ground. One more byte per pixel in
  // memory, built with the entry. Never null for entries the store made.
  std::shared_ptr<const pathcore::ClearanceMap> clearance;
};
using MaskEntryPtr = std::shared_ptr<const MaskEntry>;

// What opening the store found on disk.
struct LoadReport {
  std::size_t loaded = 0;   // masks now served
  std::size_t skipped = 0;  // corrupt, truncated or misnamed mask files (left in place)
  // The names of the skipped files that map to a valid mask name: those
  // masks are corrupt (MaskStore::is_corrupt). Ordered by name.
  std::vector<std::string> corrupt;
  std::size_t temp_removed = 0;  // leftover temp files of interrupted writes (deleted)
  std::size_t ignored = 0;       // other entries in the dir (left alone)
};

// The persistent, thread-safe set of masks, one file per mask under a data dir.
//
// Durability: put() and remove() return only once the change is on disk
// (temp file + fsync + rename + fsync of the dir; unlink + fsync of the dir),
// and the change becomes visible to readers only then. A crash at any point
// leaves either the old or the new file, never a partial one under the final
// name. Writers are serialised by one mutex; readers (get/list) take a shared
// lock for a map lookup only and are never blocked by disk I/O.
//
// The data dir is locked with flock() while the store is open, so a second
// server (or store) on the same dir fails to open instead of clobbering it.
//
// File format (version 1), integers little-endian:
//   0   8   magic "PFMASK\r\n"
//   8   4   format version (1)
//   12  4   name length N (1..128)
//   16  8   revision
//   24  4   width
//   28  4   height
//   32  64  area grid SHA-256, lower-case hex ASCII (MaskInfo.sha256)
//   96  N   name
//   96+N    width*height area ids, row-major
//   end-32  32  SHA-256 of every byte before it
// A file whose size, magic, version, checksum, name or areas do not check out
// is skipped (and left in place for the operator). When its file name is that
// of a valid mask name, the name is remembered as corrupt and logged at error
// level: the service answers DATA_LOSS for it (not NOT_FOUND, which would say
// the mask never existed) until a put() replaces it or a remove() deletes it.
// Other bad files are logged with a warning.
//
// Revisions are monotonic per name for the life of the store object, across
// delete and re-upload (deleted names keep their last revision in memory).
// After a restart a deleted name starts again at 1: deletions leave no trace
// on disk.
//
// Limits (StoreLimits) are checked by put() under the writer lock, so
// concurrent uploads cannot overshoot them together: a put that would make
// more masks, or more bytes stored, than allowed throws StoreLimitExceeded.
// Replacing a mask counts only the difference in size, and a put that does
// not grow what is stored is always allowed (also when the store is already
// above a limit, e.g. after a restart with lower limits: opening the store
// loads everything on disk regardless of the limits, nothing is dropped).
// patch() never changes a mask's size and is not limited.
class MaskStore {
 public:
  // Creates `dir` if missing, locks it and loads every stored mask. Bad files
  // are logged (spdlog warn) and skipped; a store above `limits` is logged
  // (warn) and kept whole. Throws StoreError when the dir cannot be created,
  // opened, locked or listed.
  explicit MaskStore(std::filesystem::path dir, StoreLimits limits = {});
  ~MaskStore();
  MaskStore(const MaskStore&) = delete;
  MaskStore& operator=(const MaskStore&) = delete;

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  [[nodiscard]] const LoadReport& load_report() const { return load_report_; }

  // Stores `mask` under `name` durably, as revision 1 or the previous
  // revision + 1, and returns the new entry. When the stored mask of that
  // name has the same area grid (width, height, every area id), nothing is
  // written and the stored entry is returned, at its revision, so caches
  // keyed by revision stay valid; `*unchanged` (when not null) says which.
  // A put of a corrupt name replaces its file and clears the corrupt state.
  // Throws InvalidMaskName; StoreLimitExceeded when it would exceed the
  // limits (nothing changes); StoreError when the write fails (then nothing
  // changes but the revision number is used up).
  MaskEntryPtr put(std::string_view name, pathcore::Mask mask, bool* unchanged = nullptr);

  // Overwrites a rectangle of the named mask and stores the result durably,
  // exactly like put() (same file write, revision + 1), so the new revision
  // is on disk before it is visible or returned. The check of
  // expected_revision, the rectangle and the swap happen under the writer
  // lock: of concurrent patches expecting the same revision exactly one wins.
  // Throws InvalidMaskName; InvalidPatch for an empty rectangle, one not
  // inside the mask, areas.size() != width*height or an id above 63;
  // MaskNotFound; MaskCorrupt for a corrupt name; RevisionMismatch ("expected revision N but mask
  // 'x' is at revision M"); StoreError when the write fails.
  MaskEntryPtr patch(std::string_view name, const MaskPatch& patch);

  // Removes the mask durably and returns the entry removed (nullptr when
  // there is no such mask). A corrupt name's file is deleted too and its
  // corrupt state cleared; that returns nullptr with `*was_corrupt` (when
  // not null) set. Throws InvalidMaskName or StoreError.
  MaskEntryPtr remove(std::string_view name, bool* was_corrupt = nullptr);

  // The current entry, or nullptr.
  [[nodiscard]] MaskEntryPtr get(std::string_view name) const;
  // Every entry, ordered by name (corrupt names are not entries).
  [[nodiscard]] std::vector<MaskEntryPtr> list() const;
  // True when `name`'s stored file was unreadable at load and has been
  // neither replaced nor deleted since.
  [[nodiscard]] bool is_corrupt(std::string_view name) const;
  // How many names are corrupt now.
  [[nodiscard]] std::size_t corrupt_count() const;
  [[nodiscard]] std::size_t size() const;
  // Bytes stored (the sum of width*height over the stored masks).
  [[nodiscard]] std::uint64_t stored_bytes() const { return stored_bytes_.load(); }
  [[nodiscard]] const StoreLimits& limits() const { return limits_; }

 private:
  void load();
  [[nodiscard]] MaskEntryPtr load_file(const std::filesystem::path& path) const;
  void write_file(const MaskEntry& entry);
  void sync_dir();
  // Throws StoreLimitExceeded when replacing `old_entry` (nullptr: a new
  // name) by a mask of `new_bytes` under `name` would exceed a limit and
  // grow what is stored. Call with write_mutex_ held.
  void check_limits(std::string_view name, const MaskEntry* old_entry, std::uint64_t new_bytes,
                    const pathcore::Mask& mask) const;

  std::filesystem::path dir_;
  StoreLimits limits_;
  int dir_fd_ = -1;  // open for fsync and the flock
  LoadReport load_report_;

  std::mutex write_mutex_;  // serialises put/remove (disk I/O happens under it)
  std::unordered_map<std::string, std::uint64_t> last_revision_;  // guarded by write_mutex_
  std::uint64_t temp_counter_ = 0;                                // guarded by write_mutex_

  // Guards masks_ and corrupt_; held only for lookups and swaps.
  mutable std::shared_mutex map_mutex_;
  std::map<std::string, MaskEntryPtr, std::less<>> masks_;
  // Names whose file was unreadable at load; never also in masks_.
  std::set<std::string, std::less<>> corrupt_;
  // Sum of width*height over masks_; changed with masks_, under both locks.
  std::atomic<std::uint64_t> stored_bytes_{0};
};

}  // namespace pathserver
