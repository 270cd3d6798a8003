// End-to-end tests of graceful shutdown: SIGTERM while the C++ client keeps
// the real server busy with FindPath calls. The server must exit 0 within
// --shutdown-grace (plus a second), every call must succeed or fail with
// UNAVAILABLE or CANCELLED, and the stored masks must survive. Servers bind
// 127.0.0.1 only.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pathfinder/client.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathfinder::ClientOptions;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kSide = 1024;  // an open 1024x1024 mask: each cold FindPath fills ~1M pixels
constexpr int kThreads = 8;
constexpr int kCallsPerThread = 50;

std::unique_ptr<ServerProcess> start_server(const std::string& grace) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.log_level = "info";
  options.extra_args = {"--shutdown-grace", grace, "--cache-mb", "0"};
  return std::make_unique<ServerProcess>(std::move(options));
}

Client make_client(const ServerProcess& server) {
  ClientOptions options;
  options.deadline = std::chrono::seconds(60);  // never the reason a call ends here
  // Each call's own outcome is counted: no retries of the refused ones.
  options.retry.enabled = false;
  return Client(server.target(), options);
}

void upload_open_mask(Client& client, int side = kSide) {
  const auto result = client.upload_mask(pathtest::open_raw_upload(
      "open", static_cast<std::uint32_t>(side), static_cast<std::uint32_t>(side)));
  ASSERT_TRUE(result.ok()) << result.status.error_message();
}

TEST(ShutdownTest, SigtermDuringLoadFinishesOrRefusesCallsAndExitsZero) {
  const auto server = start_server("2");
  {
    Client setup = make_client(*server);
    upload_open_mask(setup);
  }

  std::mutex mutex;
  std::map<std::string, int> codes;  // status code name -> calls
  std::atomic<int> finished{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Client client = make_client(*server);  // a channel (connection) per thread
      for (int i = 0; i < kCallsPerThread; ++i) {
        pb::FindPathRequest request;
        request.set_mask("open");
        // A new goal each call and no field cache: a flood fill each time
        // (SMOOTHING_NONE returns the raw grid path, so no beeline short-cut).
        *request.mutable_start() = pathfinder::make_point(t, 0);
        *request.mutable_goal() = pathfinder::make_point(kSide - 1 - i, kSide - 1 - t);
        request.set_smoothing(pb::SMOOTHING_NONE);
        const auto result = client.find_path(request);
        {
          std::lock_guard lock(mutex);
          ++codes[pathfinder::status_code_name(result.status.error_code())];
        }
        ++finished;
      }
    });
  }
  // Let the load get going, then stop the server in the middle of it.
  const auto wait_until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (finished.load() < 16 && std::chrono::steady_clock::now() < wait_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto stop_start = std::chrono::steady_clock::now();
  const int exit_status = server->terminate_and_wait(std::chrono::seconds(15));
  const auto stop_time = std::chrono::steady_clock::now() - stop_start;
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(exit_status, 0) << server->log();
  EXPECT_LE(stop_time, std::chrono::seconds(3)) << "grace 2 s + 1 s";
  int total = 0;
  std::string summary;
  for (const auto& [code, count] : codes) {
    summary += " " + code + "=" + std::to_string(count);
    total += count;
    EXPECT_THAT((std::vector<std::string>{"OK", "UNAVAILABLE", "CANCELLED"}),
                ::testing::Contains(code))
        << count << " calls ended with " << code;
  }
  std::cout << "calls by status:" << summary << "; stopped in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(stop_time).count() << " ms\n";
  EXPECT_EQ(total, kThreads * kCallsPerThread);
  EXPECT_GE(codes["OK"], 16);
  EXPECT_GT(codes["UNAVAILABLE"] + codes["CANCELLED"], 0) << "the load ended before SIGTERM";
  EXPECT_THAT(server->log(), HasSubstr("shutting down (grace 2 s)"));
  EXPECT_THAT(server->log(), HasSubstr("stopped"));

  // The store survives: the mask is there after a restart.
  server->restart();
  Client after = make_client(*server);
  const auto info = after.get_mask("open");
  ASSERT_TRUE(info.ok()) << info.status.error_message();
  EXPECT_EQ(info.value.width(), static_cast<std::uint32_t>(kSide));
  const auto health = after.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(health.value, pathfinder::ServingStatus::kServing);
}

