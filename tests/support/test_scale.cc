#include "support/test_scale.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pathtest {

std::size_t test_stride() {
#ifdef PATHFINDER_SANITIZE
  constexpr std::size_t kDefault = 4;
#else
  constexpr std::size_t kDefault = 1;
#endif
  const char* env = std::getenv("PATHFINDER_TEST_STRIDE");
  if (env == nullptr || *env == '\0') return kDefault;
  char* end = nullptr;
  const unsigned long long stride = std::strtoull(env, &end, 10);
  if (*end != '\0' || stride < 1) {
    throw std::invalid_argument("PATHFINDER_TEST_STRIDE must be a whole number >= 1, not '" +
                                std::string(env) + "'");
  }
  return static_cast<std::size_t>(stride);
}

}  // namespace pathtest
