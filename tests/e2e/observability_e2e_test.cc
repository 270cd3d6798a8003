// End-to-end tests of the server's observability: the Prometheus /metrics
// endpoint (--metrics-address), JSON log lines (--log-format json, one line
// per failed call and none per successful one at info), and server
// reflection describing both pathfinding.v1.Pathfinder and
// grpc.health.v1.Health (what ghz and grpcurl need with no proto file).
// Every server is the real binary on 127.0.0.1 with ports picked at run time.

#include <gmock/gmock.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/descriptor_database.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pathfinder/client.h"
#include "support/held_port.h"
#include "support/http_get.h"
#include "support/prometheus_text.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using pathtest::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

pb::UploadMaskRequest open_room(const std::string& name, std::uint32_t width,
                                std::uint32_t height) {
  return pathtest::open_raw_upload(name, width, height);
}

pb::FindPathRequest find(const std::string& mask, int sx, int sy, int gx, int gy) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  request.mutable_start()->set_x(sx);
  request.mutable_start()->set_y(sy);
  request.mutable_goal()->set_x(gx);
  request.mutable_goal()->set_y(gy);
  return request;
}

std::string requests(const std::string& rpc, const std::string& code) {
  return "pathfinder_requests_total{rpc=\"" + rpc + "\",code=\"" + code + "\",transport=\"grpc\"}";
}

// ---------------------------------------------------------------------------
// /metrics

class MetricsEndpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    options.extra_args = {"--metrics-address", "127.0.0.1:0", "--metrics-port-file",
                          scratch_.file("metrics.port")};
    server_ = std::make_unique<ServerProcess>(options);
    metrics_port_ = std::stoi(pathtest::read_text_file(scratch_.file("metrics.port")));
    client_ = std::make_unique<Client>(server_->target());
  }

  pathtest::PrometheusText scrape() {
    const auto response = pathtest::http_request(metrics_port_, "GET", "/metrics");
    EXPECT_EQ(response.status, 200) << response.body;
    return pathtest::parse_prometheus_text(response.body);
  }

  TempDir scratch_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<Client> client_;
  int metrics_port_ = 0;
};

