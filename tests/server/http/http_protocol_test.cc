// The gateway's pure pieces: the message envelope, Connect's codes and HTTP
// statuses, the timeout headers, gRPC-Web's base64, JSON transcoding by
// descriptor, the routes' method table and CORS.

#include <gtest/gtest.h>

#include <string>

#include "http/base64.h"
#include "http/connect_status.h"
#include "http/cors.h"
#include "http/envelope.h"
#include "http/json_transcoding.h"
#include "http/rpc_methods.h"
#include "http/static_files.h"
#include "http/timeout_headers.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace {

using namespace pathserver::http;
using namespace std::chrono_literals;

TEST(Envelope, FramesAndSplitsMessages) {
  std::string body;
  append_envelope(body, 0, "abc");
  append_envelope(body, kConnectEndStream, "{}");
  ASSERT_EQ(body.size(), 5u + 3 + 5 + 2);
  EXPECT_EQ(body.substr(0, 5), std::string("\x00\x00\x00\x00\x03", 5));

  std::string_view rest;
  const auto first = next_envelope(body, rest);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->flags, 0);
  EXPECT_EQ(first->message, "abc");
  const auto second = next_envelope(rest, rest);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->flags, kConnectEndStream);
  EXPECT_EQ(second->message, "{}");
  EXPECT_TRUE(rest.empty());
}

TEST(Envelope, LengthIsBigEndianAndTornBodiesAreRefused) {
  EXPECT_EQ(envelope_header(kGrpcWebTrailers, 0x01020304), std::string("\x80\x01\x02\x03\x04", 5));
  std::string_view rest;
  EXPECT_FALSE(next_envelope(std::string("\x00\x00\x00", 3), rest));  // short header
  EXPECT_FALSE(next_envelope(std::string("\x00\x00\x00\x00\x05"
                                         "ab",
                                         7),
                             rest));  // short message
  const auto empty = next_envelope(std::string("\x00\x00\x00\x00\x00", 5), rest);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->message.empty());
}

TEST(ConnectStatus, CodesMapToTheSpecsHttpStatuses) {
  using grpc::StatusCode;
  const struct {
    StatusCode code;
    const char* name;
    int http;
  } expected[] = {
      {StatusCode::CANCELLED, "canceled", 499},
      {StatusCode::UNKNOWN, "unknown", 500},
      {StatusCode::INVALID_ARGUMENT, "invalid_argument", 400},
      {StatusCode::DEADLINE_EXCEEDED, "deadline_exceeded", 504},
      {StatusCode::NOT_FOUND, "not_found", 404},
      {StatusCode::ALREADY_EXISTS, "already_exists", 409},
      {StatusCode::PERMISSION_DENIED, "permission_denied", 403},
      {StatusCode::RESOURCE_EXHAUSTED, "resource_exhausted", 429},
      {StatusCode::FAILED_PRECONDITION, "failed_precondition", 400},
      {StatusCode::ABORTED, "aborted", 409},
      {StatusCode::OUT_OF_RANGE, "out_of_range", 400},
      {StatusCode::UNIMPLEMENTED, "unimplemented", 501},
      {StatusCode::INTERNAL, "internal", 500},
      {StatusCode::UNAVAILABLE, "unavailable", 503},
      {StatusCode::DATA_LOSS, "data_loss", 500},
      {StatusCode::UNAUTHENTICATED, "unauthenticated", 401},
  };
  for (const auto& e : expected) {
    EXPECT_EQ(connect_code_name(e.code), e.name);
    EXPECT_EQ(connect_http_status(e.code), e.http) << e.name;
  }
  EXPECT_EQ(connect_code_name(static_cast<StatusCode>(99)), "unknown");
  EXPECT_EQ(connect_http_status(static_cast<StatusCode>(99)), 500);
}

TEST(ConnectStatus, ErrorBodiesAreJsonAndMessagesPercentEncoded) {
  EXPECT_EQ(connect_error_json(grpc::StatusCode::NOT_FOUND, "mask 'x' \"quoted\"\n"),
            R"({"code":"not_found","message":"mask 'x' \"quoted\"\n"})");
  EXPECT_EQ(connect_error_json(grpc::StatusCode::INTERNAL, ""), R"({"code":"internal"})");
  EXPECT_EQ(json_quote(std::string("\x01", 1)), "\"\\u0001\"");
  EXPECT_EQ(percent_encode_grpc_message("50% done\r\n\xc3\xa9"), "50%25 done%0D%0A%C3%A9");
}

TEST(TimeoutHeaders, ConnectTimeoutIsUpToTenDigitsOfMilliseconds) {
  EXPECT_EQ(parse_connect_timeout("1"), 1ms);
  EXPECT_EQ(parse_connect_timeout("9999999999"), 9999999999ms);
  EXPECT_FALSE(parse_connect_timeout(""));
  EXPECT_FALSE(parse_connect_timeout("12345678901"));
  EXPECT_FALSE(parse_connect_timeout("-1"));
  EXPECT_FALSE(parse_connect_timeout("1.5"));
}

TEST(TimeoutHeaders, GrpcTimeoutHasAUnit) {
  EXPECT_EQ(parse_grpc_timeout("2H"), std::chrono::nanoseconds(2h));
  EXPECT_EQ(parse_grpc_timeout("3M"), std::chrono::nanoseconds(3min));
  EXPECT_EQ(parse_grpc_timeout("4S"), std::chrono::nanoseconds(4s));
  EXPECT_EQ(parse_grpc_timeout("5m"), std::chrono::nanoseconds(5ms));
  EXPECT_EQ(parse_grpc_timeout("6u"), std::chrono::nanoseconds(6us));
  EXPECT_EQ(parse_grpc_timeout("7n"), 7ns);
  EXPECT_EQ(parse_grpc_timeout("99999999S"), std::chrono::nanoseconds(99999999s));
  EXPECT_FALSE(parse_grpc_timeout("100000000S"));  // nine digits
  EXPECT_FALSE(parse_grpc_timeout("5"));
  EXPECT_FALSE(parse_grpc_timeout("S"));
  EXPECT_FALSE(parse_grpc_timeout("5s"));
  EXPECT_FALSE(parse_grpc_timeout("5 S"));
}

