#include "support/prometheus_text.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace pathtest {
namespace {

bool metric_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':') return false;
  }
  return true;
}

// The family of a sample name: histogram samples carry a suffix.
std::string family_of(const std::string& name, const PrometheusText& parsed) {
  if (parsed.types.contains(name)) return name;
  for (const std::string_view suffix : {"_bucket", "_sum", "_count"}) {
    if (name.ends_with(suffix)) {
      const std::string base = name.substr(0, name.size() - suffix.size());
      if (const auto it = parsed.types.find(base);
          it != parsed.types.end() && it->second == "histogram") {
        return base;
      }
    }
  }
  return {};
}

// Checks a label block "{a=\"x\",b=\"y\"}" (braces included).
bool labels_ok(std::string_view labels) {
  if (labels.size() < 2 || labels.front() != '{' || labels.back() != '}') return false;
  labels = labels.substr(1, labels.size() - 2);
  while (!labels.empty()) {
    const auto eq = labels.find('=');
    if (eq == std::string_view::npos || !metric_name(labels.substr(0, eq))) return false;
    labels.remove_prefix(eq + 1);
    if (labels.empty() || labels.front() != '"') return false;
    std::size_t i = 1;
    while (i < labels.size() && labels[i] != '"') i += labels[i] == '\\' ? 2 : 1;
    if (i >= labels.size()) return false;
    labels.remove_prefix(i + 1);
    if (!labels.empty()) {
      if (labels.front() != ',') return false;
      labels.remove_prefix(1);
    }
  }
  return true;
}

}  // namespace

PrometheusText parse_prometheus_text(const std::string& text) {
  if (!text.empty() && text.back() != '\n') throw std::runtime_error("no final newline");
  PrometheusText parsed;
  std::size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    const auto fail = [&](const std::string& why) {
      throw std::runtime_error("line " + std::to_string(number) + " '" + line + "': " + why);
    };
    if (line.empty()) fail("empty line");
    if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
      const std::string rest = line.substr(7);
      const auto space = rest.find(' ');
      if (space == std::string::npos) fail("no text after the name");
      const std::string name = rest.substr(0, space);
      if (!metric_name(name)) fail("bad metric name");
      if (line[2] == 'H') {
        parsed.help[name] = rest.substr(space + 1);
      } else {
        const std::string type = rest.substr(space + 1);
        if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" &&
            type != "untyped") {
          fail("unknown type");
        }
        if (!parsed.types.emplace(name, type).second) fail("second TYPE line");
      }
      continue;
    }
    if (line.starts_with("#")) continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos) fail("no value");
    const std::string series = line.substr(0, space);
    const std::string value_text = line.substr(space + 1);
    const auto brace = series.find('{');
    const std::string name = series.substr(0, brace);
    if (!metric_name(name)) fail("bad metric name");
    if (brace != std::string::npos && !labels_ok(std::string_view(series).substr(brace))) {
      fail("bad labels");
    }
    if (family_of(name, parsed).empty()) fail("no TYPE line before the sample");
    double value = 0;
    if (value_text == "+Inf") {
      value = HUGE_VAL;
    } else {
      char* parse_end = nullptr;
      value = std::strtod(value_text.c_str(), &parse_end);
      if (value_text.empty() || *parse_end != '\0') fail("bad value");
    }
    if (!parsed.samples.emplace(series, value).second) fail("repeated series");
  }
  return parsed;
}

}  // namespace pathtest
