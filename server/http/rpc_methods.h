#pragma once

// The methods the HTTP routes reach: every method of pathfinding.v1.Pathfinder
// and grpc.health.v1.Health/Check, found in protobuf's generated descriptor
// pool (so a method added to the proto is served without a change here).

#include <google/protobuf/descriptor.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace pathserver::http {

struct RpcMethod {
  std::string path;  // "/pathfinding.v1.Pathfinder/FindPath", also the gRPC method name
  const google::protobuf::Descriptor* input = nullptr;
  const google::protobuf::Descriptor* output = nullptr;
  bool server_streaming = false;
  // The request may be as large as the server's message limit (uploads and
  // patches); other requests are bounded by --max-query-kb as over gRPC.
  bool large_request = false;
};

// The routes' table, built once from the generated pool (thread-safe).
class RpcMethods {
 public:
  // Throws std::runtime_error when a service's descriptors are not linked in.
  RpcMethods();

  // The method at `path` ("/pathfinding.v1.Pathfinder/FindPath"), or null.
  [[nodiscard]] const RpcMethod* find(std::string_view path) const;

  [[nodiscard]] const std::vector<RpcMethod>& all() const { return methods_; }

 private:
  std::vector<RpcMethod> methods_;
};

}  // namespace pathserver::http
