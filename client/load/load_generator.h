#pragma once

// The engine of `pathfinder-load`: keeps N calls of one RPC outstanding
// against a pathfinder server (closed loop) or starts them at a fixed rate
// (open loop), and measures throughput, latency and status codes.
//
// Two engines: kCallback keeps every call in flight through gRPC's callback
// API (no thread per call; completions start the next call), kSync runs one
// thread per outstanding call doing blocking calls. Calls are spread over
// several channels (one HTTP/2 connection each).

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathfinder/client.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace pathfinder::load {

// What each call asks.
enum class Rpc {
  kHealth,        // grpc.health.v1.Health/Check: the no-op baseline
  kFindWarm,      // FindPath, one goal and a few starts: the field is cached after the first call
  kFindCold,      // FindPath, a different goal each call: every call computes a field
  kReachable,     // Reachable with --pairs pairs per call
  kStandardMove,  // StandardMove between nearby tiles
};

// "health", "find-warm", "find-cold", "reachable", "standard-move".
[[nodiscard]] const char* rpc_name(Rpc rpc);
[[nodiscard]] std::optional<Rpc> parse_rpc(std::string_view text);

enum class Engine { kCallback, kSync };
[[nodiscard]] const char* engine_name(Engine engine);

// A log-bucket latency histogram (HDR-like): fixed size (about 18 KiB),
// relative error below 1/64, values in nanoseconds up to about 18 minutes
// (larger ones land in the last bucket; max() stays exact).
class LatencyHistogram {
 public:
  LatencyHistogram();
  void record(std::uint64_t nanoseconds);
  void merge(const LatencyHistogram& other);
  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] std::uint64_t max() const { return max_; }
  [[nodiscard]] double mean() const;
  // The smallest recorded value v such that at least fraction q (0..1) of
  // the values are <= v, as the upper edge of its bucket (never above max()).
  [[nodiscard]] std::uint64_t quantile(double q) const;

 private:
  static constexpr int kSubBucketBits = 6;  // 64 sub-buckets per power of two
  static constexpr int kMaxBits = 40;       // 2^40 ns ~ 18 minutes
  [[nodiscard]] static std::size_t bucket_of(std::uint64_t value);
  [[nodiscard]] static std::uint64_t upper_edge(std::size_t bucket);

  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::uint64_t max_ = 0;
  long double sum_ = 0;
};

// The requests a run sends, in turn (call i sends element i % size of the
// list for its RPC). Built once, read concurrently, never changed during a run.
struct Workload {
  Rpc rpc = Rpc::kHealth;
  std::vector<pathfinding::v1::FindPathRequest> find_path;          // kFindWarm, kFindCold
  std::vector<pathfinding::v1::ReachableRequest> reachable;         // kReachable
  std::vector<pathfinding::v1::StandardMoveRequest> standard_move;  // kStandardMove
  std::string description;  // one line for people: mask, points, pairs
};

// A walk mask the generator can upload when the user names none: a 128x96
// room (area 1) split by a 2-pixel wall at x 63..64 that leaves a 16-pixel
// gap at the bottom, so the beeline between the two halves is blocked and a
// grid path between them runs down to the gap and back up (~200-230 pixels).
struct SyntheticMaze {
  static constexpr std::uint32_t kWidth = 128;
  static constexpr std::uint32_t kHeight = 96;
  // width*height area ids, row-major (MASK_FORMAT_RAW).
  [[nodiscard]] static std::string areas();
  [[nodiscard]] static bool walkable(int x, int y);
};

// How to pick points on a mask the generator did not build.
struct MaskShape {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  bool synthetic = false;  // the SyntheticMaze: points are chosen on walkable pixels
  // Area ids, row-major, when the generator fetched them (GetMask include_areas):
  // points are then chosen on walkable (non-zero) pixels too. Empty: unknown.
  std::string areas;
  // True when (x, y) is inside and, as far as the generator knows, walkable.
  [[nodiscard]] bool walkable(int x, int y) const;
};

