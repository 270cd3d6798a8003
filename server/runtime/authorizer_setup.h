#pragma once

#include "runtime/auth.h"
#include "runtime/config.h"

namespace pathserver {

// The Authorizer of the token flags, else of $PATHFINDER_ADMIN_TOKEN (admin
// only), after the policy check for non-loopback addresses (no admin token
// there needs --allow-unauthenticated-writes). Throws StartupError.
[[nodiscard]] Authorizer make_authorizer(const ServerConfig& config);

}  // namespace pathserver
