#include "support/http_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace pathtest {

namespace {

// A TCP connection to 127.0.0.1:port whose sends and receives give up after
// 10 s. Throws std::runtime_error (closing the socket) when it fails.
int connect_to_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  timeval timeout{};
  timeout.tv_sec = 10;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + ": " +
                             std::strerror(error));
  }
  return fd;
}

void send_all(int fd, const std::string& bytes) {
  for (std::size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace

HttpResponse http_request(int port, const std::string& method, const std::string& path) {
  const int fd = connect_to_loopback(port);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  send_all(fd, method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  std::string raw;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < 0) throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
    if (n == 0) break;
    raw.append(buffer, static_cast<std::size_t>(n));
  }
  const auto end_of_headers = raw.find("\r\n\r\n");
  if (!raw.starts_with("HTTP/1.") || end_of_headers == std::string::npos || raw.size() < 12) {
    throw std::runtime_error("not an HTTP response: '" + raw.substr(0, 200) + "'");
  }
  HttpResponse response;
  response.status = std::stoi(raw.substr(9, 3));
  response.headers = raw.substr(0, end_of_headers);
  response.body = raw.substr(end_of_headers + 4);
  return response;
}

StalledHttpRequest::StalledHttpRequest(int port, const std::string& partial)
    : fd_(connect_to_loopback(port)) {
  try {
    send_all(fd_, partial);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

StalledHttpRequest::~StalledHttpRequest() { ::close(fd_); }

bool StalledHttpRequest::waiting() const {
  char byte = 0;
  // Nothing to read and no end of stream: the server still waits for the rest.
  const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

}  // namespace pathtest
