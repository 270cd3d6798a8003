// PathfinderService's life: its construction, the caches it drops when a
// mask changes, and the steps of its shutdown. The RPCs' handlers are in the
// files of their families (see README.md); the call plumbing they share is
// in call_plumbing.cc.

#include "service/pathfinder_service.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

namespace pathserver {

void PathfinderService::stop_accepting() {
  calls_.close();
  // Watches never end by themselves: they end now, so their clients watch
  // again on another replica and shutdown need not wait for them.
  watchers_.shut_all();
}

void PathfinderService::stop_running_calls() {
  stopping_calls_.store(true, std::memory_order_relaxed);
}

bool PathfinderService::wait_until_idle(std::chrono::steady_clock::time_point deadline) {
  return calls_.wait_idle(deadline);
}

PathfinderService::PathfinderService(MaskStore& store, FieldCache& cache, ServiceLimits limits,
                                     Authorizer authorizer, Metrics* metrics)
    : store_(store),
      cache_(cache),
      limits_(limits),
      authorizer_(std::move(authorizer)),
      metrics_(metrics),
      pool_(limits_.compute_threads, limits_.compute_queue, limits_.compute_niceness,
            limits_.max_heavy_per_client) {
  // Writes by other replicas (a shared store) free their old revisions'
  // fields here too, rather than leaving them to age out of the LRU.
  store_.set_change_listener([this](const StoreChange& change) { changed(change); });
}

PathfinderService::~PathfinderService() {
  store_.set_change_listener({});  // the store outlives the service
  // Fills still running (finishing fields for the cache) stop at their next
  // check; then pool_ runs what is queued and joins.
  flights_.stop();
}

void PathfinderService::changed(const StoreChange& change) {
  drop_stale_caches(change.name, change.first_live_revision());
  watchers_.publish(change);
}

void PathfinderService::drop_stale_caches(const std::string& mask,
                                          std::uint64_t first_live_revision) {
  // Builds for the old revisions stop once nobody waits for them.
  flights_.mark_stale(mask, first_live_revision);
  cache_.erase_mask(mask, first_live_revision);
  query_caches_.erase_mask(mask);
  any_angle_caches_.erase_mask(mask);
  usable_masks_.erase_if([&mask](const UsableMaskKey& key) { return key.mask == mask; });
  nearest_.erase_if([&mask](const NearestKey& key) { return key.mask == mask; });
}

}  // namespace pathserver
