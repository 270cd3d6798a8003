// The mask RPCs: UploadMask, PatchMask, DeleteMask (the writes, audited),
// GetMask and ListMasks: their entry points and their bodies, which
// validate the request, use the store and translate the answer back.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "pathcore/codec.h"
#include "service/call_plumbing.h"
#include "service/mask_areas_wire.h"
#include "service/proto_convert.h"
#include "service/rpc_status.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

std::string hex(std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value & 0xF]);
    value >>= 4;
  } while (value != 0);
  return "0x" + out;
}

}  // namespace

grpc::ServerUnaryReactor* PathfinderService::UploadMask(grpc::CallbackServerContext* ctx,
                                                        const grpc::ByteBuffer* request,
                                                        grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::UploadMaskRequest, v1::MaskInfo>;
  return respond<v1::UploadMaskRequest, v1::MaskInfo>(
      ctx, "UploadMask", Access::kWrite, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        // Decoding the image, hashing the grid and writing the file.
        if (interrupt == nullptr) throw NeedsComputePool{};
        bool unchanged = false;
        const v1::MaskInfo& info = call.answer();
        const grpc::Status status =
            upload_mask(call.request(), call.kept_field().field, call.answer(), unchanged);
        if (status.ok()) {
          audit(call.context(), "UploadMask", unchanged ? "unchanged" : "stored", info.name(),
                info.revision(), info.width(), info.height(), info.sha256());
        }
        return status;
      });
}

grpc::ServerUnaryReactor* PathfinderService::PatchMask(grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::PatchMaskRequest, v1::MaskInfo>;
  return respond<v1::PatchMaskRequest, v1::MaskInfo>(
      ctx, "PatchMask", Access::kWrite, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        // Copying the grid, hashing it, its clearance map and writing the file.
        if (interrupt == nullptr) throw NeedsComputePool{};
        const v1::MaskInfo& info = call.answer();
        const grpc::Status status =
            patch_mask(call.request(), call.kept_field().field, call.answer());
        if (status.ok()) {
          audit(call.context(), "PatchMask", "patched", info.name(), info.revision(),
                info.width(), info.height(), info.sha256());
        }
        return status;
      });
}

grpc::ServerUnaryReactor* PathfinderService::DeleteMask(grpc::CallbackServerContext* ctx,
                                                        const grpc::ByteBuffer* request,
                                                        grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::DeleteMaskRequest, v1::DeleteMaskResponse>;
  return respond<v1::DeleteMaskRequest, v1::DeleteMaskResponse>(
      ctx, "DeleteMask", Access::kWrite, request, response,
      [this](Call& call, const std::function<bool()>* interrupt) {
        // A shared store's delete waits on its database: never on gRPC's threads.
        if (interrupt == nullptr) throw NeedsComputePool{};
        MaskEntryPtr removed;
        bool was_corrupt = false;
        const grpc::Status status = delete_mask(call.request(), removed, was_corrupt);
        if (status.ok() && removed) {
          audit(call.context(), "DeleteMask", "deleted", removed->name, removed->revision,
                removed->mask->width(), removed->mask->height(), removed->sha256);
        } else if (status.ok()) {  // a corrupt mask: nothing of it could be read
          audit(call.context(), "DeleteMask", "deleted corrupt file", call.request().name(), 0, 0,
                0, "");
        }
        return status;
      });
}

grpc::ServerUnaryReactor* PathfinderService::GetMask(grpc::CallbackServerContext* ctx,
                                                     const grpc::ByteBuffer* request,
                                                     grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::GetMaskRequest, v1::MaskInfo>;
  return respond<v1::GetMaskRequest, v1::MaskInfo>(
      ctx, "GetMask", Access::kQuery, request, response,
      [this](Call& call, const std::function<bool()>* /*interrupt*/) {
        return get_mask(call.request(), call, call.answer());
      });
}

grpc::ServerUnaryReactor* PathfinderService::ListMasks(grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) {
  using Call = MessageCall<v1::ListMasksRequest, v1::ListMasksResponse>;
  return respond<v1::ListMasksRequest, v1::ListMasksResponse>(
      ctx, "ListMasks", Access::kQuery, request, response,
      [this](Call& call, const std::function<bool()>* /*interrupt*/) {
        return list_masks(call.answer());
      });
}

