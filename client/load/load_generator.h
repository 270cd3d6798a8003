#pragma once

// The engine of `pathfinder-load`: keeps N calls of one RPC outstanding
// against a pathfinder server (closed loop) or starts them at a fixed rate
// (open loop), and measures throughput, latency and status codes.
//
// Two engines: kCallback keeps every call in flight through gRPC's callback
// API (no thread per call; completions start the next call), kSync runs one
// thread per outstanding call doing blocking calls. Calls are spread over
// several channels (one HTTP/2 connection each).
//
// What the calls send is workload.h, how they are timed measurement.h, and
// how a run's numbers are printed report.h.

#include <chrono>
#include <string>

#include "pathfinder/client.h"
#include "report.h"
#include "workload.h"

namespace pathfinder::load {

enum class Engine { kCallback, kSync };
[[nodiscard]] const char* engine_name(Engine engine);

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
  bool mask_header = true;   // send the workload's mask as pathfinder::kMaskHeader
  pathfinder::RetryPolicy retry;  // the channels' retry policy (on by default)
  // Only the TLS fields (tls, tls_*) are used: see pathfinder::make_channel.
  pathfinder::ClientOptions tls;
};

// Runs one measured load against options.server. Blocks until it ends.
[[nodiscard]] RunReport run_load(const Workload& workload, const RunOptions& options);

}  // namespace pathfinder::load
