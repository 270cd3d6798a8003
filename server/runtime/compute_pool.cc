#include "runtime/compute_pool.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace pathserver {

ComputePool::ComputePool(std::size_t threads, std::size_t max_queued, int niceness)
    : max_queued_(max_queued) {
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this, niceness] { run(niceness); });
  }
}

ComputePool::~ComputePool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_.store(true, std::memory_order_relaxed);
  }
  work_ready_.notify_all();
  for (auto& thread : threads_) thread.join();
}

bool ComputePool::try_submit(std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    if (queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(task));
  }
  work_ready_.notify_one();
  return true;
}

void ComputePool::submit(std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
  }
  work_ready_.notify_one();
}

std::size_t ComputePool::queued() const {
  const std::lock_guard lock(mutex_);
  return queue_.size();
}

void ComputePool::run(int niceness) {
  if (niceness != 0) {
    // On Linux the nice value is per thread: this one only.
    errno = 0;
    const int now = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
    if (errno == 0) {
      (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), now + niceness);
    }
  }
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping() || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task();  // tasks answer their own errors; this only keeps the thread alive
    } catch (...) {
    }
  }
}

}  // namespace pathserver
