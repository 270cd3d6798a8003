#include "http/http_session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <limits>

#include "http/base64.h"
#include "http/connect_status.h"
#include "http/envelope.h"
#include "http/json_transcoding.h"
#include "http/static_files.h"
#include "http/timeout_headers.h"

namespace pathserver::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::string_view kAcceptPost =
    "application/json, application/proto, application/connect+json, application/connect+proto, "
    "application/grpc-web, application/grpc-web+proto, application/grpc-web-text, "
    "application/grpc-web-text+proto";
constexpr std::size_t kDrainBytes = 1024 * 1024;
constexpr std::chrono::milliseconds kDrainTime{500};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "application/json; charset=utf-8" -> "application/json".
std::string media_type(std::string_view value) {
  value = value.substr(0, value.find(';'));
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return lower(value);
}

std::string peer_of(const tcp::socket& socket) {
  boost::system::error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  if (ec) return "unknown";
  const auto address = remote.address();
  if (address.is_v4()) return "ipv4:" + address.to_string() + ":" + std::to_string(remote.port());
  return "ipv6:[" + address.to_string() + "]:" + std::to_string(remote.port());
}

// Headers that become call metadata: Authorization, and custom ones (x-...)
// but not the gateway's own origin metadata nor gRPC-Web's protocol headers.
bool forwarded_header(std::string_view name) {
  if (name == "authorization") return true;
  if (!name.starts_with("x-")) return false;
  return name != "x-grpc-web" && name != "x-user-agent" &&
         !name.starts_with("x-pathfinder-origin-");
}

}  // namespace

HttpSession::HttpSession(GatewayContext& context, tcp::socket socket)
    : context_(context), stream_(std::move(socket)), peer_(peer_of(stream_.socket())) {}

asio::awaitable<void> HttpSession::run(std::shared_ptr<HttpSession> session) {
  session->context_.sessions.insert(session.get());
  try {
    co_await session->serve_connection();
  } catch (const std::exception& e) {
    spdlog::warn("http: connection from {} ended: {}", session->peer_, e.what());
  }
  if (session->watched_ != nullptr) session->watched_->cancel();
  beast::error_code ignored;
  session->stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  session->stream_.close();
  session->context_.sessions.erase(session.get());
}

void HttpSession::stop() {
  stopped_ = true;
  if (watched_ != nullptr) watched_->cancel();
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
}

asio::awaitable<void> HttpSession::serve_connection() {
  beast::flat_buffer buffer;
  while (!stopped_) {
    HeadParser head;
    head.header_limit(kMaxHeaderBytes);
    head.body_limit(std::numeric_limits<std::uint64_t>::max());  // per route, below
    stream_.expires_after(context_.options.request_timeout);
    beast::error_code ec;
    co_await bhttp::async_read_header(stream_, buffer, head,
                                      asio::redirect_error(asio::use_awaitable, ec));
    if (ec == bhttp::error::header_limit) {
      bhttp::response<bhttp::string_body> response{bhttp::status::request_header_fields_too_large,
                                                   11};
      response.keep_alive(false);
      response.prepare_payload();
      co_await write(response, context_.options.request_timeout);
      co_return;
    }
    if (ec) co_return;  // closed, idle or slow past the timeout, or not HTTP
    stream_.expires_never();
    const bool keep_alive = co_await serve(buffer, head);
    if (!keep_alive) co_return;
  }
}

template <typename Response>
void HttpSession::add_cors(Response& response) const {
  if (cors_origin_.empty()) return;
  response.set(bhttp::field::access_control_allow_origin, cors_origin_);
  response.set(bhttp::field::access_control_expose_headers, kCorsExposeHeaders);
  response.set(bhttp::field::vary, "Origin");
}

std::chrono::milliseconds HttpSession::write_timeout(std::size_t bytes) const {
  const auto stalled = context_.options.stalled_stream_timeout;
  if (stalled.count() == 0) return context_.options.request_timeout * 100;
  // As over gRPC: so long per MiB of the answer.
  return stalled * static_cast<long>(std::max<std::size_t>(1, bytes >> 20));
}

template <typename Response>
asio::awaitable<bool> HttpSession::write(Response& response, std::chrono::milliseconds timeout) {
  stream_.expires_after(timeout);
  beast::error_code ec;
  co_await bhttp::async_write(stream_, response, asio::redirect_error(asio::use_awaitable, ec));
  stream_.expires_never();
  co_return !ec && response.keep_alive();
}

