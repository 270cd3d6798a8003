#pragma once

#include <string>
#include <vector>

#include "pathcore/mask.h"

namespace pathtest {

// A mask drawn as text, one string per row, all of the same length: '#' is
// blocked (area 0), '.' is area 1, a digit is that area id (so '0' is
// blocked too). Any other character throws std::invalid_argument, so a typo
// in a drawn mask fails the test instead of drawing a different map.
[[nodiscard]] pathcore::Mask mask_from_rows(const std::vector<std::string>& rows);

}  // namespace pathtest