TEST_F(MetricsEndpoint, CountsCallsByRpcAndCodeAndReportsTheStore) {
  const auto before = scrape();
  EXPECT_EQ(before.samples.at(requests("FindPath", "OK")), 0);
  EXPECT_EQ(before.samples.at("pathfinder_masks_stored"), 0);

  ASSERT_TRUE(client_->upload_mask(open_room("room", 64, 32)).ok());
  ASSERT_TRUE(client_->upload_mask(open_room("hall", 10, 10)).ok());
  for (int i = 0; i < 3; ++i) {
    const auto found = client_->find_path(find("room", 1, 1, 60, 30 - i));
    ASSERT_TRUE(found.ok()) << found.status.error_message();
  }
  EXPECT_EQ(client_->find_path(find("nowhere", 1, 1, 2, 2)).status.error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(client_->find_path(find("room", -1, 1, 2, 2)).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(client_->get_mask("nowhere").status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(client_->get_mask("nowhere").status.error_code(), grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(client_->list_masks().ok());
  pathfinding::v1::GetRangeRequest range;
  range.set_mask("room");
  *range.mutable_start() = pathfinder::make_point(5, 5);
  range.set_max_cost(4);
  ASSERT_TRUE(client_->get_range(range).ok());
  range.set_max_cost(-1);
  EXPECT_EQ(client_->get_range(range).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(client_->delete_mask("hall").ok());

  const auto after = scrape();
  EXPECT_EQ(after.samples.at(requests("UploadMask", "OK")), 2);
  EXPECT_EQ(after.samples.at(requests("FindPath", "OK")), 3);
  EXPECT_EQ(after.samples.at(requests("FindPath", "NOT_FOUND")), 1);
  EXPECT_EQ(after.samples.at(requests("FindPath", "INVALID_ARGUMENT")), 1);
  EXPECT_EQ(after.samples.at(requests("GetMask", "NOT_FOUND")), 2);
  EXPECT_EQ(after.samples.at(requests("GetMask", "OK")), 0);
  EXPECT_EQ(after.samples.at(requests("ListMasks", "OK")), 1);
  EXPECT_EQ(after.samples.at(requests("DeleteMask", "OK")), 1);
  EXPECT_EQ(after.samples.at(requests("Reachable", "OK")), 0);
  EXPECT_EQ(after.samples.at(requests("GetRange", "OK")), 1);
  EXPECT_EQ(after.samples.at(requests("GetRange", "INVALID_ARGUMENT")), 1);

  // One histogram observation per call, buckets cumulative up to +Inf.
  const auto count = [&](const std::string& rpc) {
    return after.samples.at("pathfinder_request_duration_seconds_count{rpc=\"" + rpc +
                            "\",transport=\"grpc\"}");
  };
  EXPECT_EQ(count("FindPath"), 5);
  EXPECT_EQ(count("GetMask"), 2);
  EXPECT_EQ(count("UploadMask"), 2);
  EXPECT_GT(after.samples.at(
                "pathfinder_request_duration_seconds_sum{rpc=\"FindPath\",transport=\"grpc\"}"),
            0);
  double previous = 0;
  for (const char* le : {"5e-05", "0.0001", "0.001", "0.01", "0.1", "1", "10", "+Inf"}) {
    const double value = after.samples.at(
        "pathfinder_request_duration_seconds_bucket{rpc=\"FindPath\",transport=\"grpc\",le=\"" +
        std::string(le) + "\"}");
    EXPECT_GE(value, previous) << le;
    previous = value;
  }
  EXPECT_EQ(previous, 5);

  // The store: "room" is left, 64x32 area ids.
  EXPECT_EQ(after.samples.at("pathfinder_masks_stored"), 1);
  EXPECT_EQ(after.samples.at("pathfinder_mask_bytes"), 64 * 32);
  for (const char* family :
       {"pathfinder_field_cache_hits_total", "pathfinder_field_cache_misses_total",
        "pathfinder_field_cache_evictions_total", "pathfinder_field_cache_entries",
        "pathfinder_field_cache_bytes", "pathfinder_fields_computed_total",
        "pathfinder_field_compute_seconds_total", "pathfinder_component_cache_entries",
        "pathfinder_route_cache_entries"}) {
    EXPECT_TRUE(after.samples.contains(family)) << family;
  }

  EXPECT_EQ(after.samples.at("pathfinder_masks_corrupt"), 0);

  // build_info: 1, labelled with the version CMake gave the project (and gRPC's).
  EXPECT_EQ(after.types.at("pathfinder_build_info"), "gauge");
  const std::string build_info = "pathfinder_build_info{version=\"" PATHFINDER_VERSION "\",grpc=\"";
  int build_info_series = 0;
  for (const auto& [series, value] : after.samples) {
    if (!series.starts_with("pathfinder_build_info")) continue;
    ++build_info_series;
    EXPECT_THAT(series, ::testing::StartsWith(build_info));
    EXPECT_THAT(series, ::testing::MatchesRegex(".*grpc=\"[0-9]+\\.[0-9]+\\.[0-9]+.*\"\\}"));
    EXPECT_EQ(value, 1);
  }
  EXPECT_EQ(build_info_series, 1);

  EXPECT_EQ(pathtest::http_request(metrics_port_, "GET", "/").status, 404);
  EXPECT_EQ(server_->terminate_and_wait(), 0) << server_->log();
}

TEST_F(MetricsEndpoint, CountsLineOfSightAndNearestWalkable) {
  std::string areas(std::size_t{22} * 18, '\x01');
  areas[0] = '\0';  // (0,0) blocked: its nearest walkable pixel needs the transform
  ASSERT_TRUE(client_->upload_mask(pathtest::raw_upload("room", 22, 18, areas)).ok());
  pb::LineOfSightRequest los;
  los.set_mask("room");
  auto* pair = los.add_pairs();
  *pair->mutable_a() = pathfinder::make_point(1, 1);
  *pair->mutable_b() = pathfinder::make_point(20, 16);
  ASSERT_TRUE(client_->line_of_sight(los).ok());
  *pair->mutable_b() = pathfinder::make_point(22, 16);  // outside
  EXPECT_EQ(client_->line_of_sight(los).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  pb::NearestWalkableRequest nearest;
  nearest.set_mask("room");
  *nearest.add_points() = pathfinder::make_point(0, 0);
  const auto answered = client_->nearest_walkable(nearest);
  ASSERT_TRUE(answered.ok()) << answered.status.error_message();
  EXPECT_TRUE(answered.value.results(0).found());

  const auto parsed = scrape();
  EXPECT_EQ(parsed.samples.at(requests("LineOfSight", "OK")), 1);
  EXPECT_EQ(parsed.samples.at(requests("LineOfSight", "INVALID_ARGUMENT")), 1);
  EXPECT_EQ(parsed.samples.at(requests("NearestWalkable", "OK")), 1);
  // The transform (5 bytes a pixel) is charged to the one cache budget.
  EXPECT_GE(parsed.samples.at("pathfinder_cache_bytes{cache=\"nearest\"}"), 22 * 18 * 5);
}

TEST_F(MetricsEndpoint, CountsReachableAndStandardMove) {
  ASSERT_TRUE(client_->upload_mask(open_room("tiles", 22, 18)).ok());
  pb::ReachableRequest reachable;
  reachable.set_mask("tiles");
  auto* pair = reachable.add_pairs();
  pair->mutable_a()->set_x(0);
  pair->mutable_b()->set_x(21);
  ASSERT_TRUE(client_->reachable(reachable).ok());
  pb::StandardMoveRequest move;
  move.set_mask("tiles");
  move.mutable_start()->set_x(1);
  move.mutable_start()->set_y(1);
  move.mutable_goal()->set_x(10);
  move.mutable_goal()->set_y(6);
  const auto moved = client_->standard_move(move);
  ASSERT_TRUE(moved.ok()) << moved.status.error_message();
  move.mutable_goal()->set_x(99);
  EXPECT_EQ(client_->standard_move(move).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  const auto parsed = scrape();
  EXPECT_EQ(parsed.samples.at(requests("Reachable", "OK")), 1);
  EXPECT_EQ(parsed.samples.at(requests("StandardMove", "OK")), 1);
  EXPECT_EQ(parsed.samples.at(requests("StandardMove", "INVALID_ARGUMENT")), 1);
  EXPECT_EQ(parsed.samples.at("pathfinder_component_cache_entries"), 1);
  // The labelling (4 bytes a pixel) is charged to the one cache budget
  // (--cache-mb, 1024 MiB by default).
  EXPECT_EQ(parsed.samples.at("pathfinder_cache_budget_bytes"), 1024.0 * 1024 * 1024);
  EXPECT_GE(parsed.samples.at("pathfinder_cache_bytes{cache=\"labels\"}"), 22 * 18 * 4);
}

TEST_F(MetricsEndpoint, CountsBatchFindPaths) {
  ASSERT_TRUE(client_->upload_mask(open_room("crowd", 30, 20)).ok());
  pb::BatchFindPathsRequest batch;
  batch.set_mask("crowd");
  *batch.mutable_goal() = pathfinder::make_point(25, 15);
  for (int i = 0; i < 40; ++i) *batch.add_starts() = pathfinder::make_point(i % 30, i / 30);
  const auto answered = client_->batch_find_paths(batch);  // on the compute pool
  ASSERT_TRUE(answered.ok()) << answered.status.error_message();
  EXPECT_EQ(answered.value.paths_size(), 40);
  batch.mutable_starts()->DeleteSubrange(1, 39);
  ASSERT_TRUE(client_->batch_find_paths(batch).ok());  // warm, on gRPC's thread
  batch.mutable_starts(0)->set_x(30);
  EXPECT_EQ(client_->batch_find_paths(batch).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  const auto parsed = scrape();
  EXPECT_EQ(parsed.samples.at(requests("BatchFindPaths", "OK")), 2);
  EXPECT_EQ(parsed.samples.at(requests("BatchFindPaths", "INVALID_ARGUMENT")), 1);
}

// Clients that connect and send half a request line hold a worker each
// until they time out; the scraper must still be answered.
TEST_F(MetricsEndpoint, AScrapeIsAnsweredWhileClientsStall) {
  std::vector<std::unique_ptr<pathtest::StalledHttpRequest>> stalled;
  for (int i = 0; i < 8; ++i) {
    stalled.push_back(std::make_unique<pathtest::StalledHttpRequest>(metrics_port_, "GET /met"));
  }
  // http_request gives up (throws) when nothing arrives for 10 s.
  const auto parsed = scrape();
  EXPECT_EQ(parsed.types.at("pathfinder_build_info"), "gauge");
  // Stopping does not wait for them.
  EXPECT_EQ(server_->terminate_and_wait(), 0) << server_->log();
}

TEST(MetricsStartup, ANonLoopbackMetricsAddressNeedsMetricsAllowRemote) {
  const TempDir dir;
  const std::string address = "0.0.0.0:0";
  const auto refused =
      pathtest::run_command({PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0", "--data-dir",
                             dir.file("data"), "--metrics-address", address});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;  // a bad command line
  EXPECT_THAT(refused.err, HasSubstr("--metrics-address '" + address + "'"));
  EXPECT_THAT(refused.err, HasSubstr("--metrics-allow-remote"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("data")));  // refused before anything was done

  // With the flag it serves, here on every interface (scraped over loopback).
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.extra_args = {"--metrics-address", address, "--metrics-allow-remote",
                        "--metrics-port-file", dir.file("metrics.port")};
  ServerProcess server(options);
  const int metrics_port = std::stoi(pathtest::read_text_file(dir.file("metrics.port")));
  EXPECT_EQ(pathtest::http_request(metrics_port, "GET", "/metrics").status, 200);
  EXPECT_EQ(server.terminate_and_wait(), 0) << server.log();

  // The flag means nothing without an address.
  const auto alone = pathtest::run_command({PATHFINDER_SERVER_BIN, "--metrics-allow-remote"});
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_THAT(alone.err + alone.out, HasSubstr("--metrics-address"));
}

TEST(MetricsStartup, MetricsPortInUseStopsTheStart) {
  const pathtest::HeldPort busy;
  const TempDir dir;
  const auto result = pathtest::run_command({PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0",
                                             "--data-dir", dir.file("data"), "--metrics-address",
                                             "127.0.0.1:" + std::to_string(busy.port())});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.err, HasSubstr("--metrics-address"));
  EXPECT_THAT(result.err, HasSubstr("cannot listen"));
}

TEST(MetricsStartup, BadMetricsAddressesAreRefused) {
  const TempDir dir;
  for (const std::string address : {"0.0.0.0", "metrics.example:9100", "127.0.0.1:70000"}) {
    const auto result =
        pathtest::run_command({PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0", "--data-dir",
                               dir.file("data"), "--metrics-address", address});
    EXPECT_EQ(result.exit_code, 2) << address << ": " << result.err;  // a bad command line
    EXPECT_THAT(result.err, HasSubstr("--metrics-address '" + address + "'"));
  }
  // The port file needs the address.
  const auto result =
      pathtest::run_command({PATHFINDER_SERVER_BIN, "--metrics-port-file", dir.file("port")});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err + result.out, HasSubstr("--metrics-address"));
}

TEST(MetricsStartup, HelpDescribesTheFlags) {
  const auto result = pathtest::run_command({PATHFINDER_SERVER_BIN, "--help"});
  EXPECT_EQ(result.exit_code, 0);
  for (const char* flag :
       {"--metrics-address", "--metrics-port-file", "--metrics-allow-remote", "--log-format"}) {
    EXPECT_THAT(result.out, HasSubstr(flag));
  }
  EXPECT_THAT(result.out, HasSubstr("Default: off"));
}

// ---------------------------------------------------------------------------
// Start-up in plain words: --version, malformed addresses, ports in use.

TEST(Startup, VersionPrintsTheProjectVersion) {
  const auto result = pathtest::run_command({PATHFINDER_SERVER_BIN, "--version"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "pathfinder-server " PATHFINDER_VERSION "\n");
}

// The lines of text, without their newlines.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

TEST(Startup, AnAddressThatIsNotHostPortSaysWhatIsExpected) {
  const TempDir dir;
  struct Case {
    std::string flag;
    std::string address;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"--listen", "50113", "--listen '50113': expected HOST:PORT, e.g. 127.0.0.1:50113"},
      {"--listen", "localhost", "--listen 'localhost': expected HOST:PORT"},
      {"--listen", ":50051", "--listen ':50051': expected HOST:PORT"},
      {"--listen", "127.0.0.1:65536", "--listen '127.0.0.1:65536': expected HOST:PORT"},
      {"--metrics-address", "9464",
       "--metrics-address '9464': expected HOST:PORT, e.g. 127.0.0.1:9464"},
      {"--metrics-address", "127.0.0.1:", "--metrics-address '127.0.0.1:': expected HOST:PORT"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.flag + " " + c.address);
    std::vector<std::string> argv = {PATHFINDER_SERVER_BIN, "--data-dir", dir.file("data")};
    if (c.flag == "--metrics-address") argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
    argv.insert(argv.end(), {c.flag, c.address});
    const auto result = pathtest::run_command(argv);
    EXPECT_EQ(result.exit_code, 2) << result.err;  // a bad command line
    EXPECT_THAT(result.err, HasSubstr(c.expected));
    EXPECT_EQ(lines_of(result.err).size(), 1U) << result.err;  // that sentence, nothing more
    // Refused before anything was done: not even the data dir was created.
    EXPECT_FALSE(std::filesystem::exists(dir.file("data")));
  }
}

TEST(Startup, AListenPortInUseIsSaidInPlainWords) {
  const pathtest::HeldPort busy;
  const TempDir dir;
  const std::string address = "127.0.0.1:" + std::to_string(busy.port());
  const auto result = pathtest::run_command(
      {PATHFINDER_SERVER_BIN, "--listen", address, "--data-dir", dir.file("data")});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.err,
              HasSubstr("--listen '" + address + "': cannot listen: address already in use"));
  EXPECT_EQ(lines_of(result.err).size(), 1U) << result.err;  // no gRPC dump
  EXPECT_FALSE(std::filesystem::exists(dir.file("data")));
}

TEST(Startup, AMetricsPortInUseIsSaidInPlainWords) {
  const pathtest::HeldPort busy;
  const TempDir dir;
  const std::string address = "127.0.0.1:" + std::to_string(busy.port());
  const auto result =
      pathtest::run_command({PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0", "--data-dir",
                             dir.file("data"), "--metrics-address", address});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.err, HasSubstr("--metrics-address '" + address +
                                    "': cannot listen: address already in use"));
  EXPECT_EQ(lines_of(result.err).size(), 1U) << result.err;
}

// ---------------------------------------------------------------------------
// JSON logs

// A flat JSON object of string and number values (numbers kept as their
// text), as the server's JSON log lines are.
// nullopt when line is anything else (or not exactly one object).
std::optional<std::map<std::string, std::string>> parse_flat_json(const std::string& line) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  const auto string = [&]() -> std::optional<std::string> {
    if (i >= line.size() || line[i] != '"') return std::nullopt;
    ++i;
    std::string out;
    while (i < line.size() && line[i] != '"') {
      const auto c = static_cast<unsigned char>(line[i]);
      if (c < 0x20) return std::nullopt;  // raw control characters are not JSON
      if (c != '\\') {
        out.push_back(line[i++]);
        continue;
      }
      if (++i >= line.size()) return std::nullopt;
      const char e = line[i++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          if (i + 4 > line.size()) return std::nullopt;
          const std::string hex = line.substr(i, 4);
          if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
            return std::nullopt;
          }
          const unsigned code = static_cast<unsigned>(std::stoul(hex, nullptr, 16));
          out.push_back(code < 0x80 ? static_cast<char>(code) : '?');
          i += 4;
          break;
        }
        default:
          return std::nullopt;
      }
    }
    if (i >= line.size()) return std::nullopt;
    ++i;
    return out;
  };
  std::map<std::string, std::string> object;
  skip_space();
  if (i >= line.size() || line[i++] != '{') return std::nullopt;
  skip_space();
  while (true) {
    const auto key = string();
    skip_space();
    if (!key || i >= line.size() || line[i++] != ':') return std::nullopt;
    skip_space();
    // A string, or a JSON number kept as its text.
    auto value = string();
    if (!value && i < line.size() && line[i] != '"') {
      const std::size_t end = line.find_first_not_of("0123456789+-.eE", i);
      const std::string number = line.substr(i, end - i);
      std::size_t used = 0;
      try {
        (void)std::stod(number, &used);
      } catch (const std::exception&) {
        return std::nullopt;
      }
      if (number.empty() || used != number.size() || !(std::isdigit(number.back()) != 0)) {
        return std::nullopt;
      }
      value = number;
      i = end;
    }
    if (!value || !object.emplace(*key, *value).second) return std::nullopt;
    skip_space();
    if (i >= line.size()) return std::nullopt;
    if (line[i] == ',') {
      ++i;
      skip_space();
      continue;
    }
    if (line[i++] != '}') return std::nullopt;
    break;
  }
  skip_space();
  if (i != line.size()) return std::nullopt;
  return object;
}

TEST(JsonLogs, OneObjectPerLineAndOneLinePerFailedCall) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.log_level = "";  // the default, info
  options.extra_args = {"--log-format", "json"};
  ServerProcess server(options);
  Client client(server.target());
  ASSERT_TRUE(client.upload_mask(open_room("room", 16, 16)).ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(client.list_masks().ok());
    ASSERT_TRUE(client.get_mask("room").ok());
    ASSERT_TRUE(client.find_path(find("room", 0, 0, 15, i)).ok());
  }
  // Quotes, backslashes, a newline and other control bytes in what the
  // request carried.
  const std::string bad_name = "no\"such\\mask\n\x01\x1b[31m\x7f";
  EXPECT_EQ(client.get_mask(bad_name).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(client.find_path(find("missing", 0, 0, 1, 1)).status.error_code(),
            grpc::StatusCode::NOT_FOUND);
  ASSERT_EQ(server.terminate_and_wait(), 0) << server.log();

  const std::string log = server.log();
  ASSERT_FALSE(log.empty());
  ASSERT_EQ(log.back(), '\n');
  std::vector<std::map<std::string, std::string>> lines;
  std::size_t start = 0;
  while (start < log.size()) {
    const std::size_t end = log.find('\n', start);
    const std::string line = log.substr(start, end - start);
    start = end + 1;
    const auto object = parse_flat_json(line);
    ASSERT_TRUE(object.has_value()) << "not a JSON log line: '" << line << "'";
    for (const char* key : {"time", "level", "logger", "message"}) {
      ASSERT_TRUE(object->contains(key)) << key << " missing in " << line;
    }
    EXPECT_THAT(object->at("time"),
                ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{3}Z"));
    lines.push_back(*object);
  }
  int failures = 0;
  std::vector<std::map<std::string, std::string>> failed;
  for (const auto& line : lines) {
    const std::string& message = line.at("message");
    // Successful calls log nothing at info (but writes their audit line).
    EXPECT_EQ(message.find("ListMasks"), std::string::npos) << message;
    if (!message.starts_with("audit: UploadMask")) {
      EXPECT_EQ(message.find("UploadMask"), std::string::npos) << message;
    }
    if (message.find("failed") != std::string::npos) {
      ++failures;
      failed.push_back(line);
      EXPECT_EQ(line.at("level"), "info") << message;  // client errors log at info
    }
  }
  EXPECT_EQ(failures, 2) << log;
  // The request lines' fields are keys of their own.
  ASSERT_EQ(failed.size(), 2U);
  const auto& get = failed[0];
  const auto& find_line = failed[1];
  EXPECT_EQ(get.at("rpc"), "GetMask");
  EXPECT_EQ(get.at("code"), "INVALID_ARGUMENT");
  EXPECT_EQ(get.at("mask"), bad_name);  // escaped on the line, the same bytes once parsed
  EXPECT_EQ(find_line.at("rpc"), "FindPath");
  EXPECT_EQ(find_line.at("code"), "NOT_FOUND");
  EXPECT_EQ(find_line.at("mask"), "missing");
  for (const auto& line : failed) {
    EXPECT_GE(std::stod(line.at("latency_ms")), 0.0);
    EXPECT_LT(std::stod(line.at("latency_ms")), 20000.0);
    EXPECT_THAT(line.at("peer"), ::testing::StartsWith("ipv4:127.0.0.1:"));
  }
  // No raw control byte reached the log.
  for (const char c : log) {
    EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f))
        << "control byte " << static_cast<int>(c);
  }
  const auto mentions = [&](const std::string& text) {
    int n = 0;
    for (const auto& line : lines) n += line.at("message").find(text) != std::string::npos;
    return n;
  };
  EXPECT_EQ(mentions("GetMask failed: INVALID_ARGUMENT"), 1) << log;
  EXPECT_EQ(mentions("FindPath failed: NOT_FOUND"), 1) << log;
  EXPECT_EQ(mentions("FindPath"), 1) << log;  // the five successful ones left no line
  EXPECT_EQ(mentions("listening on"), 1) << log;
}

