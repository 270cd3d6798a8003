#include "bench_server.h"

#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <stdexcept>
#include <system_error>

#include "store/file_mask_store.h"

namespace pathbench {

BenchStore::BenchStore(const std::string& name) {
  spdlog::set_level(spdlog::level::warn);
  std::string templ = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr) {
    throw std::runtime_error("cannot make a temporary directory for " + name);
  }
  dir_ = templ;
  store_ = std::make_unique<pathserver::FileMaskStore>(dir_);
}

BenchStore::~BenchStore() {
  store_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

BenchServer::BenchServer(pathserver::MaskStore& store, const BenchServerOptions& options)
    : cache_(std::make_unique<pathserver::FieldCache>(options.cache_bytes)),
      service_(std::make_unique<pathserver::PathfinderService>(store, *cache_, options.limits)) {
  grpc::EnableDefaultHealthCheckService(true);  // the no-op call some ratios divide by
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (!server_ || port == 0) throw std::runtime_error("the benchmark server did not start");
  pathfinder::ClientOptions client_options;
  client_options.deadline = options.deadline;
  client_options.max_message_bytes = options.max_message_bytes;
  client_ = std::make_unique<pathfinder::Client>("127.0.0.1:" + std::to_string(port),
                                                 client_options);
}

BenchServer::~BenchServer() { server_->Shutdown(); }

ServedMask::ServedMask(const std::string& store_name, const std::string& mask_name,
                       const pathcore::Mask& mask, const BenchServerOptions& options)
    : files_(store_name) {
  files_.store().put(mask_name, mask);
  server_ = std::make_unique<BenchServer>(files_.store(), options);
}

}  // namespace pathbench
