// End-to-end tests of the server's limits: masks stored, bytes stored, pairs
// per Reachable request, an image that declares huge dimensions, and open
// watches (what 1,000 idle ones cost, and --max-watchers). The real server binary runs on 127.0.0.1 with the
// limit flags; every expected number is worked out here. (Pixels per mask and
// the message size limit are tested in server_e2e_test.cc.)

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pathfinder/client.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;

// A RAW upload of a width x height mask, every pixel area 1.
pb::UploadMaskRequest raw_upload(const std::string& name, std::uint32_t width,
                                 std::uint32_t height) {
  return pathtest::open_raw_upload(name, width, height);
}

void put_be32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}

// One PNG chunk: length, type, data, CRC-32 (zlib's) of type and data.
std::string png_chunk(const std::string& type, const std::string& data) {
  std::string chunk;
  put_be32(chunk, static_cast<std::uint32_t>(data.size()));
  const std::string body = type + data;
  chunk += body;
  put_be32(chunk, static_cast<std::uint32_t>(::crc32(0, reinterpret_cast<const Bytef*>(body.data()),
                                                     static_cast<uInt>(body.size()))));
  return chunk;
}

// A well-formed PNG header declaring width x height 8-bit grey pixels, then a
// tiny IDAT (a zlib stream of 64 zero bytes, by zlib) and IEND. Decoding it
// for real would need width*height bytes.
std::string png_declaring(std::uint32_t width, std::uint32_t height) {
  std::string ihdr;
  put_be32(ihdr, width);
  put_be32(ihdr, height);
  ihdr += std::string("\x08\x00\x00\x00\x00", 5);  // depth 8, grey, deflate, filter 0, no interlace
  const std::string zeros(64, '\0');
  uLongf size = ::compressBound(zeros.size());
  std::string idat(size, '\0');
  EXPECT_EQ(::compress(reinterpret_cast<Bytef*>(idat.data()), &size,
                       reinterpret_cast<const Bytef*>(zeros.data()), zeros.size()),
            Z_OK);
  idat.resize(size);
  return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) + png_chunk("IDAT", idat) +
         png_chunk("IEND", "");
}

// A field of /proc/PID/status in KiB ("VmHWM", "VmRSS", "VmPeak"); -1 if absent.
long status_kib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

template <class T>
::testing::AssertionResult HasCode(const pathfinder::Result<T>& result, grpc::StatusCode code) {
  if (result.status.error_code() == code) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << pathfinder::status_code_name(code) << ", got "
         << pathfinder::status_code_name(result.status.error_code()) << ": "
         << result.status.error_message();
}

#define EXPECT_OK(expr) EXPECT_TRUE(HasCode((expr), grpc::StatusCode::OK))
#define ASSERT_OK(expr) ASSERT_TRUE(HasCode((expr), grpc::StatusCode::OK))
#define EXPECT_CODE(expr, code) EXPECT_TRUE(HasCode((expr), grpc::StatusCode::code))

class LimitsE2eTest : public ::testing::Test {
 protected:
  void TearDown() override {
    client_.reset();
    if (server_ && server_->running()) {
      // A clean exit after what the test did: under the sanitizers this also
      // means no leak report (LeakSanitizer exits 23) and no error at exit.
      EXPECT_EQ(server_->terminate_and_wait(), 0);
    }
    if (HasFailure() && server_) {
      std::cerr << "---- server output ----\n" << server_->log() << "-----------------------\n";
    }
    server_.reset();
  }

  void start_server(std::vector<std::string> extra_args) {
    client_.reset();
    server_.reset();
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    options.extra_args = std::move(extra_args);
    server_ = std::make_unique<ServerProcess>(options);
    client_ = std::make_unique<Client>(server_->target());
  }

  // The stored masks' names, in order.
  std::vector<std::string> names() {
    std::vector<std::string> out;
    const auto list = client_->list_masks();
    EXPECT_OK(list);
    for (const auto& info : list.value.masks()) out.push_back(info.name());
    return out;
  }

  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<Client> client_;
};