TEST(Base64, RoundTripsEveryLengthAndByte) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) {
    bytes += static_cast<char>(i * 37);
    const std::string text = base64_encode(bytes);
    EXPECT_EQ(text.size() % 4, 0u);
    EXPECT_EQ(base64_decode(text), bytes) << i;
  }
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
}

TEST(Base64, DecodesGrpcWebTextPiecesAndRefusesGarbage) {
  // A stream's messages are encoded one by one: padded pieces in a row.
  EXPECT_EQ(base64_decode(base64_encode("a") + base64_encode("bc") + base64_encode("def")),
            "abcdef");
  EXPECT_EQ(base64_decode("Zm9v\nYmFy\n"), "foobar");  // base64(1)'s line breaks
  EXPECT_EQ(base64_decode("Zm8"), "fo");               // unpadded
  EXPECT_EQ(base64_decode(""), "");
  EXPECT_FALSE(base64_decode("Zm9v!"));
  EXPECT_FALSE(base64_decode("Z"));
  EXPECT_FALSE(base64_decode("Z==="));
}

TEST(JsonTranscoding, RoundTripsARequestWithEitherFieldSpelling) {
  const auto& type = *pathfinding::v1::FindPathRequest::descriptor();
  std::string binary;
  ASSERT_TRUE(json_to_binary(type,
                             R"({"mask":"m","start":{"x":1,"y":2},"allow_corner_cutting":true,
                                 "expectedRevision":"7"})",
                             binary)
                  .ok());
  pathfinding::v1::FindPathRequest request;
  ASSERT_TRUE(request.ParseFromString(binary));
  EXPECT_EQ(request.mask(), "m");
  EXPECT_EQ(request.start().y(), 2);
  EXPECT_TRUE(request.allow_corner_cutting());
  EXPECT_EQ(request.expected_revision(), 7u);

  std::string json;
  ASSERT_TRUE(binary_to_json(type, binary, json).ok());
  EXPECT_NE(json.find("\"allowCornerCutting\":true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"expectedRevision\":\"7\""), std::string::npos) << json;
  EXPECT_TRUE(json_to_binary(type, "", binary).ok());  // an empty body is {}
}

TEST(JsonTranscoding, MalformedBodiesAreInvalidArgumentNamingTheProblem) {
  const auto& type = *pathfinding::v1::FindPathRequest::descriptor();
  std::string binary;
  const grpc::Status unknown = json_to_binary(type, R"({"strat":{}})", binary);
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(unknown.error_message().find("strat"), std::string::npos) << unknown.error_message();
  EXPECT_NE(unknown.error_message().find("pathfinding.v1.FindPathRequest"), std::string::npos);
  const grpc::Status wrong_type = json_to_binary(type, R"({"start":{"x":"one"}})", binary);
  EXPECT_EQ(wrong_type.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(json_to_binary(type, R"({"mask":)", binary).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  std::string json;
  EXPECT_EQ(binary_to_json(type, "\xff\xff\xff", json).error_code(), grpc::StatusCode::INTERNAL);
}

TEST(RpcMethods, EveryPathfinderMethodAndHealthCheckAreRouted) {
  const RpcMethods methods;
  const auto* service =
      pathfinding::v1::FindPathRequest::descriptor()->file()->FindServiceByName("Pathfinder");
  ASSERT_NE(service, nullptr);
  for (int i = 0; i < service->method_count(); ++i) {
    const RpcMethod* method =
        methods.find("/pathfinding.v1.Pathfinder/" + service->method(i)->name());
    ASSERT_NE(method, nullptr) << service->method(i)->name();
    EXPECT_EQ(method->server_streaming, service->method(i)->server_streaming());
  }
  EXPECT_TRUE(methods.find("/pathfinding.v1.Pathfinder/GetField")->server_streaming);
  EXPECT_TRUE(methods.find("/pathfinding.v1.Pathfinder/UploadMask")->large_request);
  EXPECT_FALSE(methods.find("/pathfinding.v1.Pathfinder/FindPath")->large_request);
  EXPECT_NE(methods.find("/grpc.health.v1.Health/Check"), nullptr);
  EXPECT_EQ(methods.find("/grpc.health.v1.Health/Watch"), nullptr);
  EXPECT_EQ(methods.find("/pathfinding.v1.Pathfinder/Nope"), nullptr);
}

TEST(Cors, OnlyListedOriginsOrAnyWithAStar) {
  const CorsPolicy listed({"https://a.example"});
  EXPECT_TRUE(listed.allows("https://a.example"));
  EXPECT_FALSE(listed.allows("https://b.example"));
  EXPECT_FALSE(listed.allows(""));
  EXPECT_TRUE(CorsPolicy({"*"}).allows("https://b.example"));
  EXPECT_FALSE(CorsPolicy({}).allows("https://a.example"));
}

TEST(StaticFiles, RootIsIndexAndQueriesAreIgnored) {
  // Whatever viewer files are built in, each is found by its path.
  for (const StaticFile& file : embedded_files()) {
    EXPECT_EQ(find_static_file(std::string(file.path) + "?v=1"), &file);
  }
  EXPECT_EQ(find_static_file("/"), find_static_file("/index.html"));
  EXPECT_EQ(find_static_file("/no/such/file"), nullptr);
}

}  // namespace
