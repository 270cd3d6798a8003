#pragma once

#include <grpcpp/support/status.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace pathserver {

class PendingAnswers;  // raw_call.h

// Watches answers waiting for their readers, on a thread of its own:
//  - a write (a stream's message, or a large unary answer) that its client
//    has not taken within the stall timeout is cancelled (an HTTP/2 reader
//    with a window of 0 would keep it, and all its call holds, forever; the
//    call is cancelled, its unsent data dropped: the client sees CANCELLED);
//  - once answers of kTrimAfterReleasedBytes or more were released from
//    PendingAnswers, the memory freed is returned to the system (glibc keeps
//    freed heap pages otherwise) kTrimDelay later, at most once per
//    kTrimInterval.
// Thread-safe.
class AnswerWatch {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kTrimAfterReleasedBytes = std::size_t{16} << 20;
  static constexpr std::chrono::milliseconds kTrimInterval{1000};
  static constexpr std::chrono::milliseconds kTrimDelay{200};

  // stall_timeout 0: writes are never cancelled. trim: returns freed memory
  // to the system (malloc_trim when empty).
  AnswerWatch(PendingAnswers& pending, std::chrono::milliseconds stall_timeout,
              std::function<void()> trim = {});
  ~AnswerWatch();
  AnswerWatch(const AnswerWatch&) = delete;
  AnswerWatch& operator=(const AnswerWatch&) = delete;

  [[nodiscard]] std::chrono::milliseconds stall_timeout() const { return stall_timeout_; }
  // The status a call cancelled as stalled ends with, for its log line (the
  // client itself sees CANCELLED).
  [[nodiscard]] grpc::Status stalled_status() const;

  // A write of `bytes` for `call` started: it may take the stall timeout per
  // started MiB (a stream's messages are at most about 1 MiB; a unary
  // answer may be 64). `cancel` ends the call; it runs on the watch's
  // thread, under its lock, so it must not call the watch (as
  // grpc::ServerContextBase::TryCancel does not). The call must call
  // write_done before it is gone.
  void write_started(const void* call, std::size_t bytes, std::function<void()> cancel);
  // The write of `call` completed or its call ends (idempotent). True when
  // the watch cancelled it as stalled.
  bool write_done(const void* call);

 private:
  struct Write {
    Clock::time_point deadline;
    std::function<void()> cancel;
    bool cancelled = false;
  };
  void run();
  void cancel_stalled_locked(Clock::time_point now);

  PendingAnswers& pending_;
  const std::chrono::milliseconds stall_timeout_;
  const std::function<void()> trim_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;                          // guarded by mutex_
  std::unordered_map<const void*, Write> writes_;  // guarded by mutex_
  std::thread thread_;                             // last: starts once the rest is set
};

}  // namespace pathserver
