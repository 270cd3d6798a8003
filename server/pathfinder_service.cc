#include "pathfinder_service.h"

#include <absl/status/status.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "cached_find_path.h"
#include "pathcore/codec.h"
#include "pathcore/path.h"
#include "proto_convert.h"
#include "rpc_status.h"

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

// Codes a client caused by what it sent; logged at info, the rest at warn/error.
bool client_error(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::CANCELLED:
      return true;
    default:
      return false;
  }
}

void log_failure(const char* rpc, const grpc::Status& status) {
  if (status.ok()) return;
  const grpc::StatusCode code = status.error_code();
  const spdlog::level::level_enum level =
      client_error(code) ? spdlog::level::info
      : (code == grpc::StatusCode::INTERNAL || code == grpc::StatusCode::UNKNOWN ||
         code == grpc::StatusCode::DATA_LOSS)
          ? spdlog::level::err
          : spdlog::level::warn;
  spdlog::log(level, "{} failed: {}: {}", rpc, status_code_name(code), status.error_message());
}

// Every call ends here, on whichever thread answered it: logs a failure and
// finishes the call.
grpc::ServerUnaryReactor* finish_call(grpc::CallbackServerContext* ctx, const char* rpc,
                                      const grpc::Status& status) {
  log_failure(rpc, status);
  if (status.ok()) spdlog::debug("{} ok", rpc);
  auto* r = ctx->DefaultReactor();
  r->Finish(status);
  return r;
}

// Runs a handler body, turning escaped exceptions into statuses.
template <typename Body>
grpc::Status run_handler(Body&& body) {
  grpc::Status status;
  try {
    status = std::forward<Body>(body)();
  } catch (const pathcore::InvalidArgument& e) {
    status = invalid(e.what());
  } catch (const InvalidMaskName& e) {
    status = invalid(e.what());
  } catch (const StoreLimitExceeded& e) {
    status = {grpc::StatusCode::RESOURCE_EXHAUSTED, e.what()};
  } catch (const StoreError& e) {
    status = {grpc::StatusCode::INTERNAL, e.what()};
  } catch (const std::bad_alloc&) {
    status = {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory"};
  } catch (const std::exception& e) {
    status = {grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()};
  }
  return status;
}

// Checks the caller's token for `access`, runs the handler body only when
// the authorizer allows the call, and finishes the call.
template <typename Body>
grpc::ServerUnaryReactor* respond(grpc::CallbackServerContext* ctx, const char* rpc,
                                  const Authorizer& authorizer, Access access, Body&& body) {
  grpc::Status status = authorizer.check(*ctx, access);
  if (status.ok()) status = run_handler(std::forward<Body>(body));
  return finish_call(ctx, rpc, status);
}

}  // namespace

