#pragma once

#include <grpcpp/support/status_code_enum.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/cache_budget.h"
#include "cache/field_cache.h"
#include "runtime/transport.h"

namespace pathserver {

// The RPCs of pathfinding.v1.Pathfinder, as they appear in the `rpc` label.
inline constexpr std::array<std::string_view, 15> kMetricsRpcNames = {
    "UploadMask",  "PatchMask",       "DeleteMask",   "GetMask",        "ListMasks",
    "FindPath",    "Reachable",       "StandardMove", "BatchFindPaths", "GetField",
    "LineOfSight", "NearestWalkable", "PrepareMask",  "GetRange",       "WatchMask"};

// gRPC status codes 0 (OK) .. 16 (UNAUTHENTICATED).
inline constexpr std::size_t kMetricsStatusCodes = 17;

// Upper bounds of the latency histogram buckets, in nanoseconds
// (50 us .. 10 s; a +Inf bucket follows).
inline constexpr std::array<std::int64_t, 17> kLatencyBucketNanos = {
    50'000,      100'000,       250'000,       500'000,       1'000'000,     2'500'000,
    5'000'000,   10'000'000,    25'000'000,    50'000'000,    100'000'000,   250'000'000,
    500'000'000, 1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

// Values read at scrape time from the store and the caches.
struct ServerGauges {
  FieldCacheStats field_cache;
  // The one budget of every cache (--cache-mb) and what each member holds.
  std::uint64_t cache_budget_bytes = 0;
  std::vector<CacheUsage> caches;
  std::uint64_t masks_stored = 0;
  std::uint64_t mask_bytes = 0;     // area grids of the stored masks (width*height each)
  std::uint64_t masks_corrupt = 0;  // names whose stored file was unreadable at load
  std::uint64_t component_cache_entries = 0;
  std::uint64_t route_cache_entries = 0;
  std::uint64_t path_cache_entries = 0;
  // Calls answered DEADLINE_EXCEEDED while waiting for a shared build (a
  // field, an any-angle structure, a usable mask) that went on for the cache.
  std::uint64_t build_deadline_give_ups = 0;
  std::uint64_t any_angle_structures_built = 0;
};

// Request counters (by RPC, status code and transport) and latency
// histograms (by RPC and transport) of the Pathfinder service. record_call() is lock-free (relaxed
// atomic adds into a fixed table) and may run on any thread; render() reads a snapshot that is
// consistent per series, not across series.
class Metrics {
 public:
  using Clock = std::chrono::steady_clock;

  Metrics() = default;
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Counts one finished call of `rpc` (a kMetricsRpcNames entry; other names
  // are ignored) with `code` (out-of-range codes count as UNKNOWN), taking
  // `latency` from the handler's start to the call's finish, arrived by
  // `transport` (gRPC, or Connect or gRPC-Web through the HTTP gateway).
  void record_call(std::string_view rpc, grpc::StatusCode code, Clock::duration latency,
                   Transport transport = Transport::kGrpc) noexcept;

  // Calls of rpc that ended with code so far, over every transport (tests).
  [[nodiscard]] std::uint64_t calls(std::string_view rpc, grpc::StatusCode code) const;
  // The same, of one transport.
  [[nodiscard]] std::uint64_t calls(std::string_view rpc, grpc::StatusCode code,
                                    Transport transport) const;

  // Prometheus text exposition format 0.0.4: every request counter with a
  // non-zero value (and the gRPC OK one of every RPC), one latency histogram
  // per RPC and transport (gRPC's always, the others once they had a call),
  // the gauges, and pathfinder_build_info (1, labelled with the server's and
  // gRPC's versions).
  [[nodiscard]] std::string render(const ServerGauges& gauges) const;

  // Index of rpc in kMetricsRpcNames, or nullopt.
  [[nodiscard]] static std::optional<std::size_t> rpc_index(std::string_view rpc) noexcept;

 private:
  struct RpcSeries {
    std::array<std::atomic<std::uint64_t>, kMetricsStatusCodes> calls_by_code{};
    // Not cumulative: buckets[i] counts latencies in (bound[i-1], bound[i]];
    // the last one those above every bound.
    std::array<std::atomic<std::uint64_t>, kLatencyBucketNanos.size() + 1> buckets{};
    std::atomic<std::uint64_t> latency_sum_nanos{0};
  };

  // By transport, then RPC.
  std::array<std::array<RpcSeries, kMetricsRpcNames.size()>, kTransportCount> rpcs_{};
};

}  // namespace pathserver