TEST_F(LimitsE2eTest, MasksStoredLimitIsResourceExhaustedAndLosesNothing) {
  start_server({"--max-masks", "3"});
  for (const char* name : {"a", "b", "c"}) ASSERT_OK(client_->upload_mask(raw_upload(name, 4, 4)));
  const auto refused = client_->upload_mask(raw_upload("d", 4, 4));
  EXPECT_CODE(refused, RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(),
              HasSubstr("holds 3 masks, the limit is 3 masks stored (--max-masks)"));
  EXPECT_EQ(names(), (std::vector<std::string>{"a", "b", "c"}));
  // Replacing is not a new mask; deleting makes room.
  const auto replaced = client_->upload_mask(raw_upload("a", 6, 6));
  ASSERT_OK(replaced);
  EXPECT_EQ(replaced.value.revision(), 2U);
  ASSERT_OK(client_->delete_mask("b"));
  ASSERT_OK(client_->upload_mask(raw_upload("d", 4, 4)));
  EXPECT_EQ(names(), (std::vector<std::string>{"a", "c", "d"}));
  // Still refused after a restart (the limit counts what was loaded).
  server_->restart();
  client_ = std::make_unique<Client>(server_->target());
  EXPECT_CODE(client_->upload_mask(raw_upload("e", 4, 4)), RESOURCE_EXHAUSTED);
  EXPECT_EQ(names(), (std::vector<std::string>{"a", "c", "d"}));
}

TEST_F(LimitsE2eTest, BytesStoredLimitIsResourceExhaustedAndCountsReplacements) {
  constexpr std::uint32_t kMiB = 1024 * 1024;
  start_server({"--max-stored-mb", "1"});
  ASSERT_OK(client_->upload_mask(raw_upload("big", 1024, 1000)));  // 1,024,000 bytes
  ASSERT_OK(client_->upload_mask(raw_upload("small", 100, 245)));  // 24,500: 1,048,500
  const auto refused = client_->upload_mask(raw_upload("more", 10, 10));
  EXPECT_CODE(refused, RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(),
              HasSubstr("bytes stored would be " + std::to_string(1'048'600) + ", the limit is " +
                        std::to_string(kMiB) + " bytes stored (--max-stored-mb)"));
  // Growing "big" by 100 bytes is too much, by 76 (up to exactly 1 MiB) fits.
  EXPECT_CODE(client_->upload_mask(raw_upload("big", 1024100, 1)), RESOURCE_EXHAUSTED);
  EXPECT_EQ(client_->get_mask("big").value.revision(), 1U);
  const auto grown = client_->upload_mask(raw_upload("big", 1024076, 1));
  ASSERT_OK(grown);
  EXPECT_EQ(grown.value.revision(), 2U);
  // Shrinking it makes room for "more".
  ASSERT_OK(client_->upload_mask(raw_upload("big", 1000, 1000)));
  ASSERT_OK(client_->upload_mask(raw_upload("more", 10, 10)));
  EXPECT_EQ(names(), (std::vector<std::string>{"big", "more", "small"}));
}

TEST_F(LimitsE2eTest, ReachablePairsPerRequestIsAFlag) {
  start_server({"--max-reachable-pairs", "5"});
  ASSERT_OK(client_->upload_mask(raw_upload("room", 10, 10)));
  pb::ReachableRequest request;
  request.set_mask("room");
  for (int i = 0; i < 5; ++i) {
    auto* pair = request.add_pairs();
    *pair->mutable_a() = pathfinder::make_point(0, i);
    *pair->mutable_b() = pathfinder::make_point(9, 9 - i);
  }
  const auto five = client_->reachable(request);
  ASSERT_OK(five);
  EXPECT_EQ(five.value.reachable_size(), 5);
  *request.add_pairs() = request.pairs(0);
  const auto six = client_->reachable(request);
  EXPECT_CODE(six, RESOURCE_EXHAUSTED);
  EXPECT_THAT(six.status.error_message(),
              HasSubstr("pairs: 6 pairs; the limit is 5 per request (--max-reachable-pairs)"));
}

TEST_F(LimitsE2eTest, BatchStartsPerRequestIsAFlag) {
  start_server({"--max-batch-starts", "5"});
  ASSERT_OK(client_->upload_mask(raw_upload("room", 10, 10)));
  pb::BatchFindPathsRequest request;
  request.set_mask("room");
  *request.mutable_goal() = pathfinder::make_point(9, 9);
  for (int i = 0; i < 5; ++i) *request.add_starts() = pathfinder::make_point(0, i);
  const auto five = client_->batch_find_paths(request);
  ASSERT_OK(five);
  EXPECT_EQ(five.value.paths_size(), 5);
  *request.add_starts() = request.starts(0);
  const auto six = client_->batch_find_paths(request);
  EXPECT_CODE(six, RESOURCE_EXHAUSTED);
  EXPECT_THAT(six.status.error_message(),
              HasSubstr("starts: 6 starts; the limit is 5 per request (--max-batch-starts)"));
}

