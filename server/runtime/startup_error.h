#pragma once

#include <stdexcept>

namespace pathserver {

// A start-up problem worth a clear message and a non-zero exit (main logs
// what() as "startup failed: ...").
class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pathserver
