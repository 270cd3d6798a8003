#include "report.h"

#include <grpcpp/support/status.h>

#include <cstdio>

#include "pathfinder/client.h"

namespace pathfinder::load {

namespace {

std::string number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace

double RunReport::client_cpu_us_per_request() const {
  return requests == 0 ? -1.0 : client_cpu_seconds * 1e6 / static_cast<double>(requests);
}

double RunReport::server_cpu_us_per_request() const {
  return requests == 0 || server_cpu_seconds < 0
             ? -1.0
             : server_cpu_seconds * 1e6 / static_cast<double>(requests);
}

double cpu_ratio(const RunReport& baseline, const RunReport& target) {
  if (baseline.server_cpu_us_per_request() < 0 || target.server_cpu_us_per_request() < 0) {
    return -1;
  }
  const double base = baseline.client_cpu_us_per_request() + baseline.server_cpu_us_per_request();
  const double cost = target.client_cpu_us_per_request() + target.server_cpu_us_per_request();
  return cost > 0 ? base / cost : -1;
}

std::string format_report(const RunReport& report) {
  std::string text = report.rpc + ": " + std::to_string(report.requests) + " requests in " +
                     number(report.elapsed_seconds, 3) + " s, " +
                     number(report.requests_per_second, 1) + " requests/s (engine " +
                     report.engine + ", concurrency " + std::to_string(report.concurrency) +
                     ", channels " + std::to_string(report.channels);
  if (report.rate > 0) text += ", rate " + number(report.rate, 1) + "/s";
  text += ")\n";
  text += "  ok " + std::to_string(report.ok) + ", errors " + std::to_string(report.errors());
  for (std::size_t code = 1; code < report.by_code.size(); ++code) {
    if (report.by_code[code] != 0) {
      text += ", " + status_code_name(static_cast<grpc::StatusCode>(code)) + " " +
              std::to_string(report.by_code[code]);
    }
  }
  text += "\n  latency us: p50 " + std::to_string(report.p50_us) + "  p90 " +
          std::to_string(report.p90_us) + "  p99 " + std::to_string(report.p99_us) + "  max " +
          std::to_string(report.max_us) + "  mean " + number(report.mean_us, 1);
  if (report.rpc == "find-warm" || report.rpc == "find-cold" || report.rpc == "standard-move") {
    text += "\n  answers: cache_hit " + std::to_string(report.cache_hits) + ", found=false " +
            std::to_string(report.not_found) + " (of " + std::to_string(report.ok) + " ok)";
  }
  const double elapsed = report.elapsed_seconds > 0 ? report.elapsed_seconds : 1;
  text += "\n  cpu: generator " + number(report.client_cpu_seconds, 2) + " s (" +
          number(report.client_cpu_seconds / elapsed, 2) + " cores, " +
          number(report.client_cpu_us_per_request(), 1) + " us/call)";
  if (report.server_cpu_seconds >= 0) {
    text += ", server " + number(report.server_cpu_seconds, 2) + " s (" +
            number(report.server_cpu_seconds / elapsed, 2) + " cores, " +
            number(report.server_cpu_us_per_request(), 1) + " us/call)";
  }
  if (!report.connected) text += "\n  warning: not every channel connected before the run";
  return text;
}

std::string report_json(const RunReport& report) {
  std::string json =
      "{\"rpc\":\"" + report.rpc + "\",\"engine\":\"" + report.engine +
      "\",\"concurrency\":" + std::to_string(report.concurrency) +
      ",\"channels\":" + std::to_string(report.channels) + ",\"rate\":" + number(report.rate, 3) +
      ",\"elapsed_s\":" + number(report.elapsed_seconds, 6) +
      ",\"requests\":" + std::to_string(report.requests) + ",\"ok\":" + std::to_string(report.ok) +
      ",\"errors\":" + std::to_string(report.errors()) + ",\"errors_by_code\":{";
  bool first = true;
  for (std::size_t code = 1; code < report.by_code.size(); ++code) {
    if (report.by_code[code] == 0) continue;
    json += std::string(first ? "" : ",") + "\"" +
            status_code_name(static_cast<grpc::StatusCode>(code)) +
            "\":" + std::to_string(report.by_code[code]);
    first = false;
  }
  json += "},\"requests_per_second\":" + number(report.requests_per_second, 3) +
          ",\"latency_us\":{\"p50\":" + std::to_string(report.p50_us) +
          ",\"p90\":" + std::to_string(report.p90_us) +
          ",\"p99\":" + std::to_string(report.p99_us) +
          ",\"max\":" + std::to_string(report.max_us) + ",\"mean\":" + number(report.mean_us, 3) +
          "}" + ",\"cache_hits\":" + std::to_string(report.cache_hits) +
          ",\"not_found\":" + std::to_string(report.not_found) +
          ",\"client_cpu_s\":" + number(report.client_cpu_seconds, 3) + ",\"server_cpu_s\":" +
          (report.server_cpu_seconds >= 0 ? number(report.server_cpu_seconds, 3) : "null") +
          ",\"client_cpu_us_per_request\":" +
          (report.requests > 0 ? number(report.client_cpu_us_per_request(), 3) : "null") +
          ",\"server_cpu_us_per_request\":" +
          (report.server_cpu_us_per_request() >= 0 ? number(report.server_cpu_us_per_request(), 3)
                                                   : "null") +
          ",\"connected\":" + (report.connected ? "true" : "false") + "}";
  return json;
}

}  // namespace pathfinder::load