// A client's text (here mask names) cannot forge a line of the text log:
// every record stays one line starting with its time stamp.
TEST(TextLogs, ANameWithANewlineStaysOnItsLine) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.log_level = "";  // the default, info: every failed call logs a line
  ServerProcess server(options);
  Client client(server.target());
  const std::vector<std::string> names = {"a\nINFO fake", "b\r\n[info] fake\x1b[2J",
                                          "c\xc2\x85INFO fake"};
  for (const std::string& name : names) {
    EXPECT_EQ(client.get_mask(name).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(client.upload_mask(open_room(name, 4, 4)).status.error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(client.find_path(find(name, 0, 0, 1, 1)).status.error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
  ASSERT_EQ(server.terminate_and_wait(), 0) << server.log();

  const std::string log = server.log();
  int failed = 0;
  for (const std::string& line : lines_of(log)) {
    EXPECT_THAT(line, ::testing::MatchesRegex("\\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]{12}\\] .*"))
        << "a line that is not a record of its own: '" << line << "'";
    failed += line.find(" failed: INVALID_ARGUMENT") != std::string::npos;
  }
  EXPECT_EQ(failed, 9) << log;
  for (const char* escaped : {"mask=\"a\\nINFO fake\"", "mask=\"b\\r\\n[info] fake\\u001b[2J\"",
                              "mask=\"c\\u0085INFO fake\""}) {
    EXPECT_THAT(log, HasSubstr(escaped));
  }
  for (const char c : log) {
    EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f))
        << "control byte " << static_cast<int>(c);
  }
}

// Every line of a JSON log, parsed (a line that is not a flat JSON object
// fails the test and is left out).
std::vector<std::map<std::string, std::string>> json_lines(const std::string& log) {
  std::vector<std::map<std::string, std::string>> lines;
  for (const std::string& line : lines_of(log)) {
    auto object = parse_flat_json(line);
    if (!object) {
      ADD_FAILURE() << "not a JSON log line: '" << line << "'";
      continue;
    }
    lines.push_back(std::move(*object));
  }
  return lines;
}

TEST(AuditLog, EveryWriteIsLoggedWithTheMaskTheCallerAndItsToken) {
  const TempDir tokens;
  const std::string admin_token = "audit-admin-s3cret";
  const std::string client_token = "audit-client-s3cret";
  pathtest::write_file(tokens.file("admin"), admin_token + "\n");
  pathtest::write_file(tokens.file("client"), client_token + "\n");
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.log_level = "";  // info
  options.extra_args = {"--log-format",        "json",
                        "--admin-token-file",  tokens.file("admin"),
                        "--client-token-file", tokens.file("client")};
  ServerProcess server(options);
  pathfinder::ClientOptions admin_options;
  admin_options.bearer_token = admin_token;
  Client admin(server.target(), admin_options);
  pathfinder::ClientOptions client_options;
  client_options.bearer_token = client_token;
  Client reader(server.target(), client_options);

  const auto stored = admin.upload_mask(open_room("levels/room", 16, 8));
  ASSERT_TRUE(stored.ok()) << stored.status.error_message();
  const auto again = admin.upload_mask(open_room("levels/room", 16, 8));
  ASSERT_TRUE(again.ok());
  pb::PatchMaskRequest patch;
  patch.set_name("levels/room");
  patch.set_x(3);
  patch.set_width(1);
  patch.set_height(1);
  patch.set_areas(std::string(1, '\0'));
  const auto patched = admin.patch_mask(patch);
  ASSERT_TRUE(patched.ok()) << patched.status.error_message();
  // Refused writes and reads leave no audit line.
  EXPECT_EQ(reader.delete_mask("levels/room").status.error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(reader.get_mask("levels/room").ok());
  EXPECT_EQ(admin.delete_mask("never").status.error_code(), grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(admin.delete_mask("levels/room").ok());
  ASSERT_EQ(server.terminate_and_wait(), 0) << server.log();

  const std::string log = server.log();
  std::vector<std::map<std::string, std::string>> audits;
  for (auto& line : json_lines(log)) {
    if (line.contains("audit")) audits.push_back(std::move(line));
  }
  struct Expected {
    std::string audit;
    std::string rpc;
    const pb::MaskInfo& info;
  };
  const std::vector<Expected> expected = {{"stored", "UploadMask", stored.value},
                                          {"unchanged", "UploadMask", stored.value},
                                          {"patched", "PatchMask", patched.value},
                                          {"deleted", "DeleteMask", patched.value}};
  ASSERT_EQ(audits.size(), expected.size()) << log;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].audit);
    const auto& line = audits[i];
    const pb::MaskInfo& info = expected[i].info;
    EXPECT_EQ(line.at("level"), "info");
    EXPECT_EQ(line.at("audit"), expected[i].audit);
    EXPECT_EQ(line.at("rpc"), expected[i].rpc);
    EXPECT_EQ(line.at("mask"), "levels/room");
    EXPECT_EQ(line.at("revision"), std::to_string(info.revision()));
    EXPECT_EQ(line.at("width"), "16");
    EXPECT_EQ(line.at("height"), "8");
    EXPECT_EQ(line.at("sha256"), info.sha256());
    EXPECT_THAT(line.at("peer"), ::testing::StartsWith("ipv4:127.0.0.1:"));
    EXPECT_EQ(line.at("token"), "admin");
    EXPECT_THAT(line.at("message"), HasSubstr("'levels/room'"));
  }
  EXPECT_EQ(stored.value.revision(), 1U);
  EXPECT_EQ(patched.value.revision(), 2U);
  EXPECT_NE(patched.value.sha256(), stored.value.sha256());
  // Which token, never the token.
  EXPECT_THAT(log, Not(HasSubstr(admin_token)));
  EXPECT_THAT(log, Not(HasSubstr(client_token)));
}

