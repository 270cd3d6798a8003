// The service drops what it derived from a mask's old revisions when its
// store reports a change made elsewhere (another replica's write through a
// shared store), not only after its own writes.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
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

// A store that keeps its masks in a FileMaskStore; the test stores below
// change only what they say.
class FileBackedStore : public MaskStore {
 public:
  explicit FileBackedStore(const std::string& dir) : files_(dir) {}
  MaskEntryPtr put(std::string_view name, pathcore::Mask mask, bool* unchanged) override {
    return files_.put(name, std::move(mask), unchanged);
  }
  MaskEntryPtr patch(std::string_view name, const MaskPatch& patch) override {
    return files_.patch(name, patch);
  }
  MaskEntryPtr remove(std::string_view name, bool* was_corrupt) override {
    return files_.remove(name, was_corrupt);
  }
  [[nodiscard]] MaskEntryPtr get(std::string_view name) const override { return files_.get(name); }
  [[nodiscard]] std::vector<MaskEntryPtr> list() const override { return files_.list(); }
  [[nodiscard]] bool is_corrupt(std::string_view name) const override {
    return files_.is_corrupt(name);
  }
  [[nodiscard]] std::size_t corrupt_count() const override { return files_.corrupt_count(); }
  [[nodiscard]] std::size_t size() const override { return files_.size(); }
  [[nodiscard]] std::uint64_t stored_bytes() const override { return files_.stored_bytes(); }
  [[nodiscard]] const StoreLimits& limits() const override { return files_.limits(); }

 private:
  FileMaskStore files_;
};

// A FileMaskStore that can announce changes as a shared store does.
class AnnouncingStore final : public FileBackedStore {
 public:
  using FileBackedStore::FileBackedStore;
  // Nothing below first_live_revision lives (told as a new grid at that revision).
  void announce(const std::string& name, std::uint64_t first_live_revision) const {
    tell_change_listener({.name = name,
                          .revision = first_live_revision,
                          .kind = StoreChange::Kind::kReplaced,
                          .patched = {},
                          .entry = nullptr});
  }
};

pathcore::Mask open_mask(std::uint8_t area) {
  return pathcore::Mask(64, 48, std::vector<std::uint8_t>(std::size_t{64} * 48, area));
}

bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

TEST(RemoteChangeService, AnnouncedRevisionsDropTheFieldsOfOlderOnes) {
  pathtest::TempDir dir("pathfinder-remote-change");
  AnnouncingStore store(dir.file("data"));
  const MaskEntryPtr first = store.put("m", open_mask(1), nullptr);
  FieldCache cache(std::size_t{64} << 20);
  auto service = std::make_unique<PathfinderService>(store, cache, ServiceLimits{});
  auto loopback = std::make_unique<pathtest::LoopbackService>(*service);
  pb::Pathfinder::Stub* const stub = &loopback->stub();

  // Goals in two masks' fields: "m" (to be replaced elsewhere) and "other".
  (void)store.put("other", open_mask(1), nullptr);
  for (const char* mask : {"m", "other"}) {
    pb::FindPathRequest request;
    request.set_mask(mask);
    request.mutable_start()->set_x(1);
    request.mutable_start()->set_y(1);
    request.mutable_goal()->set_x(40);
    request.mutable_goal()->set_y(30);
    request.set_connectivity(pb::CONNECTIVITY_EIGHT);
    request.set_smoothing(pb::SMOOTHING_NONE);  // a grid path needs the field: no beeline
    pb::FindPathResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 30s);
    const grpc::Status status = stub->FindPath(&ctx, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_TRUE(response.found());
  }
  ASSERT_TRUE(eventually([&] { return cache.size() == 2; }));  // fields finish after answering

  // "Another replica" replaces m: the store holds revision 2, nothing told yet.
  const MaskEntryPtr second = store.put("m", open_mask(2), nullptr);
  ASSERT_GT(second->revision, first->revision);
  EXPECT_EQ(cache.size(), 2U);
  store.announce("m", second->revision);
  EXPECT_EQ(cache.size(), 1U);  // m's old field is gone, other's stays

  // A deletion of other announced (revision + 1): its field goes too.
  store.announce("other", store.get("other")->revision + 1);
  EXPECT_EQ(cache.size(), 0U);

  // After the service is gone the store no longer calls into it.
  loopback.reset();
  service.reset();
  store.announce("m", second->revision + 1);
}

// A shared store whose listener takes another replica's upload at a chosen
// moment: the mask is in "the database" from the start, and get() answers it
// from the `looks`-th question the store is asked on (get or may_know_more),
// or once catch_up() reads the database.
class LateListenerStore final : public FileBackedStore {
 public:
  LateListenerStore(const std::string& dir, int looks) : FileBackedStore(dir), looks_left_(looks) {}
  [[nodiscard]] MaskEntryPtr get(std::string_view name) const override {
    MaskEntryPtr answer = taken_ ? FileBackedStore::get(name) : nullptr;
    look();
    return answer;
  }
  [[nodiscard]] bool may_know_more(std::string_view /*name*/,
                                   std::uint64_t /*min_revision*/) const override {
    const bool answer = !taken_;
    look();
    return answer;
  }
  bool catch_up(std::string_view /*name*/,
                std::chrono::steady_clock::time_point /*deadline*/) override {
    taken_ = true;
    return true;
  }

 private:
  // The listener takes the write after this question has been answered.
  void look() const {
    if (looks_left_.fetch_sub(1) == 1) taken_ = true;
  }

  mutable std::atomic<int> looks_left_;
  mutable std::atomic<bool> taken_{false};
};

// Wherever the listener's write falls among a call's questions to the store,
// a call on a mask already in the database answers it, never NOT_FOUND.
TEST(RemoteChangeService, AWriteTakenBetweenTheCallsQuestionsIsAnswered) {
  for (int looks = 1; looks <= 6; ++looks) {
    for (const bool field_call : {false, true}) {
      SCOPED_TRACE(std::string(field_call ? "GetField" : "FindPath") + ", the write taken after " +
                   std::to_string(looks) + " questions");
      pathtest::TempDir dir("pathfinder-late-listener");
      LateListenerStore store(dir.file("data"), looks);
      (void)store.put("m", open_mask(1), nullptr);
      FieldCache cache(std::size_t{64} << 20);
      PathfinderService service(store, cache, ServiceLimits{});
      const pathtest::LoopbackService loopback(service);
      pb::Pathfinder::Stub& stub = loopback.stub();
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + 30s);
      grpc::Status status;
      if (field_call) {
        pb::GetFieldRequest request;
        request.set_mask("m");
        request.mutable_goal()->set_x(40);
        request.mutable_goal()->set_y(30);
        auto reader = stub.GetField(&ctx, request);
        pb::FieldChunk chunk;
        int chunks = 0;
        while (reader->Read(&chunk)) ++chunks;
        status = reader->Finish();
        if (status.ok()) {
          EXPECT_GT(chunks, 0);
        }
      } else {
        pb::FindPathRequest request;
        request.set_mask("m");
        request.mutable_start()->set_x(1);
        request.mutable_start()->set_y(1);
        request.mutable_goal()->set_x(40);
        request.mutable_goal()->set_y(30);
        pb::FindPathResponse response;
        status = stub.FindPath(&ctx, request, &response);
        if (status.ok()) {
          EXPECT_TRUE(response.found());
        }
      }
      EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
    }
  }
}

}  // namespace
}  // namespace pathserver
