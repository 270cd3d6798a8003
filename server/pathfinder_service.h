#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>

#include "field_cache.h"
#include "mask_store.h"
#include "pathcore/codec.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"

namespace pathserver {

struct ServiceLimits {
  // Largest mask an upload may decode to, in pixels.
  std::uint64_t max_pixels = pathcore::kDefaultMaxPixels;
};

// The Pathfinder gRPC service. Handlers validate the request, translate it to
// core types, call the store / cache / core and translate the answer back.
// Every failed call is logged once (RPC, status code, message). The store and
// cache must outlive the service.
class PathfinderService final : public pathfinding::v1::Pathfinder::CallbackService {
 public:
  PathfinderService(MaskStore& store, FieldCache& cache, ServiceLimits limits);

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
  grpc::Status find_path(const pathfinding::v1::FindPathRequest& request,
                         pathfinding::v1::FindPathResponse& response);

  MaskStore& store_;
  FieldCache& cache_;
  ServiceLimits limits_;
};

// "INVALID_ARGUMENT", "NOT_FOUND", ... for logs.
[[nodiscard]] const char* status_code_name(grpc::StatusCode code);

}  // namespace pathserver
