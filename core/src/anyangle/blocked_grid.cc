#include "anyangle/blocked_grid.h"

namespace pathcore {

std::vector<std::uint8_t> BlockedGrid::padded_cells(const Mask& mask, AreaSet enabled) {
  const std::size_t stride = std::size_t{mask.width()} + 2;
  std::vector<std::uint8_t> cells(stride * (std::size_t{mask.height()} + 2), 1);
  const std::vector<std::uint8_t>& areas = mask.areas();
  for (std::size_t y = 0; y < mask.height(); ++y) {
    std::uint8_t* row = cells.data() + (y + 1) * stride + 1;
    const std::uint8_t* area = areas.data() + y * mask.width();
    for (std::size_t x = 0; x < mask.width(); ++x) {
      row[x] = ((enabled >> area[x]) & 1U) != 0 ? 0 : 1;
    }
  }
  return cells;
}

}  // namespace pathcore
