#include "runtime/authorizer_setup.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "runtime/startup_error.h"

namespace pathserver {
namespace {

// True when the HOST of HOST:PORT is a loopback address: 127.x.x.x,
// localhost, ::1 or [::1]. Anything else (0.0.0.0, [::], a LAN address, a
// host name) may be reachable from other machines.
bool loopback_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  const std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  const bool dotted = host.find_first_not_of("0123456789.") == std::string::npos;
  return (host.starts_with("127.") && dotted) || host == "localhost" || host == "[::1]" ||
         host == "::1";
}

}  // namespace

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
  if (!admin && !config.allow_unauthenticated_writes && !loopback_listen(config.listen)) {
    throw StartupError("refusing to listen on non-loopback address '" + config.listen +
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