asio::awaitable<bool> HttpSession::serve(beast::flat_buffer& buffer, HeadParser& head) {
  const auto& request = head.get();
  const std::string origin(request[bhttp::field::origin]);
  cors_origin_ = context_.cors.allows(origin) ? origin : std::string();
  const bool has_body = head.chunked() || head.content_length().value_or(0) > 0;
  const bool keep_alive = request.keep_alive() && !has_body;  // unread bodies close
  const unsigned version = request.version();

  if (request.method() == bhttp::verb::post) co_return co_await serve_rpc(buffer, head);

  bhttp::response<bhttp::string_body> response{bhttp::status::ok, version};
  response.keep_alive(keep_alive);
  if (request.method() == bhttp::verb::options) {
    // A CORS preflight: the headers only for an allowed origin.
    response.result(bhttp::status::no_content);
    if (!cors_origin_.empty()) {
      response.set(bhttp::field::access_control_allow_origin, cors_origin_);
      response.set(bhttp::field::access_control_allow_methods, kCorsAllowMethods);
      response.set(bhttp::field::access_control_allow_headers, kCorsAllowHeaders);
      response.set(bhttp::field::access_control_expose_headers, kCorsExposeHeaders);
      response.set(bhttp::field::access_control_max_age, kCorsMaxAgeSeconds);
      response.set(bhttp::field::vary, "Origin");
    }
  } else if (request.method() == bhttp::verb::get) {
    const StaticFile* file = find_static_file(request.target());
    if (file == nullptr) {
      response.result(bhttp::status::not_found);
      response.set(bhttp::field::content_type, "text/plain; charset=utf-8");
      response.body() = "not found\n";
    } else {
      response.set(bhttp::field::content_type, file->content_type);
      response.set(bhttp::field::cache_control, "no-cache");
      response.body() = std::string(file->bytes);
    }
    response.set("X-Content-Type-Options", "nosniff");
    add_cors(response);
  } else {
    response.result(bhttp::status::method_not_allowed);
    response.set(bhttp::field::allow, "GET, POST, OPTIONS");
    response.set(bhttp::field::content_type, "text/plain; charset=utf-8");
    response.body() = "method not allowed\n";
  }
  response.prepare_payload();
  const auto timeout = write_timeout(response.body().size());
  co_return co_await write(response, timeout);
}

