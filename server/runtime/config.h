#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pathcore/codec.h"
#include "store/mask_store.h"

namespace pathserver {

// Default ServiceLimits::max_reachable_pairs and --max-reachable-pairs.
inline constexpr int kDefaultMaxReachablePairs = 10000;
// Default ServiceLimits::max_batch_starts and --max-batch-starts.
inline constexpr int kDefaultMaxBatchStarts = 10000;
// Defaults of ServiceLimits::max_line_pairs (--max-line-pairs) and
// max_nearest_points (--max-nearest-points).
inline constexpr int kDefaultMaxLinePairs = 100000;
inline constexpr int kDefaultMaxNearestPoints = 100000;
// Defaults of ServiceLimits::max_obstacles (--max-obstacles: shapes per
// request) and max_goals (--max-goals: goals per request).
inline constexpr int kDefaultMaxObstacles = 256;
inline constexpr int kDefaultMaxGoals = 1024;
// Default ServiceLimits::max_watchers and --max-watchers: WatchMask calls open
// at once (an idle watch holds no thread, a few KiB of the transport's).
inline constexpr int kDefaultMaxWatchers = 10000;

// What pathfinder-server was asked to do: one field per flag, defaults as
// --help shows them.
struct ServerConfig {
  std::string listen = "127.0.0.1:50051";
  std::string data_dir = "./data";
  std::string store = "file";       // file | postgres | a postgres:// URI without a password
  std::string store_conninfo_file;  // --store postgres: the libpq connection string
  std::string log_level = "info";
  std::string log_format = "text";  // text | json
  std::string metrics_address;      // empty: no metrics endpoint
  std::string metrics_port_file;
  bool metrics_allow_remote = false;  // metrics_address may be non-loopback
  int max_message_mb = 64;
  int max_query_kb = 4096;
  int pending_answers_mb = 256;
  double stalled_stream_timeout_s = 30;  // a reader taking nothing for this long is cut off
  int transport_mb = 512;
  int max_streams_per_connection = 100;
  std::uint64_t max_pixels = pathcore::kDefaultMaxPixels;
  std::size_t cache_mb = 1024;      // one budget for every cache, MiB
  std::size_t compute_threads = 0;  // 0: one per hardware thread
  int compute_niceness = 10;        // added to the compute threads' nice value
  std::size_t compute_queue = 256;  // cold FindPath calls that may wait for a thread
  std::size_t max_heavy_per_client = 128;  // of them, one client's (its address)
  std::size_t max_masks = kDefaultMaxMasks;
  std::uint64_t max_stored_mb = kDefaultMaxStoredBytes / (1024 * 1024);
  int max_reachable_pairs = kDefaultMaxReachablePairs;
  int max_batch_starts = kDefaultMaxBatchStarts;
  int max_line_pairs = kDefaultMaxLinePairs;
  int max_nearest_points = kDefaultMaxNearestPoints;
  int max_obstacles = kDefaultMaxObstacles;
  int max_goals = kDefaultMaxGoals;
  int max_watchers = kDefaultMaxWatchers;
  std::vector<std::string> seed_masks;  // NAME=FILE
  std::string port_file;
  std::string http_listen;  // empty: no HTTP endpoint (Connect, gRPC-Web, the viewer)
  std::string http_port_file;
  std::vector<std::string> http_allow_origins;  // CORS; "*": any
  std::size_t http_max_connections = 1024;
  std::string admin_token_file;
  std::string client_token_file;
  bool allow_unauthenticated_writes = false;
  std::string tls_cert;       // PEM certificate chain; with tls_key turns TLS on
  std::string tls_key;        // PEM private key
  std::string tls_client_ca;  // PEM roots; requires and verifies client certificates
  double shutdown_grace_seconds = 5;
  double store_timeout_seconds = 5;  // --store postgres: the bound of every database wait
};

// Reads the flags into `config` (fields of flags not given keep their
// values). Returns the exit status when the process should stop now: 0 after
// printing --help or --version, kExitUsage (2) after one line on stderr for a
// bad command line. std::nullopt: run with `config`.
[[nodiscard]] std::optional<int> parse_config(int argc, char** argv, ServerConfig& config);

}  // namespace pathserver
