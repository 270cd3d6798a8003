#pragma once

#include <chrono>
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

// How the endpoint holds up against clients that connect and then send
// slowly or not at all: each such connection holds a worker thread until
// its request timeout.
struct MetricsHttpLimits {
  // Connections served at once: enough that a handful of stalled clients
  // still leave one for the scraper.
  int worker_threads = 16;
  // Longest a connection may take to send its request headers, counted from
  // when a worker takes it up, however slowly the bytes trickle in (then it
  // is closed). A scraper sends its request at once.
  std::chrono::milliseconds request_timeout{5000};
};

// A small HTTP server (civetweb) answering GET /metrics with the text of
// `render` (Prometheus text format 0.0.4); any other path is 404, any other
// method on /metrics 405. No keep-alive: each connection carries one
// request, so an idle one cannot hold a worker. render runs on the worker
// threads, so it must be thread-safe. Plain HTTP, no authentication: bind it
// where only the scraper can reach it.
class MetricsHttpServer {
 public:
  using Render = std::function<std::string()>;

  // Listens on address, HOST:PORT with HOST a numeric IPv4 address or
  // `localhost` (127.0.0.1); port 0 picks a free port (see port()). Throws
  // MetricsHttpError when the address is malformed or cannot be bound.
  MetricsHttpServer(const std::string& address, Render render, MetricsHttpLimits limits = {});
  // Stops serving; waits for running requests. A worker reading a stalled
  // connection sees the stop within civetweb's poll quantum (2 s).
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
