// Decoding raw requests: the size limit comes before decoding, undecodable
// bytes are INVALID_ARGUMENT, and a write's large field left in the received
// bytes holds exactly what protobuf's own parser (the reference) reads.
#include "service/request_decoding.h"

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "pathfinding/v1/pathfinding.pb.h"
#include "service/reachable_wire.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

constexpr std::size_t kLimit = 1 << 24;

// `bytes` received in pieces of `piece` bytes, as gRPC hands large messages over.
grpc::ByteBuffer received(const std::string& bytes, std::size_t piece) {
  std::vector<grpc::Slice> slices;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    const std::string part = bytes.substr(at, piece);
    slices.emplace_back(part);
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

std::string random_bytes(std::mt19937& rng, std::size_t size) {
  std::string out(size, '\0');
  for (char& c : out) c = static_cast<char>(rng() & 0xFF);
  return out;
}

TEST(DecodeRequest, RefusesALargeRequestBeforeDecodingIt) {
  grpc::ByteBuffer bytes = received(std::string(5000, '\xff'), 1000);  // not a message either
  v1::FindPathRequest request;
  const grpc::Status status = decode_request(bytes, 4096, "--max-query-kb", request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("5000 bytes"), std::string::npos);
  EXPECT_NE(status.error_message().find("--max-query-kb"), std::string::npos);
}

TEST(DecodeRequest, UndecodableBytesAreInvalidArgumentNamingTheMessage) {
  google::protobuf::LogSilencer quiet;
  for (const std::string& garbage : {std::string("\x0a\xff\xff", 3), std::string("\x0a\x02\xc3", 3),
                                     std::string("\x07", 1)}) {
    grpc::ByteBuffer bytes = received(garbage, 2);
    v1::FindPathRequest request;
    const grpc::Status status = decode_request(bytes, kLimit, "--max-query-kb", request);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("pathfinding.v1.FindPathRequest"), std::string::npos);
  }
}

TEST(DecodeRequest, DecodesWhatProtobufDecodesWhateverTheSlices) {
  v1::FindPathRequest sent;
  sent.set_mask(std::string(3000, 'm'));
  sent.mutable_start()->set_x(7);
  sent.mutable_goal()->set_y(9);
  sent.set_enabled_areas(6);
  const std::string bytes = sent.SerializeAsString();
  for (const std::size_t piece : {bytes.size(), std::size_t{1}, std::size_t{100}}) {
    grpc::ByteBuffer buffer = received(bytes, piece);
    v1::FindPathRequest got;
    ASSERT_TRUE(decode_request(buffer, kLimit, "--max-query-kb", got).ok()) << piece;
    EXPECT_EQ(got.SerializeAsString(), bytes) << piece;
  }
}

TEST(DecodeRequestKeepingField, KeepsExactlyTheFieldProtobufReads) {
  std::mt19937 rng(17);
  for (int round = 0; round < 200; ++round) {
    v1::UploadMaskRequest first;
    first.set_name("level-" + std::to_string(round));
    first.set_image(random_bytes(rng, rng() % 5000));
    first.set_format(v1::MASK_FORMAT_RAW);
    first.set_width(rng() % 100);
    (*first.mutable_palette())[rng() % 0xFFFFFF] = rng() % 64;
    std::string bytes = first.SerializeAsString();
    if (round % 3 == 0) {
      // A second message appended: a merge, where the last image wins.
      v1::UploadMaskRequest second;
      second.set_image(random_bytes(rng, rng() % 300));
      second.set_height(5);
      bytes += second.SerializeAsString();
    }
    v1::UploadMaskRequest reference;
    ASSERT_TRUE(reference.ParseFromString(bytes));

    grpc::ByteBuffer buffer = received(bytes, 1 + rng() % 700);
    v1::UploadMaskRequest got;
    KeptField kept;
    ASSERT_TRUE(decode_request_keeping_field(buffer, kLimit, "--max-message-mb", got,
                                             v1::UploadMaskRequest::kImageFieldNumber, kept)
                    .ok());
    EXPECT_EQ(std::string(kept.field.begin(), kept.field.end()), reference.image());
    EXPECT_TRUE(got.image().empty());
    got.set_image(reference.image());
    EXPECT_EQ(got.SerializeAsString(), reference.SerializeAsString()) << round;
  }
}

TEST(DecodeRequestKeepingField, RefusesTruncatedAndOversizedRequests) {
  google::protobuf::LogSilencer quiet;
  v1::PatchMaskRequest patch;
  patch.set_name("a");
  patch.set_areas(std::string(1000, '\x01'));
  const std::string bytes = patch.SerializeAsString();
  for (const std::size_t cut : {bytes.size() - 1, std::size_t{5}, std::size_t{1}}) {
    grpc::ByteBuffer buffer = received(bytes.substr(0, cut), 64);
    v1::PatchMaskRequest got;
    KeptField kept;
    EXPECT_EQ(decode_request_keeping_field(buffer, kLimit, "--max-message-mb", got,
                                           v1::PatchMaskRequest::kAreasFieldNumber, kept)
                  .error_code(),
              grpc::StatusCode::INVALID_ARGUMENT)
        << cut;
  }
  grpc::ByteBuffer buffer = received(bytes, 64);
  v1::PatchMaskRequest got;
  KeptField kept;
  EXPECT_EQ(decode_request_keeping_field(buffer, 100, "--max-message-mb", got,
                                         v1::PatchMaskRequest::kAreasFieldNumber, kept)
                .error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST(DecodeReachableRequest, KeepsAtMostMaxPairsAndCountsThemAll) {
  v1::ReachableRequest request;
  request.set_mask("m");
  for (int i = 0; i < 5; ++i) {
    auto* pair = request.add_pairs();
    pair->mutable_a()->set_x(i);
    pair->mutable_b()->set_y(i);
  }
  const std::string bytes = request.SerializeAsString();
  WireReachableRequest decoded;
  ASSERT_TRUE(decode_reachable_request(
      std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), decoded, 2));
  EXPECT_EQ(decoded.pair_count, 5U);
  ASSERT_EQ(decoded.pairs.size(), 2U);
  EXPECT_EQ(decoded.pairs[1].a.x, 1);
  EXPECT_EQ(decoded.pairs[1].b.y, 1);
}

}  // namespace
}  // namespace pathserver
