#include "corridor.h"

namespace pathcore::detail {

template <typename Word, bool kStop>
CorridorEnd walk_corridor(Word* const grid, const std::uint32_t stride, std::uint32_t index,
                          std::uint32_t level, const std::size_t stop) {
  constexpr auto kUnreached = static_cast<Word>(~Word{0});
  constexpr auto kBlocked = static_cast<Word>(~Word{0} - 1);
  CorridorEnd end;
  while (level + 1 < kBlocked) {
    if constexpr (kStop) {
      if (grid[stop] != kUnreached) {
        end.settled = true;
        break;
      }
    }
    const auto next = static_cast<Word>(level + 1);
    std::size_t t = 0;
    if (grid[index - 1] == kUnreached) {
      grid[index - 1] = next;
      end.found[t++] = index - 1;
    }
    if (grid[index + 1] == kUnreached) {
      grid[index + 1] = next;
      end.found[t++] = index + 1;
    }
    if (grid[index - stride] == kUnreached) {
      grid[index - stride] = next;
      end.found[t++] = index - stride;
    }
    if (grid[index + stride] == kUnreached) {
      grid[index + stride] = next;
      end.found[t++] = index + stride;
    }
    level = next;
    if (t != 1) {
      end.count = t;
      end.level = level;
      return end;
    }
    index = end.found[0];
  }
  end.found[0] = index;
  end.count = 1;
  end.level = level;
  return end;
}

template CorridorEnd walk_corridor<std::uint16_t, false>(std::uint16_t*, std::uint32_t,
                                                         std::uint32_t, std::uint32_t, std::size_t);
template CorridorEnd walk_corridor<std::uint16_t, true>(std::uint16_t*, std::uint32_t,
                                                        std::uint32_t, std::uint32_t, std::size_t);
template CorridorEnd walk_corridor<std::uint32_t, false>(std::uint32_t*, std::uint32_t,
                                                         std::uint32_t, std::uint32_t, std::size_t);
template CorridorEnd walk_corridor<std::uint32_t, true>(std::uint32_t*, std::uint32_t,
                                                        std::uint32_t, std::uint32_t, std::size_t);

}  // namespace pathcore::detail
