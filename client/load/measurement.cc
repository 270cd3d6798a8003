#include "measurement.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace pathfinder::load {

// ---- LatencyHistogram ------------------------------------------------------

namespace {
constexpr std::size_t kSubBuckets = std::size_t{1} << 6;
}  // namespace

LatencyHistogram::LatencyHistogram()
    : buckets_(kSubBuckets + static_cast<std::size_t>(kMaxBits - kSubBucketBits) * kSubBuckets) {}

std::size_t LatencyHistogram::bucket_of(std::uint64_t value) {
  if (value < kSubBuckets) return static_cast<std::size_t>(value);
  const int msb = std::bit_width(value) - 1;  // >= kSubBucketBits
  if (msb >= kMaxBits) {
    return kSubBuckets + static_cast<std::size_t>(kMaxBits - kSubBucketBits) * kSubBuckets - 1;
  }
  const int shift = msb - kSubBucketBits;
  const std::uint64_t top = value >> shift;  // in [64, 128)
  return kSubBuckets + static_cast<std::size_t>(shift) * kSubBuckets +
         static_cast<std::size_t>(top - kSubBuckets);
}

std::uint64_t LatencyHistogram::upper_edge(std::size_t bucket) {
  if (bucket < kSubBuckets) return bucket;
  const std::size_t shift = (bucket - kSubBuckets) / kSubBuckets;
  const std::uint64_t top = kSubBuckets + (bucket - kSubBuckets) % kSubBuckets;
  return ((top + 1) << shift) - 1;
}

void LatencyHistogram::record(std::uint64_t nanoseconds) {
  ++buckets_[bucket_of(nanoseconds)];
  ++count_;
  max_ = std::max(max_, nanoseconds);
  sum_ += static_cast<long double>(nanoseconds);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ / static_cast<long double>(count_));
}

std::uint64_t LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const auto target = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= target) return std::min(upper_edge(i), max_);
  }
  return max_;
}
// ---- CPU time --------------------------------------------------------------

// CPU time (user + system) of this process, in seconds.
double self_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// CPU time of process pid from /proc/PID/stat, in seconds; -1 when unreadable.
double process_cpu_seconds(int pid) {
  if (pid <= 0) return -1;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');  // the command name may hold spaces
  if (paren == std::string::npos || paren + 2 > text.size()) return -1;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  double utime = -1;
  double stime = -1;
  // Fields after the name start at field 3 (state); utime is 14, stime 15.
  for (int number = 3; number <= 15 && (fields >> field); ++number) {
    if (number == 14) utime = std::stod(field);
    if (number == 15) stime = std::stod(field);
  }
  if (utime < 0 || stime < 0) return -1;
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace pathfinder::load
