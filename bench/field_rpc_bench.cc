// GetField of a cached full-HD field streamed to a local client (issue 23:
// at least 200 MB/s of float32 distances), against a no-op RPC (the health
// check) and GetMask with its 2 MB area grid on the same in-process server
// over loopback. Read the ratios within one run.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <sys/resource.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "bench_masks.h"
#include "bench_server.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"

namespace {

namespace pb = pathfinding::v1;

constexpr int kWidth = 1920;
constexpr int kHeight = 1080;

// One server for the whole run (started on first use, never stopped).
struct Fixture {
  pathbench::BenchStore files{"field-bench"};
  pathserver::MaskStore* store = &files.store();
  std::unique_ptr<pathbench::BenchServer> server;
  pathfinder::Client* client = nullptr;
  pathcore::Point goal;  // walkable, near the centre

  Fixture() {
    pathcore::Mask mask = pathbench::random_obstacle_mask(kWidth, kHeight, 0.30, 42);
    goal = {kWidth / 2, kHeight / 2};
    while (!mask.walkable(goal, pathcore::kAllAreas)) ++goal.x;
    store->put("hd", std::move(mask));
    pathbench::BenchServerOptions options;
    options.cache_bytes = std::size_t{256} << 20;
    server = std::make_unique<pathbench::BenchServer>(*store, options);
    client = &server->client();
  }
};

// CPU seconds this process (server and client threads) has used.
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Bytes per CPU second of the whole process (server and client): what the
// call would reach on idle cores, as the shared machine's wall clock cannot say.
void count_cpu(benchmark::State& state, double cpu_before, std::int64_t bytes) {
  const double cpu = process_cpu_seconds() - cpu_before;
  state.counters["MB_per_cpu_s"] = cpu > 0 ? static_cast<double>(bytes) / cpu / 1e6 : 0;
}

Fixture& fixture() {
  static Fixture f;
  return f;
}

pb::GetFieldRequest field_request(bool flow, bool eight = true) {
  pb::GetFieldRequest request;
  request.set_mask("hd");
  request.mutable_goal()->set_x(fixture().goal.x);
  request.mutable_goal()->set_y(fixture().goal.y);
  request.set_connectivity(eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
  request.set_include_flow(flow);
  return request;
}

void BM_NoOpHealthCheck(benchmark::State& state) {
  auto& f = fixture();
  for (auto _ : state) {
    auto result = f.client->health_check();
    if (!result.ok()) state.SkipWithError("health check failed");
  }
}

// The area grid (2 MB, one message) of the same mask: the service's other bulk answer.
void BM_GetMaskWithAreas(benchmark::State& state) {
  auto& f = fixture();
  std::int64_t bytes = 0;
  const double cpu_before = process_cpu_seconds();
  for (auto _ : state) {
    auto result = f.client->get_mask("hd", /*include_areas=*/true);
    if (!result.ok()) state.SkipWithError("get mask failed");
    bytes += static_cast<std::int64_t>(result.value.areas().size());
  }
  count_cpu(state, cpu_before, bytes);
  state.SetBytesProcessed(bytes);
}

// Row data received (distances, plus flow with range(0) = 1; eight-connected
// with range(1) = 1, else four), chunk by chunk
// (get_field_chunks: what a client that consumes chunks as they come pays).
void BM_WarmGetFieldChunks(benchmark::State& state) {
  auto& f = fixture();
  const pb::GetFieldRequest request = field_request(state.range(0) != 0, state.range(1) != 0);
  if (!f.client->get_field(request).ok()) {  // fills the field once (cold)
    state.SkipWithError("get field failed");
    return;
  }
  std::int64_t bytes = 0;
  const double cpu_before = process_cpu_seconds();
  for (auto _ : state) {
    const grpc::Status status = f.client->get_field_chunks(request, [&](const pb::FieldChunk& c) {
      bytes += static_cast<std::int64_t>(c.distances().size() + c.flow().size());
      return true;
    });
    if (!status.ok()) state.SkipWithError("get field failed");
  }
  count_cpu(state, cpu_before, bytes);
  state.SetBytesProcessed(bytes);
}

// The same, assembled into floats (get_field).
void BM_WarmGetFieldAssembled(benchmark::State& state) {
  auto& f = fixture();
  const pb::GetFieldRequest request = field_request(false);
  if (!f.client->get_field(request).ok()) {
    state.SkipWithError("get field failed");
    return;
  }
  std::int64_t bytes = 0;
  const double cpu_before = process_cpu_seconds();
  for (auto _ : state) {
    auto result = f.client->get_field(request);
    if (!result.ok()) state.SkipWithError("get field failed");
    bytes += static_cast<std::int64_t>(result.value.distances.size() * 4);
  }
  count_cpu(state, cpu_before, bytes);
  state.SetBytesProcessed(bytes);
}

}  // namespace

BENCHMARK(BM_NoOpHealthCheck)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_GetMaskWithAreas)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WarmGetFieldChunks)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_WarmGetFieldAssembled)->Unit(benchmark::kMillisecond)->UseRealTime();
