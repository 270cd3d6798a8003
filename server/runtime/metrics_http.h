#pragma once

#include <functional>
#include <stdexcept>
#include <string>

struct mg_context;
struct mg_connection;

namespace pathserver {

// The metrics endpoint could not be started (bad address, port in use).
class MetricsHttpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A small HTTP server (civetweb) answering GET /metrics with the text of
// `render` (Prometheus text format 0.0.4); any other path is 404, any other
// method on /metrics 405. Two worker threads; render runs on them, so it
// must be thread-safe. Plain HTTP, no authentication: bind it where only
// the scraper can reach it.
class MetricsHttpServer {
 public:
  using Render = std::function<std::string()>;

  // Listens on address, HOST:PORT with HOST a numeric IPv4 address or
  // `localhost` (127.0.0.1); port 0 picks a free port (see port()). Throws
  // MetricsHttpError when the address is malformed or cannot be bound.
  MetricsHttpServer(const std::string& address, Render render);
  // Stops serving; waits for running requests.
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // The bound port.
  [[nodiscard]] int port() const { return port_; }

 private:
  static int handle(mg_connection* connection, void* self);

  Render render_;
  std::string wake_host_;  // where the destructor connects to wake civetweb's listener
  mg_context* context_ = nullptr;
  int port_ = 0;
};

}  // namespace pathserver
