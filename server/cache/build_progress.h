#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "pathcore/mask.h"

namespace pathserver {

// What one shared build makes ("distance field for mask 'x' rev 3 toward
// (5, 7)") and how far it has come, readable by any thread: the calls that
// give up waiting for it say so in their answer, and PrepareMask streams it.
class BuildProgress {
 public:
  BuildProgress() = default;
  explicit BuildProgress(std::string what) : what_(std::move(what)) {}
  BuildProgress(const BuildProgress&) = delete;
  BuildProgress& operator=(const BuildProgress&) = delete;

  [[nodiscard]] const std::string& what() const { return what_; }
  void set_what(std::string what) { what_ = std::move(what); }
  void report(double fraction) {
    fraction_.store(fraction, std::memory_order_relaxed);
    reported_.store(true, std::memory_order_relaxed);
  }
  [[nodiscard]] double fraction() const { return fraction_.load(std::memory_order_relaxed); }
  // A core builder's progress report that lands here (this must outlive it).
  [[nodiscard]] pathcore::ProgressReport reporter() {
    return [this](double fraction) { report(fraction); };
  }
  // "any-angle structure for mask 'x' rev 3: 40% built"; before the first
  // report (or for a builder that reports none) "...: building".
  [[nodiscard]] std::string describe() const {
    if (!reported_.load(std::memory_order_relaxed)) return what_ + ": building";
    return what_ + ": " + std::to_string(static_cast<int>(std::floor(fraction() * 100))) +
           "% built";
  }

 private:
  std::string what_;
  std::atomic<double> fraction_{0};
  std::atomic<bool> reported_{false};
};

// "component labels for mask 'x' rev 3": how answers and progress name a
// build of `kind` for a mask revision.
[[nodiscard]] inline std::string build_name(const std::string& kind, const std::string& mask,
                                            std::uint64_t revision) {
  return kind + " for mask '" + mask + "' rev " + std::to_string(revision);
}

}  // namespace pathserver
