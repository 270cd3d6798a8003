// MaskWatchers: the open WatchMask calls by mask name, told of every change
// of their mask (this replica's writes and, through the store's change
// listener, other replicas' writes). Bounded by ServiceLimits::max_watchers.

#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "store/mask_store.h"

namespace pathserver {

class MaskWatchers {
 public:
  // One open watch. tell() is called with the registry's lock held, so a
  // watcher removed from the registry is never told again; it must not call
  // the registry and must not block.
  class Watcher {
   public:
    virtual void tell(const StoreChange& change) = 0;
    // The server is shutting down: end the watch.
    virtual void shut() = 0;

   protected:
    ~Watcher() = default;
  };

  explicit MaskWatchers(std::size_t max_watchers) : max_watchers_(max_watchers) {}
  MaskWatchers(const MaskWatchers&) = delete;
  MaskWatchers& operator=(const MaskWatchers&) = delete;

  [[nodiscard]] std::size_t max_watchers() const { return max_watchers_; }
  // Registers `watcher` for `mask`; false when max_watchers are open already
  // or the registry is shut.
  [[nodiscard]] bool add(const std::string& mask, Watcher& watcher);
  // Once it returns, `watcher` is not told anything again.
  void remove(const std::string& mask, Watcher& watcher);
  // Tells every watcher of change.name.
  void publish(const StoreChange& change);
  // Shuts every watcher, and refuses new ones from now on.
  void shut_all();
  [[nodiscard]] std::size_t size() const;

 private:
  const std::size_t max_watchers_;
  mutable std::mutex mutex_;
  std::map<std::string, std::set<Watcher*>, std::less<>> by_mask_;
  std::size_t count_ = 0;
  bool shut_ = false;
};

}  // namespace pathserver
