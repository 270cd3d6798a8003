#pragma once

#include <cstddef>

namespace pathtest {

// How much of their case list the heaviest replay tests run (the Moving AI
// scenarios), as a stride: every test_stride()-th case. 1 (everything) in a
// normal build; 4 in a sanitizer build (PATHFINDER_SANITIZE), where the
// instrumented flood fills run several times slower and a quarter of the
// scenarios still covers every map. The environment variable
// PATHFINDER_TEST_STRIDE (a whole number >= 1) overrides both, e.g.
// PATHFINDER_TEST_STRIDE=1 for a full sanitizer run.
[[nodiscard]] std::size_t test_stride();

}  // namespace pathtest
