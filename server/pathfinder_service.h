#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>

#include "arena_allocator.h"
#include "auth.h"
#include "field_cache.h"
#include "field_finisher.h"
#include "mask_store.h"
#include "pathcore/codec.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "query_caches.h"

namespace pathserver {

// Default ServiceLimits::max_reachable_pairs.
inline constexpr int kDefaultMaxReachablePairs = 10000;

struct ServiceLimits {
  // Largest mask an upload may decode to, in pixels.
  std::uint64_t max_pixels = pathcore::kDefaultMaxPixels;
  // Most pairs one Reachable request may carry (more: RESOURCE_EXHAUSTED).
  int max_reachable_pairs = kDefaultMaxReachablePairs;
  // Component labellings kept for Reachable (LRU; 0 disables caching).
  std::size_t component_cache_entries = 64;
  // Stitched StandardMove answers kept (LRU; 0 disables caching).
  std::size_t route_cache_entries = 4096;
};

// The Pathfinder gRPC service. Handlers validate the request, translate it to
// core types, call the store / cache / core and translate the answer back.
// Every failed call is logged once (RPC, status code, message). The store and
// cache must outlive the service. Every RPC first checks the caller's bearer
// token with `authorizer` (writes: Access::kWrite, the rest: kQuery).
class PathfinderService final : public pathfinding::v1::Pathfinder::CallbackService {
 public:
  PathfinderService(MaskStore& store, FieldCache& cache, ServiceLimits limits,
                    Authorizer authorizer = {});

  grpc::ServerUnaryReactor* UploadMask(grpc::CallbackServerContext* ctx,
                                       const pathfinding::v1::UploadMaskRequest* request,
                                       pathfinding::v1::MaskInfo* response) override;
  grpc::ServerUnaryReactor* PatchMask(grpc::CallbackServerContext* ctx,
                                      const pathfinding::v1::PatchMaskRequest* request,
                                      pathfinding::v1::MaskInfo* response) override;
  grpc::ServerUnaryReactor* DeleteMask(grpc::CallbackServerContext* ctx,
                                       const pathfinding::v1::DeleteMaskRequest* request,
                                       pathfinding::v1::DeleteMaskResponse* response) override;
  grpc::ServerUnaryReactor* GetMask(grpc::CallbackServerContext* ctx,
                                    const pathfinding::v1::GetMaskRequest* request,
                                    pathfinding::v1::MaskInfo* response) override;
  grpc::ServerUnaryReactor* ListMasks(grpc::CallbackServerContext* ctx,
                                      const pathfinding::v1::ListMasksRequest* request,
                                      pathfinding::v1::ListMasksResponse* response) override;
  grpc::ServerUnaryReactor* FindPath(grpc::CallbackServerContext* ctx,
                                     const pathfinding::v1::FindPathRequest* request,
                                     pathfinding::v1::FindPathResponse* response) override;
  grpc::ServerUnaryReactor* Reachable(grpc::CallbackServerContext* ctx,
                                      const pathfinding::v1::ReachableRequest* request,
                                      pathfinding::v1::ReachableResponse* response) override;
  grpc::ServerUnaryReactor* StandardMove(grpc::CallbackServerContext* ctx,
                                         const pathfinding::v1::StandardMoveRequest* request,
                                         pathfinding::v1::StandardMoveResponse* response) override;

 private:
  grpc::Status upload_mask(const pathfinding::v1::UploadMaskRequest& request,
                           pathfinding::v1::MaskInfo& response);
  grpc::Status delete_mask(const pathfinding::v1::DeleteMaskRequest& request);
  grpc::Status get_mask(const pathfinding::v1::GetMaskRequest& request,
                        pathfinding::v1::MaskInfo& response) const;
  grpc::Status list_masks(pathfinding::v1::ListMasksResponse& response) const;
  // In query_handlers.cc.
  grpc::Status patch_mask(const pathfinding::v1::PatchMaskRequest& request,
                          pathfinding::v1::MaskInfo& response);
  grpc::Status reachable(const pathfinding::v1::ReachableRequest& request,
                         pathfinding::v1::ReachableResponse& response);
  grpc::Status standard_move(const pathfinding::v1::StandardMoveRequest& request,
                             pathfinding::v1::StandardMoveResponse& response);
  grpc::Status find_path(const pathfinding::v1::FindPathRequest& request,
                         pathfinding::v1::FindPathResponse& response);

  MaskStore& store_;
  FieldCache& cache_;
  ServiceLimits limits_;
  Authorizer authorizer_;
  // Component labels (Reachable) and stitched routes (StandardMove).
  QueryCaches query_caches_{limits_.component_cache_entries, limits_.route_cache_entries};
  // Reachable requests carry up to 10,000 pairs: parse them on an arena.
  ArenaMessageAllocator<pathfinding::v1::ReachableRequest, pathfinding::v1::ReachableResponse>
      reachable_allocator_;
  // Completes the fields cold FindPath calls traced on half-built (see
  // cached_find_path); joined when the service is destroyed.
  FieldFinisher finisher_;
};

// "INVALID_ARGUMENT", "NOT_FOUND", ... for logs.
[[nodiscard]] std::string status_code_name(grpc::StatusCode code);

}  // namespace pathserver
