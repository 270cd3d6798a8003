#pragma once

// A strict reader of the Prometheus text exposition format 0.0.4, for tests.

#include <map>
#include <string>

namespace pathtest {

struct PrometheusText {
  // "name{label=\"value\",...}" (exactly as written) -> value.
  std::map<std::string, double> samples;
  // Metric family -> type from its "# TYPE" line ("counter", "gauge", "histogram").
  std::map<std::string, std::string> types;
  // Metric family -> its "# HELP" text.
  std::map<std::string, std::string> help;
};

// Parses text. Throws std::runtime_error naming the line when a line is not
// a comment, a HELP/TYPE line or "name[{labels}] value", when a sample has no
// TYPE line before it, when a series repeats, or when the text does not end
// with a newline.
[[nodiscard]] PrometheusText parse_prometheus_text(const std::string& text);

}  // namespace pathtest
