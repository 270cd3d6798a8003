#pragma once

#include <google/protobuf/message_lite.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>
#include <grpcpp/support/status.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace pathserver {

// The flags that set the limits requests are decoded within, for their
// RESOURCE_EXHAUSTED answers: queries (and DeleteMask) and the writes that
// carry an image or an area grid.
inline constexpr std::string_view kQueryLimitFlag = "--max-query-kb";
inline constexpr std::string_view kMessageLimitFlag = "--max-message-mb";

// Requests larger than this are made flat before decoding (see decode_request).
inline constexpr std::size_t kFlattenAboveBytes = std::size_t{1} << 20;

// Decodes a raw method's request bytes into `out`. Refuses, before decoding,
// a request larger than `limit` bytes (RESOURCE_EXHAUSTED naming the limit
// and `limit_flag`, the flag that sets it), and answers INVALID_ARGUMENT
// ("request: not a valid pathfinding.v1.X") for bytes that are not such a
// message, including strings that are not UTF-8. A request of more than
// kFlattenAboveBytes in several slices is copied into one and `bytes` cleared
// (its memory freed) before decoding.
[[nodiscard]] grpc::Status decode_request(grpc::ByteBuffer& bytes, std::size_t limit,
                                          std::string_view limit_flag,
                                          google::protobuf::MessageLite& out);

// A write's request whose one large bytes field (UploadMaskRequest.image,
// PatchMaskRequest.areas) stays in the received bytes instead of being
// copied into the message: `field` points into `bytes`.
struct KeptField {
  grpc::Slice bytes;  // the whole request, flat
  std::span<const std::uint8_t> field;
};

// decode_request for writes: the message's bytes field `field_number` (the
// last one on the wire wins, as protobuf's parser does) is left in
// `kept.bytes` and the rest decoded into `out`. The received slices are
// copied into one flat buffer and each freed once copied, so a request of N
// bytes costs about N bytes, not the 2N to 3N of a decode into the message.
[[nodiscard]] grpc::Status decode_request_keeping_field(grpc::ByteBuffer& bytes, std::size_t limit,
                                                        std::string_view limit_flag,
                                                        google::protobuf::MessageLite& out,
                                                        int field_number, KeptField& kept);

// The RESOURCE_EXHAUSTED of a request of `size` bytes over `limit`.
[[nodiscard]] grpc::Status request_too_large(std::size_t size, std::size_t limit,
                                             std::string_view limit_flag);

// The INVALID_ARGUMENT of bytes that are not a `type_name` message.
[[nodiscard]] grpc::Status request_malformed(std::string_view type_name);

}  // namespace pathserver
