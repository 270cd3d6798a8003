#pragma once

// A free port on 127.0.0.1 held by a listening socket of the test's own
// (closed on destruction), for tests of what a server does when its port is
// taken.

namespace pathtest {

class HeldPort {
 public:
  HeldPort();  // throws std::runtime_error when no port can be held
  ~HeldPort();
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  [[nodiscard]] int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace pathtest
