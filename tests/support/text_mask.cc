#include "support/text_mask.h"

#include <cstdint>
#include <stdexcept>
#include <utility>

namespace pathtest {

pathcore::Mask mask_from_rows(const std::vector<std::string>& rows) {
  if (rows.empty() || rows.front().empty()) throw std::invalid_argument("an empty drawn mask");
  std::vector<std::uint8_t> areas;
  for (const std::string& row : rows) {
    if (row.size() != rows.front().size()) {
      throw std::invalid_argument("drawn mask rows differ in length: '" + row + "'");
    }
    for (const char c : row) {
      if (c == '#') {
        areas.push_back(0);
      } else if (c == '.') {
        areas.push_back(1);
      } else if (c >= '0' && c <= '9') {
        areas.push_back(static_cast<std::uint8_t>(c - '0'));
      } else {
        throw std::invalid_argument(std::string("drawn mask: unknown character '") + c + "'");
      }
    }
  }
  return pathcore::Mask(static_cast<std::uint32_t>(rows.front().size()),
                        static_cast<std::uint32_t>(rows.size()), std::move(areas));
}

}  // namespace pathtest
