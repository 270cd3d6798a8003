#include "service/mask_watchers.h"

namespace pathserver {

bool MaskWatchers::add(const std::string& mask, Watcher& watcher) {
  const std::lock_guard lock(mutex_);
  if (shut_ || count_ >= max_watchers_) return false;
  if (by_mask_[mask].insert(&watcher).second) ++count_;
  return true;
}

void MaskWatchers::remove(const std::string& mask, Watcher& watcher) {
  const std::lock_guard lock(mutex_);
  const auto it = by_mask_.find(mask);
  if (it == by_mask_.end() || it->second.erase(&watcher) == 0) return;
  --count_;
  if (it->second.empty()) by_mask_.erase(it);
}

void MaskWatchers::publish(const StoreChange& change) {
  const std::lock_guard lock(mutex_);
  const auto it = by_mask_.find(change.name);
  if (it == by_mask_.end()) return;
  for (Watcher* watcher : it->second) watcher->tell(change);
}

void MaskWatchers::shut_all() {
  const std::lock_guard lock(mutex_);
  shut_ = true;
  for (const auto& [mask, watchers] : by_mask_) {
    for (Watcher* watcher : watchers) watcher->shut();
  }
}

std::size_t MaskWatchers::size() const {
  const std::lock_guard lock(mutex_);
  return count_;
}

}  // namespace pathserver
