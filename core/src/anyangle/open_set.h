#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pathcore {

// The goal table search's open set: a 4-ary min-heap of (key, corner). Four
// children per node halve the depth of a binary heap, and its entries
// compare by key only; on the 25%-random Moving AI map (110,000 corners,
// 23 taut edges each) the pops were 7% of a goal's first call in a
// std::priority_queue of pairs.
class OpenSet {
 public:
  struct Entry {
    double key;
    std::uint32_t corner;
  };

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] const Entry& top() const { return heap_.front(); }

  void push(double key, std::uint32_t corner) {
    std::size_t i = heap_.size();
    heap_.push_back({key, corner});
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!(key < heap_[parent].key)) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = {key, corner};
  }

  void pop() {
    const Entry last = heap_.back();
    heap_.pop_back();
    const std::size_t size = heap_.size();
    if (size == 0) return;
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = kArity * i + 1;
      if (first >= size) break;
      std::size_t smallest = first;
      const std::size_t end = first + kArity < size ? first + kArity : size;
      for (std::size_t c = first + 1; c < end; ++c) {
        if (heap_[c].key < heap_[smallest].key) smallest = c;
      }
      if (!(heap_[smallest].key < last.key)) break;
      heap_[i] = heap_[smallest];
      i = smallest;
    }
    heap_[i] = last;
  }

 private:
  static constexpr std::size_t kArity = 4;
  std::vector<Entry> heap_;
};

}  // namespace pathcore
