// TraceMemo's state (pathcore/path.h): the corner traces made on one field
// and, for each step a trace turned into, where that trace was then, so a
// later trace that makes the same turn at the same pixel copies the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "path/steps.h"
#include "pathcore/path.h"

namespace pathcore {

struct TraceMemo::State {
  // Where trace `trace` was when it stood at a pixel with a last step: it
  // had kept `points` points (start and corners) so far.
  struct Seen {
    std::uint32_t trace;
    std::uint32_t points;
  };

  // Starts over on another field (or the same one after clear()).
  void bind(const DistanceField& to) {
    if (field != &to || goal != to.goal()) {
      clear();
      field = &to;
      goal = to.goal();
    }
  }

  void clear() {
    field = nullptr;
    std::vector<Path>().swap(traces);
    points_bytes = 0;
    std::vector<Slot>().swap(slots);
    count = 0;
  }

  [[nodiscard]] std::size_t memory_bytes() const {
    return slots.capacity() * sizeof(Slot) + traces.capacity() * sizeof(Path) + points_bytes;
  }

  // Keeps a finished trace (the next index the turns remembered name).
  void add(Path trace) {
    points_bytes += trace.capacity() * sizeof(Point);
    traces.push_back(std::move(trace));
  }

  // What a trace standing at `at` after `last` was seen doing, or null.
  [[nodiscard]] const Seen* find(Point at, Step last) const {
    if (slots.empty()) {
      return nullptr;
    }
    const std::uint64_t wanted = key(at, last);
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = hash(wanted) & mask;; i = (i + 1) & mask) {
      if (slots[i].key == wanted) {
        return &slots[i].seen;
      }
      if (slots[i].key == 0) {
        return nullptr;
      }
    }
  }

  // The trace about to be added to `traces` stands at `at` after `last`,
  // with `points` points kept.
  void remember(Point at, Step last, std::size_t points) {
    if (2 * (count + 1) > slots.size()) {
      grow();
    }
    const std::uint64_t wanted = key(at, last);
    const std::size_t mask = slots.size() - 1;
    std::size_t i = hash(wanted) & mask;
    while (slots[i].key != 0) {
      if (slots[i].key == wanted) {
        return;  // a trace before got here first
      }
      i = (i + 1) & mask;
    }
    slots[i] = {wanted,
                {static_cast<std::uint32_t>(traces.size()), static_cast<std::uint32_t>(points)}};
    ++count;
  }

  const DistanceField* field = nullptr;
  Point goal;
  std::vector<Path> traces;  // add() them

 private:
  struct Slot {
    std::uint64_t key = 0;  // 0: empty
    Seen seen{};
  };

  // Never 0: the pixel's coordinates and the step's (each of -1, 0, 1).
  static std::uint64_t key(Point at, Step last) {
    return ((std::uint64_t{static_cast<std::uint32_t>(at.y)} << 32 |
             static_cast<std::uint32_t>(at.x))
            << 4) |
           static_cast<std::uint64_t>((last.dx + 1) * 3 + (last.dy + 1) + 1);
  }
  static std::size_t hash(std::uint64_t key) {
    const std::uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }

  void grow() {
    std::vector<Slot> old(slots.empty() ? 1024 : slots.size() * 2);
    old.swap(slots);
    const std::size_t mask = slots.size() - 1;
    for (const Slot& slot : old) {
      if (slot.key == 0) {
        continue;
      }
      std::size_t i = hash(slot.key) & mask;
      while (slots[i].key != 0) {
        i = (i + 1) & mask;
      }
      slots[i] = slot;
    }
  }

  std::vector<Slot> slots;
  std::size_t count = 0;
  std::size_t points_bytes = 0;  // held by the traces' points
};

}  // namespace pathcore
