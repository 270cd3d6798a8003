#include "runtime/authorizer_setup.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "runtime/listen_address.h"
#include "runtime/startup_error.h"

namespace pathserver {
Authorizer make_authorizer(const ServerConfig& config) {
  std::optional<std::string> admin;
  std::optional<std::string> client;
  try {
    if (!config.admin_token_file.empty()) {
      admin = read_token_file(config.admin_token_file);
    } else if (const char* env = std::getenv("PATHFINDER_ADMIN_TOKEN"); env != nullptr) {
      std::string token(env);
      while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
        token.pop_back();
      }
      if (token.empty()) throw StartupError("PATHFINDER_ADMIN_TOKEN is set but empty");
      admin = std::move(token);
    }
    if (!config.client_token_file.empty()) {
      client = read_token_file(config.client_token_file);
    }
  } catch (const TokenError& e) {
    throw StartupError(e.what());
  }
  if (!admin && !config.allow_unauthenticated_writes && !is_loopback_address(config.listen)) {
    throw UsageError("refusing to listen on non-loopback address '" + config.listen +
                       "' with no admin token: anyone could upload and delete masks. Pass "
                       "--admin-token-file FILE (or set PATHFINDER_ADMIN_TOKEN), or "
                       "--allow-unauthenticated-writes to accept that");
  }
  spdlog::info("auth: writes {}, queries {}",
               admin ? "need the admin token" : "are open (no admin token)",
               client ? "need the client or admin token" : "are open (no client token)");
  return Authorizer(std::move(admin), std::move(client));
}

}  // namespace pathserver
