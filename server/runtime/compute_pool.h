#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace pathserver {

// A fixed set of threads for cold work (flood fills), so that a burst of
// cold requests queues here instead of occupying gRPC's threads: warm
// requests keep being answered on gRPC's threads at idle latency.
//
// Admission is bounded twice: try_submit() refuses work when max_queued
// tasks already wait (kQueueFull), and when the task's client already has
// max_per_client tasks waiting or running (kClientShareFull), so that one
// client cannot take the whole queue. submit() ignores both bounds; it is
// for continuations of work already admitted (a request resumed after
// another's fill), which run before any newly admitted task, so admitted
// requests are never dropped.
//
// Shares are fair: a free thread takes the next task of the client with the
// fewest tasks running (ties: the client served least recently, then the
// oldest task), so a client with one call runs it as soon as a thread frees,
// however many calls another client has queued.
//
// The threads run at a lower scheduling priority (nice + `niceness`, Linux
// per-thread nice values): when cores are short, gRPC's threads answering
// warm calls get the CPU first and cold work takes what is left.
//
// The destructor sets stopping(), runs every task still queued (each should
// see stopping() and end quickly) and joins the threads. Thread-safe.
class ComputePool {
 public:
  enum class Admission { kAdmitted, kQueueFull, kClientShareFull };

  // threads 0: one per hardware thread. niceness: added to the threads' nice
  // value (0 leaves it; failures to change it are ignored). max_per_client 0:
  // no bound per client.
  ComputePool(std::size_t threads, std::size_t max_queued, int niceness = 0,
              std::size_t max_per_client = 0);
  ~ComputePool();
  ComputePool(const ComputePool&) = delete;
  ComputePool& operator=(const ComputePool&) = delete;

  // `client` names who asked (a token or an address); "" is one client too.
  [[nodiscard]] Admission try_submit(std::function<void()> task, const std::string& client = {});
  void submit(std::function<void()> task);

  [[nodiscard]] std::size_t threads() const { return threads_.size(); }
  [[nodiscard]] std::size_t max_queued() const { return max_queued_; }
  [[nodiscard]] std::size_t max_per_client() const { return max_per_client_; }
  [[nodiscard]] std::size_t queued() const;
  [[nodiscard]] bool stopping() const { return stopping_.load(std::memory_order_relaxed); }

 private:
  struct ClientTasks {
    std::deque<std::pair<std::uint64_t, std::function<void()>>> queued;  // (admission, task)
    std::size_t running = 0;
    std::uint64_t last_served = 0;  // when a thread last took its task (0: never)
  };

  void run(int niceness);
  // Under mutex_: the next task to run, or an empty function when none waits.
  std::function<void()> take_next(std::string& client);

  const std::size_t max_queued_;
  const std::size_t max_per_client_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<std::function<void()>> continuations_;
  std::map<std::string, ClientTasks> clients_;  // clients with tasks queued or running
  std::size_t queued_ = 0;                      // tasks in clients_' queues
  std::uint64_t admissions_ = 0;
  std::uint64_t serves_ = 0;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

}  // namespace pathserver
