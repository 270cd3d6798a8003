#include "http/rpc_methods.h"

#include <stdexcept>

#include "grpc/health/v1/health.pb.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace pathserver::http {

RpcMethods::RpcMethods() {
  // Naming a message of each file links its descriptors in (their static
  // initializers register them with the generated pool).
  const google::protobuf::FileDescriptor* files[] = {
      pathfinding::v1::FindPathRequest::descriptor()->file(),
      grpc::health::v1::HealthCheckRequest::descriptor()->file()};
  const google::protobuf::DescriptorPool* pool = google::protobuf::DescriptorPool::generated_pool();
  for (const auto* file : files) {
    if (pool->FindFileByName(file->name()) == nullptr) {
      throw std::runtime_error(file->name() + " is not in the generated descriptor pool");
    }
  }
  const auto* pathfinder = pool->FindServiceByName("pathfinding.v1.Pathfinder");
  const auto* health = pool->FindServiceByName("grpc.health.v1.Health");
  if (pathfinder == nullptr || health == nullptr) {
    throw std::runtime_error(
        "pathfinding.v1.Pathfinder or grpc.health.v1.Health has no descriptor");
  }
  for (int i = 0; i < pathfinder->method_count(); ++i) {
    const auto* method = pathfinder->method(i);
    if (method->client_streaming()) continue;  // none today; HTTP/1.1 cannot carry them
    methods_.push_back(
        {.path = "/" + pathfinder->full_name() + "/" + method->name(),
         .input = method->input_type(),
         .output = method->output_type(),
         .server_streaming = method->server_streaming(),
         .large_request = method->name() == "UploadMask" || method->name() == "PatchMask"});
  }
  // Watch streams for ever: not offered over HTTP.
  if (const auto* check = health->FindMethodByName("Check")) {
    methods_.push_back({.path = "/" + health->full_name() + "/Check",
                        .input = check->input_type(),
                        .output = check->output_type()});
  }
}

const RpcMethod* RpcMethods::find(std::string_view path) const {
  for (const RpcMethod& method : methods_) {
    if (method.path == path) return &method;
  }
  return nullptr;
}

}  // namespace pathserver::http
