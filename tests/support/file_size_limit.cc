#include "support/file_size_limit.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace pathtest {

FileSizeLimit::FileSizeLimit(rlim_t bytes) {
  if (::getrlimit(RLIMIT_FSIZE, &previous_limit_) != 0) {
    throw std::runtime_error(std::string("getrlimit: ") + std::strerror(errno));
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigemptyset(&ignore.sa_mask);
  if (::sigaction(SIGXFSZ, &ignore, &previous_action_) != 0) {
    throw std::runtime_error(std::string("sigaction: ") + std::strerror(errno));
  }
  rlimit lowered = previous_limit_;
  lowered.rlim_cur = bytes;  // the hard limit stays, so the destructor can raise it back
  if (::setrlimit(RLIMIT_FSIZE, &lowered) != 0) {
    const int error = errno;
    ::sigaction(SIGXFSZ, &previous_action_, nullptr);
    throw std::runtime_error(std::string("setrlimit: ") + std::strerror(error));
  }
}

FileSizeLimit::~FileSizeLimit() {
  ::setrlimit(RLIMIT_FSIZE, &previous_limit_);
  ::sigaction(SIGXFSZ, &previous_action_, nullptr);
}

}  // namespace pathtest
