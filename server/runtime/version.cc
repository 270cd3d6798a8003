#include "runtime/version.h"

// Set by server/CMakeLists.txt from PROJECT_VERSION, for this file only, so
// a version bump recompiles one file.
#ifndef PATHFINDER_VERSION
#error "PATHFINDER_VERSION must be defined (server/CMakeLists.txt)"
#endif

namespace pathserver {

std::string_view pathfinder_version() { return PATHFINDER_VERSION; }

}  // namespace pathserver
