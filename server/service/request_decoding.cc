#include "service/request_decoding.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include <malloc.h>

#include <cstring>
#include <vector>

#include <string>

namespace pathserver {

namespace {
constexpr std::size_t kTrimEveryBytes = std::size_t{8} << 20;
}  // namespace

grpc::Status request_too_large(std::size_t size, std::size_t limit, std::string_view limit_flag) {
  return {grpc::StatusCode::RESOURCE_EXHAUSTED,
          "request: " + std::to_string(size) + " bytes; the limit for this call is " +
              std::to_string(limit) + " bytes (" + std::string(limit_flag) + ")"};
}

grpc::Status request_malformed(std::string_view type_name) {
  return {grpc::StatusCode::INVALID_ARGUMENT,
          "request: not a valid " + std::string(type_name) + " (the bytes do not decode)"};
}

grpc::Status decode_request(grpc::ByteBuffer& bytes, std::size_t limit,
                            std::string_view limit_flag, google::protobuf::MessageLite& out) {
  const std::size_t size = bytes.Length();
  if (size > limit) return request_too_large(size, limit, limit_flag);
  grpc::Slice flat;
  if (bytes.TrySingleSlice(&flat).ok()) {
    if (!out.ParseFromArray(flat.begin(), static_cast<int>(flat.size()))) {
      return request_malformed(out.GetTypeName());
    }
    return grpc::Status::OK;
  }
  if (size > kFlattenAboveBytes) {
    // Streamed, protobuf grows a large bytes field piece by piece (doubling
    // its string); from one flat buffer it copies it once. The received
    // slices go as soon as they are flat, so a 63 MiB upload peaks near
    // twice its size, not three times.
    if (!bytes.DumpToSingleSlice(&flat).ok()) return request_malformed(out.GetTypeName());
    bytes.Clear();
    if (!out.ParseFromArray(flat.begin(), static_cast<int>(flat.size()))) {
      return request_malformed(out.GetTypeName());
    }
    return grpc::Status::OK;
  }
  // The reader consumes its buffer; a copy shares the slices (no bytes copied).
  grpc::ByteBuffer readable(bytes);
  grpc::ProtoBufferReader reader(&readable);
  if (!reader.status().ok() || !out.ParseFromZeroCopyStream(&reader)) {
    return request_malformed(out.GetTypeName());
  }
  return grpc::Status::OK;
}

grpc::Status decode_request_keeping_field(grpc::ByteBuffer& bytes, std::size_t limit,
                                          std::string_view limit_flag,
                                          google::protobuf::MessageLite& out, int field_number,
                                          KeptField& kept) {
  namespace wire = google::protobuf::internal;
  const std::size_t size = bytes.Length();
  if (size > limit) return request_too_large(size, limit, limit_flag);
  if (!bytes.TrySingleSlice(&kept.bytes).ok()) {
    std::vector<grpc::Slice> pieces;
    if (!bytes.Dump(&pieces).ok()) return request_malformed(out.GetTypeName());
    bytes.Clear();
    grpc::Slice flat(size);
    auto* to = const_cast<std::uint8_t*>(flat.begin());
    std::size_t freed_since_trim = 0;
    for (grpc::Slice& piece : pieces) {
      std::memcpy(to, piece.begin(), piece.size());
      to += piece.size();
      freed_since_trim += piece.size();
      piece = grpc::Slice();  // its memory goes as soon as it is copied
      if (freed_since_trim >= kTrimEveryBytes) {
        // Received slices are small heap blocks: the allocator keeps their
        // pages when they are freed unless asked to hand them back.
        malloc_trim(0);
        freed_since_trim = 0;
      }
    }
    kept.bytes = std::move(flat);
  }
  // Every top-level field but the kept one is copied (they are small) and
  // decoded by protobuf; the kept one is only located.
  const std::uint8_t* const begin = kept.bytes.begin();
  google::protobuf::io::CodedInputStream input(begin, static_cast<int>(kept.bytes.size()));
  input.SetTotalBytesLimit(INT32_MAX);
  std::string rest;
  kept.field = {};
  while (true) {
    const int start = input.CurrentPosition();
    const std::uint32_t tag = input.ReadTag();
    if (tag == 0) break;
    if (wire::WireFormatLite::GetTagFieldNumber(tag) == field_number &&
        wire::WireFormatLite::GetTagWireType(tag) ==
            wire::WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      std::uint32_t length = 0;
      if (!input.ReadVarint32(&length)) return request_malformed(out.GetTypeName());
      const int at = input.CurrentPosition();
      if (!input.Skip(static_cast<int>(length))) return request_malformed(out.GetTypeName());
      kept.field = std::span(begin + at, length);
      continue;
    }
    if (!wire::WireFormatLite::SkipField(&input, tag)) return request_malformed(out.GetTypeName());
    rest.append(reinterpret_cast<const char*>(begin) + start,
                static_cast<std::size_t>(input.CurrentPosition() - start));
  }
  if (input.CurrentPosition() != static_cast<int>(size) || !out.ParseFromString(rest)) {
    return request_malformed(out.GetTypeName());
  }
  return grpc::Status::OK;
}

}  // namespace pathserver
