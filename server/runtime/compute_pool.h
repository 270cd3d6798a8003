#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pathserver {

// A fixed set of threads for cold work (flood fills), so that a burst of
// cold requests queues here instead of occupying gRPC's threads: warm
// requests keep being answered on gRPC's threads at idle latency. The queue
// is bounded: try_submit() refuses work when max_queued tasks already wait
// (the caller answers RESOURCE_EXHAUSTED). submit() ignores the bound; it is
// for continuations of work already admitted (a request resumed after
// another's fill), so admitted requests are never dropped.
//
// The threads run at a lower scheduling priority (nice + `niceness`, Linux
// per-thread nice values): when cores are short, gRPC's threads answering
// warm calls get the CPU first and cold work takes what is left.
//
// The destructor sets stopping(), runs every task still queued (each should
// see stopping() and end quickly) and joins the threads. Thread-safe.
class ComputePool {
 public:
  // threads 0: one per hardware thread. niceness: added to the threads' nice
  // value (0 leaves it; failures to change it are ignored).
  ComputePool(std::size_t threads, std::size_t max_queued, int niceness = 0);
  ~ComputePool();
  ComputePool(const ComputePool&) = delete;
  ComputePool& operator=(const ComputePool&) = delete;

  [[nodiscard]] bool try_submit(std::function<void()> task);
  void submit(std::function<void()> task);

  [[nodiscard]] std::size_t threads() const { return threads_.size(); }
  [[nodiscard]] std::size_t max_queued() const { return max_queued_; }
  [[nodiscard]] std::size_t queued() const;
  [[nodiscard]] bool stopping() const { return stopping_.load(std::memory_order_relaxed); }

 private:
  void run(int niceness);

  const std::size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<std::function<void()>> queue_;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

}  // namespace pathserver
