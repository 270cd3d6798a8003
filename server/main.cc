// pathfinder-server: loads the mask store, serves pathfinding.v1.Pathfinder
// (plus grpc.health.v1.Health and reflection) until SIGTERM or SIGINT. Reads
// the flags into a ServerConfig (runtime/config.h) and wires the parts.

#include <absl/synchronization/mutex.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
#include <malloc.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "cache/cache_budget.h"
#include "cache/field_cache.h"
#include "grpc/health/v1/health.pb.h"
#include "http/http_gateway.h"
#include "runtime/authorizer_setup.h"
#include "runtime/config.h"
#include "runtime/listen_address.h"
#include "runtime/logging.h"
#include "runtime/mask_store_setup.h"
#include "runtime/metrics.h"
#include "runtime/metrics_http.h"
#include "runtime/port_file.h"
#include "runtime/server_credentials.h"
#include "runtime/startup_error.h"
#include "runtime/version.h"
#include "service/pathfinder_service.h"
#include "service/server_gauges.h"
#include "store/seed_masks.h"

namespace {

using pathserver::CacheBudget;
using pathserver::FieldCache;
using pathserver::Metrics;
using pathserver::ServerConfig;
using pathserver::StartupError;

// Pulls health.pb.cc into the link: its static initializer registers
// grpc/health/v1/health.proto with protobuf's generated pool, where the
// reflection service finds it (gRPC's health service itself carries no
// descriptors, so ghz and grpcurl could not call grpc.health.v1.Health/Check
// through reflection otherwise).
void link_health_descriptors() {
  const auto* service =
      grpc::health::v1::HealthCheckRequest::descriptor()->file()->FindServiceByName("Health");
  if (service == nullptr) throw StartupError("grpc.health.v1.Health has no descriptor");
}

int run(const ServerConfig& config, const sigset_t& stop_signals) {
  // Before anything is opened or bound.
  pathserver::check_listen_addresses(config);
  pathserver::Authorizer authorizer = pathserver::make_authorizer(config);
  const std::shared_ptr<grpc::ServerCredentials> credentials =
      pathserver::make_server_credentials(config);
  // Only the file store has a data directory (parse_config refuses one with postgres).
  const std::string store_used = pathserver::is_postgres_store(config.store)
                                     ? std::string("postgres")
                                     : "file, data dir '" + config.data_dir + "'";
  spdlog::info(
      "pathfinder-server {} starting: store {}, max message {} MiB, max pixels {}, "
      "max masks {}, max stored {} MiB, max Reachable pairs {}, caches {} MiB",
      pathserver::pathfinder_version(), store_used, config.max_message_mb, config.max_pixels,
      config.max_masks, config.max_stored_mb, config.max_reachable_pairs, config.cache_mb);

  // Throws StartupError, StoreError.
  const std::unique_ptr<pathserver::MaskStore> owned_store = pathserver::open_mask_store(config);
  pathserver::MaskStore& store = *owned_store;
  for (const auto& spec : config.seed_masks) pathserver::seed_mask(store, spec, config.max_pixels);

  // A stop request that arrived while loading: do not start serving.
  const timespec no_wait{};
  if (const int sig = ::sigtimedwait(&stop_signals, nullptr, &no_wait); sig > 0) {
    spdlog::info("received {} during startup; exiting", ::strsignal(sig));
    return 0;
  }

  // One budget for every cache: fields, Reachable's labels, routes, answers.
  CacheBudget cache_budget(config.cache_mb * 1024 * 1024);
  FieldCache cache(cache_budget);
  Metrics metrics;
  const bool metrics_on = !config.metrics_address.empty();
  pathserver::PathfinderService service(
      store, cache,
      {.max_pixels = config.max_pixels,
       .max_reachable_pairs = config.max_reachable_pairs,
       .max_batch_starts = config.max_batch_starts,
       .max_line_pairs = config.max_line_pairs,
       .max_nearest_points = config.max_nearest_points,
       .max_obstacles = config.max_obstacles,
       .max_goals = config.max_goals,
       .max_message_bytes = static_cast<std::size_t>(config.max_message_mb) * 1024 * 1024,
       .max_query_bytes = static_cast<std::size_t>(config.max_query_kb) * 1024,
       .pending_answer_bytes = static_cast<std::size_t>(config.pending_answers_mb) * 1024 * 1024,
       .stalled_stream_timeout = std::chrono::milliseconds(
           std::llround(config.stalled_stream_timeout_s * 1000)),
       .max_watchers = static_cast<std::size_t>(config.max_watchers),
       .compute_threads = config.compute_threads,
       .compute_niceness = config.compute_niceness,
       .compute_queue = config.compute_queue,
       .max_heavy_per_client = config.max_heavy_per_client},
      std::move(authorizer), metrics_on ? &metrics : nullptr);
  spdlog::info(
      "compute pool: {} threads (nice +{}) for heavy work, at most {} calls queued, {} per client",
      service.compute_threads(), config.compute_niceness, config.compute_queue,
      config.max_heavy_per_client);

  // Before the gRPC port opens, so a metrics port in use stops the start.
  std::optional<pathserver::MetricsHttpServer> metrics_server;
  if (metrics_on) {
    try {
      metrics_server.emplace(config.metrics_address, [&metrics, &store, &cache, &service] {
        return metrics.render(pathserver::read_gauges(store, cache, service));
      });
    } catch (const pathserver::MetricsHttpError& e) {
      throw StartupError(e.what());
    }
    spdlog::info("metrics: GET /metrics on '{}' (port {})", config.metrics_address,
                 metrics_server->port());
    if (!config.metrics_port_file.empty()) {
      pathserver::write_port_file(config.metrics_port_file, metrics_server->port());
    }
  }

  link_health_descriptors();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(config.listen, credentials, &port);
  // gRPC sets SO_REUSEPORT by default, which lets a second server bind a port
  // that is already in use; refuse instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  const int max_bytes = config.max_message_mb * 1024 * 1024;
  builder.SetMaxReceiveMessageSize(max_bytes);
  builder.SetMaxSendMessageSize(max_bytes);
  // Transport memory is bounded, and so is what one connection can open:
  // clients that never read their answers cannot hold unbounded buffers.
  grpc::ResourceQuota transport_quota("pathfinder-transport");
  transport_quota.Resize(static_cast<std::size_t>(config.transport_mb) * 1024 * 1024);
  builder.SetResourceQuota(transport_quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, config.max_streams_per_connection);
  builder.RegisterService(&service);
  const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    // Checked at the start; the port may have been taken since.
    if (auto problem = pathserver::bind_problem("--listen", config.listen)) {
      throw StartupError(*problem);
    }
    throw StartupError("--listen '" + config.listen +
                       "': cannot listen (address in use, not permitted, or not available)");
  }
  // The store is loaded: report SERVING overall and for the service.
  grpc::HealthCheckServiceInterface& health = *server->GetHealthCheckService();
  bool serving = true;
  health.SetServingStatus(true);
  health.SetServingStatus("pathfinding.v1.Pathfinder", true);
  // Writes need the store's database: NOT_SERVING while it cannot be
  // reached, while queries on the masks held keep answering.
  constexpr const char* kWritesHealth = "pathfinding.v1.Pathfinder.writes";
  bool taking_writes = store.is_available();
  health.SetServingStatus(kWritesHealth, taking_writes);
  spdlog::info("listening on '{}' (port {}), serving {} masks", config.listen, port, store.size());

