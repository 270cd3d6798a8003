#pragma once

#include <stdexcept>
#include <string>

namespace pathserver {

// Why a configuration file could not be read: "is a directory",
// "cannot open: No such file or directory", "cannot read". Callers prefix the
// flag or purpose and the path, and rethrow as their own error type.
struct ConfigFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The whole of a small file named on the command line (a token, a PEM
// certificate, a connection string). Throws ConfigFileError.
[[nodiscard]] std::string read_config_file(const std::string& path);

// text without trailing whitespace: editors and `echo` end a one-line secret
// with a newline that is not part of it.
[[nodiscard]] std::string trim_trailing_space(std::string text);

}  // namespace pathserver
