#pragma once

// The environment variables `pathfind` and `pathfinder-load` honour, one
// prefix for both: PATHFINDER_SERVER (the server address, when --server is
// not given) and PATHFINDER_TOKEN (the bearer token, when --token-file is
// not given). PATHFIND_TOKEN, the CLI's old name for the token, still works
// with a deprecation warning.

#include <string>

namespace pathfinder::flags {

inline constexpr const char* kServerVariable = "PATHFINDER_SERVER";
inline constexpr const char* kTokenVariable = "PATHFINDER_TOKEN";
inline constexpr const char* kDeprecatedTokenVariable = "PATHFIND_TOKEN";

// The token the environment gives, and what to warn about reading it.
struct EnvironmentToken {
  std::string token;    // empty when neither variable is set
  std::string warning;  // non-empty when PATHFIND_TOKEN is set: it is deprecated
};

// PATHFINDER_TOKEN when set, else PATHFIND_TOKEN (with a warning saying to
// rename it; when both are set, the warning says the old one is ignored).
[[nodiscard]] EnvironmentToken token_from_environment();

}  // namespace pathfinder::flags
