// The client library against an in-process fake Pathfinder server that
// records what reaches it: the x-pathfinder-mask header on every call that
// names a mask, and the retry policy (UNAVAILABLE retried on the idempotent
// calls only, bounded, and not at all when switched off).

#include <gtest/gtest.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/server_context.h>
#include <grpcpp/security/server_credentials.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pathfinder/client.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathfinder::ClientOptions;

// Answers every call with the status its method is told to fail with (the
// first fail_count[method] calls, or all when fail_count is negative), else
// OK, and records each call's method and mask header.
class FakePathfinder final : public pb::Pathfinder::Service {
 public:
  struct Call {
    std::string method;
    std::optional<std::string> mask_header;
  };

  void fail(const std::string& method, grpc::StatusCode code, int times) {
    std::lock_guard lock(mutex_);
    failures_[method] = {code, times};
  }
  std::vector<Call> calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  int attempts(const std::string& method) {
    std::lock_guard lock(mutex_);
    int count = 0;
    for (const auto& call : calls_) count += call.method == method ? 1 : 0;
    return count;
  }

  grpc::Status UploadMask(grpc::ServerContext* context, const pb::UploadMaskRequest*,
                          pb::MaskInfo*) override {
    return answer("UploadMask", context);
  }
  grpc::Status PatchMask(grpc::ServerContext* context, const pb::PatchMaskRequest*,
                         pb::MaskInfo*) override {
    return answer("PatchMask", context);
  }
  grpc::Status DeleteMask(grpc::ServerContext* context, const pb::DeleteMaskRequest*,
                          pb::DeleteMaskResponse*) override {
    return answer("DeleteMask", context);
  }
  grpc::Status GetMask(grpc::ServerContext* context, const pb::GetMaskRequest*,
                       pb::MaskInfo*) override {
    return answer("GetMask", context);
  }
  grpc::Status ListMasks(grpc::ServerContext* context, const pb::ListMasksRequest*,
                         pb::ListMasksResponse*) override {
    return answer("ListMasks", context);
  }
  grpc::Status FindPath(grpc::ServerContext* context, const pb::FindPathRequest*,
                        pb::FindPathResponse* response) override {
    response->set_found(true);
    return answer("FindPath", context);
  }
  grpc::Status Reachable(grpc::ServerContext* context, const pb::ReachableRequest*,
                         pb::ReachableResponse*) override {
    return answer("Reachable", context);
  }
  grpc::Status StandardMove(grpc::ServerContext* context, const pb::StandardMoveRequest*,
                            pb::StandardMoveResponse*) override {
    return answer("StandardMove", context);
  }
  grpc::Status BatchFindPaths(grpc::ServerContext* context, const pb::BatchFindPathsRequest*,
                              pb::BatchFindPathsResponse*) override {
    return answer("BatchFindPaths", context);
  }
  grpc::Status LineOfSight(grpc::ServerContext* context, const pb::LineOfSightRequest*,
                           pb::LineOfSightResponse*) override {
    return answer("LineOfSight", context);
  }
  grpc::Status NearestWalkable(grpc::ServerContext* context, const pb::NearestWalkableRequest*,
                               pb::NearestWalkableResponse*) override {
    return answer("NearestWalkable", context);
  }
  // A one-sample field (distance 0), once not told to fail: nothing is sent
  // before a failure, so the client may still retry.
  grpc::Status GetField(grpc::ServerContext* context, const pb::GetFieldRequest*,
                        grpc::ServerWriter<pb::FieldChunk>* writer) override {
    grpc::Status status = answer("GetField", context);
    if (!status.ok()) return status;
    pb::FieldChunk chunk;
    chunk.set_width(1);
    chunk.set_height(1);
    chunk.set_row_count(1);
    chunk.set_distances(std::string(4, '\0'));  // 0.0f
    writer->Write(chunk);
    return status;
  }

 private:
  grpc::Status answer(const std::string& method, grpc::ServerContext* context) {
    std::lock_guard lock(mutex_);
    Call call{method, std::nullopt};
    const auto& metadata = context->client_metadata();
    if (const auto it = metadata.find(pathfinder::kMaskHeader); it != metadata.end()) {
      call.mask_header = std::string(it->second.data(), it->second.size());
    }
    calls_.push_back(call);
    auto it = failures_.find(method);
    if (it != failures_.end() && it->second.second != 0) {
      if (it->second.second > 0) --it->second.second;
      return grpc::Status(it->second.first, "told to fail");
    }
    return grpc::Status::OK;
  }

