// pathfinder-server: loads the mask store, serves pathfinding.v1.Pathfinder
// (plus grpc.health.v1.Health and reflection) until SIGTERM or SIGINT.

#include <absl/synchronization/mutex.h>
#include <fcntl.h>
#include <malloc.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "runtime/auth.h"
#include "cache/field_cache.h"
#include "grpc/health/v1/health.pb.h"
#include "runtime/listen_address.h"
#include "runtime/logging.h"
#include "store/file_mask_store.h"
#include "runtime/metrics.h"
#include "runtime/metrics_http.h"
#include "pathcore/codec.h"
#include "service/pathfinder_service.h"
#include "runtime/version.h"

namespace {

using pathserver::FieldCache;
using pathserver::FileMaskStore;
using pathserver::MaskStore;
using pathserver::Metrics;

struct Config {
  std::string listen = "127.0.0.1:50051";
  std::string data_dir = "./data";
  std::string log_level = "info";
  std::string log_format = "text";  // text | json
  std::string metrics_address;      // empty: no metrics endpoint
  std::string metrics_port_file;
  int max_message_mb = 64;
  std::uint64_t max_pixels = pathcore::kDefaultMaxPixels;
  std::size_t cache_mb = 1024;          // distance-field cache budget, MiB
  std::size_t compute_threads = 0;      // 0: one per hardware thread
  int compute_niceness = 10;            // added to the compute threads' nice value
  std::size_t compute_queue = 256;      // cold FindPath calls that may wait for a thread
  std::size_t max_masks = pathserver::kDefaultMaxMasks;
  std::uint64_t max_stored_mb = pathserver::kDefaultMaxStoredBytes / (1024 * 1024);
  int max_reachable_pairs = pathserver::kDefaultMaxReachablePairs;
  std::vector<std::string> seed_masks;  // NAME=FILE
  std::string port_file;
  std::string admin_token_file;
  std::string client_token_file;
  bool allow_unauthenticated_writes = false;
  std::string tls_cert;       // PEM certificate chain; with tls_key turns TLS on
  std::string tls_key;        // PEM private key
  std::string tls_client_ca;  // PEM roots; requires and verifies client certificates
  double shutdown_grace_seconds = 5;
};

// A startup problem worth a clear message and a non-zero exit.
class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Stores FILE as NAME unless the store already has NAME.
void seed_mask(MaskStore& store, const std::string& spec, std::uint64_t max_pixels) {
  const auto eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  const std::string file = spec.substr(eq + 1);
  if (const auto existing = store.get(name)) {
    spdlog::info("seed mask '{}': already stored at revision {}, leaving it", name,
                 existing->revision);
    return;
  }
  if (store.is_corrupt(name)) {
    // What was uploaded is never overwritten, not even when unreadable: the
    // operator decides (upload or delete it).
    spdlog::warn("seed mask '{}': the stored mask is corrupt, leaving it", name);
    return;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw StartupError("seed mask '" + name + "': cannot open '" + file +
                       "': " + std::generic_category().message(errno));
  }
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  if (in.bad()) throw StartupError("seed mask '" + name + "': cannot read '" + file + "'");
  pathcore::DecodeOptions options;  // format sniffed, rule auto
  options.max_pixels = max_pixels;
  std::optional<pathcore::Mask> mask;
  try {
    mask.emplace(pathcore::decode_mask(bytes, options));
  } catch (const std::exception& e) {  // DecodeError, InvalidArgument
    throw StartupError("seed mask '" + name + "': '" + file +
                       "' is not a usable mask: " + e.what());
  }
  const auto entry = store.put(name, std::move(*mask));
  spdlog::info("seed mask '{}': stored '{}' ({}x{}) as revision {}", name, file,
               entry->mask->width(), entry->mask->height(), entry->revision);
}

// Writes "<port>\n" to path atomically (temp file in the same dir + rename).
void write_port_file(const std::string& path, int port) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << port << '\n';
    out.flush();
    if (!out) {
      throw StartupError("cannot write port file '" + temp +
                         "': " + std::generic_category().message(errno));
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw StartupError("cannot rename '" + temp + "' to port file '" + path +
                       "': " + std::generic_category().message(error));
  }
}

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

