#include "http/cors.h"

namespace pathserver::http {

bool CorsPolicy::allows(std::string_view origin) const {
  if (origin.empty()) return false;
  for (const std::string& allowed : origins_) {
    if (allowed == "*" || allowed == origin) return true;
  }
  return false;
}

}  // namespace pathserver::http
