#include "client_environment.h"

#include <cstdlib>

namespace pathfinder::flags {

EnvironmentToken token_from_environment() {
  EnvironmentToken result;
  const char* current = std::getenv(kTokenVariable);
  const char* deprecated = std::getenv(kDeprecatedTokenVariable);
  if (current != nullptr) result.token = current;
  if (deprecated != nullptr) {
    result.warning = std::string(kDeprecatedTokenVariable) + " is deprecated: set " +
                     kTokenVariable + " instead";
    if (current != nullptr) {
      result.warning += " (" + std::string(kDeprecatedTokenVariable) + " is ignored, " +
                        kTokenVariable + " is set)";
    } else {
      result.token = deprecated;
    }
  }
  return result;
}

}  // namespace pathfinder::flags
