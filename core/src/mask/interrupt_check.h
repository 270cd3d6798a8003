#pragma once

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
  // Holds a reference: a temporary check would dangle.
  explicit InterruptCheck(std::function<bool()>&&) = delete;

  void after(std::size_t work) {
    if (!interrupt_) return;
    done_ += work;
    if (done_ < kEvery) return;
    done_ = 0;
    if (interrupt_()) throw Interrupted();
  }

 private:
  static constexpr std::size_t kEvery = std::size_t{1} << 14;
  const std::function<bool()>& interrupt_;
  std::size_t done_ = 0;
};

}  // namespace pathcore