TEST(AuditLog, TextLinesCarryTheSameFields) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.log_level = "";  // info; no tokens configured
  ServerProcess server(options);
  Client client(server.target());
  const auto stored = client.upload_mask(open_room("hall", 12, 5));
  ASSERT_TRUE(stored.ok()) << stored.status.error_message();
  ASSERT_EQ(server.terminate_and_wait(), 0) << server.log();

  std::vector<std::string> audits;
  for (const std::string& line : lines_of(server.log())) {
    if (line.find("audit: ") != std::string::npos) audits.push_back(line);
  }
  ASSERT_EQ(audits.size(), 1U) << server.log();
  const std::string& line = audits[0];
  EXPECT_THAT(line, HasSubstr("[info] audit: UploadMask 'hall' stored, revision 1, 12x5"));
  for (const std::string& field :
       std::vector<std::string>{"mask=\"hall\"", "revision=1", "width=12", "height=5",
                                "sha256=\"" + stored.value.sha256() + "\"",
                                "peer=\"ipv4:127.0.0.1:", "token=\"none\""}) {
    EXPECT_THAT(line, HasSubstr(field));
  }
}

// ---------------------------------------------------------------------------
// Server reflection (grpc.reflection.v1alpha), spoken with hand-encoded
// messages over a generic stream so the test needs no reflection proto.

