#include "runtime/metrics_http.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string_view>
#include <thread>
#include <utility>

namespace pathserver {
namespace {

constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

bool ipv4(std::string_view host) {
  int parts = 0;
  while (true) {
    const auto dot = host.find('.');
    const std::string_view part = host.substr(0, dot);
    if (!all_digits(part) || part.size() > 3 || std::stoi(std::string(part)) > 255) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    host.remove_prefix(dot + 1);
  }
  return parts == 4;
}

// "HOST:PORT" as civetweb's listening_ports wants it ("IPV4:PORT").
std::string listening_port(const std::string& address) {
  const auto colon = address.rfind(':');
  const std::string problem = "--metrics-address '" + address + "': ";
  if (colon == std::string::npos) throw MetricsHttpError(problem + "expected HOST:PORT");
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (!all_digits(port) || port.size() > 5 || std::stoi(port) > 65535) {
    throw MetricsHttpError(problem + "port must be a number 0..65535");
  }
  if (host == "localhost") host = "127.0.0.1";
  if (!ipv4(host)) {
    throw MetricsHttpError(problem + "HOST must be a numeric IPv4 address or localhost");
  }
  return host + ":" + port;
}

// Opens and closes one TCP connection to host:port (errors ignored).
void poke(const std::string& host, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) == 1) {
    (void)::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  }
  ::close(fd);
}

}  // namespace

MetricsHttpServer::MetricsHttpServer(const std::string& address, Render render,
                                     MetricsHttpLimits limits)
    : render_(std::move(render)) {
  const std::string ports = listening_port(address);
  wake_host_ = ports.substr(0, ports.rfind(':'));
  if (wake_host_ == "0.0.0.0") wake_host_ = "127.0.0.1";
  static const unsigned kLibraryInitialized = mg_init_library(0);
  (void)kLibraryInitialized;

  const std::string worker_threads = std::to_string(limits.worker_threads);
  const std::string request_timeout_ms = std::to_string(limits.request_timeout.count());
  const std::array<const char*, 9> options = {"listening_ports",
                                              ports.c_str(),
                                              "num_threads",
                                              worker_threads.c_str(),
                                              "request_timeout_ms",
                                              request_timeout_ms.c_str(),
                                              "enable_keep_alive",
                                              "no",
                                              nullptr};
  mg_callbacks callbacks{};
  // civetweb would print its errors to stderr itself, past the log format:
  // the error buffer below carries start errors into the exception, and
  // errors while serving (a malformed request, a dropped connection) go to
  // the debug log.
  callbacks.log_message = [](const mg_connection*, const char* message) {
    spdlog::debug("metrics http: {}", message);
    return 1;
  };
  mg_init_data init{};
  init.callbacks = &callbacks;
  init.user_data = this;
  init.configuration_options = const_cast<const char**>(options.data());
  std::array<char, 256> error_text{};
  unsigned error_code = 0;
  mg_error_data error{};
  error.code = &error_code;
  error.text = error_text.data();
  error.text_buffer_size = error_text.size();
  context_ = mg_start2(&init, &error);
  if (context_ == nullptr) {
    throw MetricsHttpError("--metrics-address '" + address + "': cannot listen: " +
                           (error_text[0] != '\0' ? error_text.data() : "unknown error"));
  }
  mg_set_request_handler(context_, "/", &MetricsHttpServer::handle, this);

  std::array<mg_server_port, 4> bound{};
  const int count = mg_get_server_ports(context_, static_cast<int>(bound.size()), bound.data());
  if (count < 1 || bound[0].port <= 0) {
    mg_stop(context_);
    throw MetricsHttpError("--metrics-address '" + address + "': cannot read the bound port");
  }
  port_ = bound[0].port;
}

MetricsHttpServer::~MetricsHttpServer() {
  // civetweb's listener polls with a 2 s quantum and sees mg_stop's flag only
  // when poll returns: wake it with connections until it has stopped, so
  // that shutting down does not take up to 2 s longer.
  std::atomic<bool> stopped{false};
  std::thread waker([this, &stopped] {
    while (!stopped.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (!stopped.load()) poke(wake_host_, port_);
    }
  });
  mg_stop(context_);
  stopped.store(true);
  waker.join();
}

int MetricsHttpServer::handle(mg_connection* connection, void* self) {
  const mg_request_info* request = mg_get_request_info(connection);
  const std::string_view uri = request->local_uri != nullptr ? request->local_uri : "";
  if (uri != "/metrics") {
    mg_send_http_error(connection, 404, "%s", "not found: the metrics are at /metrics\n");
    return 404;
  }
  const std::string_view method = request->request_method;
  const bool head = method == "HEAD";
  if (method != "GET" && !head) {
    mg_response_header_start(connection, 405);
    mg_response_header_add(connection, "Allow", "GET, HEAD", -1);
    mg_response_header_add(connection, "Content-Length", "0", -1);
    mg_response_header_send(connection);
    return 405;
  }
  std::string body;
  try {
    body = static_cast<MetricsHttpServer*>(self)->render_();
  } catch (const std::exception& e) {
    mg_send_http_error(connection, 500, "cannot render the metrics: %s\n", e.what());
    return 500;
  }
  mg_send_http_ok(connection, kContentType, static_cast<long long>(body.size()));
  if (!head) mg_write(connection, body.data(), body.size());
  return 200;
}

}  // namespace pathserver
