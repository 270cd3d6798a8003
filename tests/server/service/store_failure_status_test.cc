// What the service answers when the store cannot write: a real FileMaskStore
// whose writes fail for real (a file size limit, see
// support/file_size_limit.h; a directory where a mask's file goes), behind the
// service in-process on 127.0.0.1 (port picked by the kernel).

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"
#include "support/file_size_limit.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace fs = std::filesystem;
namespace pb = pathfinding::v1;
using ::testing::HasSubstr;
using ::testing::Not;

class StoreFailureStatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<FileMaskStore>(data_dir_);
    service_ = std::make_unique<PathfinderService>(*store_, cache_, ServiceLimits{});
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_NE(port, 0);
    stub_ = pb::Pathfinder::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                                        grpc::InsecureChannelCredentials()));
  }

  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
    server_.reset();
    service_.reset();
  }

  grpc::Status upload(const std::string& name, std::uint32_t width, std::uint32_t height,
                      pb::MaskInfo* info = nullptr) {
    grpc::ClientContext ctx;
    pb::MaskInfo response;
    return stub_->UploadMask(&ctx, pathtest::open_raw_upload(name, width, height),
                             info != nullptr ? info : &response);
  }

  grpc::Status patch(const std::string& name) {
    grpc::ClientContext ctx;
    pb::PatchMaskRequest request;
    request.set_name(name);
    request.set_width(1);
    request.set_height(1);
    request.set_areas(std::string(1, '\0'));
    pb::MaskInfo response;
    return stub_->PatchMask(&ctx, request, &response);
  }

  grpc::Status remove(const std::string& name) {
    grpc::ClientContext ctx;
    pb::DeleteMaskRequest request;
    request.set_name(name);
    pb::DeleteMaskResponse response;
    return stub_->DeleteMask(&ctx, request, &response);
  }

  std::uint64_t served_revision(const std::string& name) {
    grpc::ClientContext ctx;
    pb::GetMaskRequest request;
    request.set_name(name);
    pb::MaskInfo response;
    const grpc::Status status = stub_->GetMask(&ctx, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.revision();
  }

  pathtest::TempDir dir_{"pathfinder-store-failure"};
  std::string data_dir_ = dir_.file("data");
  FieldCache cache_{std::size_t{1} << 20};
  std::unique_ptr<FileMaskStore> store_;
  std::unique_ptr<PathfinderService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<pb::Pathfinder::Stub> stub_;
};

TEST_F(StoreFailureStatusTest, WritesWithNoRoomAnswerResourceExhaustedAndChangeNothing) {
  ASSERT_TRUE(upload("small", 4, 4).ok());
  ASSERT_TRUE(upload("big", 100, 100).ok());
  grpc::Status replaced;
  grpc::Status patched;
  grpc::Status deleted;
  {
    const pathtest::FileSizeLimit limit(40);  // below every file the store writes
    replaced = upload("small", 100, 100);
    patched = patch("big");
    deleted = remove("big");  // its revision floor file cannot be written
  }
  const std::vector<std::pair<std::string, grpc::Status>> answers = {
      {"store mask 'small'", replaced},
      {"store mask 'big'", patched},
      {"delete mask 'big'", deleted}};
  for (const auto& [action, status] : answers) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << action;
    EXPECT_EQ(status.error_message(), "could not " + action + ": storage is full");
    EXPECT_THAT(status.error_message(), Not(HasSubstr(data_dir_)));
  }
  // The old revisions are still served, and nothing was left half-written.
  EXPECT_EQ(served_revision("small"), 1U);
  EXPECT_EQ(served_revision("big"), 1U);
  for (const auto& entry : fs::directory_iterator(data_dir_)) {
    EXPECT_FALSE(entry.path().filename().string().ends_with(".tmp")) << entry.path();
  }
  // With room again the same calls succeed.
  EXPECT_TRUE(upload("small", 100, 100).ok());
  EXPECT_TRUE(remove("big").ok());
}

TEST_F(StoreFailureStatusTest, OtherWriteFailuresAnswerInternalWithoutTheServerPath) {
  ASSERT_TRUE(upload("m", 4, 4).ok());
  // A directory where the mask's file goes: the rename over it and the unlink
  // of it fail.
  fs::remove(data_dir_ + "/" + mask_file_name("m"));
  fs::create_directories(data_dir_ + "/" + mask_file_name("m") + "/inside");
  const grpc::Status replaced = upload("m", 5, 5);
  const grpc::Status deleted = remove("m");
  EXPECT_EQ(replaced.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(replaced.error_message(), "could not store mask 'm'");
  EXPECT_EQ(deleted.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(deleted.error_message(), "could not delete mask 'm'");
  EXPECT_EQ(served_revision("m"), 1U);
}

}  // namespace
}  // namespace pathserver
