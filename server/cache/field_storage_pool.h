#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

#include "pathcore/distance_field.h"

namespace pathserver {

// The buffers of distance fields nobody holds any more (evicted from the
// cache, dropped with their mask, or never cached), kept for the next fill
// of a mask of the same size: a field built in memory the process has paged
// in already skips the page faults of new memory, which on the VMs measured
// cost about half as much as the four-connected fill itself (see
// bench/README.md, "Cold FindPath over the wire"). Holds at most max_bytes
// (beyond them the oldest storage is freed); 0 keeps nothing. Thread-safe.
class FieldStoragePool : public std::enable_shared_from_this<FieldStoragePool> {
 public:
  // Spares keep_spare_like pages in per mask size: two, because a client's
  // next call (on another compute thread) arrives while the thread that
  // answered the last one is still paging in its spare.
  static constexpr std::size_t kSparesPerSize = 2;

  explicit FieldStoragePool(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  FieldStoragePool(const FieldStoragePool&) = delete;
  FieldStoragePool& operator=(const FieldStoragePool&) = delete;

  // Storage for a field of a width x height mask: the most recently kept of
  // that size, else none (the fill allocates).
  [[nodiscard]] pathcore::FieldStorage take(std::uint32_t width, std::uint32_t height);
  // Keeps the storage of a field of a width x height mask.
  void give(std::uint32_t width, std::uint32_t height, pathcore::FieldStorage storage);

  // A shared field whose storage comes back here when its last holder lets go
  // (while this pool lives; else it is freed).
  [[nodiscard]] std::shared_ptr<const pathcore::DistanceField> share(pathcore::DistanceField field);

  // Pages in storage shaped like `field`'s until kSparesPerSize of its
  // mask's size are kept (or the pool is full): called on a compute thread
  // after a fill was answered and cached, so that the next fills of that
  // size, while the cache still grows (nothing evicted to reuse), find memory
  // that costs no page faults on their answers' path. Only for fields whose
  // fill grid is the field itself (unit costs: 2-byte four-connected, 4-byte
  // eight-connected), the ones a later fill can build in.
  void keep_spare_like(const pathcore::DistanceField& field);

  [[nodiscard]] std::size_t bytes() const;
  [[nodiscard]] std::size_t max_bytes() const { return max_bytes_; }

 private:
  struct Kept {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    pathcore::FieldStorage storage;
  };

  // Storages kept for a width x height mask (mutex_ held).
  [[nodiscard]] std::size_t count(std::uint32_t width, std::uint32_t height) const;

  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::deque<Kept> kept_;  // oldest first
  std::size_t bytes_ = 0;
};

}  // namespace pathserver
