#pragma once

// What `pathfinder-load` measures besides counting calls: the latency
// histogram, and the CPU time the generator and the server spend.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pathfinder::load {

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

// CPU time (user + system) of this process, in seconds.
[[nodiscard]] double self_cpu_seconds();

// CPU time of process pid from /proc/PID/stat, in seconds; -1 when unreadable.
[[nodiscard]] double process_cpu_seconds(int pid);

}  // namespace pathfinder::load
