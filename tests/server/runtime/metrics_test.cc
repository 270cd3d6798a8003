// Metrics: the request counters and latency histograms, their Prometheus text
// rendering (read back with a strict parser) and the /metrics HTTP endpoint.

#include "runtime/metrics.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/metrics_http.h"
#include "support/http_get.h"
#include "support/prometheus_text.h"

namespace {

using pathserver::Metrics;
using pathserver::MetricsHttpError;
using pathserver::MetricsHttpServer;
using pathserver::ServerGauges;
using pathtest::parse_prometheus_text;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

const std::vector<std::string> kBounds = {"5e-05", "0.0001", "0.00025", "0.0005", "0.001", "0.0025",
                                          "0.005", "0.01",   "0.025",   "0.05",   "0.1",   "0.25",
                                          "0.5",   "1",      "2.5",     "5",      "10",    "+Inf"};

std::string bucket(const std::string& rpc, const std::string& le) {
  return "pathfinder_request_duration_seconds_bucket{rpc=\"" + rpc + "\",transport=\"grpc\",le=\"" +
         le + "\"}";
}

std::string requests(const std::string& rpc, const std::string& code) {
  return "pathfinder_requests_total{rpc=\"" + rpc + "\",code=\"" + code + "\",transport=\"grpc\"}";
}

TEST(Metrics, EmptyRenderHasEveryFamilyAndZeroHistograms) {
  const Metrics metrics;
  const auto parsed = parse_prometheus_text(metrics.render({}));
  for (const auto* family :
       {"pathfinder_requests_total", "pathfinder_field_cache_hits_total",
        "pathfinder_field_cache_misses_total", "pathfinder_field_cache_evictions_total",
        "pathfinder_fields_computed_total", "pathfinder_field_compute_seconds_total"}) {
    EXPECT_EQ(parsed.types.at(family), "counter") << family;
    EXPECT_FALSE(parsed.help.at(family).empty()) << family;
  }
  for (const auto* family : {"pathfinder_field_cache_entries", "pathfinder_field_cache_bytes",
                             "pathfinder_field_cache_budget_bytes", "pathfinder_masks_stored",
                             "pathfinder_mask_bytes", "pathfinder_component_cache_entries",
                             "pathfinder_route_cache_entries", "pathfinder_path_cache_entries",
                             "pathfinder_cache_budget_bytes", "pathfinder_cache_bytes"}) {
    EXPECT_EQ(parsed.types.at(family), "gauge") << family;
  }
  EXPECT_EQ(parsed.types.at("pathfinder_cache_evictions_total"), "counter");
  EXPECT_EQ(parsed.types.at("pathfinder_request_duration_seconds"), "histogram");
  for (const auto rpc : pathserver::kMetricsRpcNames) {
    const std::string name(rpc);
    EXPECT_EQ(parsed.samples.at(requests(name, "OK")), 0);
    for (const auto& le : kBounds) EXPECT_EQ(parsed.samples.at(bucket(name, le)), 0) << le;
    EXPECT_EQ(parsed.samples.at("pathfinder_request_duration_seconds_count{rpc=\"" + name +
                                "\",transport=\"grpc\"}"),
              0);
    EXPECT_EQ(parsed.samples.at("pathfinder_request_duration_seconds_sum{rpc=\"" + name +
                                "\",transport=\"grpc\"}"),
              0);
  }
  // Codes never seen are left out.
  EXPECT_FALSE(parsed.samples.contains(requests("FindPath", "NOT_FOUND")));
}

TEST(Metrics, CountsByRpcAndCode) {
  Metrics metrics;
  metrics.record_call("FindPath", grpc::StatusCode::OK, 1ms);
  metrics.record_call("FindPath", grpc::StatusCode::OK, 1ms);
  metrics.record_call("FindPath", grpc::StatusCode::NOT_FOUND, 1ms);
  metrics.record_call("UploadMask", grpc::StatusCode::UNAUTHENTICATED, 1ms);
  metrics.record_call("NoSuchRpc", grpc::StatusCode::OK, 1ms);             // ignored
  metrics.record_call("GetMask", static_cast<grpc::StatusCode>(99), 1ms);  // UNKNOWN
  EXPECT_EQ(metrics.calls("FindPath", grpc::StatusCode::OK), 2u);
  EXPECT_EQ(metrics.calls("GetMask", grpc::StatusCode::UNKNOWN), 1u);

  const auto parsed = parse_prometheus_text(metrics.render({}));
  EXPECT_EQ(parsed.samples.at(requests("FindPath", "OK")), 2);
  EXPECT_EQ(parsed.samples.at(requests("FindPath", "NOT_FOUND")), 1);
  EXPECT_EQ(parsed.samples.at(requests("UploadMask", "UNAUTHENTICATED")), 1);
  EXPECT_EQ(parsed.samples.at(requests("UploadMask", "OK")), 0);
  EXPECT_EQ(parsed.samples.at(requests("GetMask", "UNKNOWN")), 1);
  EXPECT_EQ(parsed.samples.at(
                "pathfinder_request_duration_seconds_count{rpc=\"FindPath\",transport=\"grpc\"}"),
            3);
  for (const auto& [series, value] : parsed.samples) {
    EXPECT_EQ(series.find("NoSuchRpc"), std::string::npos) << series;
  }
}

TEST(Metrics, LatenciesLandInTheirBucketsCumulatively) {
  Metrics metrics;
  // Bounds are upper-inclusive: exactly 50 us is in le="5e-05".
  metrics.record_call("Reachable", grpc::StatusCode::OK, 50us);
  metrics.record_call("Reachable", grpc::StatusCode::OK, 51us);       // le 0.0001
  metrics.record_call("Reachable", grpc::StatusCode::OK, 3ms);        // le 0.005
  metrics.record_call("Reachable", grpc::StatusCode::OK, 3ms);        // le 0.005
  metrics.record_call("Reachable", grpc::StatusCode::OK, 700ms);      // le 1
  metrics.record_call("Reachable", grpc::StatusCode::INTERNAL, 11s);  // +Inf only
  metrics.record_call("Reachable", grpc::StatusCode::OK, -5us);       // clock oddity: 0

  const auto parsed = parse_prometheus_text(metrics.render({}));
  const std::vector<double> expected = {2, 3, 3, 3, 3, 3, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 7};
  double previous = 0;
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    const double value = parsed.samples.at(bucket("Reachable", kBounds[i]));
    EXPECT_EQ(value, expected[i]) << "le=" << kBounds[i];
    EXPECT_GE(value, previous) << "buckets must be cumulative";
    previous = value;
  }
  EXPECT_EQ(parsed.samples.at(
                "pathfinder_request_duration_seconds_count{rpc=\"Reachable\",transport=\"grpc\"}"),
            7);
  EXPECT_NEAR(parsed.samples.at(
                  "pathfinder_request_duration_seconds_sum{rpc=\"Reachable\",transport=\"grpc\"}"),
              50e-6 + 51e-6 + 3e-3 + 3e-3 + 0.7 + 11, 1e-9);
  // Other RPCs are untouched.
  EXPECT_EQ(parsed.samples.at(bucket("FindPath", "+Inf")), 0);
}

