// End-to-end tests of what the store promises across uploads and restarts:
// an upload of the grid already stored keeps its revision (and the caches
// built on it); a stored mask whose file is found corrupt at start-up
// answers DATA_LOSS (not NOT_FOUND) until it is uploaded again or deleted,
// and is logged and counted; revisions never repeat after a delete and a
// restart; a write with no room is refused and changes nothing. Real server
// binary on 127.0.0.1, ports picked at run time.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pathfinder/client.h"
#include "support/http_get.h"
#include "support/prometheus_text.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using pathtest::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

// A 24x16 room with a wall down the middle and a gap at the bottom, as area ids.
std::string walled_room() {
  std::string areas(24 * 16, '\x01');
  for (int y = 0; y < 14; ++y) areas[static_cast<std::size_t>(y) * 24 + 12] = '\0';
  return areas;
}

// The same area ids as a binary PGM: grey value = area id (PIXEL_RULE auto).
std::string as_pgm(std::uint32_t width, std::uint32_t height, const std::string& areas) {
  return "P5\n" + std::to_string(width) + " " + std::to_string(height) + "\n255\n" + areas;
}

pb::FindPathRequest find(const std::string& mask, int sx, int sy, int gx, int gy) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  request.mutable_start()->set_x(sx);
  request.mutable_start()->set_y(sy);
  request.mutable_goal()->set_x(gx);
  request.mutable_goal()->set_y(gy);
  request.set_smoothing(pb::SMOOTHING_NONE);  // a grid path: needs a distance field
  return request;
}

TEST(SameGridUpload, KeepsTheRevisionTheDigestAndTheCachedField) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  ServerProcess server(options);
  Client client(server.target());

  const std::string areas = walled_room();
  const auto first = client.upload_mask(pathtest::raw_upload("room", 24, 16, areas));
  ASSERT_TRUE(first.ok()) << first.status.error_message();
  ASSERT_EQ(first.value.revision(), 1U);
  const auto cold = client.find_path(find("room", 2, 2, 20, 2));
  ASSERT_TRUE(cold.ok()) << cold.status.error_message();
  ASSERT_FALSE(cold.value.cache_hit());
  ASSERT_TRUE(client.find_path(find("room", 3, 3, 20, 2)).value.cache_hit());

  // The same level as PGM instead of RAW: the same grid.
  pb::UploadMaskRequest pgm;
  pgm.set_name("room");
  pgm.set_image(as_pgm(24, 16, areas));
  const auto again = client.upload_mask(pgm);
  ASSERT_TRUE(again.ok()) << again.status.error_message();
  EXPECT_EQ(again.value.revision(), 1U);
  EXPECT_EQ(again.value.sha256(), first.value.sha256());
  EXPECT_EQ(again.value.width(), 24U);
  EXPECT_EQ(again.value.height(), 16U);
  // The field filled for revision 1 still answers: nothing was invalidated.
  const auto warm = client.find_path(find("room", 4, 4, 20, 2));
  ASSERT_TRUE(warm.ok());
  EXPECT_TRUE(warm.value.cache_hit());
  EXPECT_EQ(warm.value.mask_revision(), 1U);
  // A client that expects revision 1 is still right.
  pb::StandardMoveRequest move;
  move.set_mask("room");
  move.mutable_start()->set_x(1);
  move.mutable_start()->set_y(1);
  move.mutable_goal()->set_x(5);
  move.mutable_goal()->set_y(1);
  move.set_expected_revision(1);
  EXPECT_TRUE(client.standard_move(move).ok());

  // One area id different is a new grid: a new revision, a new field.
  std::string changed = areas;
  changed[0] = '\x02';
  const auto third = client.upload_mask(pathtest::raw_upload("room", 24, 16, changed));
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third.value.revision(), 2U);
  EXPECT_NE(third.value.sha256(), first.value.sha256());
  const auto after = client.find_path(find("room", 4, 4, 20, 2));
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after.value.cache_hit());
  EXPECT_EQ(after.value.mask_revision(), 2U);
  // The same ids in another shape are another grid too.
  const auto reshaped = client.upload_mask(pathtest::raw_upload("room", 16, 24, changed));
  ASSERT_TRUE(reshaped.ok());
  EXPECT_EQ(reshaped.value.revision(), 3U);

  // After a restart the same grid still keeps the revision.
  server.restart();
  Client restarted(server.target());
  const auto same = restarted.upload_mask(pathtest::raw_upload("room", 16, 24, changed));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same.value.revision(), 3U);
  EXPECT_EQ(server.terminate_and_wait(), 0) << server.log();
}