asio::awaitable<bool> HttpSession::serve_rpc(beast::flat_buffer& buffer, HeadParser& head) {
  const auto& request = head.get();
  Exchange exchange;
  exchange.version = request.version();
  std::string_view target(request.target().data(), request.target().size());
  target = target.substr(0, target.find('?'));
  exchange.method = context_.methods.find(target);
  const std::string type = media_type(request[bhttp::field::content_type]);
  if (type == "application/json" || type == "application/proto") {
    exchange.protocol = Protocol::kConnectUnary;
    exchange.codec = type == "application/json" ? Codec::kJson : Codec::kProto;
    exchange.response_type = type;
  } else if (type == "application/connect+json" || type == "application/connect+proto") {
    exchange.protocol = Protocol::kConnectStream;
    exchange.codec = type == "application/connect+json" ? Codec::kJson : Codec::kProto;
    exchange.response_type = type;
  } else if (type == "application/grpc-web" || type == "application/grpc-web+proto") {
    exchange.protocol = Protocol::kGrpcWeb;
    exchange.response_type = "application/grpc-web+proto";
  } else if (type == "application/grpc-web-text" || type == "application/grpc-web-text+proto") {
    exchange.protocol = Protocol::kGrpcWebText;
    exchange.response_type = "application/grpc-web-text+proto";
  } else {
    // Not a protocol served here: 415 with the types that are (Connect's
    // answer; gRPC-Web clients always send one of theirs).
    exchange.response_type = "application/json";
    bhttp::response<bhttp::string_body> response{exchange.method == nullptr
                                                     ? bhttp::status::not_found
                                                     : bhttp::status::unsupported_media_type,
                                                 exchange.version};
    response.set(bhttp::field::content_type, "application/json");
    response.set("Accept-Post", kAcceptPost);
    response.body() = connect_error_json(
        grpc::StatusCode::UNIMPLEMENTED,
        exchange.method == nullptr
            ? "no method " + std::string(target)
            : "content type '" + type + "' is not served; use one of " + std::string(kAcceptPost));
    add_cors(response);
    response.keep_alive(false);
    response.prepare_payload();
    co_return co_await write(response, context_.options.request_timeout);
  }
  if (exchange.method == nullptr) {
    // Connect: 404 for a procedure not served (its routing says so); gRPC-Web: UNIMPLEMENTED.
    const grpc::Status unknown(
        grpc::StatusCode::UNIMPLEMENTED,
        "no method " + std::string(target) + " (POST /pathfinding.v1.Pathfinder/<Method>)");
    co_return co_await refuse(exchange, unknown);
  }
  if ((exchange.protocol == Protocol::kConnectUnary && exchange.method->server_streaming) ||
      (exchange.protocol == Protocol::kConnectStream && !exchange.method->server_streaming)) {
    // The wrong Connect flavour for the method: 415, as Connect does.
    const std::string right = exchange.method->server_streaming
                                  ? "application/connect+json or application/connect+proto"
                                  : "application/json or application/proto";
    bhttp::response<bhttp::string_body> response{bhttp::status::unsupported_media_type,
                                                 exchange.version};
    response.set(bhttp::field::content_type, "application/json");
    response.set("Accept-Post", right);
    response.body() = connect_error_json(
        grpc::StatusCode::UNIMPLEMENTED,
        std::string(target) +
            (exchange.method->server_streaming ? " streams its answer" : " is unary") +
            ": send it as " + right);
    add_cors(response);
    response.keep_alive(false);
    response.prepare_payload();
    co_return co_await write(response, context_.options.request_timeout);
  }

  const grpc::Status headers_ok = read_protocol_headers(request, exchange);
  if (!headers_ok.ok()) co_return co_await refuse(exchange, headers_ok);

  // The body's limit: the method's, as over gRPC (uploads and patches the
  // message limit, other calls --max-query-kb), for the encoding sent.
  const std::size_t message_limit = exchange.method->large_request
                                        ? context_.options.max_message_bytes
                                        : context_.options.max_query_bytes;
  std::size_t limit = message_limit + kEnvelopeHeaderBytes;
  if (exchange.codec == Codec::kJson) {
    limit = std::max(context_.options.max_message_bytes, message_limit * 2);
  } else if (exchange.protocol == Protocol::kGrpcWebText) {
    limit = (limit + 2) / 3 * 4 + 4;
  }
  const auto over_limit = [&](std::uint64_t bytes) {
    return grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        "request body of " + std::to_string(bytes) + " bytes is over the limit of " +
            std::to_string(limit) + " bytes for " + exchange.method->path +
            (exchange.method->large_request ? " (--max-message-mb)" : " (--max-query-kb)"));
  };
  if (const auto length = head.content_length(); length && *length > limit) {
    const grpc::Status refused = over_limit(*length);
    co_return co_await refuse(exchange, refused);
  }
  if (lower(request[bhttp::field::expect]) == "100-continue") {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    beast::error_code ec;
    stream_.expires_after(context_.options.request_timeout);
    co_await asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return false;
  }

  bhttp::request_parser<bhttp::string_body> parser(std::move(head));
  parser.body_limit(limit);
  stream_.expires_after(context_.options.request_timeout);
  beast::error_code ec;
  co_await bhttp::async_read(stream_, buffer, parser,
                             asio::redirect_error(asio::use_awaitable, ec));
  stream_.expires_never();
  if (ec == bhttp::error::body_limit) {
    const grpc::Status refused = over_limit(limit + 1);
    co_return co_await refuse(exchange, refused);
  }
  if (ec) co_return false;
  exchange.keep_alive = parser.get().keep_alive();
  std::string body = std::move(parser.get().body());

  // Lambdas and statuses are named before co_await: GCC 12 mishandles some
  // temporaries that live across a suspension.
  auto decode = [this, &exchange, &body] { return decode_request(exchange, body); };
  const grpc::Status decoded = co_await transcode(body.size(), decode);
  if (!decoded.ok()) co_return co_await answer_error(exchange, decoded);

  const bool streamed = exchange.method->server_streaming;
  if (streamed) co_return co_await call_streaming(exchange, std::move(body));
  co_return co_await call_unary(exchange, std::move(body));
}

