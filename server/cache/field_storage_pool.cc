#include "cache/field_storage_pool.h"

#include <unistd.h>

#include <utility>

namespace pathserver {

pathcore::FieldStorage FieldStoragePool::take(std::uint32_t width, std::uint32_t height) {
  const std::lock_guard lock(mutex_);
  for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) {
    if (it->width == width && it->height == height) {
      pathcore::FieldStorage storage = std::move(it->storage);
      bytes_ -= storage.bytes();
      kept_.erase(std::next(it).base());
      return storage;
    }
  }
  return {};
}

void FieldStoragePool::give(std::uint32_t width, std::uint32_t height,
                            pathcore::FieldStorage storage) {
  const std::size_t size = storage.bytes();
  if (size == 0 || size > max_bytes_) return;  // freed here, outside the lock
  std::deque<Kept> freed;  // released outside the lock (megabytes each)
  {
    const std::lock_guard lock(mutex_);
    while (bytes_ + size > max_bytes_) {
      bytes_ -= kept_.front().storage.bytes();
      freed.push_back(std::move(kept_.front()));
      kept_.pop_front();
    }
    kept_.push_back(Kept{width, height, std::move(storage)});
    bytes_ += size;
  }
}

std::shared_ptr<const pathcore::DistanceField> FieldStoragePool::share(
    pathcore::DistanceField field) {
  if (max_bytes_ == 0) return std::make_shared<const pathcore::DistanceField>(std::move(field));
  // The deleter sees the field as built (not const): its buffers move out.
  return std::shared_ptr<pathcore::DistanceField>(
      new pathcore::DistanceField(std::move(field)),
      [pool = weak_from_this()](pathcore::DistanceField* dropped) {
        if (const auto alive = pool.lock()) {
          const std::uint32_t width = dropped->width();
          const std::uint32_t height = dropped->height();
          alive->give(width, height, dropped->release_storage());
        }
        delete dropped;
      });
}

void FieldStoragePool::keep_spare_like(const pathcore::DistanceField& field) {
  const std::size_t bytes = field.storage_bytes();
  const bool four = field.options().connectivity == pathcore::Connectivity::kFour;
  const bool unit_costs = field.options().area_costs == pathcore::unit_area_costs();
  // The grid the next fill of this kind starts with (see fill_state.h): 2-byte
  // level fill, 4-byte in-place octile fill.
  const std::size_t element = four ? 2 : 4;
  if (!unit_costs || field.bytes_per_pixel() != element || bytes == 0) return;
  const auto page_in = [](auto& buffer, std::size_t elements) {
    buffer.resize(elements);  // uninitialised
    // One write per page faults it in; the fill overwrites every element.
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    auto* const memory = reinterpret_cast<volatile unsigned char*>(buffer.data());
    const std::size_t total = elements * sizeof(buffer[0]);
    for (std::size_t at = 0; at < total; at += page) memory[at] = 0;
  };
  while (true) {
    {
      const std::lock_guard lock(mutex_);
      if (count(field.width(), field.height()) >= kSparesPerSize || bytes_ + bytes > max_bytes_) {
        return;
      }
    }
    pathcore::FieldStorage spare;
    if (four) {
      page_in(spare.words16, bytes / element);
    } else {
      page_in(spare.words32, bytes / element);
    }
    give(field.width(), field.height(), std::move(spare));
  }
}

std::size_t FieldStoragePool::bytes() const {
  const std::lock_guard lock(mutex_);
  return bytes_;
}

std::size_t FieldStoragePool::count(std::uint32_t width, std::uint32_t height) const {
  std::size_t found = 0;
  for (const Kept& kept : kept_) {
    if (kept.width == width && kept.height == height) ++found;
  }
  return found;
}

}  // namespace pathserver
