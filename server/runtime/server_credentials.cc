#include "runtime/server_credentials.h"

#include <grpcpp/security/server_credentials.h>
#include <spdlog/spdlog.h>

#include <string>

#include "runtime/config_file.h"
#include "runtime/startup_error.h"

namespace pathserver {
namespace {

// Reads a whole PEM file named by `flag`. Throws StartupError naming the path.
std::string read_pem_file(const std::string& flag, const std::string& path) {
  std::string contents;
  try {
    contents = read_config_file(path);
  } catch (const ConfigFileError& e) {
    throw StartupError(flag + " '" + path + "': " + e.what());
  }
  if (contents.empty()) throw StartupError(flag + " '" + path + "': is empty");
  return contents;
}

}  // namespace

std::shared_ptr<grpc::ServerCredentials> make_server_credentials(const ServerConfig& config) {
  // parse_config refused --tls-cert without --tls-key (and the other way
  // round), and --tls-client-ca without both.
  if (config.tls_cert.empty()) {
    spdlog::info("transport: plaintext (no TLS)");
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back(
      {read_pem_file("--tls-key", config.tls_key), read_pem_file("--tls-cert", config.tls_cert)});
  if (config.tls_client_ca.empty()) {
    options.client_certificate_request = GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
    spdlog::info("transport: TLS (certificate '{}'), client certificates not requested",
                 config.tls_cert);
  } else {
    options.pem_root_certs = read_pem_file("--tls-client-ca", config.tls_client_ca);
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    spdlog::info(
        "transport: mutual TLS (certificate '{}'), client certificates required and "
        "verified against '{}'",
        config.tls_cert, config.tls_client_ca);
  }
  return grpc::SslServerCredentials(options);
}

}  // namespace pathserver
