#pragma once

#include <string_view>

namespace pathserver {

// The project version CMake was configured with (project(... VERSION)), e.g. "0.1.0".
[[nodiscard]] std::string_view pathfinder_version();

}  // namespace pathserver
