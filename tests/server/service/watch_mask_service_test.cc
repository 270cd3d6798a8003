// WatchMask through the service on loopback: the first message is the
// mask's state, then every change made through the service's write RPCs is
// told (or counted as missed in a later message), the errors and the bound
// of open watches, and the end of every watch at shutdown. The expected
// revisions, rectangles and digests are the write RPCs' own answers.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"
#include "support/loopback_service.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace pb = pathfinding::v1;
using namespace std::chrono_literals;

class WatchMaskService : public ::testing::Test {
 protected:
  explicit WatchMaskService(ServiceLimits limits = {}) : limits_(limits) {}

  void SetUp() override {
    store_ = std::make_unique<FileMaskStore>(dir_.file("data"));
    service_ = std::make_unique<PathfinderService>(*store_, cache_, limits_);
    loopback_ = std::make_unique<pathtest::LoopbackService>(*service_);
  }
  void TearDown() override {
    service_->stop_accepting();  // ends the watches still open
    loopback_.reset();
    service_.reset();
  }

  pb::Pathfinder::Stub& stub() const { return loopback_->stub(); }

  pb::MaskInfo upload(const std::string& name, std::uint32_t width, std::uint32_t height,
                      std::uint8_t area) {
    pb::UploadMaskRequest request;
    request.set_name(name);
    request.set_format(pb::MASK_FORMAT_RAW);
    request.set_width(width);
    request.set_height(height);
    request.set_image(std::string(std::size_t{width} * height, static_cast<char>(area)));
    pb::MaskInfo info;
    grpc::ClientContext ctx;
    const grpc::Status status = stub().UploadMask(&ctx, request, &info);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return info;
  }

  pb::MaskInfo patch(const std::string& name, std::uint32_t x, std::uint32_t y,
                     std::uint32_t width, std::uint32_t height, std::uint8_t area) {
    pb::PatchMaskRequest request;
    request.set_name(name);
    request.set_x(x);
    request.set_y(y);
    request.set_width(width);
    request.set_height(height);
    request.set_areas(std::string(std::size_t{width} * height, static_cast<char>(area)));
    pb::MaskInfo info;
    grpc::ClientContext ctx;
    const grpc::Status status = stub().PatchMask(&ctx, request, &info);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return info;
  }

