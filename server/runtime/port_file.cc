#include "runtime/port_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <system_error>

#include "runtime/startup_error.h"

namespace pathserver {

void write_port_file(const std::string& path, int port) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << port << '\n';
    out.flush();
    if (!out) {
      throw StartupError("cannot write port file '" + temp +
                         "': " + std::generic_category().message(errno));
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw StartupError("cannot rename '" + temp + "' to port file '" + path +
                       "': " + std::generic_category().message(error));
  }
}

}  // namespace pathserver