TEST_F(LimitsE2eTest, ImagesDeclaringHugeDimensionsAreRefusedBeforeAnyAllocation) {
  start_server({});
  // Warm the server up (threads, arenas, caches) before measuring.
  for (int i = 0; i < 3; ++i) ASSERT_OK(client_->upload_mask(raw_upload("warm", 300, 300)));
  const pid_t pid = server_->pid();
  const long hwm_before = status_kib(pid, "VmHWM");
  const long peak_before = status_kib(pid, "VmPeak");
  ASSERT_GT(hwm_before, 0);
  ASSERT_GT(peak_before, 0);

  // 100000 x 100000 = 10^10 pixels, 9.3 GiB as area ids, far above the
  // default --max-pixels (64 Mi).
  std::vector<std::pair<std::string, pb::UploadMaskRequest>> uploads;
  pb::UploadMaskRequest png;
  png.set_name("huge");
  png.set_image(png_declaring(100000, 100000));
  uploads.emplace_back("sniffed PNG", png);
  png.set_format(pb::MASK_FORMAT_PNG);
  uploads.emplace_back("PNG", png);
  pb::UploadMaskRequest pgm;
  pgm.set_name("huge");
  pgm.set_image("P5\n100000 100000\n255\n" + std::string(64, '\x01'));
  uploads.emplace_back("PGM", pgm);
  pb::UploadMaskRequest raw = raw_upload("huge", 8, 8);
  raw.set_width(100000);
  raw.set_height(100000);
  uploads.emplace_back("RAW", raw);
  for (int round = 0; round < 5; ++round) {
    for (const auto& [what, request] : uploads) {
      const auto result = client_->upload_mask(request);
      EXPECT_CODE(result, RESOURCE_EXHAUSTED) << what;
      EXPECT_THAT(result.status.error_message(),
                  HasSubstr("image of 100000x100000 pixels exceeds the limit of"))
          << what;
    }
  }
  EXPECT_CODE(client_->get_mask("huge"), NOT_FOUND);

  const long hwm_growth_kib = status_kib(pid, "VmHWM") - hwm_before;
  const long peak_growth_kib = status_kib(pid, "VmPeak") - peak_before;
  std::cout << "server VmHWM grew by " << hwm_growth_kib << " KiB, VmPeak by " << peak_growth_kib
            << " KiB\n";
  // Resident peak: well under even one pixel buffer of the default limit.
  EXPECT_LT(hwm_growth_kib, 64 * 1024);
  // Address space: a buffer for the declared image (even one never touched)
  // would add 9.3 GiB; threads and malloc arenas may add some MiB.
  EXPECT_LT(peak_growth_kib, 1024 * 1024);
}

// A WatchMask call read by gRPC's callback threads: it keeps a read pending,
// so it costs the server what an idle watch of a real client costs.
class IdleWatch final : public grpc::ClientReadReactor<pb::MaskChange> {
 public:
  IdleWatch(pb::Pathfinder::Stub& stub, const std::string& mask) {
    request_.set_mask(mask);
    stub.async()->WatchMask(&ctx_, &request_, this);
    StartRead(&change_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    {
      const std::lock_guard lock(mutex_);
      told_.push_back(change_);
    }
    changed_.notify_all();
    StartRead(&change_);
  }
  void OnDone(const grpc::Status& status) override {
    {
      const std::lock_guard lock(mutex_);
      status_ = status;
      done_ = true;
    }
    changed_.notify_all();
  }
  void cancel() { ctx_.TryCancel(); }
  // Waits until `count` messages were told or the call ended; the messages so far.
  std::vector<pb::MaskChange> told(std::size_t count, std::chrono::steady_clock::time_point until) {
    std::unique_lock lock(mutex_);
    changed_.wait_until(lock, until, [&] { return told_.size() >= count || done_; });
    return told_;
  }
  // Waits for the end; its status (DEADLINE_EXCEEDED when it did not end by `until`).
  grpc::Status ended(std::chrono::steady_clock::time_point until) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_until(lock, until, [&] { return done_; })) {
      return {grpc::StatusCode::DEADLINE_EXCEEDED, "the watch did not end"};
    }
    return status_;
  }

 private:
  grpc::ClientContext ctx_;
  pb::WatchMaskRequest request_;
  pb::MaskChange change_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<pb::MaskChange> told_;
  grpc::Status status_;
  bool done_ = false;
};