  // The HTTP endpoint forwards to the server just built, in-process.
  std::optional<pathserver::http::HttpGateway> gateway;
  if (!config.http_listen.empty()) {
    try {
      gateway.emplace(
          *server,
          pathserver::http::HttpGatewayOptions{
              .listen = config.http_listen,
              .allow_origins = config.http_allow_origins,
              .max_connections = config.http_max_connections,
              .max_message_bytes = static_cast<std::size_t>(config.max_message_mb) * 1024 * 1024,
              .max_query_bytes = static_cast<std::size_t>(config.max_query_kb) * 1024,
              .stalled_stream_timeout = std::chrono::milliseconds(
                  std::llround(config.stalled_stream_timeout_s * 1000))});
      spdlog::info("http: Connect, gRPC-Web and the viewer on '{}' (port {})", config.http_listen,
                   gateway->port());
      if (!config.http_port_file.empty()) {
        pathserver::write_port_file(config.http_port_file, gateway->port());
      }
    } catch (...) {
      gateway.reset();
      server->Shutdown(std::chrono::system_clock::now());
      throw;
    }
  }

  if (!config.port_file.empty()) {
    try {
      pathserver::write_port_file(config.port_file, port);
    } catch (...) {
      server->Shutdown(std::chrono::system_clock::now());
      throw;
    }
  }