// A cold FindPath across a big open mask (a fill of 16M pixels: a call that
// takes a while) with the server asked to stop once the call has run for
// `share` of the time the same call took alone; the call's result. The
// server must exit 0.
pathfinder::Result<pb::FindPathResponse> find_path_while_stopping(ServerProcess& server,
                                                                   double share) {
  constexpr int kBig = 4096;
  {
    Client setup = make_client(server);
    upload_open_mask(setup, kBig);
  }
  Client client = make_client(server);
  pb::FindPathRequest request;
  request.set_mask("open");
  *request.mutable_start() = pathfinder::make_point(0, 0);
  *request.mutable_goal() = pathfinder::make_point(kBig - 1, kBig - 1);
  request.set_smoothing(pb::SMOOTHING_NONE);
  const auto solo_start = std::chrono::steady_clock::now();
  EXPECT_TRUE(client.find_path(request).ok());
  const auto solo = std::chrono::steady_clock::now() - solo_start;
  std::cout << "one call alone: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(solo).count() << " ms\n";

  *request.mutable_goal() = pathfinder::make_point(kBig - 2, kBig - 1);  // cold again
  pathfinder::Result<pb::FindPathResponse> result;
  std::thread caller([&] { result = client.find_path(request); });
  // The call is running on the server by then.
  std::this_thread::sleep_for(std::chrono::duration_cast<std::chrono::nanoseconds>(solo * share));
  EXPECT_EQ(server.terminate_and_wait(std::chrono::seconds(15)), 0) << server.log();
  caller.join();
  return result;
}

TEST(ShutdownTest, ARunningCallFinishesWithinTheGrace) {
  const auto server = start_server("10");
  const auto result = find_path_while_stopping(*server, 0.5);
  EXPECT_TRUE(result.ok()) << pathfinder::status_code_name(result.status.error_code()) << ": "
                           << result.status.error_message();
  EXPECT_TRUE(result.value.found());
}

TEST(ShutdownTest, ACallStillRunningAfterTheGraceIsAnsweredUnavailable) {
  // No grace: the running call is stopped at once, and must be told the
  // server is going away (a retry elsewhere may work), not that it cancelled.
  const auto server = start_server("0");
  const auto result = find_path_while_stopping(*server, 1.0 / 3);
  ASSERT_FALSE(result.ok()) << "the call ended before the server was asked to stop";
  EXPECT_EQ(pathfinder::status_code_name(result.status.error_code()), "UNAVAILABLE")
      << result.status.error_message();
  EXPECT_EQ(result.status.error_message(), "server shutting down");
  EXPECT_THAT(server->log(), HasSubstr("FindPath failed: UNAVAILABLE: server shutting down"));
  EXPECT_THAT(server->log(), Not(HasSubstr("CANCELLED")));
}

TEST(ShutdownTest, ConnectedIdleClientsDoNotHoldTheServerForTheGrace) {
  // gRPC alone would wait the whole grace for connected clients to hang up.
  const auto server = start_server("30");
  Client client = make_client(*server);
  ASSERT_TRUE(client.health_check().ok());
  ASSERT_TRUE(client.list_masks().ok());  // connected, nothing in flight
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server->terminate_and_wait(std::chrono::seconds(40)), 0) << server->log();
  EXPECT_LE(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_THAT(server->log(), HasSubstr("grace 30 s"));
}

TEST(ShutdownTest, BadGraceIsAUsageError) {
  pathtest::TempDir scratch("pathfinder-shutdown");
  for (const std::string grace : {"-1", "abc", "4000"}) {
    const auto result =
        pathtest::run_command({PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0", "--data-dir",
                               scratch.file("data"), "--shutdown-grace", grace});
    EXPECT_NE(result.exit_code, 0) << grace;
    EXPECT_THAT(result.out + result.err, HasSubstr("--shutdown-grace")) << grace;
  }
}

}  // namespace