TEST_F(LimitsE2eTest, AThousandIdleWatchesCostUnder50MBAndMoreThanMaxWatchersAreRefused) {
  constexpr std::size_t kWatches = 1000;
  start_server({"--max-watchers", std::to_string(kWatches)});
  ASSERT_OK(client_->upload_mask(raw_upload("level", 64, 64)));
  // Ten connections, as ten game clients would hold them.
  std::vector<std::unique_ptr<pb::Pathfinder::Stub>> stubs;
  for (int i = 0; i < 10; ++i) {
    grpc::ChannelArguments arguments;
    arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    stubs.push_back(pb::Pathfinder::NewStub(
        pathfinder::make_channel(server_->target(), pathfinder::ClientOptions{}, arguments)));
  }
  const auto until = [](int seconds) {
    return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  };
  // One watch per connection first, so the connections' own cost is not counted.
  std::vector<std::unique_ptr<IdleWatch>> watches;
  for (auto& stub : stubs) watches.push_back(std::make_unique<IdleWatch>(*stub, "level"));
  for (auto& watch : watches) ASSERT_EQ(watch->told(1, until(20)).size(), 1U);
  const long before_kib = status_kib(server_->pid(), "VmRSS");
  while (watches.size() < kWatches) {
    watches.push_back(std::make_unique<IdleWatch>(*stubs[watches.size() % stubs.size()], "level"));
  }
  for (auto& watch : watches) {
    const auto told = watch->told(1, until(60));
    ASSERT_EQ(told.size(), 1U);
    EXPECT_EQ(told[0].kind(), pb::MASK_CHANGE_KIND_CURRENT);
  }
  const long after_kib = status_kib(server_->pid(), "VmRSS");
  std::cout << "server resident memory: " << before_kib / 1024 << " MiB with " << stubs.size()
            << " watches, " << after_kib / 1024 << " MiB with " << kWatches << "\n";
  EXPECT_LT(after_kib - before_kib, 50 * 1024);

  // One more is refused, naming the flag (on a connection of its own: each
  // of the ten holds 100 streams, --max-streams-per-connection's default).
  const auto spare = pb::Pathfinder::NewStub(pathfinder::make_channel(
      server_->target(), pathfinder::ClientOptions{}, [] {
        grpc::ChannelArguments arguments;
        arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
        return arguments;
      }()));
  IdleWatch refused(*spare, "level");
  const grpc::Status status = refused.ended(until(20));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("--max-watchers"));

  // A patch reaches every one of them.
  pb::PatchMaskRequest patch;
  patch.set_name("level");
  patch.set_x(5);
  patch.set_y(6);
  patch.set_width(2);
  patch.set_height(1);
  patch.set_areas(std::string(2, '\0'));
  const auto patched = client_->patch_mask(patch);
  ASSERT_OK(patched);
  for (auto& watch : watches) {
    const auto told = watch->told(2, until(30));
    ASSERT_EQ(told.size(), 2U);
    EXPECT_EQ(told[1].kind(), pb::MASK_CHANGE_KIND_PATCH);
    EXPECT_EQ(told[1].revision(), patched.value.revision());
  }
  for (auto& watch : watches) watch->cancel();
  for (auto& watch : watches) {
    EXPECT_EQ(watch->ended(until(30)).error_code(), grpc::StatusCode::CANCELLED);
  }
}

TEST_F(LimitsE2eTest, LimitFlagsAreDescribedAndChecked) {
  const auto help = pathtest::run_command({PATHFINDER_SERVER_BIN, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag : {"--max-pixels", "--max-message-mb", "--max-masks", "--max-stored-mb",
                           "--max-reachable-pairs", "--max-batch-starts", "--max-watchers"}) {
    EXPECT_THAT(help.out, HasSubstr(flag));
  }
  pathtest::TempDir dir("pathfinder-limits");
  for (const char* bad :
       {"--max-masks=0", "--max-stored-mb=0", "--max-reachable-pairs=0", "--max-batch-starts=0",
        "--max-watchers=0"}) {
    const auto result = pathtest::run_command(
        {PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0", "--data-dir", dir.file("data"), bad});
    EXPECT_NE(result.exit_code, 0) << bad;
    EXPECT_FALSE(result.timed_out) << bad;
  }
}

}  // namespace