  // Waits for a stop signal, and meanwhile keeps health true to what the
  // server can answer: NOT_SERVING only when the store's database is
  // unreachable and no mask is held (anything held still answers).
  int sig = 0;
  const timespec health_interval{.tv_sec = 0, .tv_nsec = 250'000'000};
  while ((sig = ::sigtimedwait(&stop_signals, nullptr, &health_interval)) <= 0) {
    if (store.is_available() != taking_writes) {
      taking_writes = !taking_writes;
      health.SetServingStatus(kWritesHealth, taking_writes);
      spdlog::warn("health: {} {}", kWritesHealth,
                   taking_writes ? "SERVING again (the mask store's database answers)"
                                 : "NOT_SERVING (the mask store's database does not answer)");
    }
    const bool can_answer = store.is_available() || store.size() > 0;
    if (can_answer != serving) {
      serving = can_answer;
      health.SetServingStatus(serving);
      health.SetServingStatus("pathfinding.v1.Pathfinder", serving);
      spdlog::warn("health: {}", serving ? "SERVING again (the mask store is back)"
                                         : "NOT_SERVING (the mask store's database is unreachable "
                                           "and no mask is held)");
    }
  }
  spdlog::info("received {}; shutting down (grace {} s)", ::strsignal(sig),
               config.shutdown_grace_seconds);
  // Health checkers see NOT_SERVING first; then new calls are refused and
  // in-flight ones get the grace period. gRPC's Shutdown(deadline) would also
  // wait out the grace for clients that are merely connected, so the service
  // waits for its own calls and the server then stops at once (cancelling
  // whatever is still running).
  health.SetServingStatus(false);
  service.stop_accepting();
  if (gateway) gateway->stop_accepting();
  const auto grace = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(config.shutdown_grace_seconds));
  if (!service.wait_until_idle(std::chrono::steady_clock::now() + grace)) {
    spdlog::warn("shutdown grace of {} s over: stopping the calls still running",
                 config.shutdown_grace_seconds);
    // They stop at their next check and answer UNAVAILABLE; what does not
    // stop within half a second is cancelled by Shutdown below.
    service.stop_running_calls();
    (void)service.wait_until_idle(std::chrono::steady_clock::now() + std::chrono::milliseconds(500));
  }
  if (gateway) gateway->cancel_calls();
  server->Shutdown(std::chrono::system_clock::now());
  server->Wait();
  gateway.reset();  // its connections ended with their calls
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Debian's Abseil checks every absl::Mutex acquisition (gRPC's locks) for
  // lock-order cycles, which costs 3-6% of the CPU per warm call; gRPC's own
  // release builds run without it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Distance fields are megabytes each and come and go with the cache. glibc
  // would raise its mmap threshold after the first one is freed and then keep
  // them on its heaps, where freed fields fragment and stay resident; a fixed
  // threshold keeps every field in its own mapping, returned on eviction.
  ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  // Under a file size limit (ulimit -f) a mask write then fails with EFBIG,
  // answered as storage full, instead of the signal killing the server.
  ::signal(SIGXFSZ, SIG_IGN);
  ServerConfig config;
  if (const auto exit_code = pathserver::parse_config(argc, argv, config)) return *exit_code;

  pathserver::configure_logging(config.log_level, config.log_format == "json"
                                                      ? pathserver::LogFormat::kJson
                                                      : pathserver::LogFormat::kText);

  // Block the stop signals in every thread (gRPC's threads inherit the mask);
  // run() waits for them with sigwait, so Shutdown never runs in a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  if (const int error = ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr); error != 0) {
    spdlog::critical("cannot block signals: {}", std::strerror(error));
    return 1;
  }

  try {
    return run(config, stop_signals);
  } catch (const pathserver::UsageError& e) {
    spdlog::critical("startup failed: {}", e.what());
    return pathserver::kExitUsage;
  } catch (const std::exception& e) {
    spdlog::critical("startup failed: {}", e.what());
    return 1;
  }
}
