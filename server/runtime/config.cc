#include "runtime/config.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "runtime/mask_store_setup.h"
#include "runtime/startup_error.h"
#include "runtime/version.h"

namespace pathserver {
namespace {

// A bad command line: one line on stderr, exit kExitUsage (not CLI11's own
// codes, which differ by kind of mistake).
int usage_error(const std::string& message) {
  std::cerr << "pathfinder-server: " << message << " (pathfinder-server --help lists the flags)\n";
  return kExitUsage;
}

}  // namespace

std::optional<int> parse_config(int argc, char** argv, ServerConfig& config) {
  CLI::App app{
      "pathfinder-server: gRPC grid pathfinding service (pathfinding.v1.Pathfinder, with "
      "grpc.health.v1.Health and reflection v1alpha). Runs until SIGTERM or SIGINT, then exits "
      "0."};
  app.set_version_flag("--version", "pathfinder-server " + std::string(pathfinder_version()),
                       "Print 'pathfinder-server VERSION' and exit 0");
  app.add_option("--listen", config.listen,
                 "Address to listen on, HOST:PORT (TLS with --tls-cert, else plaintext); port 0 "
                 "picks a free port")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  CLI::Option* data_dir =
      app.add_option("--data-dir", config.data_dir,
                     "Directory of the file mask store, --store file (created if missing, locked "
                     "while running); refused with --store postgres")
          ->type_name("DIR")
          ->capture_default_str();
  app.add_option("--store", config.store,
                 "Where masks are stored. 'file': one file per mask under --data-dir, for this "
                 "server alone. 'postgres': a PostgreSQL database that several servers "
                 "(replicas) share; its libpq connection string is read from "
                 "--store-conninfo-file, else env PATHFINDER_STORE_CONNINFO, else libpq's own "
                 "PG* variables (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSFILE...). A "
                 "postgres:// URI may stand for 'postgres' if it holds no password: passwords "
                 "never go on the command line (a URI with one is refused). The schema is "
                 "created at start; while the database is unreachable the masks held keep "
                 "answering, writes and other names answer UNAVAILABLE")
      ->type_name("file|postgres|URI")
      ->check(CLI::Validator([](std::string& store) { return store_option_problem(store); },
                             ""))
      ->capture_default_str();
  app.add_option("--store-conninfo-file", config.store_conninfo_file,
                 "With --store postgres: file holding the libpq connection string (key=value "
                 "words or a postgresql:// URI, trailing whitespace trimmed), password included "
                 "if one is needed; wins over env PATHFINDER_STORE_CONNINFO")
      ->type_name("FILE");
  app.add_option("--store-timeout", config.store_timeout_seconds,
                 "With --store postgres: the longest any wait on the database may last "
                 "(connecting, each lookup, a whole write with its wait for the write lock). A "
                 "write not done by then answers UNAVAILABLE; a database that does not answer "
                 "its checks within it is taken as unreachable (health service "
                 "pathfinding.v1.Pathfinder.writes turns NOT_SERVING). Must cover the largest "
                 "upload's transfer to the database")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.1, 3600.0))
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
                 "fields as keys of their own (rpc, code, mask, latency_ms, peer, transport; audit "
                 "lines: mask, revision, width, height, sha256, peer, transport, token). Both escape control "
                 "characters in the message and the fields (\\n, \\u001b, ...): one record, "
                 "one line")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  CLI::Option* metrics_address =
      app.add_option("--metrics-address", config.metrics_address,
                     "Serve Prometheus text metrics over plain HTTP at http://HOST:PORT/metrics "
                     "(HOST a numeric IPv4 address or localhost; port 0 picks a free port). No "
                     "authentication: a HOST other than 127.x.x.x or localhost needs "
                     "--metrics-allow-remote. Default: off. A port in use is a startup error")
          ->type_name("HOST:PORT");
  app.add_flag("--metrics-allow-remote", config.metrics_allow_remote,
               "Allow a non-loopback --metrics-address (0.0.0.0, a LAN address): anyone who can "
               "reach it reads the metrics, unauthenticated; without this flag the server "
               "refuses to start")
      ->needs(metrics_address);
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
  app.add_option("--max-query-kb", config.max_query_kb,
                 "Largest request of every RPC but the uploads and patches (GetMask, ListMasks, "
                 "DeleteMask, FindPath, BatchFindPaths, Reachable, StandardMove, GetField, "
                 "GetRange, LineOfSight, NearestWalkable, PrepareMask, WatchMask), in KiB; larger ones are "
                 "RESOURCE_EXHAUSTED before they are decoded (uploads and patches may use "
                 "--max-message-mb)")
      ->type_name("KIB")
      ->check(CLI::Range(1, 2047 * 1024))
      ->capture_default_str();
  app.add_option("--pending-answers-mb", config.pending_answers_mb,
                 "Memory for answers of over 64 KiB that wait for slow clients to read them "
                 "(and for what GetField streams keep for their readers), in MiB; beyond it "
                 "such answers are RESOURCE_EXHAUSTED (GetMask's area grids are sent from the "
                 "stored mask and not counted)")
      ->type_name("MIB")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--stalled-stream-timeout", config.stalled_stream_timeout_s,
                 "Seconds a client may read nothing of an answer (a GetField, GetRange or "
                 "PrepareMask message, or an answer charged to --pending-answers-mb, per MiB) before its "
                 "call is ended and its memory released (the client sees CANCELLED); the same "
                 "for HTTP clients of --http-listen, whose connection is then closed; 0: never")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  app.add_option("--transport-mb", config.transport_mb,
                 "Memory gRPC's transport may use for connections' buffers, in MiB (its "
                 "resource quota; beyond it reads slow down and new streams are refused)")
      ->type_name("MIB")
      ->check(CLI::Range(16, 1 << 20))
      ->capture_default_str();
  app.add_option("--max-streams-per-connection", config.max_streams_per_connection,
                 "Calls one client connection may have open at once (HTTP/2 "
                 "SETTINGS_MAX_CONCURRENT_STREAMS)")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--max-pixels", config.max_pixels,
                 "Largest mask an upload or seed may decode to, in pixels; a stored mask file "
                 "declaring more is skipped at start-up")
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
  app.add_option("--max-batch-starts", config.max_batch_starts,
                 "Most starts one BatchFindPaths request may carry (more is RESOURCE_EXHAUSTED); "
                 "its answer must also fit --max-message-mb")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  app.add_option("--max-obstacles", config.max_obstacles,
                 "Most temporary obstacles (rectangles, circles, pixel lists) one FindPath, "
                 "BatchFindPaths, Reachable, LineOfSight or GetRange request may carry (more is "
                 "RESOURCE_EXHAUSTED)")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--max-goals", config.max_goals,
                 "Most goals one FindPath, BatchFindPaths or GetField request may carry (more is "
                 "RESOURCE_EXHAUSTED; at most 65535, what one field's goal index holds)")
      ->type_name("N")
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  app.add_option("--max-watchers", config.max_watchers,
                 "Most WatchMask calls open at once on this server (more is RESOURCE_EXHAUSTED; "
                 "an idle watch holds no thread)")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--max-line-pairs", config.max_line_pairs,
                 "Most pairs one LineOfSight request may carry (more is RESOURCE_EXHAUSTED)")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  app.add_option("--max-nearest-points", config.max_nearest_points,
                 "Most points one NearestWalkable request may carry (more is RESOURCE_EXHAUSTED)")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  app.add_option("--cache-mb", config.cache_mb,
                 "Memory budget in MiB shared by every cache: distance fields (2-8 bytes per "
                 "mask pixel), Reachable's component labels (4 per pixel), NearestWalkable's "
                 "distance transforms (5 per pixel), StandardMove routes and FindPath answers. The least recently used entries of any of them go "
                 "first; 0 disables caching. Besides it, up to a 32nd of it keeps the memory "
                 "of dropped fields for the next fills (no new pages to fault in)")
      ->type_name("MIB")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--compute-threads", config.compute_threads,
                 "Threads that run heavy work: flood fills for cold FindPath calls, labelling for "
                 "Reachable, StandardMove's searches, uploads and patches (0: one per hardware "
                 "thread); health checks and cache hits are answered on gRPC's threads meanwhile")
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
                 "Calls that may wait for a compute thread; beyond that they are refused at "
                 "once with RESOURCE_EXHAUSTED (server busy)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--max-heavy-per-client", config.max_heavy_per_client,
                 "Calls of one client (one IP address; behind a balancer, the balancer) that "
                 "may wait for or run on a compute thread at once; more are refused with "
                 "RESOURCE_EXHAUSTED. Threads go to the client with the fewest calls running, "
                 "so others are served while one floods (0: no bound)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))
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
            if (auto problem = mask_name_problem(spec.substr(0, eq))) {
              return "mask name '" + spec.substr(0, eq) + "' " + *problem;
            }
            return {};
          },
          ""));
  app.add_option("--port-file", config.port_file,
                 "Once listening with the store loaded, write the bound port (decimal and a "
                 "newline) to FILE atomically")
      ->type_name("FILE");
  CLI::Option* http_listen =
      app.add_option("--http-listen", config.http_listen,
                     "Also serve the service over HTTP/1.1 at HOST:PORT (port 0 picks a free "
                     "port): the Connect protocol (POST /pathfinding.v1.Pathfinder/<Method> with "
                     "application/json or application/proto; GetField, GetRange and PrepareMask with "
                     "application/connect+json or +proto), gRPC-Web (application/grpc-web and "
                     "grpc-web-text), grpc.health.v1.Health/Check, and GET / for the viewer. "
                     "Calls go through the same service, tokens and limits as gRPC. Plaintext "
                     "(TLS stays with --listen; put a proxy in front for HTTPS). Default: off")
          ->type_name("HOST:PORT");
  app.add_option("--http-port-file", config.http_port_file,
                 "With --http-listen, write the HTTP port (decimal and a newline) to FILE "
                 "atomically, before --port-file is written")
      ->type_name("FILE")
      ->needs(http_listen);
  app.add_option("--http-allow-origin", config.http_allow_origins,
                 "Repeatable. With --http-listen, let browser pages from ORIGIN (scheme://host"
                 "[:port], or * for any) call the service: CORS preflights and answers carry "
                 "Access-Control-Allow-* for it. Default: none (same-origin pages, such as the "
                 "viewer served at GET /, need none)")
      ->type_name("ORIGIN")
      ->allow_extra_args(false)
      ->needs(http_listen);
  app.add_option("--http-max-connections", config.http_max_connections,
                 "With --http-listen, HTTP connections open at once; more are answered 503 and "
                 "closed")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--admin-token-file", config.admin_token_file,
                 "File holding the admin token (trailing whitespace trimmed; empty is an error). "
                 "UploadMask, PatchMask and DeleteMask then need 'authorization: Bearer <token>'. "
                 "Without this flag the token is read from env PATHFINDER_ADMIN_TOKEN when set; "
                 "the flag wins when both are given")
      ->type_name("FILE");
  app.add_option("--client-token-file", config.client_token_file,
                 "File holding the client token. Every RPC but the writes (GetMask, ListMasks, "
                 "FindPath, BatchFindPaths, Reachable, StandardMove, GetField, GetRange, "
                 "LineOfSight, NearestWalkable, PrepareMask, WatchMask) then needs the client or the admin "
                 "token. Health and reflection stay open")
      ->type_name("FILE");
  app.add_flag("--allow-unauthenticated-writes", config.allow_unauthenticated_writes,
               "Allow listening on a non-loopback address with no admin token (anyone who can "
               "connect may upload and delete masks); without it the server refuses to start");
  CLI::Option* tls_cert =
      app.add_option("--tls-cert", config.tls_cert,
                     "PEM certificate chain of the server; with --tls-key, serve TLS instead of "
                     "plaintext")
          ->type_name("FILE");
  CLI::Option* tls_key =
      app.add_option("--tls-key", config.tls_key, "PEM private key of --tls-cert")
          ->type_name("FILE");
  // The two go together, checked with the rest of the command line.
  tls_cert->needs(tls_key);
  tls_key->needs(tls_cert);
  app.add_option("--tls-client-ca", config.tls_client_ca,
                 "PEM CA certificates: mutual TLS, every client must present a certificate "
                 "signed by one of them (needs --tls-cert and --tls-key)")
      ->type_name("FILE")
      ->needs(tls_cert);
  app.add_option("--shutdown-grace", config.shutdown_grace_seconds,
                 "On SIGTERM/SIGINT: health turns NOT_SERVING, new calls are refused, and "
                 "in-flight calls get this many seconds to finish; then they stop and are answered "
                 "UNAVAILABLE (server shutting down)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.footer(
      "Exit status: 0 after SIGTERM or SIGINT (and for --help, --version); 1 when it cannot "
      "start (a file it cannot read, an address in use, the store's database); 2 for a bad "
      "command line (a flag's value, flags that do not go together).");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    return usage_error(e.what());
  }
  if (const std::string problem = store_flags_problem(config, data_dir->count() > 0);
      !problem.empty()) {
    return usage_error(problem);
  }
  return std::nullopt;
}

}  // namespace pathserver
