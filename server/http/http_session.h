#pragma once

// One HTTP connection of the gateway: reads requests (headers within
// kMaxHeaderBytes, bodies within the limit of the method they call, all of
// it within the request timeout), routes them, forwards calls in-process and
// writes the answers, streamed ones one message at a time.

#include <grpcpp/generic/generic_stub.h>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "http/cors.h"
#include "http/http_gateway.h"
#include "http/inprocess_call.h"
#include "http/rpc_methods.h"
#include "runtime/call_origin.h"

namespace pathserver::http {

inline constexpr std::size_t kMaxHeaderBytes = 16 * 1024;
// Bodies up to this size are transcoded on the I/O thread; larger ones on
// the transcoding pool.
inline constexpr std::size_t kInlineTranscodeBytes = 64 * 1024;

class HttpSession;

// What every connection shares; touched on the I/O thread only, apart from
// the stub and the pool (thread-safe).
struct GatewayContext {
  GatewayContext(HttpGatewayOptions options_in, std::shared_ptr<grpc::Channel> channel)
      : options(std::move(options_in)), cors(options.allow_origins), stub(std::move(channel)) {}

  HttpGatewayOptions options;
  RpcMethods methods;
  CorsPolicy cors;
  grpc::GenericStub stub;
  boost::asio::thread_pool transcode_pool{2};
  std::unordered_set<HttpSession*> sessions;
  bool stopping = false;
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(GatewayContext& context, boost::asio::ip::tcp::socket socket);

  // Serves the connection until it closes; holds the session meanwhile.
  static boost::asio::awaitable<void> run(std::shared_ptr<HttpSession> session);

  // On the I/O thread: cancels the call in flight and closes the connection.
  void stop();

 private:
  enum class Protocol { kConnectUnary, kConnectStream, kGrpcWeb, kGrpcWebText };
  enum class Codec { kProto, kJson };
  using HeadParser = boost::beast::http::request_parser<boost::beast::http::empty_body>;

  // What one RPC request asked for.
  struct Exchange {
    Protocol protocol = Protocol::kConnectUnary;
    Codec codec = Codec::kProto;
    const RpcMethod* method = nullptr;
    std::string response_type;
    std::optional<std::chrono::system_clock::time_point> deadline;
    std::vector<std::pair<std::string, std::string>> metadata;
    bool keep_alive = false;
    unsigned version = 11;
  };

  boost::asio::awaitable<void> serve_connection();
  // One request; false: close the connection.
  boost::asio::awaitable<bool> serve(boost::beast::flat_buffer& buffer, HeadParser& head);
  boost::asio::awaitable<bool> serve_rpc(boost::beast::flat_buffer& buffer, HeadParser& head);
  boost::asio::awaitable<bool> call_unary(Exchange& exchange, std::string request);
  boost::asio::awaitable<bool> call_streaming(Exchange& exchange, std::string request);

  // Answers `status` as the exchange's protocol does (Connect unary: an HTTP
  // error status, or `http_status` when given, and a JSON body; streams and
  // gRPC-Web: 200 and an end frame).
  boost::asio::awaitable<bool> answer_error(const Exchange& exchange, const grpc::Status& status,
                                            int http_status = 0);
  // Answers and closes, reading (and dropping) a little of what the client
  // still sends so that it sees the answer rather than a reset.
  boost::asio::awaitable<bool> refuse(const Exchange& exchange, const grpc::Status& status);
  template <typename Response>
  boost::asio::awaitable<bool> write(Response& response, std::chrono::milliseconds timeout);

  // The Connect or gRPC-Web headers of `request` into `exchange` (deadline,
  // metadata), or why they are refused.
  grpc::Status read_protocol_headers(const HeadParser::value_type& request, Exchange& exchange);
  // The body as the request's bytes, or why not.
  grpc::Status decode_request(const Exchange& exchange, std::string& body);
  // One answer message as the exchange sends it (JSON or binary, framed).
  grpc::Status encode_message(const Exchange& exchange, std::string& bytes);
  // A status as the bytes that end a stream or a gRPC-Web body.
  std::string end_frame(const Exchange& exchange, const grpc::Status& status);
  // Runs `work` (which returns a grpc::Status) here when `bytes` is small,
  // else on the transcoding pool, and resumes here.
  template <typename Work>
  boost::asio::awaitable<grpc::Status> transcode(std::size_t bytes, Work& work);

  void prepare_call(const Exchange& exchange, grpc::ClientContext& context) const;
  void watch_disconnect(std::shared_ptr<InProcessCall> call);
  void stop_watching();
  template <typename Response>
  void add_cors(Response& response) const;
  [[nodiscard]] std::chrono::milliseconds write_timeout(std::size_t bytes) const;

  GatewayContext& context_;
  boost::beast::tcp_stream stream_;
  std::string peer_;         // "ipv4:10.0.0.7:51234"
  std::string cors_origin_;  // the request's Origin when allowed, else empty
  std::shared_ptr<InProcessCall> watched_;
  bool stopped_ = false;
};

}  // namespace pathserver::http
