#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/mask_store.h"

namespace pathserver {

// The file a mask of this (valid) name is stored in, relative to the data
// dir: the name with '/' replaced by '~' (not a name character, so the
// mapping is one-to-one) plus ".pfmask".
[[nodiscard]] std::string mask_file_name(std::string_view name);

// What opening the store found on disk.
struct LoadReport {
  std::size_t loaded = 0;   // masks now served
  std::size_t skipped = 0;  // corrupt, truncated or misnamed mask files (left in place)
  // The names of the skipped files that map to a valid mask name: those
  // masks are corrupt (MaskStore::is_corrupt). Ordered by name.
  std::vector<std::string> corrupt;
  std::size_t temp_removed = 0;  // leftover temp files of interrupted writes (deleted)
  std::size_t ignored = 0;       // other files and directories in the dir (left alone)
  // Symbolic links, FIFOs, sockets and devices in the dir: never opened,
  // followed or read (logged with a warning, left alone).
  std::size_t refused = 0;
};

// The persistent, thread-safe set of masks, one file per mask under a data dir.
//
// Durability: put() and remove() return only once the change is on disk
// (temp file + fsync + rename + fsync of the dir; unlink + fsync of the dir),
// and the change becomes visible to readers only then. A crash at any point
// leaves either the old or the new file, never a partial one under the final
// name. Writers are serialised by one mutex; readers (get/list) take a shared
// lock for a map lookup only and are never blocked by disk I/O. A write that
// fails (StoreFull for ENOSPC, EDQUOT and EFBIG, else StoreError) removes its
// temp file and changes nothing; the path and system error go to the log,
// the exception's message names only the mask.
//
// The data dir is locked with flock() while the store is open, so a second
// server (or store) on the same dir fails to open instead of clobbering it.
// The dir may be reached through a symbolic link, but entries inside it are
// never followed: symbolic links and special files are refused at load
// (LoadReport::refused) and files are opened with O_NOFOLLOW.
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
// At load the header is checked first: a file declaring more than
// StoreLimits::max_pixels, or whose size is not exactly what its header
// implies, is rejected before anything is allocated for its grid. A file
// whose size, magic, version, checksum, name, areas or area digest (recomputed
// from the grid) do not check out is skipped (and left in place for the
// operator). When its file name is that of a valid mask name, the name is
// remembered as corrupt and logged at error level: the service answers
// DATA_LOSS for it (not NOT_FOUND, which would say the mask never existed)
// until a put() replaces it or a remove() deletes it. Other bad files are
// logged with a warning.
//
// Revisions: the file "revision-floor" in the data dir holds the highest
// revision any deleted mask had (format: magic "PFFLOOR\n", version u32 = 1,
// floor u64, SHA-256 of those 20 bytes). remove() raises it durably (temp
// file + rename, like a mask) before it unlinks the mask's file, and every
// new revision is above both the name's last revision and the floor, so
// revisions never repeat for a name across deletes and restarts. The store
// refuses to open (StoreError) when the floor file exists but cannot be read,
// rather than risk repeating revisions; a missing one means no mask was ever
// deleted.
// Limits are checked under the writer lock. Opening the store loads everything
// on disk within max_pixels regardless of the other limits (e.g. after a
// restart with lower limits), nothing is dropped. A corrupt name (MaskStore)
// is a file that did not check out at load; put() replaces the file, remove()
// deletes it.
class FileMaskStore final : public MaskStore {
 public:
  // Creates `dir` if missing, locks it and loads every stored mask. Bad files
  // are logged (spdlog warn) and skipped; a store above `limits` is logged
  // (warn) and kept whole. Throws StoreError when the dir cannot be created,
  // opened, locked or listed, or its revision floor file cannot be read.
  explicit FileMaskStore(std::filesystem::path dir, StoreLimits limits = {});
  ~FileMaskStore() override;

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  [[nodiscard]] const LoadReport& load_report() const { return load_report_; }

  // MaskStore, as documented there; the file is written (temp file + fsync +
  // rename + fsync of the dir) or unlinked under the writer lock. remove()
  // first raises the revision floor when the deleted revision is above it.
  MaskEntryPtr put(std::string_view name, pathcore::Mask mask, bool* unchanged = nullptr) override;
  MaskEntryPtr patch(std::string_view name, const MaskPatch& patch) override;
  MaskEntryPtr remove(std::string_view name, bool* was_corrupt = nullptr) override;
  [[nodiscard]] MaskEntryPtr get(std::string_view name) const override;
  [[nodiscard]] std::vector<MaskEntryPtr> list() const override;
  [[nodiscard]] bool is_corrupt(std::string_view name) const override;
  [[nodiscard]] std::size_t corrupt_count() const override;
  [[nodiscard]] std::size_t size() const override;
  [[nodiscard]] std::uint64_t stored_bytes() const override { return stored_bytes_.load(); }
  [[nodiscard]] const StoreLimits& limits() const override { return limits_; }

 private:
  void load();
  [[nodiscard]] MaskEntryPtr load_file(const std::filesystem::path& path) const;
  [[nodiscard]] std::uint64_t read_revision_floor() const;
  void write_file(const MaskEntry& entry);
  // Writes `parts` to the dir's `file` durably (temp file + fsync + rename +
  // fsync of the dir). On failure removes the temp file, logs why and throws
  // StoreFull or StoreError saying "could not <action>".
  void write_durably(const std::string& file, std::span<const std::span<const std::uint8_t>> parts,
                     const std::string& action);
  // Makes `revision` the floor, durably, unless the floor is already there.
  void raise_revision_floor(std::uint64_t revision, const std::string& action);
  // The next revision of `name`, above its last one and the floor; used up
  // whether or not it gets stored.
  std::uint64_t next_revision(const std::string& name);
  // 0 or the errno of a failed fsync of the dir.
  int sync_dir();
  // Throws StoreLimitExceeded when replacing `old_entry` (nullptr: a new
  // name) by `mask` under `name` would exceed a limit and grow what is
  // stored. Call with write_mutex_ held.
  void check_limits(std::string_view name, const MaskEntry* old_entry,
                    const pathcore::Mask& mask) const;

  std::filesystem::path dir_;
  StoreLimits limits_;
  int dir_fd_ = -1;  // open for fsync and the flock
  LoadReport load_report_;

  std::mutex write_mutex_;  // serialises put/remove (disk I/O happens under it)
  // The last revision handed out per name (stored, or used up by a failed
  // write); a deleted name's is dropped, the floor covers it. Guarded by
  // write_mutex_.
  std::unordered_map<std::string, std::uint64_t> last_revision_;
  std::uint64_t revision_floor_ = 0;  // guarded by write_mutex_
  std::uint64_t temp_counter_ = 0;    // guarded by write_mutex_

  // Guards masks_ and corrupt_; held only for lookups and swaps.
  mutable std::shared_mutex map_mutex_;
  std::map<std::string, MaskEntryPtr, std::less<>> masks_;
  // Names whose file was unreadable at load; never also in masks_.
  std::set<std::string, std::less<>> corrupt_;
  // Sum of width*height over masks_; changed with masks_, under both locks.
  std::atomic<std::uint64_t> stored_bytes_{0};
};

}  // namespace pathserver