// Flips one byte in the middle of a stored mask's file (its area grid), as a
// failing disk would. The file of mask NAME (no '/') is NAME.pfmask.
void corrupt_mask_file(const std::string& data_dir, const std::string& name) {
  const std::string path = data_dir + "/" + name + ".pfmask";
  std::string bytes = pathtest::read_text_file(path);
  ASSERT_GT(bytes.size(), 200U);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x04);
  pathtest::write_file(path, bytes);
}

std::size_t count_lines_with(const std::string& log, const std::string& text) {
  std::size_t n = 0;
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    n += log.substr(start, end - start).find(text) != std::string::npos;
    start = end + 1;
  }
  return n;
}

class CorruptMask : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    options.log_level = "";  // info
    options.extra_args = {"--metrics-address", "127.0.0.1:0", "--metrics-port-file",
                          scratch_.file("metrics.port")};
    server_ = std::make_unique<ServerProcess>(options);
    {
      Client client(server_->target());
      for (const char* name : {"victim", "doomed", "fine"}) {
        const auto stored = client.upload_mask(pathtest::open_raw_upload(name, 20, 20));
        ASSERT_TRUE(stored.ok()) << stored.status.error_message();
      }
    }
    ASSERT_EQ(server_->terminate_and_wait(), 0) << server_->log();
    corrupt_mask_file(server_->data_dir(), "victim");
    corrupt_mask_file(server_->data_dir(), "doomed");
    server_->restart();
    client_ = std::make_unique<Client>(server_->target());
  }

  double metric(const std::string& name) {
    const int port = std::stoi(pathtest::read_text_file(scratch_.file("metrics.port")));
    const auto response = pathtest::http_request(port, "GET", "/metrics");
    EXPECT_EQ(response.status, 200);
    return pathtest::parse_prometheus_text(response.body).samples.at(name);
  }

  TempDir scratch_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<Client> client_;
};

