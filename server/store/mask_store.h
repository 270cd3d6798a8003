#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pathcore/clearance.h"
#include "pathcore/codec.h"
#include "pathcore/mask.h"

namespace pathserver {

// Longest valid mask name, in characters.
inline constexpr std::size_t kMaxMaskNameLength = 128;

// Why `name` is not a valid mask name, or std::nullopt when it is valid.
// Valid: 1..128 characters from [A-Za-z0-9._/-], no leading or trailing '/',
// no empty segment ("a//b"), no "." or ".." segment.
[[nodiscard]] std::optional<std::string> mask_name_problem(std::string_view name);

// The store cannot be used, or a mask could not be written or removed
// durably. From put, patch and remove the message is fit for clients: it
// names the mask and never a server path (the store logs the path and the
// system error). From a store's constructor it says where and why, for the
// operator.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A write failed for want of room: the disk or the quota is full, or the
// file would exceed the process's file size limit. Nothing changed.
class StoreFull : public StoreError {
 public:
  using StoreError::StoreError;
};

// A shared store's database cannot be reached: the write was not made (or,
// when the connection broke during its commit, its outcome is unknown), or a
// lookup of a name the store does not hold cannot be answered. Transient: the
// store reconnects by itself. The message is fit for clients (no connection
// string, no password); the service answers UNAVAILABLE.
class StoreUnavailable : public StoreError {
 public:
  using StoreError::StoreError;
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
// max_pixels bounds every single mask, including those read back from disk
// when the store opens, so a stored file cannot make the server allocate more
// than an upload could.
struct StoreLimits {
  std::size_t max_masks = kDefaultMaxMasks;                // masks stored (by name)
  std::uint64_t max_bytes = kDefaultMaxStoredBytes;        // bytes stored, as above
  std::uint64_t max_pixels = pathcore::kDefaultMaxPixels;  // width*height of one mask
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
  std::uint64_t revision = 0;  // never repeats for the name, see MaskStore
  std::shared_ptr<const pathcore::Mask> mask;
  std::string sha256;  // pathcore::area_grid_sha256(*mask), computed once
  // For every area (what requests use unless they pick areas): lets FindPath's
  // line-of-sight checks skip across open ground. One more byte per pixel in
  // memory, built with the entry. Never null for entries the store made.
  std::shared_ptr<const pathcore::ClearanceMap> clearance;
};
using MaskEntryPtr = std::shared_ptr<const MaskEntry>;

// Helpers every MaskStore implementation shares, so both stores word their
// errors alike.

// A new entry of `name` at `revision` holding `mask`, with its digest and its
// default clearance (every area enabled, as requests are by default) built.
[[nodiscard]] std::shared_ptr<MaskEntry> make_mask_entry(std::string name,
                                                         std::uint64_t revision,
                                                         pathcore::Mask mask);

// Throws InvalidPatch when `patch` fits no mask: an empty rectangle,
// areas.size() != width*height or an area id above 63.
void check_patch(const MaskPatch& patch);

// Throws RevisionMismatch unless patch.expected_revision is 0 or `revision`.
void check_expected_revision(const MaskPatch& patch, std::string_view name,
                             std::uint64_t revision);

// `current` with the patch's rectangle written over it. Throws InvalidPatch
// when the rectangle is not inside it (check_patch first for the rest).
[[nodiscard]] pathcore::Mask apply_patch(const MaskEntry& current, const MaskPatch& patch);

// True when writing `patch` over `current` would leave every area id as it
// is: such a patch stores nothing and keeps the revision (and so every cache
// built on it). False too for a rectangle not inside the mask (apply_patch
// then says why).
[[nodiscard]] bool patch_changes_nothing(const MaskEntry& current, const MaskPatch& patch);

// A rectangle of pixels: columns x..x+width-1, rows y..y+height-1.
struct PixelRect {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  friend bool operator==(const PixelRect&, const PixelRect&) = default;
};

// The smallest rectangle holding both (an empty one holds nothing).
[[nodiscard]] PixelRect bounding_union(const PixelRect& a, const PixelRect& b);

// One change of a stored name, as far as whoever tells it knows it.
struct StoreChange {
  enum class Kind {
    kReplaced,  // a new grid (an upload), or a change the teller cannot describe
    kPatched,   // only `patched` was written over
    kDeleted,
  };
  std::string name;
  // The name's revision after the change; for a delete, the revision deleted.
  std::uint64_t revision = 0;
  Kind kind = Kind::kReplaced;
  PixelRect patched;  // kPatched only
  // The entry at `revision` (null for a delete, or when the teller has none).
  MaskEntryPtr entry;