TEST(Metrics, ConcurrentRecordingLosesNothing) {
  Metrics metrics;
  constexpr int kThreads = 4;
  constexpr int kCalls = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        metrics.record_call("StandardMove", grpc::StatusCode::OK,
                            std::chrono::microseconds(i % 300));
      }
    });
  }
  // Scrapes while recording stay well-formed.
  for (int i = 0; i < 20; ++i) {
    const auto parsed = parse_prometheus_text(metrics.render({}));
    EXPECT_EQ(
        parsed.samples.at(bucket("StandardMove", "+Inf")),
        parsed.samples.at(
            "pathfinder_request_duration_seconds_count{rpc=\"StandardMove\",transport=\"grpc\"}"));
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(metrics.calls("StandardMove", grpc::StatusCode::OK),
            static_cast<std::uint64_t>(kThreads) * kCalls);
  const auto parsed = parse_prometheus_text(metrics.render({}));
  EXPECT_EQ(parsed.samples.at(bucket("StandardMove", "+Inf")), kThreads * kCalls);
}

TEST(Metrics, GaugesAreRendered) {
  ServerGauges gauges;
  gauges.field_cache.hits = 7;
  gauges.field_cache.misses = 3;
  gauges.field_cache.evictions = 2;
  gauges.field_cache.entries = 5;
  gauges.field_cache.bytes = 123456789012ULL;
  gauges.field_cache.budget_bytes = 1ULL << 30;
  gauges.field_cache.fields_computed = 3;
  gauges.field_cache.compute_seconds = 0.125;
  gauges.masks_stored = 4;
  gauges.mask_bytes = 4096;
  gauges.component_cache_entries = 6;
  gauges.route_cache_entries = 8;
  gauges.path_cache_entries = 9;
  gauges.masks_corrupt = 2;
  gauges.cache_budget_bytes = 64ULL << 20;
  gauges.caches = {{"fields", 5, 123456789012ULL, 2}, {"labels", 6, 4000, 11}};
  const auto parsed = parse_prometheus_text(Metrics().render(gauges));
  EXPECT_EQ(parsed.samples.at("pathfinder_field_cache_hits_total"), 7);
  EXPECT_EQ(parsed.samples.at("pathfinder_field_cache_misses_total"), 3);
  EXPECT_EQ(parsed.samples.at("pathfinder_field_cache_evictions_total"), 2);
  EXPECT_EQ(parsed.samples.at("pathfinder_field_cache_entries"), 5);
  EXPECT_EQ(parsed.samples.at("pathfinder_field_cache_bytes"), 123456789012.0);
  EXPECT_EQ(parsed.samples.at("pathfinder_field_cache_budget_bytes"), 1073741824.0);
  EXPECT_EQ(parsed.samples.at("pathfinder_fields_computed_total"), 3);
  EXPECT_EQ(parsed.samples.at("pathfinder_field_compute_seconds_total"), 0.125);
  EXPECT_EQ(parsed.samples.at("pathfinder_masks_stored"), 4);
  EXPECT_EQ(parsed.samples.at("pathfinder_mask_bytes"), 4096);
  EXPECT_EQ(parsed.samples.at("pathfinder_component_cache_entries"), 6);
  EXPECT_EQ(parsed.samples.at("pathfinder_route_cache_entries"), 8);
  EXPECT_EQ(parsed.samples.at("pathfinder_path_cache_entries"), 9);
  EXPECT_EQ(parsed.samples.at("pathfinder_masks_corrupt"), 2);
  EXPECT_EQ(parsed.samples.at("pathfinder_cache_budget_bytes"), 67108864.0);
  EXPECT_EQ(parsed.samples.at("pathfinder_cache_bytes{cache=\"fields\"}"), 123456789012.0);
  EXPECT_EQ(parsed.samples.at("pathfinder_cache_bytes{cache=\"labels\"}"), 4000);
  EXPECT_EQ(parsed.samples.at("pathfinder_cache_evictions_total{cache=\"fields\"}"), 2);
  EXPECT_EQ(parsed.samples.at("pathfinder_cache_evictions_total{cache=\"labels\"}"), 11);
  EXPECT_EQ(parsed.types.at("pathfinder_masks_corrupt"), "gauge");
}

