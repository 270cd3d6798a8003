#pragma once

// The HTTP/1.1 endpoint (--http-listen): Connect (unary and server
// streaming, JSON and binary), gRPC-Web (binary and text) and the viewer's
// files, forwarding every call in-process to the gRPC server.
//
// Asynchronous I/O (Boost.Beast on Asio, C++20 coroutines): a connection
// costs a socket, its buffers and a coroutine frame, not a thread, so a
// client that stalls holds no thread, and each streamed answer is read from
// the server only as fast as its HTTP client takes it (back-pressure). One
// thread runs every connection's I/O; JSON, base64 and copies of bodies over
// 64 KiB run on a small pool of their own so a large body does not hold up
// the other connections.

#include <grpcpp/server.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace pathserver::http {

struct HttpGatewayOptions {
  std::string listen;                      // HOST:PORT (port 0: a free one)
  std::vector<std::string> allow_origins;  // CORS; "*": any
  std::size_t max_connections = 1024;      // beyond it: 503 and close
  // The server's limits, applied before a body is read (as over gRPC).
  std::size_t max_message_bytes = 64 * 1024 * 1024;
  std::size_t max_query_bytes = 4 * 1024 * 1024;
  // A client that takes nothing of an answer for this long is cut off (0: never).
  std::chrono::milliseconds stalled_stream_timeout{30000};
  // A client must send a whole request (headers and body) within this.
  std::chrono::milliseconds request_timeout{30000};
};

class HttpGateway {
 public:
  // Binds options.listen and starts serving calls to `server` (which must
  // outlive the gateway). Throws std::runtime_error when it cannot listen.
  HttpGateway(grpc::Server& server, HttpGatewayOptions options);
  // Stops: closes the listener and every connection, cancels their calls,
  // waits for them (a few seconds at most) and joins the threads.
  ~HttpGateway();
  HttpGateway(const HttpGateway&) = delete;
  HttpGateway& operator=(const HttpGateway&) = delete;

  [[nodiscard]] int port() const { return port_; }

  // New connections are refused from now on; those open go on.
  void stop_accepting();
  // Cancels every call in flight and closes every connection.
  void cancel_calls();

  struct State;

 private:
  std::unique_ptr<State> state_;
  int port_ = 0;
};

}  // namespace pathserver::http