struct WorkloadOptions {
  std::string mask;
  MaskShape shape;
  int pairs = 100;  // Reachable pairs per call
  // FindPath goal and starts; empty = defaults (see build_workload).
  std::optional<pathfinding::v1::Point> goal;
  std::vector<pathfinding::v1::Point> starts;
  // FindPath smoothing (SMOOTHING_UNSPECIFIED = the server's default, beautify).
  pathfinding::v1::Smoothing smoothing = pathfinding::v1::SMOOTHING_UNSPECIFIED;
  // find-cold: how many distinct goals to cycle through. Every call misses
  // while the goals are new; on the 128x96 maze 4096 fields take ~100 MB, so
  // run the server with a small --cache-mb (e.g. 1) for a sustained cold load.
  int cold_goals = 4096;
  // find-warm: when > 0, this many distinct starts chosen at random (fixed
  // seed) in the west half of the mask, on walkable pixels where known, instead
  // of `starts`: every call traces and smooths a new path on the cached field
  // once there are more starts than the server's FindPath answer cache holds.
  int random_starts = 0;
};

// Builds the request lists. On the synthetic maze: find-warm goes from four
// starts in the west half to the goal (108,10) in the east half; find-cold
// keeps the first start and cycles the goal through walkable pixels of the
// east half; reachable and standard-move use walkable pixels chosen by a
// fixed-seed generator (standard-move: goal within 12 tiles of the start).
// On another mask (no walkability known): the goal defaults to (7/8 w, 1/2 h)
// and the starts to points of the west eighth; other points are spread over
// the whole mask. Throws std::invalid_argument on bad options.
[[nodiscard]] Workload build_workload(Rpc rpc, const WorkloadOptions& options);

struct RunOptions {
  std::string server = "127.0.0.1:50051";
  Engine engine = Engine::kCallback;
  int concurrency = 32;            // outstanding calls (closed loop) or the cap (open loop)
  int channels = 4;                // channels, each its own connection
  std::uint64_t max_requests = 0;  // measured requests; 0 = no cap
  std::chrono::duration<double> duration{10.0};  // measured time; 0 = no limit
  std::chrono::duration<double> warmup{0.0};     // calls before this are not measured
  double rate = 0;                               // open loop requests/s; 0 = closed loop
  std::chrono::milliseconds deadline{std::chrono::seconds(10)};  // per call
  int server_pid = 0;        // when > 0, the server's CPU time is read from /proc
  std::string bearer_token;  // sent on every Pathfinder call when not empty
  // Only the TLS fields (tls, tls_*) are used: see pathfinder::make_channel.
  pathfinder::ClientOptions tls;
};

// The numbers of one run.
struct RunReport {
  std::string rpc;
  std::string engine;
  int concurrency = 0;
  int channels = 0;
  double rate = 0;
  double elapsed_seconds = 0;  // first measured call started .. last one ended
  std::uint64_t requests = 0;  // measured calls that ended (ok or not)
  std::uint64_t ok = 0;
  std::array<std::uint64_t, 17> by_code{};  // calls per grpc::StatusCode
  double requests_per_second = 0;
  std::uint64_t p50_us = 0, p90_us = 0, p99_us = 0, max_us = 0;
  double mean_us = 0;
  // FindPath/StandardMove answers: with cache_hit = true, and with found = false.
  std::uint64_t cache_hits = 0;
  std::uint64_t not_found = 0;
  double client_cpu_seconds = 0;
  double server_cpu_seconds = -1;  // -1 = unknown (no --server-pid)
  bool connected = true;           // the channels connected before the run

  [[nodiscard]] std::uint64_t errors() const { return requests - ok; }
  // CPU time per measured call, in microseconds; -1 when unknown.
  [[nodiscard]] double client_cpu_us_per_request() const;
  [[nodiscard]] double server_cpu_us_per_request() const;
};

// What the throughput ratio target / baseline would be if generator and
// server had the machine to themselves and were CPU-bound: the baseline's
// (generator + server) CPU per call over the target's. Less sensitive than
// the throughput ratio to other load on a shared machine. -1 when the server's
// CPU time is unknown.
[[nodiscard]] double cpu_ratio(const RunReport& baseline, const RunReport& target);

// Runs one measured load against options.server. Blocks until it ends.
[[nodiscard]] RunReport run_load(const Workload& workload, const RunOptions& options);

// Human-readable lines (no trailing newline).
[[nodiscard]] std::string format_report(const RunReport& report);
// One JSON object (no newline).
[[nodiscard]] std::string report_json(const RunReport& report);

}  // namespace pathfinder::load