// The gauges of the metrics endpoint, read at scrape time.
pathserver::ServerGauges read_gauges(const MaskStore& store, const FieldCache& cache,
                                     const pathserver::PathfinderService& service) {
  pathserver::ServerGauges gauges;
  gauges.field_cache = cache.stats();
  const auto entries = store.list();
  gauges.masks_stored = entries.size();
  gauges.masks_corrupt = store.corrupt_count();
  for (const auto& entry : entries) {
    gauges.mask_bytes += static_cast<std::uint64_t>(entry->mask->width()) * entry->mask->height();
  }
  gauges.component_cache_entries = service.component_cache_entries();
  gauges.route_cache_entries = service.route_cache_entries();
  gauges.path_cache_entries = service.path_cache_entries();
  return gauges;
}

// True when the HOST of HOST:PORT is a loopback address: 127.x.x.x,
// localhost, ::1 or [::1]. Anything else (0.0.0.0, [::], a LAN address, a
// host name) may be reachable from other machines.
bool loopback_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  const std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  const bool dotted = host.find_first_not_of("0123456789.") == std::string::npos;
  return (host.starts_with("127.") && dotted) || host == "localhost" || host == "[::1]" ||
         host == "::1";
}

// The tokens of the flags, else of $PATHFINDER_ADMIN_TOKEN (admin only); the
// policy check for non-loopback addresses. Throws StartupError.
pathserver::Authorizer make_authorizer(const Config& config) {
  std::optional<std::string> admin;
  std::optional<std::string> client;
  try {
    if (!config.admin_token_file.empty()) {
      admin = pathserver::read_token_file(config.admin_token_file);
    } else if (const char* env = std::getenv("PATHFINDER_ADMIN_TOKEN"); env != nullptr) {
      std::string token(env);
      while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
        token.pop_back();
      }
      if (token.empty()) throw StartupError("PATHFINDER_ADMIN_TOKEN is set but empty");
      admin = std::move(token);
    }
    if (!config.client_token_file.empty()) {
      client = pathserver::read_token_file(config.client_token_file);
    }
  } catch (const pathserver::TokenError& e) {
    throw StartupError(e.what());
  }
  if (!admin && !config.allow_unauthenticated_writes && !loopback_listen(config.listen)) {
    throw StartupError("refusing to listen on non-loopback address '" + config.listen +
                       "' with no admin token: anyone could upload and delete masks. Pass "
                       "--admin-token-file FILE (or set PATHFINDER_ADMIN_TOKEN), or "
                       "--allow-unauthenticated-writes to accept that");
  }
  spdlog::info("auth: writes {}, queries {}",
               admin ? "need the admin token" : "are open (no admin token)",
               client ? "need the client or admin token" : "are open (no client token)");
  return pathserver::Authorizer(std::move(admin), std::move(client));
}

// Reads a whole PEM file named by `flag`. Throws StartupError naming the path.
std::string read_pem_file(const std::string& flag, const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw StartupError(flag + " '" + path + "': is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw StartupError(flag + " '" + path +
                       "': cannot open: " + std::generic_category().message(errno));
  }
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw StartupError(flag + " '" + path + "': cannot read");
  if (contents.empty()) throw StartupError(flag + " '" + path + "': is empty");
  return contents;
}

// Insecure credentials, or TLS (mutual TLS with --tls-client-ca) from the PEM
// files of the flags. Throws StartupError.
std::shared_ptr<grpc::ServerCredentials> make_server_credentials(const Config& config) {
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    throw StartupError("--tls-cert and --tls-key go together: pass both or neither");
  }
  if (config.tls_cert.empty()) {
    if (!config.tls_client_ca.empty()) {
      throw StartupError("--tls-client-ca needs --tls-cert and --tls-key");
    }
    spdlog::info("transport: plaintext (no TLS)");
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back(
      {read_pem_file("--tls-key", config.tls_key), read_pem_file("--tls-cert", config.tls_cert)});
  if (config.tls_client_ca.empty()) {
    options.client_certificate_request = GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
    spdlog::info("transport: TLS (certificate '{}'), client certificates not requested",
                 config.tls_cert);
  } else {
    options.pem_root_certs = read_pem_file("--tls-client-ca", config.tls_client_ca);
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    spdlog::info(
        "transport: mutual TLS (certificate '{}'), client certificates required and "
        "verified against '{}'",
        config.tls_cert, config.tls_client_ca);
  }
  return grpc::SslServerCredentials(options);
}

