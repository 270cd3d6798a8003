#include "service/mask_areas_wire.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <array>
#include <memory>
#include <string>

namespace pathserver {
namespace {

void release_entry(void* held) { delete static_cast<MaskEntryPtr*>(held); }

}  // namespace

grpc::Status write_mask_with_areas(const pathfinding::v1::MaskInfo& info, MaskEntryPtr entry,
                                   grpc::ByteBuffer& out) {
  namespace wire = google::protobuf::internal;
  std::string head;
  if (!info.SerializeToString(&head)) {
    return {grpc::StatusCode::INTERNAL, "could not serialize the mask's description"};
  }
  const auto& areas = entry->mask->areas();
  // Field order does not matter on the wire: areas (a length-delimited
  // field) goes last, its tag and length at the end of the head.
  {
    google::protobuf::io::StringOutputStream stream(&head);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(wire::WireFormatLite::MakeTag(
        pathfinding::v1::MaskInfo::kAreasFieldNumber,
        wire::WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    coded.WriteVarint64(areas.size());
  }
  auto* held = new MaskEntryPtr(std::move(entry));
  // gRPC never writes through the pointer; the slice type just is not const.
  void* grid = const_cast<std::uint8_t*>((*held)->mask->areas().data());
  const std::array<grpc::Slice, 2> slices = {grpc::Slice(head),
                                             grpc::Slice(grid, areas.size(), release_entry, held)};
  out = grpc::ByteBuffer(slices.data(), slices.size());
  return grpc::Status::OK;
}

}  // namespace pathserver