std::string encode_string_field(int field, const std::string& value) {
  std::string out;
  out.push_back(static_cast<char>(field << 3 | 2));
  std::uint64_t length = value.size();
  while (length >= 0x80) {
    out.push_back(static_cast<char>(length | 0x80));
    length >>= 7;
  }
  out.push_back(static_cast<char>(length));
  return out + value;
}

// ServerReflectionRequest fields: file_containing_symbol = 4, list_services = 7.
constexpr int kFileContainingSymbol = 4;
constexpr int kListServices = 7;

// One ServerReflectionInfo stream: sends each request and returns the raw
// ServerReflectionResponse of each.
std::vector<std::string> reflection_exchange(const std::string& target,
                                             const std::vector<std::string>& requests) {
  grpc::GenericStub stub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  grpc::CompletionQueue queue;
  const auto await = [&queue](std::intptr_t expected) {
    void* tag = nullptr;
    bool ok = false;
    if (!queue.Next(&tag, &ok) || reinterpret_cast<std::intptr_t>(tag) != expected) {
      throw std::runtime_error("completion queue broke");
    }
    return ok;
  };
  const auto tag = [](std::intptr_t n) { return reinterpret_cast<void*>(n); };
  auto call = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
  call->StartCall(tag(1));
  if (!await(1)) throw std::runtime_error("cannot start the reflection stream");
  std::vector<std::string> responses;
  for (const auto& request : requests) {
    grpc::Slice slice(request);
    grpc::ByteBuffer out(&slice, 1);
    call->Write(out, tag(2));
    if (!await(2)) throw std::runtime_error("write failed");
    grpc::ByteBuffer in;
    call->Read(&in, tag(3));
    if (!await(3)) break;
    std::vector<grpc::Slice> slices;
    if (!in.Dump(&slices).ok()) throw std::runtime_error("unreadable response");
    std::string bytes;
    for (const auto& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    responses.push_back(std::move(bytes));
  }
  call->WritesDone(tag(4));
  await(4);
  grpc::Status status;
  call->Finish(&status, tag(5));
  await(5);
  if (!status.ok()) throw std::runtime_error("reflection stream: " + status.error_message());
  queue.Shutdown();
  return responses;
}

// The length-delimited fields numbered `field` of a serialized message.
std::vector<std::string> bytes_fields(const std::string& message, int field) {
  google::protobuf::UnknownFieldSet fields;
  if (!fields.ParseFromString(message)) throw std::runtime_error("not a protobuf message");
  std::vector<std::string> out;
  for (int i = 0; i < fields.field_count(); ++i) {
    const auto& f = fields.field(i);
    if (f.number() == field && f.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      out.push_back(f.length_delimited());
    }
  }
  return out;
}

TEST(Reflection, DescribesThePathfinderAndTheHealthService) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  ServerProcess server(options);

  const auto responses = reflection_exchange(
      server.target(), {encode_string_field(kListServices, "*"),
                        encode_string_field(kFileContainingSymbol, "grpc.health.v1.Health"),
                        encode_string_field(kFileContainingSymbol, "pathfinding.v1.Pathfinder"),
                        encode_string_field(kFileContainingSymbol, "no.such.Service")});
  ASSERT_EQ(responses.size(), 4u);

  // list_services_response = 6 { repeated ServiceResponse service = 1 { string name = 1; } }
  std::vector<std::string> services;
  for (const auto& list : bytes_fields(responses[0], 6)) {
    for (const auto& service : bytes_fields(list, 1)) {
      for (const auto& name : bytes_fields(service, 1)) services.push_back(name);
    }
  }
  EXPECT_THAT(services,
              ::testing::IsSupersetOf({"pathfinding.v1.Pathfinder", "grpc.health.v1.Health"}));

  // file_descriptor_response = 4 { repeated bytes file_descriptor_proto = 1; }: load every
  // file returned into one pool, as ghz does, and resolve the methods it calls.
  google::protobuf::SimpleDescriptorDatabase database;
  std::vector<std::string> files_seen;
  for (std::size_t r : {1u, 2u}) {
    const auto files = bytes_fields(responses[r], 4);
    ASSERT_EQ(files.size(), 1u) << "no file_descriptor_response for request " << r
                                << " (error_response: "
                                << ::testing::PrintToString(bytes_fields(responses[r], 7)) << ")";
    for (const auto& file_bytes : bytes_fields(files[0], 1)) {
      google::protobuf::FileDescriptorProto file;
      ASSERT_TRUE(file.ParseFromString(file_bytes));
      files_seen.push_back(file.name());
      google::protobuf::FileDescriptorProto known;
      if (!database.FindFileByName(file.name(), &known)) {
        ASSERT_TRUE(database.Add(file));
      }
    }
  }
  EXPECT_THAT(files_seen, ::testing::IsSupersetOf(
                              {"grpc/health/v1/health.proto", "pathfinding/v1/pathfinding.proto"}));
  google::protobuf::DescriptorPool pool(&database);
  const auto* check = pool.FindMethodByName("grpc.health.v1.Health.Check");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->input_type()->full_name(), "grpc.health.v1.HealthCheckRequest");
  EXPECT_EQ(check->output_type()->full_name(), "grpc.health.v1.HealthCheckResponse");
  ASSERT_NE(check->output_type()->FindFieldByName("status"), nullptr);
  EXPECT_NE(pool.FindMethodByName("grpc.health.v1.Health.Watch"), nullptr);
  const auto* pathfinder = pool.FindServiceByName("pathfinding.v1.Pathfinder");
  ASSERT_NE(pathfinder, nullptr);
  for (const char* method :
       {"UploadMask", "PatchMask", "DeleteMask", "GetMask", "ListMasks", "FindPath", "Reachable",
        "StandardMove", "BatchFindPaths", "LineOfSight", "NearestWalkable"}) {
    EXPECT_NE(pathfinder->FindMethodByName(method), nullptr) << method;
  }

  // An unknown symbol gets error_response = 7, not a file.
  EXPECT_TRUE(bytes_fields(responses[3], 4).empty());
  EXPECT_EQ(bytes_fields(responses[3], 7).size(), 1u);

  // And the described health service answers.
  Client client(server.target());
  const auto health = client.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(health.value, pathfinder::ServingStatus::kServing);
}

}  // namespace
