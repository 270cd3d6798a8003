#pragma once

// A minimal HTTP/1.1 client for tests (plain POSIX sockets): one request on
// a fresh connection to 127.0.0.1, "Connection: close", read to EOF.

#include <string>

namespace pathtest {

struct HttpResponse {
  int status = 0;       // e.g. 200
  std::string headers;  // the header block, status line included
  std::string body;
};

// Sends `method path` to 127.0.0.1:port and returns the response. Throws
// std::runtime_error when the connection fails or the answer is not HTTP,
// or when nothing arrives for 10 s.
[[nodiscard]] HttpResponse http_request(int port, const std::string& method,
                                        const std::string& path);

// A slow or hostile client: a connection to 127.0.0.1:port that sends
// `partial` (the start of a request) and then nothing more until it is
// destroyed. Throws std::runtime_error when it cannot connect or send.
class StalledHttpRequest {
 public:
  StalledHttpRequest(int port, const std::string& partial);
  ~StalledHttpRequest();
  StalledHttpRequest(const StalledHttpRequest&) = delete;
  StalledHttpRequest& operator=(const StalledHttpRequest&) = delete;

  // True while the server has neither answered nor closed the connection.
  [[nodiscard]] bool waiting() const;

 private:
  int fd_ = -1;
};

}  // namespace pathtest
