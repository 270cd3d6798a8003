#include "support/random_mask.h"

#include <vector>

namespace pathtest {

pathcore::Mask random_mask(std::mt19937_64& rng, std::uint32_t width, std::uint32_t height,
                           double obstacle_ratio, int area_count) {
  std::bernoulli_distribution blocked(obstacle_ratio);
  std::uniform_int_distribution<int> area(1, area_count);
  std::vector<std::uint8_t> areas(static_cast<std::size_t>(width) * height);
  for (auto& id : areas) {
    id = blocked(rng) ? 0 : static_cast<std::uint8_t>(area(rng));
  }
  return pathcore::Mask(width, height, std::move(areas));
}

pathcore::Point random_point(std::mt19937_64& rng, const pathcore::Mask& mask) {
  std::uniform_int_distribution<std::int32_t> x(0, static_cast<std::int32_t>(mask.width()) - 1);
  std::uniform_int_distribution<std::int32_t> y(0, static_cast<std::int32_t>(mask.height()) - 1);
  return {x(rng), y(rng)};
}

}  // namespace pathtest