  // Revisions below this one are gone (a delete of revision R passes R + 1).
  [[nodiscard]] std::uint64_t first_live_revision() const {
    return kind == Kind::kDeleted ? revision + 1 : revision;
  }
};

// What is stored now, for check_store_limits.
struct StoredTotals {
  std::size_t masks = 0;     // stored names
  std::uint64_t bytes = 0;   // sum of width*height
};

// Throws StoreLimitExceeded when storing `mask` under `name` would exceed
// `limits` and grow what is stored (see MaskStore). `old_bytes` is the size of
// the mask it replaces, std::nullopt for a new name.
void check_store_limits(const StoreLimits& limits, const StoredTotals& stored,
                        std::string_view name, const pathcore::Mask& mask,
                        std::optional<std::uint64_t> old_bytes);

// The masks by name, as the service sees them: thread-safe, every change
// durable before it is visible or returned. FileMaskStore keeps them in files
// under a data dir; another backend implements this class beside it.
//
// Revisions only grow per name, across delete, re-upload and (for a store
// that persists) restarts, so an expected revision a client kept can never
// match a different grid. Each new revision is at least the name's previous
// one + 1; after deletes it may be higher (a first upload may get more than
// 1). The exception is a corrupt name, whose last revision could not be read.
// A corrupt name is one whose stored mask could not be
// read back: it is no entry (get() is nullptr, list() leaves it out), the
// service answers DATA_LOSS for it until a put() replaces it or a remove()
// deletes it.
//
// Limits (StoreLimits) are checked by put() atomically with the change, so
// concurrent uploads cannot overshoot them together: a put that would make
// more masks, or more bytes stored, than allowed throws StoreLimitExceeded.
// Replacing a mask counts only the difference in size, and a put that does
// not grow what is stored is always allowed (also when the store is already
// above a limit). A mask of more than max_pixels is refused in any case.
// patch() never changes a mask's size and is not limited.
//
// The service calls get() once per request that reads a mask (and
// is_corrupt() only when get() found nothing), so a lookup must stay cheap.
class MaskStore {
 public:
  virtual ~MaskStore() = default;
  MaskStore(const MaskStore&) = delete;
  MaskStore& operator=(const MaskStore&) = delete;

  // Stores `mask` under `name` durably, at a new revision (above every
  // revision the name had, see above), and returns the new entry. When the stored mask of that
  // name has the same area grid (width, height, every area id), nothing is
  // written and the stored entry is returned, at its revision, so caches
  // keyed by revision stay valid; `*unchanged` (when not null) says which.
  // A put of a corrupt name replaces it and clears the corrupt state.
  // Throws InvalidMaskName; StoreLimitExceeded when it would exceed the
  // limits or the mask has more than max_pixels (nothing changes); StoreFull
  // when the storage has no room, StoreError when the write fails otherwise
  // (then nothing changes but the revision number is used up).
  virtual MaskEntryPtr put(std::string_view name, pathcore::Mask mask,
                           bool* unchanged = nullptr) = 0;

