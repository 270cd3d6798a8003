// The four-connected unit-cost fill: breadth first, level by level, with
// one-pixel corridors walked in corridor.cc (FieldBuilder::State, fill_state.h).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "field/corridor.h"
#include "field/fill_state.h"

namespace pathcore {

template <typename Word>
void FieldBuilder::State::start_breadth_first() {
  const std::size_t width = mask->width();
  const std::size_t height = mask->height();
  const std::size_t padded_size = stride * (height + 2);
  const AreaSet enabled = field.options_.enabled;
  std::array<Word, kMaxAreaId + 1> initial{};
  for (int id = 0; id <= kMaxAreaId; ++id) {
    initial[static_cast<std::size_t>(id)] =
        ((enabled >> id) & 1U) != 0 ? kUnreached<Word> : kBlocked<Word>;
  }
  DistanceBuffer<Word>& grid = fresh_grid<Word>(padded_size);
  Word* const out = grid.data();
  std::fill(out, out + stride + 1, kBlocked<Word>);
  const std::uint8_t* areas = mask->areas().data();
  for (std::size_t y = 0; y < height; ++y) {
    const std::uint8_t* row = areas + y * width;
    Word* const line = out + (y + 1) * stride + 1;
    for (std::size_t x = 0; x < width; ++x) {
      line[x] = initial[row[x]];
    }
    line[width] = kBlocked<Word>;  // right border, and the next row's left one
    line[width + 1] = kBlocked<Word>;
  }
  std::fill(out + (height + 1) * stride, out + padded_size, kBlocked<Word>);
  field.element_bytes_ = sizeof(Word);
  field.four_ = true;
  field.stride_ = stride;
  field.origin_ = stride + 1;

  frontier.clear();
  next_frontier.clear();
  frontier_position = 0;
  level = 0;
  if (grid[goal_index] == kUnreached<Word>) {
    grid[goal_index] = 0;
    frontier.append(goal_index);
  }
}

template <typename Word, bool kStop, bool kBranchFree>
RunResult FieldBuilder::State::run_breadth_first(std::size_t stop) {
  Word* const distance = words<Word>().data();
  const auto s = static_cast<std::uint32_t>(stride);
  while (frontier.size() > 0) {
    if (interrupted(frontier.size() - frontier_position)) return RunResult::kInterrupted;
    if (frontier.size() == 1 && frontier_position == 0) {
      // A frontier of one pixel: follow the corridor (see corridor.h).
      const detail::CorridorEnd end =
          detail::walk_corridor<Word, kStop>(distance, s, frontier[0], level, stop);
      frontier.clear();
      frontier.reserve_more(end.count);
      std::copy(end.found.begin(), end.found.begin() + static_cast<std::ptrdiff_t>(end.count),
                frontier.data());
      frontier.resize(end.count);
      level = end.level;
      if (end.settled) {
        return RunResult::kSettled;
      }
      if (end.count == 0) {
        break;
      }
    }
    const auto next = static_cast<Word>(level + 1);
    if (next >= kBlocked<Word>) {
      return RunResult::kOverflow;
    }
    const std::size_t count = frontier.size();
    // Each pixel finds at most 4 new ones.
    next_frontier.reserve_more(4 * (count - frontier_position));
    const std::uint32_t* const current = frontier.data();
    std::uint32_t* const found = next_frontier.data();
    std::size_t t = next_frontier.size();
    std::size_t h = frontier_position;
    bool settled = false;
    for (; h < count; ++h) {
      if constexpr (kStop) {
        if (distance[stop] != kUnreached<Word>) {
          settled = true;
          break;
        }
      }
      const std::uint32_t index = current[h];
      const auto relax = [&](std::uint32_t neighbour) __attribute__((always_inline)) {
        const Word old = distance[neighbour];
        if constexpr (kBranchFree) {
          std::size_t fresh = old == kUnreached<Word> ? 1 : 0;
          keep_branch_free(fresh);
          distance[neighbour] = static_cast<Word>(old ^ ((old ^ next) & (0 - fresh)));
          found[t] = neighbour;
          t += fresh;
        } else if (old == kUnreached<Word>) {
          distance[neighbour] = next;
          found[t++] = neighbour;
        }
      };
      relax(index - 1);
      relax(index + 1);
      relax(index - s);
      relax(index + s);
    }
    next_frontier.resize(t);
    frontier_position = h;
    if (settled) {
      return RunResult::kSettled;
    }
    std::swap(frontier, next_frontier);
    next_frontier.clear();
    frontier_position = 0;
    level = next;
  }
  if constexpr (kStop) {
    if (distance[stop] != kUnreached<Word>) return RunResult::kSettled;
  }
  return RunResult::kExhausted;
}

// run_breadth_first with the loop this mask takes, to `stop` (0: to the end).
template <typename Word>
RunResult FieldBuilder::State::run_breadth_first_dispatch(std::size_t stop) {
  const bool to_end = stop == 0;
  if (branch_free) {
    return to_end ? run_breadth_first<Word, false, true>(0)
                  : run_breadth_first<Word, true, true>(stop);
  }
  return to_end ? run_breadth_first<Word, false, false>(0)
                : run_breadth_first<Word, true, false>(stop);
}

// Runs the breadth-first fill until stop is reached (or to the end when
// stop is 0, which is always a border pixel), widening 16-bit distances to
// 32 bits (and starting over) when they overflow.
bool FieldBuilder::State::run_breadth_first_until(std::size_t stop) {
  if (method == Method::kBreadthFirst16) {
    const RunResult result = run_breadth_first_dispatch<std::uint16_t>(stop);
    if (result == RunResult::kInterrupted) throw Interrupted();
    if (result != RunResult::kOverflow) {
      return result == RunResult::kSettled;
    }
    method = Method::kBreadthFirst32;
    start_breadth_first<std::uint32_t>();
  }
  const RunResult result = run_breadth_first_dispatch<std::uint32_t>(stop);
  if (result == RunResult::kInterrupted) throw Interrupted();
  if (result == RunResult::kOverflow) {
    throw InvalidArgument("distances overflow 32 bits");  // unreachable for valid masks
  }
  return result == RunResult::kSettled;
}

template void FieldBuilder::State::start_breadth_first<std::uint16_t>();
template void FieldBuilder::State::start_breadth_first<std::uint32_t>();

}  // namespace pathcore
