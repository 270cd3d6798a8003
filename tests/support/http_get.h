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
// std::runtime_error when the connection fails or the answer is not HTTP.
[[nodiscard]] HttpResponse http_request(int port, const std::string& method,
                                        const std::string& path);

}  // namespace pathtest