  void remove(const std::string& name) {
    pb::DeleteMaskRequest request;
    request.set_name(name);
    pb::DeleteMaskResponse response;
    grpc::ClientContext ctx;
    const grpc::Status status = stub().DeleteMask(&ctx, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
  }

  // A watch read on the test's thread.
  struct Watch {
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::ClientReader<pb::MaskChange>> reader;

    pb::MaskChange next() {
      pb::MaskChange change;
      EXPECT_TRUE(reader->Read(&change)) << "the watch ended";
      return change;
    }
  };
  std::unique_ptr<Watch> watch(const std::string& mask) {
    auto opened = std::make_unique<Watch>();
    opened->ctx.set_deadline(std::chrono::system_clock::now() + 60s);
    pb::WatchMaskRequest request;
    request.set_mask(mask);
    opened->reader = stub().WatchMask(&opened->ctx, request);
    return opened;
  }
  // Opened and its first message read.
  std::unique_ptr<Watch> watching(const std::string& mask) {
    auto opened = watch(mask);
    (void)opened->next();
    return opened;
  }

  pathtest::TempDir dir_{"pathfinder-watch"};
  FieldCache cache_{std::size_t{64} << 20};
  ServiceLimits limits_;
  std::unique_ptr<FileMaskStore> store_;
  std::unique_ptr<PathfinderService> service_;
  std::unique_ptr<pathtest::LoopbackService> loopback_;
};

TEST_F(WatchMaskService, TellsTheCurrentStateThenEachChange) {
  const pb::MaskInfo uploaded = upload("level", 40, 30, 1);
  auto watch = this->watch("level");
  const pb::MaskChange current = watch->next();
  EXPECT_EQ(current.mask(), "level");
  EXPECT_EQ(current.kind(), pb::MASK_CHANGE_KIND_CURRENT);
  EXPECT_EQ(current.revision(), uploaded.revision());
  EXPECT_EQ(current.width(), 40U);
  EXPECT_EQ(current.height(), 30U);
  EXPECT_EQ(current.sha256(), uploaded.sha256());
  EXPECT_EQ(current.missed(), 0U);

  const pb::MaskInfo patched = patch("level", 3, 4, 5, 6, 0);
  const pb::MaskChange told_patch = watch->next();
  EXPECT_EQ(told_patch.kind(), pb::MASK_CHANGE_KIND_PATCH);
  EXPECT_EQ(told_patch.revision(), patched.revision());
  EXPECT_EQ(told_patch.sha256(), patched.sha256());
  EXPECT_EQ(told_patch.changed().x(), 3U);
  EXPECT_EQ(told_patch.changed().y(), 4U);
  EXPECT_EQ(told_patch.changed().width(), 5U);
  EXPECT_EQ(told_patch.changed().height(), 6U);

  // A patch that changes nothing keeps the revision: nothing is told. The
  // upload after it is the next message.
  EXPECT_EQ(patch("level", 3, 4, 5, 6, 0).revision(), patched.revision());
  const pb::MaskInfo replaced = upload("level", 20, 10, 2);
  const pb::MaskChange told_upload = watch->next();
  EXPECT_EQ(told_upload.kind(), pb::MASK_CHANGE_KIND_UPLOAD);
  EXPECT_EQ(told_upload.revision(), replaced.revision());
  EXPECT_EQ(told_upload.width(), 20U);
  EXPECT_EQ(told_upload.height(), 10U);
  EXPECT_FALSE(told_upload.has_changed());

  // A delete is told and the watch goes on: the name's next upload comes too.
  remove("level");
  const pb::MaskChange told_delete = watch->next();
  EXPECT_EQ(told_delete.kind(), pb::MASK_CHANGE_KIND_DELETE);
  EXPECT_EQ(told_delete.revision(), replaced.revision());
  EXPECT_TRUE(told_delete.sha256().empty());
  const pb::MaskInfo again = upload("level", 20, 10, 1);
  const pb::MaskChange told_again = watch->next();
  EXPECT_EQ(told_again.kind(), pb::MASK_CHANGE_KIND_UPLOAD);
  EXPECT_EQ(told_again.revision(), again.revision());

  // Changes of other masks are not told: the next message is this mask's.
  (void)upload("other", 8, 8, 1);
  const pb::MaskInfo last = patch("level", 0, 0, 1, 1, 0);
  EXPECT_EQ(watch->next().revision(), last.revision());
}

TEST_F(WatchMaskService, EveryChangeIsToldOrCountedAndTheLastMessageIsTheLatest) {
  (void)upload("level", 64, 64, 1);
  auto watch = watching("level");
  // Many patches in a row while the watcher does not read: each is a message
  // of its own or folded into a later one (missed), never lost.
  constexpr int kPatches = 200;
  std::vector<pb::MaskInfo> patches;
  for (int i = 0; i < kPatches; ++i) {
    const auto x = static_cast<std::uint32_t>(i % 60);
    const auto y = static_cast<std::uint32_t>(i / 60 * 3);
    patches.push_back(patch("level", x, y, 2, 2, static_cast<std::uint8_t>(i % 2 == 0 ? 0 : 2)));
  }
  std::uint64_t accounted = 0;
  std::uint64_t last_revision = 0;
  std::size_t next_patch = 0;  // the first patch the next message may cover
  while (last_revision < patches.back().revision()) {
    const pb::MaskChange change = watch->next();
    ASSERT_EQ(change.kind(), pb::MASK_CHANGE_KIND_PATCH);
    ASSERT_GT(change.revision(), last_revision);
    accounted += 1 + change.missed();
    // Its rectangle holds every patch it stands for.
    while (next_patch < patches.size() && patches[next_patch].revision() <= change.revision()) {
      const int i = static_cast<int>(next_patch);
      const auto x = static_cast<std::uint32_t>(i % 60);
      const auto y = static_cast<std::uint32_t>(i / 60 * 3);
      EXPECT_LE(change.changed().x(), x);
      EXPECT_LE(change.changed().y(), y);
      EXPECT_GE(change.changed().x() + change.changed().width(), x + 2);
      EXPECT_GE(change.changed().y() + change.changed().height(), y + 2);
      ++next_patch;
    }
    last_revision = change.revision();
    if (change.revision() == patches.back().revision()) {
      EXPECT_EQ(change.sha256(), patches.back().sha256());
    }
  }
  EXPECT_EQ(accounted, static_cast<std::uint64_t>(kPatches));
}

TEST_F(WatchMaskService, RefusesUnknownMasksAndBadNames) {
  auto unknown = watch("nothing/here");
  pb::MaskChange change;
  EXPECT_FALSE(unknown->reader->Read(&change));
  const grpc::Status not_found = unknown->reader->Finish();
  EXPECT_EQ(not_found.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(not_found.error_message().find("nothing/here"), std::string::npos);

  auto bad = watch("../up");
  EXPECT_FALSE(bad->reader->Read(&change));
  const grpc::Status invalid = bad->reader->Finish();
  EXPECT_EQ(invalid.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(invalid.error_message().rfind("mask: ", 0), 0U) << invalid.error_message();
}

TEST_F(WatchMaskService, ShutdownEndsEveryWatchUnavailable) {
  (void)upload("level", 8, 8, 1);
  auto first = watching("level");
  auto second = watching("level");
  EXPECT_EQ(service_->open_watches(), 2U);
  service_->stop_accepting();
  for (Watch* watch : {first.get(), second.get()}) {
    pb::MaskChange change;
    EXPECT_FALSE(watch->reader->Read(&change));
    EXPECT_EQ(watch->reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  }
  EXPECT_TRUE(service_->wait_until_idle(std::chrono::steady_clock::now() + 5s));
  EXPECT_EQ(service_->open_watches(), 0U);
}

ServiceLimits two_watchers() {
  ServiceLimits limits;
  limits.max_watchers = 2;
  return limits;
}

class FewWatchers : public WatchMaskService {
 protected:
  FewWatchers() : WatchMaskService(two_watchers()) {}
};

TEST_F(FewWatchers, MoreThanMaxWatchersAreRefusedUntilOneEnds) {
  (void)upload("level", 8, 8, 1);
  auto first = watching("level");
  auto second = watching("level");
  auto third = watch("level");
  pb::MaskChange change;
  EXPECT_FALSE(third->reader->Read(&change));
  const grpc::Status refused = third->reader->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("--max-watchers"), std::string::npos)
      << refused.error_message();

  // A watch the client cancels frees its place.
  first->ctx.TryCancel();
  while (first->reader->Read(&change)) {
  }
  EXPECT_EQ(first->reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (service_->open_watches() != 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  auto fourth = watch("level");
  EXPECT_EQ(fourth->next().kind(), pb::MASK_CHANGE_KIND_CURRENT);
}

}  // namespace
}  // namespace pathserver
