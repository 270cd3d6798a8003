// The compute pool's admission bounds and its fair order between clients.

#include "runtime/compute_pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <vector>

namespace pathserver {
namespace {

using Admission = ComputePool::Admission;

// Holds the pool's one thread until released, so that what is submitted
// meanwhile queues.
class Blocker {
 public:
  std::function<void()> task() {
    return [this] {
      started_.set_value();
      release_.get_future().wait();
    };
  }
  void wait_started() { started_future_.wait(); }
  void release() { release_.set_value(); }

 private:
  std::promise<void> started_;
  std::future<void> started_future_ = started_.get_future();
  std::promise<void> release_;
};

class RunOrder {
 public:
  std::function<void()> task(std::string name) {
    return [this, name] {
      const std::lock_guard lock(mutex_);
      order_.push_back(name);
    };
  }
  std::vector<std::string> order() {
    const std::lock_guard lock(mutex_);
    return order_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> order_;
};

void wait_until_idle(const ComputePool& pool) {
  for (int i = 0; i < 5000 && pool.queued() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(ComputePool, AClientWithFewerCallsRunningGoesFirst) {
  RunOrder run;
  {
    ComputePool pool(1, 100);
    Blocker blocker;
    ASSERT_EQ(pool.try_submit(blocker.task(), "flooder"), Admission::kAdmitted);
    blocker.wait_started();
    for (int i = 0; i < 5; ++i) {
      ASSERT_EQ(pool.try_submit(run.task("flood " + std::to_string(i)), "flooder"),
                Admission::kAdmitted);
    }
    ASSERT_EQ(pool.try_submit(run.task("probe"), "other"), Admission::kAdmitted);
    ASSERT_EQ(pool.try_submit(run.task("probe 2"), "other"), Admission::kAdmitted);
    blocker.release();
    wait_until_idle(pool);
  }
  // The flooder had a call running when the probe came: the probe runs
  // next, then the two clients take turns.
  const std::vector<std::string> expected{"probe",   "flood 0", "probe 2", "flood 1",
                                          "flood 2", "flood 3", "flood 4"};
  EXPECT_EQ(run.order(), expected);
}

TEST(ComputePool, OneClientCannotTakeMoreThanItsShare) {
  ComputePool pool(1, 100, 0, /*max_per_client=*/3);
  Blocker blocker;
  RunOrder run;
  ASSERT_EQ(pool.try_submit(blocker.task(), "flooder"), Admission::kAdmitted);
  blocker.wait_started();
  // The running task counts: two more wait, the fourth is refused.
  EXPECT_EQ(pool.try_submit(run.task("a"), "flooder"), Admission::kAdmitted);
  EXPECT_EQ(pool.try_submit(run.task("b"), "flooder"), Admission::kAdmitted);
  EXPECT_EQ(pool.try_submit(run.task("c"), "flooder"), Admission::kClientShareFull);
  EXPECT_EQ(pool.try_submit(run.task("probe"), "other"), Admission::kAdmitted);
  blocker.release();
  wait_until_idle(pool);
  // Once answered, its share is free again.
  for (int i = 0; i < 1000 && pool.try_submit([] {}, "flooder") != Admission::kAdmitted; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(run.order(), (std::vector<std::string>{"probe", "a", "b"}));
}

TEST(ComputePool, AFullQueueRefusesEveryClientButContinuationsStillRunFirst) {
  RunOrder run;
  {
    ComputePool pool(1, 2);
    Blocker blocker;
    ASSERT_EQ(pool.try_submit(blocker.task(), "a"), Admission::kAdmitted);
    blocker.wait_started();
    EXPECT_EQ(pool.try_submit(run.task("a1"), "a"), Admission::kAdmitted);
    EXPECT_EQ(pool.try_submit(run.task("b1"), "b"), Admission::kAdmitted);
    EXPECT_EQ(pool.try_submit(run.task("c1"), "c"), Admission::kQueueFull);
    pool.submit(run.task("resumed"));  // beyond the bound: already admitted work
    EXPECT_EQ(pool.queued(), 3U);
    blocker.release();
    wait_until_idle(pool);
  }
  EXPECT_EQ(run.order(), (std::vector<std::string>{"resumed", "b1", "a1"}));
}

}  // namespace
}  // namespace pathserver
