#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace pathserver {

// Counts the calls between their handler's start and their finish, so a
// shutdown can wait for exactly those. gRPC's Server::Shutdown(deadline) also
// waits for connected clients to hang up, which keeps a server with idle
// clients alive for the whole grace period; waiting here first and then
// shutting down at once avoids that. Thread-safe; enter() and leave() are
// lock-free.
class InFlightCalls {
 public:
  // Counts a starting call (always pair it with leave()). False once close()
  // was called: the call should be refused (UNAVAILABLE).
  bool enter() {
    count_.fetch_add(1, std::memory_order_seq_cst);
    return !closed_.load(std::memory_order_seq_cst);
  }

  void leave() {
    if (count_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        closed_.load(std::memory_order_seq_cst)) {
      const std::lock_guard lock(mutex_);
      idle_.notify_all();
    }
  }

  // From now on enter() answers false.
  void close() { closed_.store(true, std::memory_order_seq_cst); }

  // After close(): waits until no call is in flight (true) or until deadline
  // (false).
  bool wait_idle(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return idle_.wait_until(lock, deadline,
                            [&] { return count_.load(std::memory_order_seq_cst) == 0; });
  }

  [[nodiscard]] std::int64_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> count_{0};
  std::atomic<bool> closed_{false};
  std::mutex mutex_;
  std::condition_variable idle_;
};

}  // namespace pathserver
