// End-to-end: deadlines on cold FindPath and BatchFindPaths calls against the real server
// binary (127.0.0.1, port chosen at run time). An expired call must end
// DEADLINE_EXCEEDED, never start a fill once gone, and the server must stay
// healthy and keep answering. (A fill a call gave up waiting for goes on for
// the cache: prepare_e2e_test.)

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pathfinder/client.h"
#include "support/http_get.h"
#include "support/prometheus_text.h"
#include "support/raw_upload.h"
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
    const auto result = patient.upload_mask(pathtest::open_raw_upload("open", kWidth, kHeight));
    ASSERT_TRUE(result.ok()) << result.status.error_message();
  }

  Client hasty = make_client(*server, std::chrono::milliseconds(1));
  for (int i = 0; i < 5; ++i) {
    const auto result = hasty.find_path(cold_request(kWidth - 1 - i));
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << i << ": " << pathfinder::status_code_name(result.status.error_code()) << " "
        << result.status.error_message();
  }
  // Logged as what happened: the deadline passed, whoever noticed first.
  EXPECT_THAT(server->log(), ::testing::Not(::testing::HasSubstr("CANCELLED")));

  // Healthy: the health check and a cold call on a new goal succeed, and the
  // expired goals were never filled (each is a miss when asked patiently).
  const auto health = patient.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(health.value, pathfinder::ServingStatus::kServing);
  for (int i = 0; i < 2; ++i) {
    const auto result = patient.find_path(cold_request(kWidth - 1 - i));
    ASSERT_TRUE(result.ok()) << result.status.error_message();
    EXPECT_TRUE(result.value.found());
    // A call that is gone before it runs starts no fill (one that gives up
    // waiting for a fill leaves it to finish for the cache: prepare_e2e_test).
    EXPECT_FALSE(result.value.cache_hit()) << "an expired call started a fill";
    EXPECT_EQ(result.value.cost(), (kWidth - 1 - i) + (kHeight - 1));
  }
  // Warm now.
  const auto warm = patient.find_path(cold_request(kWidth - 1));
  ASSERT_TRUE(warm.ok()) << warm.status.error_message();
  EXPECT_TRUE(warm.value.cache_hit());
  EXPECT_EQ(server->terminate_and_wait(std::chrono::seconds(15)), 0) << server->log();
}

// Snapping scans the whole mask (a flood fill from the start and a pass over
// every pixel): on a cached field it still runs on the compute pool, where an
// expired request stops it; it never ends in a late OK. (The client reports
// DEADLINE_EXCEEDED at its deadline whatever the server does, so the server's
// own count of OK calls is what shows it.)
TEST(DeadlineE2eTest, OneMillisecondSnappingCallOnACachedFieldNeverEndsInALateOk) {
  pathtest::TempDir scratch;
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.extra_args = {"--compute-threads",   "1",
                        "--metrics-address",   "127.0.0.1:0",
                        "--metrics-port-file", scratch.file("metrics.port")};
  const auto server = std::make_unique<ServerProcess>(std::move(options));
  const int metrics_port = std::stoi(pathtest::read_text_file(scratch.file("metrics.port")));
  const auto find_path_ok = [&] {
    const auto response = pathtest::http_request(metrics_port, "GET", "/metrics");
    const auto samples = pathtest::parse_prometheus_text(response.body).samples;
    const auto it =
        samples.find("pathfinder_requests_total{rpc=\"FindPath\",code=\"OK\",transport=\"grpc\"}");
    return it == samples.end() ? 0.0 : it->second;
  };

  Client patient = make_client(*server, std::chrono::seconds(60));
  // Full HD, walled at x 960: the left half cannot reach the right one.
  std::string areas(static_cast<std::size_t>(kWidth) * kHeight, '\x01');
  for (int y = 0; y < kHeight; ++y) areas[static_cast<std::size_t>(y) * kWidth + 960] = '\0';
  ASSERT_TRUE(patient.upload_mask(pathtest::raw_upload("halves", kWidth, kHeight, areas)).ok());

  pb::FindPathRequest request;
  request.set_mask("halves");
  *request.mutable_start() = pathfinder::make_point(10, 10);
  *request.mutable_goal() = pathfinder::make_point(1900, 500);
  request.set_smoothing(pb::SMOOTHING_NONE);
  const auto unsnapped = patient.find_path(request);  // fills and caches the field
  ASSERT_TRUE(unsnapped.ok()) << unsnapped.status.error_message();
  EXPECT_FALSE(unsnapped.value.found());
  EXPECT_EQ(find_path_ok(), 1.0);

  // Snapped once, patiently: the field to the snapped goal is cached too.
  request.set_snap_to_reachable(true);
  const auto snapped = patient.find_path(request);
  ASSERT_TRUE(snapped.ok()) << snapped.status.error_message();
  EXPECT_TRUE(snapped.value.found());
  EXPECT_EQ(snapped.value.goal().x(), 959);  // the nearest pixel left of the wall
  EXPECT_EQ(snapped.value.goal().y(), 500);
  EXPECT_EQ(find_path_ok(), 2.0);

  // New starts (no cached answer), both fields cached: all that is left is
  // the scan. Answered on gRPC's thread, it would end in a late OK.
  Client hasty = make_client(*server, std::chrono::milliseconds(1));
  for (int i = 0; i < 5; ++i) {
    *request.mutable_start() = pathfinder::make_point(20 + i, 30 + i);
    const auto result = hasty.find_path(request);
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << i << ": " << pathfinder::status_code_name(result.status.error_code()) << " "
        << result.status.error_message();
  }
  // A scan of this mask takes tens of milliseconds: any late one has ended.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(find_path_ok(), 2.0) << "a snapping call ran past its deadline to an OK";
  const auto health = patient.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(server->terminate_and_wait(std::chrono::seconds(15)), 0) << server->log();
}