grpc::Status PathfinderService::upload_mask(const v1::UploadMaskRequest& request,
                                            std::span<const std::uint8_t> image,
                                            v1::MaskInfo& response, bool& unchanged) {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  if (image.empty()) return invalid("image: is empty");

  pathcore::DecodeOptions options;
  const auto format = to_core(request.format());
  if (!format) return invalid("format: unknown value " + std::to_string(request.format()));
  const auto rule = to_core(request.rule());
  if (!rule) return invalid("rule: unknown value " + std::to_string(request.rule()));
  options.format = *format;
  options.rule = *rule;

  if (*rule == pathcore::PixelRule::kPalette) {
    if (request.palette().empty()) return invalid("palette: PIXEL_RULE_PALETTE needs a palette");
    for (const auto& [colour, area] : request.palette()) {
      if (colour > 0xFFFFFF) {
        return invalid("palette: colour " + hex(colour) + " is not a 0xRRGGBB value");
      }
      if (area > static_cast<std::uint32_t>(pathcore::kMaxAreaId)) {
        return invalid("palette: area id " + std::to_string(area) + " for colour " + hex(colour) +
                       " is out of range 0.." + std::to_string(pathcore::kMaxAreaId));
      }
      options.palette.emplace(colour, area);
    }
    options.block_unmapped = request.block_unmapped();
  } else if (!request.palette().empty()) {
    return invalid("palette: is only used with PIXEL_RULE_PALETTE");
  } else if (request.block_unmapped()) {
    return invalid("block_unmapped: is only used with PIXEL_RULE_PALETTE");
  }

  if (*format == pathcore::MaskFormat::kRaw) {
    if (request.width() == 0 || request.height() == 0) {
      return invalid("width: MASK_FORMAT_RAW needs width and height (got " +
                     std::to_string(request.width()) + "x" + std::to_string(request.height()) +
                     ")");
    }
    options.raw_width = request.width();
    options.raw_height = request.height();
  } else if (request.width() != 0 || request.height() != 0) {
    return invalid("width: width and height are only used with MASK_FORMAT_RAW");
  }
  options.max_pixels = limits_.max_pixels;

  std::optional<pathcore::Mask> mask;
  try {
    mask.emplace(pathcore::decode_mask(image, options));
  } catch (const pathcore::DecodeError& e) {
    const auto code = e.kind() == pathcore::DecodeError::Kind::kTooLarge
                          ? grpc::StatusCode::RESOURCE_EXHAUSTED
                          : grpc::StatusCode::INVALID_ARGUMENT;
    return {code, std::string("image: ") + e.what()};
  } catch (const pathcore::InvalidArgument& e) {
    return invalid(std::string("image: ") + e.what());
  }

  const MaskEntryPtr entry = store_.put(request.name(), std::move(*mask), &unchanged);
  if (!unchanged) {  // the same grid keeps its revision, and so its cached answers
    changed({.name = entry->name,
             .revision = entry->revision,
             .kind = StoreChange::Kind::kReplaced,
             .patched = {},
             .entry = entry});
  }
  to_proto(*entry, &response);
  return grpc::Status::OK;
}

grpc::Status PathfinderService::delete_mask(const v1::DeleteMaskRequest& request,
                                            MaskEntryPtr& removed, bool& was_corrupt) {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  removed = store_.remove(request.name(), &was_corrupt);
  if (was_corrupt) return grpc::Status::OK;  // nothing of it was ever served or cached
  if (!removed) return mask_not_found(request.name());
  changed({.name = request.name(),
           .revision = removed->revision,
           .kind = StoreChange::Kind::kDeleted,
           .patched = {},
           .entry = nullptr});
  return grpc::Status::OK;
}

grpc::Status PathfinderService::get_mask(const v1::GetMaskRequest& request, CallReactor& call,
                                         v1::MaskInfo& response) const {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  const MaskEntryPtr entry = store_.get(request.name());
  if (!entry) return mask_missing(store_, request.name());
  to_proto(*entry, &response);
  if (request.include_areas()) {
    // The grid plus its tag and length (at most 11 bytes) must fit one message.
    const std::size_t grid_bytes = entry->mask->pixel_count();
    const std::size_t total = response.ByteSizeLong() + grid_bytes + 11;
    if (total > limits_.max_message_bytes) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "include_areas: the area grid of '" + request.name() + "' is " +
                  std::to_string(grid_bytes) + " bytes (" + std::to_string(entry->mask->width()) +
                  "x" + std::to_string(entry->mask->height()) +
                  "), more than the server's message limit of " +
                  std::to_string(limits_.max_message_bytes) + " bytes allows"};
    }
    grpc::Status written = write_mask_with_areas(response, entry, call.answer_bytes());
    if (written.ok()) call.set_answer_written(/*by_reference=*/true);
    return written;
  }
  return grpc::Status::OK;
}

grpc::Status PathfinderService::list_masks(v1::ListMasksResponse& response) const {
  for (const MaskEntryPtr& entry : store_.list()) to_proto(*entry, response.add_masks());
  return grpc::Status::OK;
}

grpc::Status PathfinderService::patch_mask(const v1::PatchMaskRequest& request,
                                           std::span<const std::uint8_t> areas,
                                           v1::MaskInfo& response) {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  MaskPatch patch;
  patch.expected_revision = request.expected_revision();
  patch.x = request.x();
  patch.y = request.y();
  patch.width = request.width();
  patch.height = request.height();
  patch.areas = areas;
  MaskEntryPtr entry;
  try {
    entry = store_.patch(request.name(), patch);
  } catch (const MaskNotFound&) {
    return mask_not_found(request.name());
  } catch (const MaskCorrupt& e) {
    return {grpc::StatusCode::DATA_LOSS, e.what()};
  } catch (const RevisionMismatch& e) {
    return {grpc::StatusCode::FAILED_PRECONDITION, e.what()};
  } catch (const InvalidPatch& e) {
    return invalid(e.what());
  }
  // Entries of older revisions can no longer match (keys carry the
  // revision); drop them now to free the memory. A patch that changed
  // nothing kept the revision: its watchers hear nothing.
  changed({.name = entry->name,
           .revision = entry->revision,
           .kind = StoreChange::Kind::kPatched,
           .patched = {patch.x, patch.y, patch.width, patch.height},
           .entry = entry});
  to_proto(*entry, &response);
  return grpc::Status::OK;
}

}  // namespace pathserver