grpc::Status HttpSession::read_protocol_headers(const HeadParser::value_type& request,
                                                Exchange& exchange) {
  const bool connect =
      exchange.protocol == Protocol::kConnectUnary || exchange.protocol == Protocol::kConnectStream;
  if (connect) {
    if (const auto version = request["Connect-Protocol-Version"];
        !version.empty() && version != "1") {
      return {grpc::StatusCode::INVALID_ARGUMENT, "Connect-Protocol-Version must be 1"};
    }
  }
  const std::string encoding =
      lower(exchange.protocol == Protocol::kConnectUnary ? request[bhttp::field::content_encoding]
            : exchange.protocol == Protocol::kConnectStream ? request["Connect-Content-Encoding"]
                                                            : request["Grpc-Encoding"]);
  if (!encoding.empty() && encoding != "identity") {
    return {grpc::StatusCode::UNIMPLEMENTED,
            "content encoding '" + encoding + "' is not supported; supported: identity"};
  }
  if (connect) {
    if (const auto timeout = request["Connect-Timeout-Ms"]; !timeout.empty()) {
      const auto ms = parse_connect_timeout(timeout);
      if (!ms) {
        return {grpc::StatusCode::INVALID_ARGUMENT, "Connect-Timeout-Ms must be 1 to 10 digits"};
      }
      exchange.deadline = std::chrono::system_clock::now() + *ms;
    }
  } else if (const auto timeout = request["Grpc-Timeout"]; !timeout.empty()) {
    const auto ns = parse_grpc_timeout(timeout);
    if (!ns) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "grpc-timeout must be 1 to 8 digits and a unit (H M S m u n)"};
    }
    exchange.deadline = std::chrono::system_clock::now() +
                        std::chrono::duration_cast<std::chrono::system_clock::duration>(*ns);
  }
  for (const auto& field : request) {
    const std::string name = lower(field.name_string());
    if (!forwarded_header(name)) continue;
    std::string value(field.value());
    if (name.ends_with("-bin")) {
      auto decoded = base64_decode(value);
      if (!decoded) continue;
      value = std::move(*decoded);
    }
    exchange.metadata.emplace_back(name, std::move(value));
  }
  return grpc::Status::OK;
}

template <typename Work>
asio::awaitable<grpc::Status> HttpSession::transcode(std::size_t bytes, Work& work) {
  if (bytes <= kInlineTranscodeBytes) co_return work();
  // The pool runs the work; the answer comes back on this connection's executor.
  auto initiation = [this, &work](auto handler) {
    asio::post(context_.transcode_pool, [&work, handler = std::move(handler)]() mutable {
      grpc::Status result = work();
      auto executor = asio::get_associated_executor(handler);
      asio::dispatch(executor,
                     [handler = std::move(handler), result = std::move(result)]() mutable {
                       std::move(handler)(std::move(result));
                     });
    });
  };
  const grpc::Status status =
      co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(grpc::Status)>(
          initiation, asio::use_awaitable);
  co_return status;
}

grpc::Status HttpSession::decode_request(const Exchange& exchange, std::string& body) {
  if (exchange.protocol == Protocol::kGrpcWebText) {
    auto decoded = base64_decode(body);
    if (!decoded) return {grpc::StatusCode::INVALID_ARGUMENT, "grpc-web-text body is not base64"};
    body = std::move(*decoded);
  }
  if (exchange.protocol != Protocol::kConnectUnary) {
    // One enveloped message, uncompressed, and nothing after it.
    std::string_view rest;
    const auto envelope = next_envelope(body, rest);
    if (!envelope) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "request body is not one enveloped message (1 flag byte, 4-byte big-endian length, "
              "message): it has " +
                  std::to_string(body.size()) + " bytes"};
    }
    if (!rest.empty()) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "request body holds more than one message; this method takes one"};
    }
    if (envelope->flags != 0) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "request message has flags " + std::to_string(envelope->flags) +
                  " (compressed without an encoding, or not a message)"};
    }
    body = std::string(envelope->message);
  }
  if (exchange.codec == Codec::kJson) {
    std::string binary;
    const grpc::Status status = json_to_binary(*exchange.method->input, body, binary);
    if (!status.ok()) return status;
    body = std::move(binary);
  }
  return grpc::Status::OK;
}

