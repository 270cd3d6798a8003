#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

#include "pathcore/mask.h"

namespace pathcore {

// Calls a caller's interrupt check about every 16,384 units of work (pixels
// scanned, filled or marked), as FieldBuilder does, and throws Interrupted
// when it says stop. An empty check costs one test per call of after().
// In mask/, the bottom folder, so every folder's long loops can use it.
class InterruptCheck {
 public:
  explicit InterruptCheck(const std::function<bool()>& interrupt) : interrupt_(interrupt) {}
  // Also reports, at each check, the work done so far over `total` (all the
  // units the computation will count) to `progress` when it is set.
  InterruptCheck(const std::function<bool()>& interrupt, const ProgressReport& progress,
                 std::size_t total)
      : interrupt_(interrupt), progress_(&progress), total_(total == 0 ? 1 : total) {}
  // Hold references: a temporary check or report would dangle.
  explicit InterruptCheck(std::function<bool()>&&) = delete;
  InterruptCheck(const std::function<bool()>&, ProgressReport&&, std::size_t) = delete;

  void after(std::size_t work) {
    const bool reporting = progress_ != nullptr && *progress_;
    if (!interrupt_ && !reporting) return;
    done_ += work;
    if (done_ < kEvery) return;
    all_done_ += done_;
    done_ = 0;
    if (reporting) {
      (*progress_)(std::min(0.99, static_cast<double>(all_done_) / static_cast<double>(total_)));
    }
    if (interrupt_ && interrupt_()) throw Interrupted();
  }

 private:
  static constexpr std::size_t kEvery = std::size_t{1} << 14;
  const std::function<bool()>& interrupt_;
  const ProgressReport* progress_ = nullptr;
  std::size_t total_ = 1;
  std::size_t done_ = 0;      // since the last check
  std::size_t all_done_ = 0;  // before the last check
};

}  // namespace pathcore
