// End-to-end: deadlines on cold FindPath calls against the real server
// binary (127.0.0.1, port chosen at run time). An expired call must end
// DEADLINE_EXCEEDED, its flood fill must stop, and the server must stay
// healthy and keep answering.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pathfinder/client.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathfinder::ClientOptions;
using pathtest::ServerOptions;
using pathtest::ServerProcess;

constexpr int kWidth = 1920;  // full HD, open: a cold fill covers 2M pixels
constexpr int kHeight = 1080;

std::unique_ptr<ServerProcess> start_server() {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.log_level = "info";
  options.extra_args = {"--compute-threads", "1"};
  return std::make_unique<ServerProcess>(std::move(options));
}

Client make_client(const ServerProcess& server, std::chrono::milliseconds deadline) {
  ClientOptions options;
  options.deadline = deadline;
  return Client(server.target(), options);
}

pb::FindPathRequest cold_request(int goal_x) {
  pb::FindPathRequest request;
  request.set_mask("open");
  *request.mutable_start() = pathfinder::make_point(0, 0);
  *request.mutable_goal() = pathfinder::make_point(goal_x, kHeight - 1);
  request.set_smoothing(pb::SMOOTHING_NONE);  // the grid path: always a flood fill
  return request;
}

TEST(DeadlineE2eTest, OneMillisecondColdFullHdCallEndsDeadlineExceededAndTheServerStaysHealthy) {
  const auto server = start_server();
  Client patient = make_client(*server, std::chrono::seconds(60));
  {
    pb::UploadMaskRequest upload;
    upload.set_name("open");
    upload.set_image(std::string(static_cast<std::size_t>(kWidth) * kHeight, '\x01'));
    upload.set_format(pb::MASK_FORMAT_RAW);
    upload.set_width(kWidth);
    upload.set_height(kHeight);
    const auto result = patient.upload_mask(upload);
    ASSERT_TRUE(result.ok()) << result.status.error_message();
  }

  Client hasty = make_client(*server, std::chrono::milliseconds(1));
  for (int i = 0; i < 5; ++i) {
    const auto result = hasty.find_path(cold_request(kWidth - 1 - i));
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << i << ": " << pathfinder::status_code_name(result.status.error_code()) << " "
        << result.status.error_message();
  }

  // Healthy: the health check and a cold call on a new goal succeed, and the
  // expired goals were never cached (each is a miss when asked patiently).
  const auto health = patient.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(health.value, pathfinder::ServingStatus::kServing);
  for (int i = 0; i < 2; ++i) {
    const auto result = patient.find_path(cold_request(kWidth - 1 - i));
    ASSERT_TRUE(result.ok()) << result.status.error_message();
    EXPECT_TRUE(result.value.found());
    EXPECT_FALSE(result.value.cache_hit()) << "a fill stopped by its deadline is not kept";
    EXPECT_EQ(result.value.cost(), (kWidth - 1 - i) + (kHeight - 1));
  }
  // Warm now.
  const auto warm = patient.find_path(cold_request(kWidth - 1));
  ASSERT_TRUE(warm.ok()) << warm.status.error_message();
  EXPECT_TRUE(warm.value.cache_hit());
  EXPECT_EQ(server->terminate_and_wait(std::chrono::seconds(15)), 0) << server->log();
}

}  // namespace
