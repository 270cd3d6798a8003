// What answers waiting for their readers are charged and how long they may
// wait: SharedCharges (a field held by many GetField streams is charged
// once) and AnswerWatch (stalled writes cancelled, freed memory trimmed).

#include "service/answer_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "service/raw_call.h"

namespace pathserver {
namespace {

using namespace std::chrono_literals;

// Waits up to `timeout` for `done`.
template <typename Predicate>
bool eventually(Predicate done, std::chrono::milliseconds timeout = 5000ms) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

TEST(SharedChargesTest, AnObjectHeldByManyCallsIsChargedOnce) {
  PendingAnswers pending(100);
  SharedCharges charges(pending);
  const int field = 0;
  ASSERT_TRUE(charges.try_hold(&field, 60));
  ASSERT_TRUE(charges.try_hold(&field, 60));
  EXPECT_EQ(pending.held(), 60u);
  charges.release(&field);
  EXPECT_EQ(pending.held(), 60u);  // still held by the other call
  charges.release(&field);
  EXPECT_EQ(pending.held(), 0u);
  EXPECT_EQ(pending.released_total(), 60u);
}

TEST(SharedChargesTest, AnObjectBeyondTheBudgetIsRefusedAndNothingHeld) {
  PendingAnswers pending(100);
  SharedCharges charges(pending);
  const int first = 0;
  const int second = 0;
  ASSERT_TRUE(charges.try_hold(&first, 60));
  EXPECT_FALSE(charges.try_hold(&second, 60));
  EXPECT_EQ(pending.held(), 60u);
  charges.release(&second);  // never held: nothing happens
  EXPECT_EQ(pending.held(), 60u);
  charges.release(&first);
  EXPECT_TRUE(charges.try_hold(&second, 60));
  EXPECT_EQ(pending.held(), 60u);
}

TEST(PendingAnswersTest, ARefusalNamesTheBudgetAndItsFlag) {
  PendingAnswers pending(std::size_t{4} << 20);
  ASSERT_TRUE(pending.try_charge(std::size_t{3} << 20));
  const grpc::Status refusal = pending.refusal("this answer was dropped");
  EXPECT_EQ(refusal.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refusal.error_message().find("3 MiB"), std::string::npos);
  EXPECT_NE(refusal.error_message().find("--pending-answers-mb 4"), std::string::npos);
  EXPECT_NE(refusal.error_message().find("this answer was dropped"), std::string::npos);
}

TEST(AnswerWatchTest, AWriteNotTakenWithinTheTimeoutIsCancelledOnce) {
  PendingAnswers pending(100);
  AnswerWatch watch(pending, 50ms, [] {});
  std::atomic<int> cancels{0};
  const int call = 0;
  watch.write_started(&call, 10, [&] { ++cancels; });
  ASSERT_TRUE(eventually([&] { return cancels.load() == 1; }));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(cancels.load(), 1);
  EXPECT_TRUE(watch.write_done(&call));   // cancelled as stalled
  EXPECT_FALSE(watch.write_done(&call));  // and forgotten
  EXPECT_EQ(watch.stalled_status().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_NE(watch.stalled_status().error_message().find("50 ms (--stalled-stream-timeout)"),
            std::string::npos);
}

TEST(AnswerWatchTest, AWriteTakenInTimeIsNotCancelled) {
  PendingAnswers pending(100);
  AnswerWatch watch(pending, 200ms, [] {});
  std::atomic<int> cancels{0};
  const int call = 0;
  for (int write = 0; write < 5; ++write) {  // each write gets the timeout anew
    watch.write_started(&call, 10, [&] { ++cancels; });
    std::this_thread::sleep_for(80ms);
    EXPECT_FALSE(watch.write_done(&call));
  }
  EXPECT_EQ(cancels.load(), 0);
}

TEST(AnswerWatchTest, ALargeWriteGetsTheTimeoutPerMebibyte) {
  PendingAnswers pending(100);
  AnswerWatch watch(pending, 100ms, [] {});
  std::atomic<int> cancels{0};
  const int call = 0;
  watch.write_started(&call, std::size_t{5} << 20, [&] { ++cancels; });  // 500 ms
  std::this_thread::sleep_for(250ms);
  EXPECT_EQ(cancels.load(), 0);
  ASSERT_TRUE(eventually([&] { return cancels.load() == 1; }));
  EXPECT_TRUE(watch.write_done(&call));
}

TEST(AnswerWatchTest, WithoutATimeoutNothingIsCancelled) {
  PendingAnswers pending(100);
  AnswerWatch watch(pending, 0ms, [] {});
  std::atomic<int> cancels{0};
  const int call = 0;
  watch.write_started(&call, 10, [&] { ++cancels; });
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(watch.write_done(&call));
  EXPECT_EQ(cancels.load(), 0);
}

TEST(AnswerWatchTest, MemoryIsTrimmedOnceLargeAnswersAreReleasedAndNotOtherwise) {
  const std::size_t large = AnswerWatch::kTrimAfterReleasedBytes;
  PendingAnswers pending(4 * large);
  std::atomic<int> trims{0};
  AnswerWatch watch(pending, 30s, [&] { ++trims; });
  ASSERT_TRUE(pending.try_charge(large / 4));
  pending.release(large / 4);
  std::this_thread::sleep_for(AnswerWatch::kTrimDelay + 400ms);
  EXPECT_EQ(trims.load(), 0);  // too little freed to be worth a trim

  ASSERT_TRUE(pending.try_charge(large));
  pending.release(large);
  ASSERT_TRUE(eventually([&] { return trims.load() == 1; }));
  // More released at once: the next trim waits for kTrimInterval.
  ASSERT_TRUE(pending.try_charge(large));
  pending.release(large);
  std::this_thread::sleep_for(AnswerWatch::kTrimInterval / 2);
  EXPECT_EQ(trims.load(), 1);
  ASSERT_TRUE(eventually([&] { return trims.load() == 2; }));
}

}  // namespace
}  // namespace pathserver