TEST(Metrics, BuildInfoCarriesTheVersions) {
  const auto parsed = parse_prometheus_text(Metrics().render({}));
  EXPECT_EQ(parsed.types.at("pathfinder_build_info"), "gauge");
  const std::string series =
      "pathfinder_build_info{version=\"" PATHFINDER_VERSION "\",grpc=\"" + grpc::Version() + "\"}";
  ASSERT_TRUE(parsed.samples.contains(series)) << Metrics().render({});
  EXPECT_EQ(parsed.samples.at(series), 1);
}

// ---------------------------------------------------------------------------
// The HTTP endpoint.

TEST(MetricsHttpServer, ServesMetricsOnlyAtSlashMetrics) {
  int renders = 0;
  MetricsHttpServer server("127.0.0.1:0", [&renders] {
    ++renders;
    return std::string("# TYPE x counter\nx 1\n");
  });
  ASSERT_GT(server.port(), 0);

  const auto ok = pathtest::http_request(server.port(), "GET", "/metrics");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "# TYPE x counter\nx 1\n");
  EXPECT_THAT(ok.headers, HasSubstr("text/plain; version=0.0.4"));

  const auto head = pathtest::http_request(server.port(), "HEAD", "/metrics");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");

  EXPECT_EQ(pathtest::http_request(server.port(), "GET", "/").status, 404);
  EXPECT_EQ(pathtest::http_request(server.port(), "GET", "/metrics/x").status, 404);
  EXPECT_EQ(pathtest::http_request(server.port(), "GET", "/etc/passwd").status, 404);
  EXPECT_EQ(pathtest::http_request(server.port(), "POST", "/metrics").status, 405);
  EXPECT_EQ(renders, 2);
}