  // Overwrites a rectangle of the named mask and stores the result durably,
  // exactly like put() (revision + 1), so the new revision is stored before
  // it is visible or returned. A patch that changes no area id writes
  // nothing and returns the current entry, at its revision. The check of
  // expected_revision, the rectangle and the swap are atomic: of concurrent
  // patches that change the mask and expect the same revision exactly one
  // wins.
  // Throws InvalidMaskName; InvalidPatch for an empty rectangle, one not
  // inside the mask, areas.size() != width*height or an id above 63;
  // MaskNotFound; MaskCorrupt for a corrupt name; RevisionMismatch ("expected revision N but mask
  // 'x' is at revision M"); StoreFull or StoreError when the write fails.
  virtual MaskEntryPtr patch(std::string_view name, const MaskPatch& patch) = 0;

  // Removes the mask durably and returns the entry removed (nullptr when
  // there is no such mask). A corrupt name is removed too and its corrupt
  // state cleared; that returns nullptr with `*was_corrupt` (when not null)
  // set. Throws InvalidMaskName, or StoreFull / StoreError when the change
  // cannot be made durable (then the mask stays).
  virtual MaskEntryPtr remove(std::string_view name, bool* was_corrupt = nullptr) = 0;

  // The current entry, or nullptr.
  [[nodiscard]] virtual MaskEntryPtr get(std::string_view name) const = 0;
  // Every entry, ordered by name (corrupt names are not entries).
  [[nodiscard]] virtual std::vector<MaskEntryPtr> list() const = 0;
  // True when `name`'s stored mask could not be read and has been neither
  // replaced nor deleted since.
  [[nodiscard]] virtual bool is_corrupt(std::string_view name) const = 0;
  // How many names are corrupt now.
  [[nodiscard]] virtual std::size_t corrupt_count() const = 0;
  [[nodiscard]] virtual std::size_t size() const = 0;
  // Bytes stored (the sum of width*height over the stored masks).
  [[nodiscard]] virtual std::uint64_t stored_bytes() const = 0;
  [[nodiscard]] virtual const StoreLimits& limits() const = 0;
  // False while a shared store cannot reach its database (or has not re-read
  // it since reconnecting): get() still answers the masks held, but a name
  // not held may exist there, so the service answers UNAVAILABLE for it
  // rather than NOT_FOUND. A store of its own (FileMaskStore) always is.
  [[nodiscard]] virtual bool is_available() const { return true; }

  // Read-your-writes across replicas. True when a shared store may hold a
  // newer state of `name` in its database than get() answers: the name is
  // not held here, or held below `min_revision` (0: any revision). A store of
  // its own (FileMaskStore) never does.
  [[nodiscard]] virtual bool may_know_more(std::string_view /*name*/,
                                           std::uint64_t /*min_revision*/) const {
    return false;
  }
  // Waits (blocking: never on a thread that serves other calls) until what
  // get() answers for `name` is at least what the database held when the
  // call began. False when the database could not be asked (unavailable,
  // or no answer within the store's timeout or before `deadline`).
  virtual bool catch_up(std::string_view /*name*/,
                        std::chrono::steady_clock::time_point /*deadline*/) {
    return true;
  }

  // Told when a shared store's entry for a name changes, whoever wrote it
  // (another replica included): every revision of change.name below
  // change.first_live_revision() is gone, so whatever was derived from those
  // revisions can be dropped. Called on the store's own threads, never with
  // the store's locks held. A store of its own (FileMaskStore) never calls
  // it: its only writer is the caller.
  using ChangeListener = std::function<void(const StoreChange& change)>;
  // Replaces the listener (empty: none). Once it returns, the previous
  // listener is not running and will not be called again.
  void set_change_listener(ChangeListener listener) {
    const std::lock_guard lock(listener_mutex_);
    listener_ = std::move(listener);
  }

 protected:
  MaskStore() = default;
  void tell_change_listener(const StoreChange& change) const {
    const std::lock_guard lock(listener_mutex_);
    if (listener_) listener_(change);
  }

 private:
  mutable std::mutex listener_mutex_;
  ChangeListener listener_;
};

}  // namespace pathserver
