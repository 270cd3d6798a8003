#include "http/http_gateway.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <future>
#include <stdexcept>
#include <thread>

#include "http/http_session.h"

namespace pathserver::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct HttpGateway::State {
  State(grpc::Server& server, HttpGatewayOptions options)
      : channel(make_channel(server, options.max_message_bytes)),
        context(std::move(options), channel) {}
  static std::shared_ptr<grpc::Channel> make_channel(grpc::Server& server, std::size_t max_bytes) {
    grpc::ChannelArguments args;
    // The server's own limits decide; the channel must not cut in first.
    args.SetMaxReceiveMessageSize(static_cast<int>(max_bytes) + 1024);
    args.SetMaxSendMessageSize(static_cast<int>(max_bytes) + 1024);
    return server.InProcessChannel(args);
  }

  asio::awaitable<void> accept_loop();

  asio::io_context io{1};
  // Keeps io.run() going with no connection and the listener closed, so
  // stop_accepting and cancel_calls can always run on it.
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  tcp::acceptor acceptor{io};
  std::shared_ptr<grpc::Channel> channel;
  GatewayContext context;
  std::atomic<std::size_t> live{0};  // connections open, read by the destructor
  std::thread thread;
};

namespace {

// "127.0.0.1:8080", "[::1]:8080", "localhost:0" -> host and port.
std::pair<std::string, std::string> split_host_port(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("expected HOST:PORT");
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, address.substr(colon + 1)};
}

}  // namespace

asio::awaitable<void> HttpGateway::State::accept_loop() {
  for (;;) {
    boost::system::error_code ec;
    tcp::socket socket =
        co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (context.stopping || ec == asio::error::operation_aborted) co_return;
    if (ec) {
      // Out of descriptors, most likely: wait a little rather than spin.
      spdlog::warn("http: accept failed: {}", ec.message());
      asio::steady_timer pause(io, std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    if (context.sessions.size() >= context.options.max_connections) {
      // Over --http-max-connections: a short 503 (fits the socket's buffer) and close.
      static constexpr std::string_view kBusy =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 45\r\n"
          "Connection: close\r\n\r\nserver busy: too many connections, retry later";
      socket.non_blocking(true, ec);
      socket.write_some(asio::buffer(kBusy.data(), kBusy.size()), ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      socket.close(ec);
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    auto session = std::make_shared<HttpSession>(context, std::move(socket));
    live.fetch_add(1);
    asio::co_spawn(
        io,
        [](std::shared_ptr<HttpSession> s,
           std::atomic<std::size_t>* count) -> asio::awaitable<void> {
          co_await HttpSession::run(std::move(s));
          count->fetch_sub(1);
        }(std::move(session), &live),
        asio::detached);
  }
}

HttpGateway::HttpGateway(grpc::Server& server, HttpGatewayOptions options)
    : state_(std::make_unique<State>(server, std::move(options))) {
  const auto [host, port] = split_host_port(state_->context.options.listen);
  tcp::resolver resolver(state_->io);
  boost::system::error_code ec;
  const auto endpoints = resolver.resolve(host, port, tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) {
    throw std::runtime_error("--http-listen '" + state_->context.options.listen +
                             "': cannot resolve '" + host + "': " + ec.message());
  }
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  state_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) state_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) state_->acceptor.bind(endpoint, ec);
  if (!ec) state_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("--http-listen '" + state_->context.options.listen +
                             "': cannot listen: " + ec.message());
  }
  port_ = state_->acceptor.local_endpoint().port();
  asio::co_spawn(state_->io, state_->accept_loop(), asio::detached);
  state_->thread = std::thread([this] {
    for (;;) {
      try {
        state_->io.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("http: {}", e.what());
      }
    }
  });
}

void HttpGateway::stop_accepting() {
  std::promise<void> done;
  asio::post(state_->io, [this, &done] {
    state_->context.stopping = true;
    boost::system::error_code ignored;
    state_->acceptor.close(ignored);
    done.set_value();
  });
  done.get_future().wait();
}

void HttpGateway::cancel_calls() {
  std::promise<void> done;
  asio::post(state_->io, [this, &done] {
    // stop() may end a session: iterate over a copy.
    const std::vector<HttpSession*> sessions(state_->context.sessions.begin(),
                                             state_->context.sessions.end());
    for (HttpSession* session : sessions) session->stop();
    done.set_value();
  });
  done.get_future().wait();
}

HttpGateway::~HttpGateway() {
  stop_accepting();
  cancel_calls();
  // Sessions end once their calls did (cancelled above).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (state_->live.load() > 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (state_->live.load() > 0) {
    spdlog::warn("http: {} connections still open at shutdown", state_->live.load());
  }
  state_->work.reset();
  state_->io.stop();
  state_->thread.join();
  state_->context.transcode_pool.join();
}

}  // namespace pathserver::http
