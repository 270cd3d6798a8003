#include "runtime/metrics.h"

#include <absl/status/status.h>
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "runtime/version.h"

namespace pathserver {
namespace {

std::string code_name(std::size_t code) {
  // grpc::StatusCode and absl::StatusCode share their numbering.
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

// A float in the exposition format (shortest round-trip form).
std::string number(double value) { return fmt::format("{}", value); }

void help_type(std::string& out, std::string_view name, std::string_view help,
               std::string_view type) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void single(std::string& out, std::string_view name, std::string_view help, std::string_view type,
            std::string_view value) {
  help_type(out, name, help, type);
  fmt::format_to(std::back_inserter(out), "{} {}\n", name, value);
}

void single(std::string& out, std::string_view name, std::string_view help, std::string_view type,
            std::uint64_t value) {
  single(out, name, help, type, std::to_string(value));
}

}  // namespace

std::optional<std::size_t> Metrics::rpc_index(std::string_view rpc) noexcept {
  for (std::size_t i = 0; i < kMetricsRpcNames.size(); ++i) {
    if (kMetricsRpcNames[i] == rpc) return i;
  }
  return std::nullopt;
}

void Metrics::record_call(std::string_view rpc, grpc::StatusCode code, Clock::duration latency,
                          Transport transport) noexcept {
  const auto index = rpc_index(rpc);
  const auto transport_index = static_cast<std::size_t>(transport);
  if (!index || transport_index >= kTransportCount) return;
  RpcSeries& series = rpcs_[transport_index][*index];
  auto code_index = static_cast<std::size_t>(code);
  if (code_index >= kMetricsStatusCodes) code_index = grpc::StatusCode::UNKNOWN;
  series.calls_by_code[code_index].fetch_add(1, std::memory_order_relaxed);

  const std::int64_t nanos = std::max<std::int64_t>(
      0, std::chrono::duration_cast<std::chrono::nanoseconds>(latency).count());
  // First bound >= nanos: Prometheus buckets are upper-inclusive ("le").
  const auto bucket = static_cast<std::size_t>(
      std::lower_bound(kLatencyBucketNanos.begin(), kLatencyBucketNanos.end(), nanos) -
      kLatencyBucketNanos.begin());
  series.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  series.latency_sum_nanos.fetch_add(static_cast<std::uint64_t>(nanos), std::memory_order_relaxed);
}

std::uint64_t Metrics::calls(std::string_view rpc, grpc::StatusCode code) const {
  std::uint64_t total = 0;
  for (std::size_t t = 0; t < kTransportCount; ++t) {
    total += calls(rpc, code, static_cast<Transport>(t));
  }
  return total;
}

std::uint64_t Metrics::calls(std::string_view rpc, grpc::StatusCode code,
                             Transport transport) const {
  const auto index = rpc_index(rpc);
  const auto code_index = static_cast<std::size_t>(code);
  const auto transport_index = static_cast<std::size_t>(transport);
  if (!index || code_index >= kMetricsStatusCodes || transport_index >= kTransportCount) return 0;
  return rpcs_[transport_index][*index].calls_by_code[code_index].load(std::memory_order_relaxed);
}

std::string Metrics::render(const ServerGauges& gauges) const {
  std::string out;
  out.reserve(32 * 1024);
  auto append = std::back_inserter(out);

  help_type(out, "pathfinder_requests_total",
            "Finished pathfinding.v1.Pathfinder calls by RPC, gRPC status code and transport "
            "(grpc, or connect and grpc-web through the HTTP gateway).",
            "counter");
  for (std::size_t t = 0; t < kTransportCount; ++t) {
    const std::string_view transport = transport_name(static_cast<Transport>(t));
    for (std::size_t r = 0; r < kMetricsRpcNames.size(); ++r) {
      for (std::size_t code = 0; code < kMetricsStatusCodes; ++code) {
        const std::uint64_t value = rpcs_[t][r].calls_by_code[code].load(std::memory_order_relaxed);
        if (value == 0 && (code != 0 || t != 0)) continue;
        fmt::format_to(append,
                       "pathfinder_requests_total{{rpc=\"{}\",code=\"{}\",transport=\"{}\"}} {}\n",
                       kMetricsRpcNames[r], code_name(code), transport, value);
      }
    }
  }

  help_type(out, "pathfinder_request_duration_seconds",
            "Time from a handler's start to the call's finish, by RPC and transport.", "histogram");
  for (std::size_t t = 0; t < kTransportCount; ++t) {
    const std::string_view transport = transport_name(static_cast<Transport>(t));
    for (std::size_t r = 0; r < kMetricsRpcNames.size(); ++r) {
      const RpcSeries& series = rpcs_[t][r];
      // Read the buckets once; the count is their total, so _count and the
      // +Inf bucket always agree.
      std::array<std::uint64_t, kLatencyBucketNanos.size() + 1> counts{};
      std::uint64_t total = 0;
      for (std::size_t b = 0; b < series.buckets.size(); ++b) {
        counts[b] = series.buckets[b].load(std::memory_order_relaxed);
        total += counts[b];
      }
      if (total == 0 && t != 0) continue;  // HTTP transports: once they had a call
      std::uint64_t cumulative = 0;
      for (std::size_t b = 0; b < counts.size(); ++b) {
        cumulative += counts[b];
        const std::string le = b < kLatencyBucketNanos.size()
                                   ? number(static_cast<double>(kLatencyBucketNanos[b]) / 1e9)
                                   : std::string("+Inf");
        fmt::format_to(append,
                       "pathfinder_request_duration_seconds_bucket{{rpc=\"{}\",transport=\"{}\",le="
                       "\"{}\"}} {}\n",
                       kMetricsRpcNames[r], transport, le, cumulative);
      }
      const double sum =
          static_cast<double>(series.latency_sum_nanos.load(std::memory_order_relaxed)) / 1e9;
      fmt::format_to(append,
                     "pathfinder_request_duration_seconds_sum{{rpc=\"{}\",transport=\"{}\"}} {}\n",
                     kMetricsRpcNames[r], transport, number(sum));
      fmt::format_to(
          append, "pathfinder_request_duration_seconds_count{{rpc=\"{}\",transport=\"{}\"}} {}\n",
          kMetricsRpcNames[r], transport, cumulative);
    }
  }

  const FieldCacheStats& cache = gauges.field_cache;
  single(out, "pathfinder_field_cache_hits_total", "Distance field cache lookups that hit.",
         "counter", cache.hits);
  single(out, "pathfinder_field_cache_misses_total", "Distance field cache lookups that missed.",
         "counter", cache.misses);
  single(out, "pathfinder_field_cache_evictions_total",
         "Distance fields dropped to make room in the cache budget.", "counter", cache.evictions);
  single(out, "pathfinder_field_cache_entries", "Distance fields held in the cache.", "gauge",
         cache.entries);
  single(out, "pathfinder_field_cache_bytes",
         "Bytes charged to the cache budget for the distance fields held in the cache.", "gauge",
         cache.bytes);
  single(out, "pathfinder_field_cache_budget_bytes",
         "Byte budget the distance field cache shares with the other caches "
         "(pathfinder_cache_budget_bytes).",
         "gauge", cache.budget_bytes);
  single(out, "pathfinder_fields_computed_total", "Distance fields filled on a cache miss.",
         "counter", cache.fields_computed);
  single(out, "pathfinder_field_compute_seconds_total",
         "Time spent filling distance fields, in seconds.", "counter",
         number(cache.compute_seconds));
  single(out, "pathfinder_field_fills_interrupted_total",
         "Fills stopped because no caller wanted them any more (deadline, cancel, shutdown).",
         "counter", cache.fills_interrupted);
  single(out, "pathfinder_field_cache_oversized_total",
         "Fields larger than the whole cache budget: served, not kept.", "counter",
         cache.oversized);
  single(out, "pathfinder_field_shared_waits_total",
         "Requests that waited for another request's fill of the same field (single flight).",
         "counter", cache.shared_waits);
  single(out, "pathfinder_build_waits_expired_total",
         "Calls whose deadline passed while they waited for a shared build (distance field, "
         "any-angle structure, usable mask); the build went on for the cache.",
         "counter", gauges.build_deadline_give_ups);
  single(out, "pathfinder_anyangle_structures_built_total",
         "Any-angle structures built (SMOOTHING_ANY_ANGLE's per-mask structure, by FindPath, "
         "BatchFindPaths or PrepareMask).",
         "counter", gauges.any_angle_structures_built);
  single(out, "pathfinder_cache_budget_bytes",
         "The one byte budget (--cache-mb) of every cache: fields, labels, routes, paths, "
         "any-angle meshes, usable masks, nearest transforms.",
         "gauge", gauges.cache_budget_bytes);
  help_type(out, "pathfinder_cache_bytes",
            "Bytes charged to the cache budget, by cache (their sum stays within "
            "pathfinder_cache_budget_bytes).",
            "gauge");
  for (const CacheUsage& usage : gauges.caches) {
    fmt::format_to(append, "pathfinder_cache_bytes{{cache=\"{}\"}} {}\n", usage.name, usage.bytes);
  }
  help_type(out, "pathfinder_cache_evictions_total",
            "Entries dropped to make room in the cache budget (or beyond a cache's entry limit), "
            "by cache.",
            "counter");
  for (const CacheUsage& usage : gauges.caches) {
    fmt::format_to(append, "pathfinder_cache_evictions_total{{cache=\"{}\"}} {}\n", usage.name,
                   usage.evictions);
  }
  single(out, "pathfinder_masks_stored", "Masks in the mask store.", "gauge", gauges.masks_stored);
  single(out, "pathfinder_mask_bytes",
         "Bytes of the area grids of the stored masks (width*height each).", "gauge",
         gauges.mask_bytes);
  single(out, "pathfinder_masks_corrupt",
         "Masks whose stored file was unreadable at start-up (answered with DATA_LOSS until "
         "uploaded again or deleted).",
         "gauge", gauges.masks_corrupt);
  single(out, "pathfinder_component_cache_entries", "Component labellings cached for Reachable.",
         "gauge", gauges.component_cache_entries);
  single(out, "pathfinder_route_cache_entries", "Stitched StandardMove routes cached.", "gauge",
         gauges.route_cache_entries);
  single(out, "pathfinder_path_cache_entries", "FindPath answers cached.", "gauge",
         gauges.path_cache_entries);
  // The usual *_build_info shape: constant 1, the facts in the labels (both
  // versions are digits and dots, nothing to escape).
  help_type(out, "pathfinder_build_info",
            "Always 1; the labels give the server's version and the gRPC library's.", "gauge");
  fmt::format_to(append, "pathfinder_build_info{{version=\"{}\",grpc=\"{}\"}} 1\n",
                 pathfinder_version(), grpc::Version());
  return out;
}

}  // namespace pathserver