// GetField: a cold full-HD field asked with a 1 ms deadline ends
// DEADLINE_EXCEEDED and never in a late OK (the server's own count of OK
// calls shows it); so does a cached one with its flow (8 chunks to write);
// the call is counted by RPC and code, and the server stays healthy.
TEST(DeadlineE2eTest, OneMillisecondGetFieldNeverEndsInALateOk) {
  pathtest::TempDir scratch;
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.extra_args = {"--compute-threads",   "1",
                        "--metrics-address",   "127.0.0.1:0",
                        "--metrics-port-file", scratch.file("metrics.port")};
  const auto server = std::make_unique<ServerProcess>(std::move(options));
  const int metrics_port = std::stoi(pathtest::read_text_file(scratch.file("metrics.port")));
  const auto get_field_calls = [&](const char* code) {
    const auto response = pathtest::http_request(metrics_port, "GET", "/metrics");
    const auto samples = pathtest::parse_prometheus_text(response.body).samples;
    const auto it = samples.find(std::string("pathfinder_requests_total{rpc=\"GetField\",code=\"") +
                                 code + "\",transport=\"grpc\"}");
    return it == samples.end() ? 0.0 : it->second;
  };
  Client patient = make_client(*server, std::chrono::seconds(60));
  ASSERT_TRUE(patient.upload_mask(pathtest::open_raw_upload("open", kWidth, kHeight)).ok());
  const auto field_request = [](int goal_x, bool flow) {
    pb::GetFieldRequest request;
    request.set_mask("open");
    *request.mutable_goal() = pathfinder::make_point(goal_x, kHeight / 2);
    request.set_include_flow(flow);
    return request;
  };

  Client hasty = make_client(*server, std::chrono::milliseconds(1));
  for (int i = 0; i < 5; ++i) {
    const auto result = hasty.get_field(field_request(10 + i, false));
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << i << ": " << result.status.error_message();
  }
  const auto cached = patient.get_field(field_request(500, true));
  ASSERT_TRUE(cached.ok()) << cached.status.error_message();
  EXPECT_EQ(cached.value.distances.size(), std::size_t{kWidth} * kHeight);
  EXPECT_EQ(cached.value.distances[0], 500.0F + kHeight / 2);
  for (int i = 0; i < 5; ++i) {
    const auto result = hasty.get_field(field_request(500, true));
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << i << ": " << result.status.error_message();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // any late answer has ended
  EXPECT_EQ(get_field_calls("OK"), 1.0) << "a GetField ran past its deadline to an OK";
  const auto health = patient.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(health.value, pathfinder::ServingStatus::kServing);
  EXPECT_EQ(server->terminate_and_wait(std::chrono::seconds(15)), 0) << server->log();
}

// NearestWalkable's first call on a mask builds a full-HD distance transform
// (and, with reachable_from, the component labels) on the compute pool: an
// expired call stops there and never ends in a late OK; asked patiently
// afterwards it answers. LineOfSight's long batches go to the pool too.
TEST(DeadlineE2eTest, OneMillisecondColdNearestWalkableAndLongLineOfSightNeverEndInALateOk) {
  pathtest::TempDir scratch;
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.extra_args = {"--compute-threads",   "1",
                        "--metrics-address",   "127.0.0.1:0",
                        "--metrics-port-file", scratch.file("metrics.port")};
  const auto server = std::make_unique<ServerProcess>(std::move(options));
  const int metrics_port = std::stoi(pathtest::read_text_file(scratch.file("metrics.port")));
  const auto ok_count = [&](const std::string& rpc) {
    const auto response = pathtest::http_request(metrics_port, "GET", "/metrics");
    const auto samples = pathtest::parse_prometheus_text(response.body).samples;
    const auto it = samples.find("pathfinder_requests_total{rpc=\"" + rpc +
                                 "\",code=\"OK\",transport=\"grpc\"}");
    return it == samples.end() ? 0.0 : it->second;
  };
  Client patient = make_client(*server, std::chrono::seconds(60));
  // Full HD, walled at x 960.
  std::string areas(static_cast<std::size_t>(kWidth) * kHeight, '\x01');
  for (int y = 0; y < kHeight; ++y) areas[static_cast<std::size_t>(y) * kWidth + 960] = '\0';
  ASSERT_TRUE(patient.upload_mask(pathtest::raw_upload("halves", kWidth, kHeight, areas)).ok());

  pb::NearestWalkableRequest nearest;
  nearest.set_mask("halves");
  *nearest.add_points() = pathfinder::make_point(1500, 500);
  *nearest.mutable_reachable_from() = pathfinder::make_point(10, 10);
  pb::LineOfSightRequest los;
  los.set_mask("halves");
  for (int i = 0; i < 2000; ++i) {  // about 4 million pixels of segments
    auto* pair = los.add_pairs();
    *pair->mutable_a() = pathfinder::make_point(0, i % kHeight);
    *pair->mutable_b() = pathfinder::make_point(kWidth - 1, (i * 7) % kHeight);
  }
  Client hasty = make_client(*server, std::chrono::milliseconds(1));
  for (int i = 0; i < 3; ++i) {
    const auto result = hasty.nearest_walkable(nearest);
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << i << ": " << result.status.error_message();
    const auto lines = hasty.line_of_sight(los);
    EXPECT_EQ(lines.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << i << ": " << lines.status.error_message();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(ok_count("NearestWalkable"), 0.0) << "a call ran past its deadline to an OK";
  EXPECT_EQ(ok_count("LineOfSight"), 0.0) << "a call ran past its deadline to an OK";

  const auto answered = patient.nearest_walkable(nearest);
  ASSERT_TRUE(answered.ok()) << answered.status.error_message();
  EXPECT_EQ(answered.value.results(0).point().x(), 959);  // the nearest left of the wall
  EXPECT_EQ(answered.value.results(0).point().y(), 500);
  const auto lines = patient.line_of_sight(los);
  ASSERT_TRUE(lines.ok()) << lines.status.error_message();
  EXPECT_FALSE(lines.value.results(0).clear());
  EXPECT_EQ(lines.value.results(0).first_blocked().x(), 960);
  const auto health = patient.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(server->terminate_and_wait(std::chrono::seconds(15)), 0) << server->log();
}

// A cold BatchFindPaths past its deadline: no late OK (its fill and its
// traces stop), nothing of it cached, and the server keeps answering.
TEST(DeadlineE2eTest, OneMillisecondColdBatchEndsDeadlineExceededWithoutALateOk) {
  pathtest::TempDir scratch;
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.extra_args = {"--compute-threads",   "1",
                        "--metrics-address",   "127.0.0.1:0",
                        "--metrics-port-file", scratch.file("metrics.port")};
  const auto server = std::make_unique<ServerProcess>(std::move(options));
  const int metrics_port = std::stoi(pathtest::read_text_file(scratch.file("metrics.port")));
  const auto batch_ok = [&] {
    const auto response = pathtest::http_request(metrics_port, "GET", "/metrics");
    const auto samples = pathtest::parse_prometheus_text(response.body).samples;
    const auto it = samples.find(
        "pathfinder_requests_total{rpc=\"BatchFindPaths\",code=\"OK\",transport=\"grpc\"}");
    return it == samples.end() ? 0.0 : it->second;
  };
  Client patient = make_client(*server, std::chrono::seconds(60));
  ASSERT_TRUE(patient.upload_mask(pathtest::open_raw_upload("open", kWidth, kHeight)).ok());

  pb::BatchFindPathsRequest request;
  request.set_mask("open");
  *request.mutable_goal() = pathfinder::make_point(kWidth - 1, kHeight - 1);
  request.set_smoothing(pb::SMOOTHING_NONE);
  for (int i = 0; i < 1000; ++i) *request.add_starts() = pathfinder::make_point(i, i % kHeight);
  Client hasty = make_client(*server, std::chrono::milliseconds(1));
  for (int i = 0; i < 3; ++i) {
    const auto result = hasty.batch_find_paths(request);
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << i << ": " << pathfinder::status_code_name(result.status.error_code()) << " "
        << result.status.error_message();
  }
  // A fill and 1,000 traces of this mask take well under a second.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(batch_ok(), 0.0) << "a batch ran past its deadline to an OK";

  const auto result = patient.batch_find_paths(request);
  ASSERT_TRUE(result.ok()) << result.status.error_message();
  ASSERT_EQ(result.value.paths_size(), 1000);
  EXPECT_FALSE(result.value.paths(0).cache_hit()) << "an expired call started a fill";
  for (int i = 0; i < 1000; ++i) {
    const auto& path = result.value.paths(i);
    EXPECT_TRUE(path.found());
    EXPECT_EQ(path.cost(), (kWidth - 1 - i) + (kHeight - 1 - i % kHeight)) << i;
  }
  EXPECT_EQ(batch_ok(), 1.0);
  EXPECT_EQ(server->terminate_and_wait(std::chrono::seconds(15)), 0) << server->log();
}

}  // namespace