grpc::Status HttpSession::encode_message(const Exchange& exchange, std::string& bytes) {
  if (exchange.codec == Codec::kJson) {
    std::string json;
    const grpc::Status status = binary_to_json(*exchange.method->output, bytes, json);
    if (!status.ok()) return status;
    bytes = std::move(json);
  }
  if (exchange.protocol == Protocol::kConnectUnary) return grpc::Status::OK;
  std::string framed = envelope_header(0, bytes.size());
  framed += bytes;
  bytes = exchange.protocol == Protocol::kGrpcWebText ? base64_encode(framed) : std::move(framed);
  return grpc::Status::OK;
}

std::string HttpSession::end_frame(const Exchange& exchange, const grpc::Status& status) {
  std::string frame;
  if (exchange.protocol == Protocol::kConnectStream) {
    const std::string json =
        status.ok()
            ? "{}"
            : "{\"error\":" + connect_error_json(status.error_code(), status.error_message()) + "}";
    append_envelope(frame, kConnectEndStream, json);
    return frame;
  }
  const std::string trailers =
      "grpc-status:" + std::to_string(status.error_code()) +
      "\r\ngrpc-message:" + percent_encode_grpc_message(status.error_message()) + "\r\n";
  append_envelope(frame, kGrpcWebTrailers, trailers);
  return exchange.protocol == Protocol::kGrpcWebText ? base64_encode(frame) : frame;
}

asio::awaitable<bool> HttpSession::answer_error(const Exchange& exchange,
                                                const grpc::Status& status, int http_status) {
  bhttp::response<bhttp::string_body> response{bhttp::status::ok, exchange.version};
  if (exchange.protocol == Protocol::kConnectUnary) {
    response.result(http_status != 0 ? http_status : connect_http_status(status.error_code()));
    response.set(bhttp::field::content_type, "application/json");
    response.body() = connect_error_json(status.error_code(), status.error_message());
  } else {
    response.set(bhttp::field::content_type, exchange.response_type);
    response.body() = end_frame(exchange, status);
  }
  add_cors(response);
  response.keep_alive(exchange.keep_alive);
  response.prepare_payload();
  co_return co_await write(response, context_.options.request_timeout);
}

