#include "service/answer_watch.h"

#include <malloc.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "service/raw_call.h"

namespace pathserver {
namespace {

// How often the watch looks: a stalled write ends within a tick of its timeout.
constexpr std::chrono::milliseconds kMaxTick{250};

}  // namespace

AnswerWatch::AnswerWatch(PendingAnswers& pending, std::chrono::milliseconds stall_timeout,
                         std::function<void()> trim)
    : pending_(pending),
      stall_timeout_(stall_timeout),
      trim_(trim ? std::move(trim) : [] { malloc_trim(0); }),
      thread_([this] { run(); }) {}

AnswerWatch::~AnswerWatch() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

grpc::Status AnswerWatch::stalled_status() const {
  const auto ms = stall_timeout_.count();
  const std::string timeout =
      ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
  return {grpc::StatusCode::CANCELLED, "the client read nothing of the answer for " + timeout +
                                           " (--stalled-stream-timeout): the call was ended"};
}

void AnswerWatch::write_started(const void* call, std::size_t bytes, std::function<void()> cancel) {
  if (stall_timeout_.count() == 0) return;
  const std::size_t mebibytes = std::max<std::size_t>(1, (bytes + (1 << 20) - 1) >> 20);
  const Clock::time_point deadline = Clock::now() + stall_timeout_ * mebibytes;
  const std::lock_guard lock(mutex_);
  writes_.insert_or_assign(call, Write{deadline, std::move(cancel), false});
}

bool AnswerWatch::write_done(const void* call) {
  if (stall_timeout_.count() == 0) return false;
  const std::lock_guard lock(mutex_);
  const auto found = writes_.find(call);
  if (found == writes_.end()) return false;
  const bool cancelled = found->second.cancelled;
  writes_.erase(found);
  return cancelled;
}

void AnswerWatch::cancel_stalled_locked(Clock::time_point now) {
  for (auto& [call, write] : writes_) {
    if (write.cancelled || now < write.deadline) continue;
    write.cancelled = true;
    // Under the lock: the call cannot finish (write_done) meanwhile.
    write.cancel();
  }
}

void AnswerWatch::run() {
  const auto tick = stall_timeout_.count() == 0
                        ? kMaxTick
                        : std::clamp(stall_timeout_ / 4, std::chrono::milliseconds(10), kMaxTick);
  std::size_t released_at_trim = pending_.released_total();
  Clock::time_point last_trim{};
  std::optional<Clock::time_point> trim_due;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, tick);
    if (stopping_) return;
    const Clock::time_point now = Clock::now();
    cancel_stalled_locked(now);
    const std::size_t released = pending_.released_total();
    if (!trim_due && released - released_at_trim >= kTrimAfterReleasedBytes) {
      // A charge is released just before (or as) its memory is freed: the
      // trim waits a moment for the rest of the call to go too.
      trim_due = std::max(now + kTrimDelay, last_trim + kTrimInterval);
      released_at_trim = released;
    }
    if (trim_due && now >= *trim_due) {
      trim_due.reset();
      last_trim = now;
      lock.unlock();  // a trim walks the heap: writes are not held up meanwhile
      trim_();
      lock.lock();
    }
  }
}

}  // namespace pathserver
