#pragma once

#include <stdexcept>

namespace pathserver {

// The server's exit status for a bad command line (a flag's value, or flags
// that do not go together); 1 is any other start-up failure.
inline constexpr int kExitUsage = 2;

// A start-up problem worth a clear message and a non-zero exit (main logs
// what() as "startup failed: ..." and exits 1).
class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A start-up problem in the command line itself, found after parsing (flags
// that do not go together, an address that is not HOST:PORT): exit kExitUsage.
class UsageError : public StartupError {
 public:
  using StartupError::StartupError;
};

}  // namespace pathserver