  std::mutex mutex_;
  std::vector<Call> calls_;
  std::map<std::string, std::pair<grpc::StatusCode, int>> failures_;
};

class ClientRetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port_, 0);
  }
  void TearDown() override { server_->Shutdown(); }

  // A client with short backoffs, so that five attempts take milliseconds.
  Client client(bool retry = true, bool mask_header = true) {
    ClientOptions options;
    options.deadline = std::chrono::seconds(10);
    options.retry.enabled = retry;
    options.retry.initial_backoff = std::chrono::milliseconds(5);
    options.retry.max_backoff = std::chrono::milliseconds(20);
    options.send_mask_header = mask_header;
    return Client("127.0.0.1:" + std::to_string(port_), options);
  }

  FakePathfinder service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

pb::FindPathRequest find_request(const std::string& mask) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  *request.mutable_start() = pathfinder::make_point(0, 0);
  *request.mutable_goal() = pathfinder::make_point(1, 1);
  return request;
}

// Makes one call of every Pathfinder method, each naming mask "level-7"
// (ListMasks names none).
void call_every_method(Client& client) {
  pb::UploadMaskRequest upload;
  upload.set_name("level-7");
  (void)client.upload_mask(upload);
  pb::PatchMaskRequest patch;
  patch.set_name("level-7");
  (void)client.patch_mask(patch);
  (void)client.delete_mask("level-7");
  (void)client.get_mask("level-7");
  (void)client.list_masks();
  (void)client.find_path(find_request("level-7"));
  pb::ReachableRequest reachable;
  reachable.set_mask("level-7");
  (void)client.reachable(reachable);
  pb::StandardMoveRequest move;
  move.set_mask("level-7");
  (void)client.standard_move(move);
  pb::BatchFindPathsRequest batch;
  batch.set_mask("level-7");
  (void)client.batch_find_paths(batch);
  pb::LineOfSightRequest sight;
  sight.set_mask("level-7");
  (void)client.line_of_sight(sight);
  pb::NearestWalkableRequest nearest;
  nearest.set_mask("level-7");
  (void)client.nearest_walkable(nearest);
  pb::GetFieldRequest field;
  field.set_mask("level-7");
  (void)client.get_field(field);
}

TEST_F(ClientRetryTest, EveryCallNamingAMaskCarriesTheMaskHeader) {
  auto c = client();
  call_every_method(c);
  const auto calls = service_.calls();
  ASSERT_EQ(calls.size(), 12u);
  for (const auto& call : calls) {
    if (call.method == "ListMasks") {
      EXPECT_FALSE(call.mask_header.has_value()) << "ListMasks names no mask";
    } else {
      ASSERT_TRUE(call.mask_header.has_value()) << call.method;
      EXPECT_EQ(*call.mask_header, "level-7") << call.method;
    }
  }
}

TEST_F(ClientRetryTest, MaskHeaderCanBeSwitchedOff) {
  auto c = client(/*retry=*/true, /*mask_header=*/false);
  call_every_method(c);
  for (const auto& call : service_.calls()) {
    EXPECT_FALSE(call.mask_header.has_value()) << call.method;
  }
}

TEST_F(ClientRetryTest, NamesThatAreNoValidHeaderValueGoWithoutIt) {
  auto c = client();
  const auto answer = c.find_path(find_request("caf\xc3\xa9"));
  EXPECT_TRUE(answer.ok()) << answer.status.error_message();
  const auto calls = service_.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].mask_header.has_value());
}

// Every call that reads only (GetField before its first chunk).
constexpr const char* kIdempotentMethods[] = {"FindPath",    "Reachable",       "StandardMove",
                                              "GetMask",     "ListMasks",       "BatchFindPaths",
                                              "LineOfSight", "NearestWalkable", "GetField"};