TEST(MetricsHttpServer, StopsPromptly) {
  auto server = std::make_unique<MetricsHttpServer>("127.0.0.1:0", [] { return std::string(); });
  const int port = server->port();
  EXPECT_EQ(pathtest::http_request(port, "GET", "/metrics").status, 200);
  const auto start = std::chrono::steady_clock::now();
  server.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
  EXPECT_THROW((void)pathtest::http_request(port, "GET", "/metrics"), std::runtime_error);
}

// Clients that connect and send half a request line each hold a worker
// until their request timeout; a scrape must still be answered meanwhile.
TEST(MetricsHttpServer, AScrapeIsAnsweredWhileClientsStall) {
  pathserver::MetricsHttpLimits limits;  // the default worker threads
  // Far beyond the test, so only a free worker can answer the scrape.
  limits.request_timeout = std::chrono::minutes(10);
  MetricsHttpServer server(
      "127.0.0.1:0", [] { return std::string("# TYPE x counter\nx 1\n"); }, limits);
  std::vector<std::unique_ptr<pathtest::StalledHttpRequest>> stalled;
  for (int i = 0; i < 8; ++i) {
    stalled.push_back(std::make_unique<pathtest::StalledHttpRequest>(server.port(), "GET /metr"));
  }
  // Connected after the stalled ones, so accepted after them; http_request
  // gives up (throws) when nothing arrives for 10 s.
  const auto response = pathtest::http_request(server.port(), "GET", "/metrics");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "# TYPE x counter\nx 1\n");
  for (const auto& client : stalled) EXPECT_TRUE(client->waiting());
}

TEST(MetricsHttpServer, AStalledRequestIsDroppedAfterTheRequestTimeout) {
  pathserver::MetricsHttpLimits limits;
  limits.request_timeout = 300ms;
  MetricsHttpServer server(
      "127.0.0.1:0", [] { return std::string("x 1\n"); }, limits);
  const pathtest::StalledHttpRequest silent(server.port(), "");
  const pathtest::StalledHttpRequest half_line(server.port(), "GET /metrics HT");
  // Far longer than the timeout asked for, far shorter than civetweb's own
  // default (30 s): the limit must have reached civetweb.
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while ((silent.waiting() || half_line.waiting()) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_FALSE(silent.waiting());
  EXPECT_FALSE(half_line.waiting());
  EXPECT_EQ(pathtest::http_request(server.port(), "GET", "/metrics").status, 200);
}

TEST(MetricsHttpServer, RenderFailureIs500) {
  MetricsHttpServer server("localhost:0",
                           []() -> std::string { throw std::runtime_error("boom"); });
  const auto response = pathtest::http_request(server.port(), "GET", "/metrics");
  EXPECT_EQ(response.status, 500);
  EXPECT_THAT(response.body, HasSubstr("boom"));
}

TEST(MetricsHttpServer, RefusesMalformedAddresses) {
  for (const char* address :
       {"", "9100", "127.0.0.1", "127.0.0.1:", "127.0.0.1:99999", "127.0.0.1:x", "example.com:9100",
        "256.0.0.1:9100", "[::1]:9100", "1.2.3:9100"}) {
    EXPECT_THROW(MetricsHttpServer(address, [] { return std::string(); }), MetricsHttpError)
        << address;
  }
}

TEST(MetricsHttpServer, PortInUseIsAnError) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  try {
    MetricsHttpServer server("127.0.0.1:" + std::to_string(port), [] { return std::string(); });
    ADD_FAILURE() << "bound a port in use";
  } catch (const MetricsHttpError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot listen"));
  }
  ::close(fd);
}

}  // namespace