TEST_F(CorruptMask, AnswersDataLossNamingTheMaskUntilReplacedOrDeleted) {
  EXPECT_EQ(metric("pathfinder_masks_corrupt"), 2);
  EXPECT_EQ(metric("pathfinder_masks_stored"), 1);

  // Every call that reads or patches the mask says it exists but cannot be read.
  pb::ReachableRequest reachable;
  reachable.set_mask("victim");
  auto* pair = reachable.add_pairs();
  pair->mutable_a()->set_x(0);
  pair->mutable_b()->set_x(1);
  pb::StandardMoveRequest move;
  move.set_mask("victim");
  move.mutable_start()->set_x(0);
  move.mutable_goal()->set_x(1);
  pb::PatchMaskRequest patch;
  patch.set_name("victim");
  patch.set_width(1);
  patch.set_height(1);
  patch.set_areas(std::string(1, '\x01'));
  const std::vector<std::pair<std::string, std::function<grpc::Status()>>> calls = {
      {"GetMask", [&] { return client_->get_mask("victim").status; }},
      {"FindPath", [&] { return client_->find_path(find("victim", 0, 0, 5, 5)).status; }},
      {"Reachable", [&] { return client_->reachable(reachable).status; }},
      {"StandardMove", [&] { return client_->standard_move(move).status; }},
      {"PatchMask", [&] { return client_->patch_mask(patch).status; }},
  };
  for (const auto& [rpc, call] : calls) {
    const grpc::Status status = call();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS) << rpc;
    EXPECT_THAT(status.error_message(), HasSubstr("mask 'victim' is unreadable")) << rpc;
    // The server's paths are its own business.
    EXPECT_THAT(status.error_message(), Not(HasSubstr(server_->data_dir()))) << rpc;
    EXPECT_THAT(status.error_message(), Not(HasSubstr(".pfmask"))) << rpc;
  }
  // A name never stored is still NOT_FOUND.
  EXPECT_EQ(client_->get_mask("never").status.error_code(), grpc::StatusCode::NOT_FOUND);
  // ListMasks lists what can be served.
  const auto listed = client_->list_masks();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed.value.masks_size(), 1);
  EXPECT_EQ(listed.value.masks(0).name(), "fine");

  // Logged once each at load, at error level, with the file for the operator.
  const std::string log = server_->log();
  EXPECT_EQ(count_lines_with(log, "mask 'victim' is corrupt"), 1U) << log;
  EXPECT_EQ(count_lines_with(log, "mask 'doomed' is corrupt"), 1U) << log;
  for (const char* name : {"victim", "doomed"}) {
    const std::string line = log.substr(log.find("mask '" + std::string(name) + "' is corrupt"));
    EXPECT_THAT(line.substr(0, line.find('\n')), HasSubstr(std::string(name) + ".pfmask"));
  }
  EXPECT_EQ(count_lines_with(log, "[error] mask store: mask '"), 2U) << log;

  // A new upload replaces it; a delete removes it.
  const auto replaced = client_->upload_mask(pathtest::open_raw_upload("victim", 7, 5));
  ASSERT_TRUE(replaced.ok()) << replaced.status.error_message();
  EXPECT_EQ(replaced.value.revision(), 1U);
  EXPECT_EQ(client_->get_mask("victim").value.width(), 7U);
  EXPECT_TRUE(client_->find_path(find("victim", 0, 0, 6, 4)).ok());
  EXPECT_EQ(metric("pathfinder_masks_corrupt"), 1);

  EXPECT_TRUE(client_->delete_mask("doomed").ok());
  EXPECT_FALSE(std::filesystem::exists(server_->data_dir() + "/doomed.pfmask"));
  EXPECT_EQ(client_->get_mask("doomed").status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(client_->delete_mask("doomed").status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(metric("pathfinder_masks_corrupt"), 0);
  EXPECT_EQ(metric("pathfinder_masks_stored"), 2);

  // And both stay so across a restart.
  server_->restart();
  Client restarted(server_->target());
  EXPECT_EQ(restarted.get_mask("victim").value.width(), 7U);
  EXPECT_EQ(restarted.get_mask("doomed").status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(metric("pathfinder_masks_corrupt"), 0);
  EXPECT_EQ(server_->terminate_and_wait(), 0) << server_->log();
}

// A 1x1 patch of area 0 at the top-left corner of `name`.
pb::PatchMaskRequest corner_patch(const std::string& name, std::uint64_t expected_revision) {
  pb::PatchMaskRequest patch;
  patch.set_name(name);
  patch.set_width(1);
  patch.set_height(1);
  patch.set_areas(std::string(1, '\0'));
  patch.set_expected_revision(expected_revision);
  return patch;
}

// An editor that kept a revision from before a delete must not find that
// revision on the mask uploaded after it, not even after a restart.
TEST(Revisions, NeverRepeatAfterADeleteAndARestart) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  ServerProcess server(options);
  std::uint64_t kept = 0;
  {
    Client client(server.target());
    ASSERT_TRUE(client.upload_mask(pathtest::open_raw_upload("level", 8, 8)).ok());
    const auto patched = client.patch_mask(corner_patch("level", 1));
    ASSERT_TRUE(patched.ok()) << patched.status.error_message();
    kept = patched.value.revision();
    ASSERT_TRUE(client.delete_mask("level").ok());
  }
  server.restart();
  Client client(server.target());
  // Another level under the old name, edited as often as the old one was.
  const auto uploaded = client.upload_mask(pathtest::open_raw_upload("level", 16, 16));
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  EXPECT_GT(uploaded.value.revision(), kept);
  ASSERT_TRUE(client.patch_mask(corner_patch("level", 0)).ok());
  // The stale editor's patch is refused rather than applied to the new level.
  const auto stale = client.patch_mask(corner_patch("level", kept));
  EXPECT_EQ(stale.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << stale.status.error_message();
  EXPECT_EQ(client.get_mask("level").value.width(), 16U);
  EXPECT_EQ(server.terminate_and_wait(), 0) << server.log();
}

// Under a file size limit (`ulimit -f`) the server's writes fail as on a full
// disk (EFBIG): the upload is refused as storage full and the server keeps
// serving the old revision, rather than dying of SIGXFSZ.
TEST(FullStorage, AnUploadIsRefusedAndTheOldRevisionStaysServed) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.max_file_bytes = 64 * 1024;
  ServerProcess server(options);
  Client client(server.target());
  ASSERT_TRUE(client.upload_mask(pathtest::open_raw_upload("level", 8, 8)).ok());

  const auto refused = client.upload_mask(pathtest::open_raw_upload("level", 300, 300));
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << refused.status.error_message();
  EXPECT_EQ(refused.status.error_message(), "could not store mask 'level': storage is full");
  const auto served = client.get_mask("level");
  ASSERT_TRUE(served.ok()) << served.status.error_message() << "\n" << server.log();
  EXPECT_EQ(served.value.revision(), 1U);
  EXPECT_EQ(served.value.width(), 8U);
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(server.data_dir())) {
    files.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(files, std::vector<std::string>{"level.pfmask"});
  EXPECT_EQ(server.terminate_and_wait(), 0) << server.log();
  // The operator's log says where and why.
  EXPECT_EQ(count_lines_with(server.log(), server.data_dir() + "/.level.pfmask."), 1U)
      << server.log();
  EXPECT_EQ(count_lines_with(server.log(), "File too large"), 1U) << server.log();
}

}  // namespace
