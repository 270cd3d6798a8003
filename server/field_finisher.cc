#include "field_finisher.h"

#include <utility>

namespace pathserver {

struct FieldFinisher::Job {
  FieldKey key;
  std::shared_ptr<const pathcore::Mask> mask;  // the builder reads it
  pathcore::FieldBuilder builder;
  FieldPtr field;     // set when done
  bool done = false;  // finished, or dropped (field stays null)
};

FieldFinisher::FieldFinisher(FieldCache& cache, std::size_t max_pending)
    : cache_(cache), max_pending_(max_pending), worker_([this] { run(); }) {}

FieldFinisher::~FieldFinisher() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    for (const auto& job : queue_) job->done = true;  // dropped: waiters get nullptr
    queue_.clear();
    pending_.clear();
  }
  work_ready_.notify_all();
  job_done_.notify_all();
  worker_.join();
}

void FieldFinisher::submit(const FieldKey& key, std::shared_ptr<const pathcore::Mask> mask,
                           pathcore::FieldBuilder builder) {
  auto job = std::make_shared<Job>(Job{key, std::move(mask), std::move(builder), nullptr, false});
  {
    const std::lock_guard lock(mutex_);
    if (!stopping_ && queue_.size() < max_pending_ && !pending_.contains(key)) {
      pending_.emplace(key, job);
      queue_.push_back(job);
      work_ready_.notify_one();
      return;
    }
  }
  complete(job);  // too many waiting (or a twin pending): finish here
}

FieldPtr FieldFinisher::wait_for(const FieldKey& key) {
  std::unique_lock lock(mutex_);
  const auto it = pending_.find(key);
  if (it == pending_.end()) return nullptr;
  const std::shared_ptr<Job> job = it->second;
  job_done_.wait(lock, [&] { return job->done; });
  return job->field;
}

void FieldFinisher::drain() {
  std::unique_lock lock(mutex_);
  job_done_.wait(lock, [&] { return pending_.empty(); });
}

void FieldFinisher::complete(const std::shared_ptr<Job>& job) {
  job->builder.finish();
  auto field = std::make_shared<const pathcore::DistanceField>(job->builder.take());
  cache_.put(job->key, field);
  const std::lock_guard lock(mutex_);
  job->field = std::move(field);
  job->done = true;
  const auto it = pending_.find(job->key);
  if (it != pending_.end() && it->second == job) pending_.erase(it);
  job_done_.notify_all();
}

void FieldFinisher::run() {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      complete(job);
    } catch (...) {
      // Out of memory while finishing: the field is simply not cached.
      const std::lock_guard lock(mutex_);
      job->done = true;
      pending_.erase(job->key);
      job_done_.notify_all();
    }
  }
}

}  // namespace pathserver
