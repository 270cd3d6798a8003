#include "runtime/compute_pool.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <tuple>
#include <utility>

namespace pathserver {

ComputePool::ComputePool(std::size_t threads, std::size_t max_queued, int niceness,
                         std::size_t max_per_client)
    : max_queued_(max_queued), max_per_client_(max_per_client) {
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

ComputePool::Admission ComputePool::try_submit(std::function<void()> task,
                                               const std::string& client) {
  {
    const std::lock_guard lock(mutex_);
    if (queued_ >= max_queued_) return Admission::kQueueFull;
    ClientTasks& tasks = clients_[client];
    if (max_per_client_ != 0 && tasks.queued.size() + tasks.running >= max_per_client_) {
      if (tasks.queued.empty() && tasks.running == 0) clients_.erase(client);
      return Admission::kClientShareFull;
    }
    tasks.queued.emplace_back(admissions_++, std::move(task));
    ++queued_;
  }
  work_ready_.notify_one();
  return Admission::kAdmitted;
}

void ComputePool::submit(std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    continuations_.push_back(std::move(task));
  }
  work_ready_.notify_one();
}

std::size_t ComputePool::queued() const {
  const std::lock_guard lock(mutex_);
  return queued_ + continuations_.size();
}

std::function<void()> ComputePool::take_next(std::string& client) {
  client.clear();
  if (!continuations_.empty()) {
    std::function<void()> task = std::move(continuations_.front());
    continuations_.pop_front();
    return task;
  }
  // Clients are few (each holds at most max_per_client tasks): a scan is cheap.
  const auto order = [](const ClientTasks& tasks) {
    return std::tuple(tasks.running, tasks.last_served, tasks.queued.front().first);
  };
  auto next = clients_.end();
  for (auto it = clients_.begin(); it != clients_.end(); ++it) {
    if (it->second.queued.empty()) continue;
    if (next == clients_.end() || order(it->second) < order(next->second)) next = it;
  }
  if (next == clients_.end()) return {};
  ClientTasks& tasks = next->second;
  std::function<void()> task = std::move(tasks.queued.front().second);
  tasks.queued.pop_front();
  --queued_;
  ++tasks.running;
  tasks.last_served = ++serves_;
  client = next->first;
  return task;
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
    std::string client;
    bool continuation = false;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping() || !continuations_.empty() || queued_ != 0; });
      continuation = !continuations_.empty();
      task = take_next(client);
      if (!task) return;  // stopping, and everything queued has run
    }
    try {
      task();  // tasks answer their own errors; this only keeps the thread alive
    } catch (...) {
    }
    task = nullptr;  // its captures go before the share it held is released
    if (!continuation) {
      const std::lock_guard lock(mutex_);
      const auto it = clients_.find(client);
      if (it != clients_.end() && --it->second.running == 0 && it->second.queued.empty()) {
        clients_.erase(it);
      }
    }
  }
}

}  // namespace pathserver
