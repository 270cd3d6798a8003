#include "cache/detour_buffer_pool.h"

#include <utility>

namespace pathserver {

std::shared_ptr<DetourBuffers> DetourBufferPool::take(std::size_t pixel_count) {
  std::unique_ptr<DetourBuffers> taken;
  {
    const std::lock_guard lock(mutex_);
    for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) {
      if ((*it)->blocked && (*it)->blocked->pixel_count() == pixel_count) {
        taken = std::move(*it);
        bytes_ -= taken->bytes();
        kept_.erase(std::next(it).base());
        break;
      }
    }
  }
  if (!taken) taken = std::make_unique<DetourBuffers>();
  return std::shared_ptr<DetourBuffers>(
      taken.release(), [pool = weak_from_this()](DetourBuffers* dropped) {
        std::unique_ptr<DetourBuffers> owned(dropped);
        if (const auto alive = pool.lock()) alive->give(std::move(owned));
      });
}

void DetourBufferPool::give(std::unique_ptr<DetourBuffers> buffers) {
  buffers->scratch.clear();  // what this call learnt is about its own obstacles
  const std::size_t size = buffers->bytes();
  if (!buffers->blocked || size > max_bytes_) return;  // freed here, outside the lock
  std::deque<std::unique_ptr<DetourBuffers>> freed;  // released outside the lock
  const std::lock_guard lock(mutex_);
  while (bytes_ + size > max_bytes_) {
    bytes_ -= kept_.front()->bytes();
    freed.push_back(std::move(kept_.front()));
    kept_.pop_front();
  }
  kept_.push_back(std::move(buffers));
  bytes_ += size;
}

std::size_t DetourBufferPool::bytes() const {
  const std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace pathserver
