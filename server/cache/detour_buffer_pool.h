#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "pathcore/detour.h"
#include "pathcore/mask.h"

namespace pathserver {

// What a FindPath with temporary obstacles writes when it is answered from
// the cached field of its goal (pathcore::path_around_obstacles): the mask
// with the obstacles blocked, and the detour's scratch.
struct DetourBuffers {
  std::optional<pathcore::Mask> blocked;
  pathcore::DetourScratch scratch;

  [[nodiscard]] std::size_t bytes() const {
    return (blocked ? blocked->pixel_count() : 0) + scratch.memory_bytes();
  }
};

// DetourBuffers nobody holds, kept for the next call on a mask of the same
// size: copying the mask into a kept buffer skips the page faults of a fresh
// one (on the VMs measured, most of a full-HD copy's 2 ms), and a kept
// scratch those of its states. Buffers come back cleared (scratch) when
// their last holder lets go. Holds at most max_bytes (beyond them the
// oldest are freed); 0 keeps nothing. Thread-safe.
class DetourBufferPool : public std::enable_shared_from_this<DetourBufferPool> {
 public:
  explicit DetourBufferPool(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  DetourBufferPool(const DetourBufferPool&) = delete;
  DetourBufferPool& operator=(const DetourBufferPool&) = delete;

  // Buffers for a mask of pixel_count pixels: the most recently kept of
  // that size, else new ones.
  [[nodiscard]] std::shared_ptr<DetourBuffers> take(std::size_t pixel_count);

  [[nodiscard]] std::size_t bytes() const;

 private:
  void give(std::unique_ptr<DetourBuffers> buffers);

  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::deque<std::unique_ptr<DetourBuffers>> kept_;  // oldest first
  std::size_t bytes_ = 0;
};

}  // namespace pathserver
