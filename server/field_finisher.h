#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "field_cache.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathserver {

// Finishes distance fields off the request's critical path. A cold FindPath
// fills its field only until the start pixel is settled, answers, and hands
// the half-built field here; one worker thread completes it and puts it in
// the cache. A request for a field still being finished waits for it
// (wait_for) instead of filling its own. At most max_pending fields wait for
// the worker; beyond that submit() finishes the field on the caller's thread
// (back pressure instead of unbounded memory). The destructor drops fields
// not started yet and joins the worker. Thread-safe.
class FieldFinisher {
 public:
  FieldFinisher(FieldCache& cache, std::size_t max_pending);
  ~FieldFinisher();
  FieldFinisher(const FieldFinisher&) = delete;
  FieldFinisher& operator=(const FieldFinisher&) = delete;

  // Completes builder (which fills a field of *mask) and caches it under key.
  void submit(const FieldKey& key, std::shared_ptr<const pathcore::Mask> mask,
              pathcore::FieldBuilder builder);
  // The field for key when it is being finished here: waits for it. nullptr
  // when key is not pending (or its job was dropped).
  [[nodiscard]] FieldPtr wait_for(const FieldKey& key);
  // Waits until no field is pending (for tests).
  void drain();

 private:
  struct Job;
  void run();
  void complete(const std::shared_ptr<Job>& job);

  FieldCache& cache_;
  const std::size_t max_pending_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable job_done_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::unordered_map<FieldKey, std::shared_ptr<Job>, FieldKeyHash> pending_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace pathserver