// The listening addresses are HOST:PORT and their ports are free: checked
// first, so a mistake is one sentence and nothing was opened. Throws
// StartupError.
void check_listen_addresses(const Config& config) {
  std::vector<std::pair<std::string, std::string>> addresses = {{"--listen", config.listen}};
  if (!config.metrics_address.empty()) {
    addresses.emplace_back("--metrics-address", config.metrics_address);
  }
  for (const auto& [flag, address] : addresses) {
    if (auto problem = pathserver::host_port_problem(flag, address)) throw StartupError(*problem);
  }
  for (const auto& [flag, address] : addresses) {
    if (auto problem = pathserver::bind_problem(flag, address)) throw StartupError(*problem);
  }
}

int run(const Config& config, const sigset_t& stop_signals) {
  // Before anything is opened or bound.
  check_listen_addresses(config);
  pathserver::Authorizer authorizer = make_authorizer(config);
  const std::shared_ptr<grpc::ServerCredentials> credentials = make_server_credentials(config);
  spdlog::info(
      "pathfinder-server {} starting: data dir '{}', max message {} MiB, max pixels {}, "
      "max masks {}, max stored {} MiB, max Reachable pairs {}, field cache {} MiB",
      pathserver::pathfinder_version(), config.data_dir, config.max_message_mb, config.max_pixels,
      config.max_masks, config.max_stored_mb, config.max_reachable_pairs, config.cache_mb);

  // Throws StoreError.
  FileMaskStore store(
      config.data_dir,
      {.max_masks = config.max_masks, .max_bytes = config.max_stored_mb * 1024 * 1024});
  const auto& report = store.load_report();
  spdlog::info(
      "mask store '{}': {} masks loaded, {} bad files skipped ({} of them masks now answering "
      "DATA_LOSS), {} temp files removed, {} other entries ignored",
      store.dir().string(), report.loaded, report.skipped, report.corrupt.size(),
      report.temp_removed, report.ignored);
  for (const auto& spec : config.seed_masks) seed_mask(store, spec, config.max_pixels);

  // A stop request that arrived while loading: do not start serving.
  const timespec no_wait{};
  if (const int sig = ::sigtimedwait(&stop_signals, nullptr, &no_wait); sig > 0) {
    spdlog::info("received {} during startup; exiting", ::strsignal(sig));
    return 0;
  }

  FieldCache cache(config.cache_mb * 1024 * 1024);
  Metrics metrics;
  const bool metrics_on = !config.metrics_address.empty();
  pathserver::PathfinderService service(
      store, cache,
      {.max_pixels = config.max_pixels,
       .max_reachable_pairs = config.max_reachable_pairs,
       .max_message_bytes = static_cast<std::size_t>(config.max_message_mb) * 1024 * 1024,
       .compute_threads = config.compute_threads,
       .compute_niceness = config.compute_niceness,
       .compute_queue = config.compute_queue},
      std::move(authorizer), metrics_on ? &metrics : nullptr);
  spdlog::info(
      "compute pool: {} threads (nice +{}) for flood fills, at most {} cold path requests queued",
      service.compute_threads(), config.compute_niceness, config.compute_queue);

  // Before the gRPC port opens, so a metrics port in use stops the start.
  std::optional<pathserver::MetricsHttpServer> metrics_server;
  if (metrics_on) {
    try {
      metrics_server.emplace(config.metrics_address, [&metrics, &store, &cache, &service] {
        return metrics.render(read_gauges(store, cache, service));
      });
    } catch (const pathserver::MetricsHttpError& e) {
      throw StartupError(e.what());
    }
    spdlog::info("metrics: GET /metrics on '{}' (port {})", config.metrics_address,
                 metrics_server->port());
    if (!config.metrics_port_file.empty()) {
      write_port_file(config.metrics_port_file, metrics_server->port());
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
  server->GetHealthCheckService()->SetServingStatus(true);
  server->GetHealthCheckService()->SetServingStatus("pathfinding.v1.Pathfinder", true);
  spdlog::info("listening on '{}' (port {}), serving {} masks", config.listen, port, store.size());

  if (!config.port_file.empty()) {
    try {
      write_port_file(config.port_file, port);
    } catch (...) {
      server->Shutdown(std::chrono::system_clock::now());
      throw;
    }
  }

  int sig = 0;
  while (::sigwait(&stop_signals, &sig) != 0) {
  }
  spdlog::info("received {}; shutting down (grace {} s)", ::strsignal(sig),
               config.shutdown_grace_seconds);
  // Health checkers see NOT_SERVING first; then new calls are refused and
  // in-flight ones get the grace period. gRPC's Shutdown(deadline) would also
  // wait out the grace for clients that are merely connected, so the service
  // waits for its own calls and the server then stops at once (cancelling
  // whatever is still running).
  server->GetHealthCheckService()->SetServingStatus(false);
  service.stop_accepting();
  const auto grace = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(config.shutdown_grace_seconds));
  if (!service.wait_until_idle(std::chrono::steady_clock::now() + grace)) {
    spdlog::warn("shutdown grace of {} s over: cancelling the calls still running",
                 config.shutdown_grace_seconds);
  }
  server->Shutdown(std::chrono::system_clock::now());
  server->Wait();
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
  Config config;
  CLI::App app{
      "pathfinder-server: gRPC grid pathfinding service (pathfinding.v1.Pathfinder, with "
      "grpc.health.v1.Health and reflection v1alpha). Runs until SIGTERM or SIGINT, then exits "
      "0."};
  app.set_version_flag("--version",
                       "pathfinder-server " + std::string(pathserver::pathfinder_version()),
                       "Print 'pathfinder-server VERSION' and exit 0");
  app.add_option("--listen", config.listen,
                 "Address to listen on, HOST:PORT (TLS with --tls-cert, else plaintext); port 0 "
                 "picks a free port")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  app.add_option("--data-dir", config.data_dir,
                 "Directory of the persistent mask store (created if missing, locked while "
                 "running)")
      ->type_name("DIR")
      ->capture_default_str();
  app.add_option("--log-level", config.log_level,
                 "Log level (logs go to stderr). At info a failed call logs one line (RPC, "
                 "status code, message, mask, latency, peer), a successful write one audit line "
                 "(mask, revision, size, sha256, peer, which token) and any other successful "
                 "call none; debug adds one per call")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  app.add_option("--log-format", config.log_format,
                 "text: '[time] [logger] [level] message key=value...'; json: one object per "
                 "line with \"time\" (UTC), \"level\", \"logger\", \"message\" and the line's "
                 "fields as keys of their own (rpc, code, mask, latency_ms, peer; audit lines: "
                 "mask, revision, width, height, sha256, peer, token)")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  CLI::Option* metrics_address =
      app.add_option("--metrics-address", config.metrics_address,
                     "Serve Prometheus text metrics over plain HTTP at http://HOST:PORT/metrics "
                     "(HOST a numeric IPv4 address or localhost; port 0 picks a free port). No "
                     "authentication: keep it on loopback or a trusted network. Default: off. A "
                     "port in use is a startup error")
          ->type_name("HOST:PORT");
  app.add_option("--metrics-port-file", config.metrics_port_file,
                 "With --metrics-address, write the metrics port (decimal and a newline) to FILE "
                 "atomically, before --port-file is written")
      ->type_name("FILE")
      ->needs(metrics_address);
  app.add_option("--max-message-mb", config.max_message_mb,
                 "Largest request and response message, in MiB")
      ->type_name("N")
      ->check(CLI::Range(1, 2047))
      ->capture_default_str();
  app.add_option("--max-pixels", config.max_pixels,
                 "Largest mask an upload or seed may decode to, in pixels")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-masks", config.max_masks,
                 "Most masks stored (by name); an upload of a new name beyond it is "
                 "RESOURCE_EXHAUSTED (replacing a stored mask is not)")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-stored-mb", config.max_stored_mb,
                 "Most bytes stored, in MiB: the sum of width*height (one byte per pixel, the "
                 "decoded area grids the server also holds in memory) over all masks. An upload "
                 "that would exceed it is RESOURCE_EXHAUSTED; a replacement counts the difference")
      ->type_name("N")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->capture_default_str();
  app.add_option("--max-reachable-pairs", config.max_reachable_pairs,
                 "Most pairs one Reachable request may carry (more is RESOURCE_EXHAUSTED)")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  app.add_option("--cache-mb", config.cache_mb,
                 "Memory budget of the distance-field cache in MiB (LRU by the bytes each "
                 "field holds: 2-8 per mask pixel; 0 disables caching)")
      ->type_name("MIB")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--compute-threads", config.compute_threads,
                 "Threads that run flood fills for cold FindPath calls (0: one per hardware "
                 "thread); warm calls are answered on gRPC's threads meanwhile")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1024}))
      ->capture_default_str();
  app.add_option("--compute-niceness", config.compute_niceness,
                 "Added to the compute threads' nice value, so warm calls get the CPU first "
                 "when all cores are busy (0: same priority as gRPC's threads)")
      ->type_name("N")
      ->check(CLI::Range(0, 19))
      ->capture_default_str();
  app.add_option("--compute-queue", config.compute_queue,
                 "Cold FindPath calls that may wait for a compute thread; beyond that they are "
                 "refused with RESOURCE_EXHAUSTED")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--seed-mask", config.seed_masks,
                 "Repeatable. At start, store FILE (format sniffed) as mask NAME unless NAME is "
                 "already stored; a bad FILE is a startup error")
      ->type_name("NAME=FILE")
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& spec) -> std::string {
            const auto eq = spec.find('=');
            if (eq == std::string::npos || eq + 1 == spec.size()) {
              return "expected NAME=FILE, got '" + spec + "'";
            }
            if (auto problem = pathserver::mask_name_problem(spec.substr(0, eq))) {
              return "mask name '" + spec.substr(0, eq) + "' " + *problem;
            }
            return {};
          },
          ""));
  app.add_option("--port-file", config.port_file,
                 "Once listening with the store loaded, write the bound port (decimal and a "
                 "newline) to FILE atomically")
      ->type_name("FILE");
  app.add_option("--admin-token-file", config.admin_token_file,
                 "File holding the admin token (trailing whitespace trimmed; empty is an error). "
                 "UploadMask, PatchMask and DeleteMask then need 'authorization: Bearer <token>'. "
                 "Without this flag the token is read from env PATHFINDER_ADMIN_TOKEN when set; "
                 "the flag wins when both are given")
      ->type_name("FILE");
  app.add_option("--client-token-file", config.client_token_file,
                 "File holding the client token. Queries (GetMask, ListMasks, FindPath, "
                 "Reachable, StandardMove) then need the client or the admin token. Health and "
                 "reflection stay open")
      ->type_name("FILE");
  app.add_flag("--allow-unauthenticated-writes", config.allow_unauthenticated_writes,
               "Allow listening on a non-loopback address with no admin token (anyone who can "
               "connect may upload and delete masks); without it the server refuses to start");
  app.add_option("--tls-cert", config.tls_cert,
                 "PEM certificate chain of the server; with --tls-key, serve TLS instead of "
                 "plaintext")
      ->type_name("FILE");
  app.add_option("--tls-key", config.tls_key, "PEM private key of --tls-cert")->type_name("FILE");
  app.add_option("--tls-client-ca", config.tls_client_ca,
                 "PEM CA certificates: mutual TLS, every client must present a certificate "
                 "signed by one of them (needs --tls-cert and --tls-key)")
      ->type_name("FILE");
  app.add_option("--shutdown-grace", config.shutdown_grace_seconds,
                 "On SIGTERM/SIGINT: health turns NOT_SERVING, new calls are refused, and "
                 "in-flight calls get this many seconds to finish before they are cancelled")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

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
  } catch (const std::exception& e) {
    spdlog::critical("startup failed: {}", e.what());
    return 1;
  }
}
