#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "runtime/config.h"

namespace pathserver {

// Insecure credentials, or TLS (mutual TLS with --tls-client-ca) from the PEM
// files of the flags (which parse_config checked go together). Throws
// StartupError.
[[nodiscard]] std::shared_ptr<grpc::ServerCredentials> make_server_credentials(
    const ServerConfig& config);

}  // namespace pathserver