asio::awaitable<bool> HttpSession::refuse(const Exchange& exchange, const grpc::Status& status) {
  Exchange closing = exchange;
  closing.keep_alive = false;
  const int http_status =
      status.error_code() == grpc::StatusCode::UNIMPLEMENTED && exchange.method == nullptr ? 404
                                                                                           : 0;
  co_await answer_error(closing, status, http_status);
  // The client may still be sending the body: read (and drop) a little of
  // it, so that closing does not reset the connection under the answer.
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  stream_.expires_after(kDrainTime);
  std::array<char, 16384> scratch{};
  std::size_t drained = 0;
  while (drained < kDrainBytes) {
    const std::size_t n = co_await stream_.async_read_some(
        asio::buffer(scratch), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    drained += n;
  }
  stream_.expires_never();
  co_return false;
}

void HttpSession::prepare_call(const Exchange& exchange, grpc::ClientContext& context) const {
  for (const auto& [name, value] : exchange.metadata) context.AddMetadata(name, value);
  attach_call_origin(
      context, peer_,
      exchange.protocol == Protocol::kConnectUnary || exchange.protocol == Protocol::kConnectStream
          ? Transport::kConnect
          : Transport::kGrpcWeb);
  if (exchange.deadline) context.set_deadline(*exchange.deadline);
}

void HttpSession::watch_disconnect(std::shared_ptr<InProcessCall> call) {
  watched_ = call;
  // Readable while a call runs: the client closed (or reset) the
  // connection, or pipelined its next request (then nothing to do).
  stream_.socket().async_wait(
      tcp::socket::wait_read, [self = shared_from_this(), call](const beast::error_code& ec) {
        if (ec || self->watched_ != call) return;
        char byte = 0;
        beast::error_code peek_error;
        const std::size_t n = self->stream_.socket().receive(asio::buffer(&byte, 1),
                                                             tcp::socket::message_peek, peek_error);
        if (peek_error == asio::error::would_block || peek_error == asio::error::try_again) return;
        if (n == 0 || peek_error) {
          call->cancel();
          self->stopped_ = true;
        }
      });
}

void HttpSession::stop_watching() {
  watched_.reset();
  beast::error_code ignored;
  stream_.socket().cancel(ignored);
}

asio::awaitable<bool> HttpSession::call_unary(Exchange& exchange, std::string request) {
  auto call = std::make_shared<InProcessUnaryCall>(stream_.get_executor());
  prepare_call(exchange, call->context());
  call->start(context_.stub, exchange.method->path, byte_buffer_of(std::move(request)));
  watch_disconnect(call);
  const grpc::Status status = co_await call->finish();
  stop_watching();
  if (stopped_) co_return false;
  if (!status.ok()) co_return co_await answer_error(exchange, status);

  std::string body;
  const std::size_t answer_bytes = call->answer().Length();
  auto encode = [this, &exchange, &body, &call] {
    body = string_of(call->answer());
    call->answer().Clear();
    // gRPC-Web text: the message and the trailers framed, then encoded as one.
    Exchange binary = exchange;
    if (binary.protocol == Protocol::kGrpcWebText) binary.protocol = Protocol::kGrpcWeb;
    grpc::Status status = encode_message(binary, body);
    if (status.ok() && exchange.protocol != Protocol::kConnectUnary) {
      body += end_frame(binary, grpc::Status::OK);
      if (exchange.protocol == Protocol::kGrpcWebText) body = base64_encode(body);
    }
    return status;
  };
  const grpc::Status encoded = co_await transcode(answer_bytes, encode);
  call.reset();
  if (!encoded.ok()) co_return co_await answer_error(exchange, encoded);
  bhttp::response<bhttp::string_body> response{bhttp::status::ok, exchange.version};
  response.set(bhttp::field::content_type, exchange.response_type);
  add_cors(response);
  response.keep_alive(exchange.keep_alive);
  response.body() = std::move(body);
  response.prepare_payload();
  const auto timeout = write_timeout(response.body().size());
  co_return co_await write(response, timeout);
}

asio::awaitable<bool> HttpSession::call_streaming(Exchange& exchange, std::string request) {
  auto call = InProcessStreamCall::start(
      stream_.get_executor(), context_.stub, exchange.method->path,
      byte_buffer_of(std::move(request)),
      [this, &exchange](grpc::ClientContext& context) { prepare_call(exchange, context); });
  watch_disconnect(call);

  // The answer's head now; its body is chunked, one message a chunk, each
  // written before the next is read from the server.
  bhttp::response<bhttp::empty_body> head{bhttp::status::ok, exchange.version};
  head.set(bhttp::field::content_type, exchange.response_type);
  add_cors(head);
  head.keep_alive(exchange.keep_alive);
  head.chunked(true);
  bhttp::response_serializer<bhttp::empty_body> serializer(head);
  const auto stalled = write_timeout(0);
  beast::error_code ec;
  stream_.expires_after(stalled);
  co_await bhttp::async_write_header(stream_, serializer,
                                     asio::redirect_error(asio::use_awaitable, ec));
  bool written = !ec;
  if (!written) call->cancel();
  while (written && !stopped_) {
    std::optional<grpc::ByteBuffer> message = co_await call->next();
    if (!message) break;
    std::string bytes;
    const std::size_t message_bytes = message->Length();
    auto encode = [this, &exchange, &bytes, &message] {
      bytes = string_of(*message);
      message.reset();
      return encode_message(exchange, bytes);
    };
    const grpc::Status encoded = co_await transcode(message_bytes, encode);
    if (!encoded.ok()) {
      call->cancel();
      break;
    }
    stream_.expires_after(write_timeout(bytes.size()));
    const auto chunk = bhttp::make_chunk(asio::buffer(bytes));
    co_await asio::async_write(stream_, chunk, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      // Gone, or took nothing for --stalled-stream-timeout: end the call.
      written = false;
      call->cancel();
      break;
    }
    call->read_next();
  }
  call->stop_reading();
  const grpc::Status status = co_await call->finish();
  stop_watching();
  call.reset();
  if (!written || stopped_) co_return false;
  std::string end = end_frame(exchange, status);
  stream_.expires_after(stalled);
  const auto last = bhttp::make_chunk(asio::buffer(end));
  co_await asio::async_write(stream_, last, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return false;
  const auto trailer = bhttp::make_chunk_last();
  co_await asio::async_write(stream_, trailer, asio::redirect_error(asio::use_awaitable, ec));
  stream_.expires_never();
  co_return !ec && exchange.keep_alive;
}

}  // namespace pathserver::http