std::string status_code_name(grpc::StatusCode code) {
  // grpc::StatusCode and absl::StatusCode share their numbering.
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

PathfinderService::PathfinderService(MaskStore& store, FieldCache& cache, ServiceLimits limits,
                                     Authorizer authorizer)
    : store_(store),
      cache_(cache),
      limits_(limits),
      authorizer_(std::move(authorizer)),
      finisher_(cache, /*max_pending=*/4) {
  SetMessageAllocatorFor_Reachable(&reachable_allocator_);
}

grpc::ServerUnaryReactor* PathfinderService::UploadMask(grpc::CallbackServerContext* ctx,
                                                        const v1::UploadMaskRequest* request,
                                                        v1::MaskInfo* response) {
  return respond(ctx, "UploadMask", authorizer_, Access::kWrite,
                 [&] { return upload_mask(*request, *response); });
}

grpc::ServerUnaryReactor* PathfinderService::PatchMask(grpc::CallbackServerContext* ctx,
                                                       const v1::PatchMaskRequest* request,
                                                       v1::MaskInfo* response) {
  return respond(ctx, "PatchMask", authorizer_, Access::kWrite,
                 [&] { return patch_mask(*request, *response); });
}

grpc::ServerUnaryReactor* PathfinderService::DeleteMask(grpc::CallbackServerContext* ctx,
                                                        const v1::DeleteMaskRequest* request,
                                                        v1::DeleteMaskResponse* /*response*/) {
  return respond(ctx, "DeleteMask", authorizer_, Access::kWrite,
                 [&] { return delete_mask(*request); });
}

grpc::ServerUnaryReactor* PathfinderService::GetMask(grpc::CallbackServerContext* ctx,
                                                     const v1::GetMaskRequest* request,
                                                     v1::MaskInfo* response) {
  return respond(ctx, "GetMask", authorizer_, Access::kQuery,
                 [&] { return get_mask(*request, *response); });
}

grpc::ServerUnaryReactor* PathfinderService::ListMasks(grpc::CallbackServerContext* ctx,
                                                       const v1::ListMasksRequest* /*request*/,
                                                       v1::ListMasksResponse* response) {
  return respond(ctx, "ListMasks", authorizer_, Access::kQuery,
                 [&] { return list_masks(*response); });
}

grpc::ServerUnaryReactor* PathfinderService::FindPath(grpc::CallbackServerContext* ctx,
                                                      const v1::FindPathRequest* request,
                                                      v1::FindPathResponse* response) {
  return respond(ctx, "FindPath", authorizer_, Access::kQuery,
                 [&] { return find_path(*request, *response); });
}

grpc::ServerUnaryReactor* PathfinderService::Reachable(grpc::CallbackServerContext* ctx,
                                                       const v1::ReachableRequest* request,
                                                       v1::ReachableResponse* response) {
  return respond(ctx, "Reachable", authorizer_, Access::kQuery,
                 [&] { return reachable(*request, *response); });
}

grpc::ServerUnaryReactor* PathfinderService::StandardMove(grpc::CallbackServerContext* ctx,
                                                          const v1::StandardMoveRequest* request,
                                                          v1::StandardMoveResponse* response) {
  return respond(ctx, "StandardMove", authorizer_, Access::kQuery,
                 [&] { return standard_move(*request, *response); });
}

grpc::Status PathfinderService::upload_mask(const v1::UploadMaskRequest& request,
                                            v1::MaskInfo& response) {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  if (request.image().empty()) return invalid("image: is empty");

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
  } else if (!request.palette().empty()) {
    return invalid("palette: is only used with PIXEL_RULE_PALETTE");
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

  const auto& image = request.image();
  std::optional<pathcore::Mask> mask;
  try {
    mask.emplace(pathcore::decode_mask(
        std::span(reinterpret_cast<const std::uint8_t*>(image.data()), image.size()), options));
  } catch (const pathcore::DecodeError& e) {
    const auto code = e.kind() == pathcore::DecodeError::Kind::kTooLarge
                          ? grpc::StatusCode::RESOURCE_EXHAUSTED
                          : grpc::StatusCode::INVALID_ARGUMENT;
    return {code, std::string("image: ") + e.what()};
  } catch (const pathcore::InvalidArgument& e) {
    return invalid(std::string("image: ") + e.what());
  }

  const MaskEntryPtr entry = store_.put(request.name(), std::move(*mask));
  cache_.erase_mask(entry->name);
  query_caches_.erase_mask(entry->name);
  to_proto(*entry, &response);
  spdlog::debug("UploadMask: stored '{}' revision {} ({}x{})", entry->name, entry->revision,
                entry->mask->width(), entry->mask->height());
  return grpc::Status::OK;
}

grpc::Status PathfinderService::delete_mask(const v1::DeleteMaskRequest& request) {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  if (!store_.remove(request.name())) return mask_not_found(request.name());
  cache_.erase_mask(request.name());
  query_caches_.erase_mask(request.name());
  spdlog::debug("DeleteMask: deleted '{}'", request.name());
  return grpc::Status::OK;
}

grpc::Status PathfinderService::get_mask(const v1::GetMaskRequest& request,
                                         v1::MaskInfo& response) const {
  if (auto problem = mask_name_problem(request.name())) return invalid("name: " + *problem);
  const MaskEntryPtr entry = store_.get(request.name());
  if (!entry) return mask_not_found(request.name());
  to_proto(*entry, &response);
  return grpc::Status::OK;
}

grpc::Status PathfinderService::list_masks(v1::ListMasksResponse& response) const {
  for (const MaskEntryPtr& entry : store_.list()) to_proto(*entry, response.add_masks());
  return grpc::Status::OK;
}

grpc::Status PathfinderService::find_path(const v1::FindPathRequest& request,
                                          v1::FindPathResponse& response) {
  if (auto problem = mask_name_problem(request.mask())) return invalid("mask: " + *problem);
  const auto connectivity = to_core(request.connectivity());
  if (!connectivity) {
    return invalid("connectivity: unknown value " + std::to_string(request.connectivity()));
  }
  const auto smoothing = to_core(request.smoothing());
  if (!smoothing) return invalid("smoothing: unknown value " + std::to_string(request.smoothing()));
  pathcore::AreaCosts costs = pathcore::unit_area_costs();
  for (const auto& [area, cost] : request.area_costs()) {
    if (area < 1 || area > static_cast<std::uint32_t>(pathcore::kMaxAreaId)) {
      return invalid("area_costs: area id " + std::to_string(area) + " is out of range 1.." +
                     std::to_string(pathcore::kMaxAreaId));
    }
    if (cost < 1 || cost > 255) {
      return invalid("area_costs: cost " + std::to_string(cost) + " for area " +
                     std::to_string(area) + " is out of range 1..255");
    }
    costs[area] = static_cast<std::uint8_t>(cost);
  }
  const pathcore::AreaSet enabled = pathcore::effective_areas(request.enabled_areas());
  if (enabled == 0) return no_walkable_area();
  if (!request.has_start()) return invalid("start: is required");
  if (!request.has_goal()) return invalid("goal: is required");

  const MaskEntryPtr entry = store_.get(request.mask());
  if (!entry) return mask_not_found(request.mask());
  const pathcore::Mask& mask = *entry->mask;
  const pathcore::Point start = to_core(request.start());
  const pathcore::Point goal = to_core(request.goal());
  for (const auto& [field, point] : {std::pair{"start", start}, std::pair{"goal", goal}}) {
    if (!mask.contains(point)) {
      return invalid(outside(field, point, *entry));
    }
  }

  pathcore::FindPathOptions options;
  options.field.enabled = enabled;
  options.field.connectivity = *connectivity;
  // A four-connected walker cannot squeeze between diagonal neighbours, so
  // corner cutting only means something with eight-connectivity.
  options.field.allow_corner_cutting =
      *connectivity == pathcore::Connectivity::kEight && request.allow_corner_cutting();
  options.field.area_costs = costs;
  options.smoothing = *smoothing;
  options.snap_to_reachable = request.snap_to_reachable();

  const CachedPathResult result =
      cached_find_path(*entry, cache_, &finisher_, start, goal, options);
  to_proto(result.path, &response);
  response.set_mask_revision(entry->revision);
  response.set_cache_hit(result.cache_hit);
  return grpc::Status::OK;
}

}  // namespace pathserver
