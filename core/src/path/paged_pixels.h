#pragma once
// One value per pixel of a mask, kept only for the pixels written: pages of
// 4,096 pixels allocated (value-initialised) on the first write, so a search
// that touches a small part of a huge mask costs that part, plus a table of
// one pointer per page.

#include <cstddef>
#include <memory>
#include <vector>

namespace pathcore {

template <typename T>
class PagedPixels {
 public:
  explicit PagedPixels(std::size_t pixel_count) : pages_((pixel_count >> kPageBits) + 1) {}

  // T{} for a pixel never written.
  [[nodiscard]] T get(std::size_t i) const {
    const auto& page = pages_[i >> kPageBits];
    return page ? page[i & kOffsetMask] : T{};
  }
  // The pixel's value, its page allocated if need be.
  T& at(std::size_t i) {
    auto& page = pages_[i >> kPageBits];
    if (!page) page = std::make_unique<T[]>(kPageSize);
    return page[i & kOffsetMask];
  }

 private:
  static constexpr std::size_t kPageBits = 12;
  static constexpr std::size_t kPageSize = std::size_t{1} << kPageBits;
  static constexpr std::size_t kOffsetMask = kPageSize - 1;
  std::vector<std::unique_ptr<T[]>> pages_;
};

}  // namespace pathcore
