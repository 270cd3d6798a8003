#pragma once

// The server the RPC benchmarks call: a PathfinderService in process on
// 127.0.0.1 (a port picked at start), over a file store in a temporary
// directory, and a C++ client for it. Each benchmark's fixture starts one
// (or two over one store: warm and cold) on first use.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "cache/field_cache.h"
#include "pathcore/mask.h"
#include "pathfinder/client.h"
#include "service/pathfinder_service.h"
#include "store/mask_store.h"

namespace pathbench {

// A FileMaskStore in a new temporary directory named after `name` (e.g.
// "field-bench"), removed with it. Also quiets the server's logging to
// warnings, which would otherwise be timed too.
class BenchStore {
 public:
  explicit BenchStore(const std::string& name);
  ~BenchStore();
  BenchStore(const BenchStore&) = delete;
  BenchStore& operator=(const BenchStore&) = delete;

  [[nodiscard]] pathserver::MaskStore& store() { return *store_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<pathserver::MaskStore> store_;
};

struct BenchServerOptions {
  std::size_t cache_bytes = std::size_t{64} << 20;  // 0: the cache keeps nothing
  pathserver::ServiceLimits limits;
  // Largest message either end sends or receives.
  int max_message_bytes = 64 << 20;
  std::chrono::milliseconds deadline{std::chrono::minutes(2)};  // of each call
};

// The service over `store` (which must outlive it), started; stopped with it.
class BenchServer {
 public:
  BenchServer(pathserver::MaskStore& store, const BenchServerOptions& options = {});
  ~BenchServer();
  BenchServer(const BenchServer&) = delete;
  BenchServer& operator=(const BenchServer&) = delete;

  [[nodiscard]] pathfinder::Client& client() { return *client_; }
  [[nodiscard]] pathserver::FieldCache& cache() { return *cache_; }

 private:
  std::unique_ptr<pathserver::FieldCache> cache_;
  std::unique_ptr<pathserver::PathfinderService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<pathfinder::Client> client_;
};

// A BenchStore holding one mask and a BenchServer over it: the fixture of the
// benchmarks that ask one server about one mask.
class ServedMask {
 public:
  ServedMask(const std::string& store_name, const std::string& mask_name,
             const pathcore::Mask& mask, const BenchServerOptions& options = {});
  [[nodiscard]] pathfinder::Client& client() { return server_->client(); }

 private:
  BenchStore files_;
  std::unique_ptr<BenchServer> server_;  // stops before the store goes
};

}  // namespace pathbench
