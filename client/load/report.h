#pragma once

// What `pathfinder-load` prints: the numbers of one run, as text for people
// or as one JSON object, and the CPU ratio of two runs.

#include <array>
#include <cstdint>
#include <string>

namespace pathfinder::load {

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

// Human-readable lines (no trailing newline).
[[nodiscard]] std::string format_report(const RunReport& report);
// One JSON object (no newline).
[[nodiscard]] std::string report_json(const RunReport& report);

}  // namespace pathfinder::load
