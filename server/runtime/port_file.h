#pragma once

#include <string>

namespace pathserver {

// Writes "<port>\n" to path atomically (temp file in the same dir + rename),
// for --port-file and --metrics-port-file. Throws StartupError.
void write_port_file(const std::string& path, int port);

}  // namespace pathserver