TEST_F(ClientRetryTest, IdempotentCallsAreRetriedOnUnavailable) {
  auto c = client();
  for (const std::string method : kIdempotentMethods) {
    service_.fail(method, grpc::StatusCode::UNAVAILABLE, 2);
  }
  const auto found = c.find_path(find_request("m"));
  EXPECT_TRUE(found.ok()) << found.status.error_message();
  EXPECT_TRUE(found.value.found());
  pb::ReachableRequest reachable;
  reachable.set_mask("m");
  EXPECT_TRUE(c.reachable(reachable).ok());
  pb::StandardMoveRequest move;
  move.set_mask("m");
  EXPECT_TRUE(c.standard_move(move).ok());
  EXPECT_TRUE(c.get_mask("m").ok());
  EXPECT_TRUE(c.list_masks().ok());
  pb::BatchFindPathsRequest batch;
  batch.set_mask("m");
  EXPECT_TRUE(c.batch_find_paths(batch).ok());
  pb::LineOfSightRequest sight;
  sight.set_mask("m");
  EXPECT_TRUE(c.line_of_sight(sight).ok());
  pb::NearestWalkableRequest nearest;
  nearest.set_mask("m");
  EXPECT_TRUE(c.nearest_walkable(nearest).ok());
  pb::GetFieldRequest field;
  field.set_mask("m");
  const auto streamed = c.get_field(field);
  EXPECT_TRUE(streamed.ok()) << streamed.status.error_message();
  for (const std::string method : kIdempotentMethods) {
    EXPECT_EQ(service_.attempts(method), 3) << method;
  }
}

TEST_F(ClientRetryTest, RetriesAreBoundedByMaxAttempts) {
  auto c = client();
  service_.fail("FindPath", grpc::StatusCode::UNAVAILABLE, -1);
  const auto found = c.find_path(find_request("m"));
  EXPECT_EQ(found.status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(service_.attempts("FindPath"), ClientOptions().retry.max_attempts);
}

TEST_F(ClientRetryTest, WritesAreNeverRetried) {
  auto c = client();
  for (const std::string method : {"UploadMask", "PatchMask", "DeleteMask"}) {
    service_.fail(method, grpc::StatusCode::UNAVAILABLE, -1);
  }
  pb::UploadMaskRequest upload;
  upload.set_name("m");
  EXPECT_EQ(c.upload_mask(upload).status.error_code(), grpc::StatusCode::UNAVAILABLE);
  pb::PatchMaskRequest patch;
  patch.set_name("m");
  EXPECT_EQ(c.patch_mask(patch).status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(c.delete_mask("m").status.error_code(), grpc::StatusCode::UNAVAILABLE);
  for (const std::string method : {"UploadMask", "PatchMask", "DeleteMask"}) {
    EXPECT_EQ(service_.attempts(method), 1) << method;
  }
}

TEST_F(ClientRetryTest, OtherFailuresAreNotRetried) {
  auto c = client();
  service_.fail("FindPath", grpc::StatusCode::NOT_FOUND, -1);
  EXPECT_EQ(c.find_path(find_request("m")).status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(service_.attempts("FindPath"), 1);
}

TEST_F(ClientRetryTest, NoRetriesWhenSwitchedOff) {
  auto c = client(/*retry=*/false);
  service_.fail("FindPath", grpc::StatusCode::UNAVAILABLE, 2);
  EXPECT_EQ(c.find_path(find_request("m")).status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(service_.attempts("FindPath"), 1);
}

TEST(RetryServiceConfig, NamesOnlyTheIdempotentMethodsAndIsEmptyWhenOff) {
  pathfinder::RetryPolicy policy;
  const std::string json = pathfinder::retry_service_config(policy);
  for (const char* method : kIdempotentMethods) {
    EXPECT_NE(json.find(std::string("\"") + method + "\""), std::string::npos) << method;
  }
  for (const char* method : {"UploadMask", "PatchMask", "DeleteMask"}) {
    EXPECT_EQ(json.find(method), std::string::npos) << method;
  }
  EXPECT_NE(json.find(R"("initialBackoff":"0.100s")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("retryableStatusCodes":["UNAVAILABLE"])"), std::string::npos) << json;
  policy.enabled = false;
  EXPECT_EQ(pathfinder::retry_service_config(policy), "");
}

}  // namespace
