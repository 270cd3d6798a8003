// End-to-end tests of --store postgres: real server binaries (two replicas
// where it matters) on one real PostgreSQL database (support/postgres_process.h),
// all on 127.0.0.1 with ports picked at run time. Upload through one replica
// is served by the other at the same revision and digest within a second;
// concurrent patches expecting one revision give one OK and one
// FAILED_PRECONDITION; with the database down, held masks keep answering,
// writes and unknown names answer UNAVAILABLE and health turns NOT_SERVING
// only when nothing is held; everything recovers without a restart.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "pathfinder/client.h"
#include "support/postgres_process.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using namespace std::chrono_literals;
using pathfinder::Client;
using pathfinder::ServingStatus;
using pathtest::PostgresProcess;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;
using ::testing::Not;

// A replica on the PostgreSQL store, its connection string in the
// environment (never on the command line).
ServerOptions replica_options(const std::string& conninfo) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.store_args = {"--store", "postgres"};
  options.env = {"PATHFINDER_STORE_CONNINFO=" + conninfo};
  return options;
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

pb::PatchMaskRequest one_cell_patch(const std::string& name, std::uint64_t expected, char area) {
  pb::PatchMaskRequest request;
  request.set_name(name);
  request.set_expected_revision(expected);
  request.set_width(1);
  request.set_height(1);
  request.set_areas(std::string(1, area));
  return request;
}

pb::FindPathRequest across(const std::string& mask) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  request.mutable_start()->set_x(1);
  request.mutable_start()->set_y(1);
  request.mutable_goal()->set_x(30);
  request.mutable_goal()->set_y(20);
  return request;
}

TEST(PostgresStoreE2e, TwoReplicasServeOneStoreAndOnePatchOfARevisionWins) {
  PostgresProcess postgres;
  const std::string conninfo = postgres.create_database("replicas");
  ServerProcess first(replica_options(conninfo));
  ServerProcess second(replica_options(conninfo));
  Client a(first.target());
  Client b(second.target());

  const auto uploaded = a.upload_mask(pathtest::open_raw_upload("level", 32, 24));
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  ASSERT_TRUE(eventually([&] { return b.get_mask("level").ok(); }, 1s))
      << "the upload did not reach the other replica within 1 s";
  const auto seen = b.get_mask("level");
  EXPECT_EQ(seen.value.revision(), uploaded.value.revision());
  EXPECT_EQ(seen.value.sha256(), uploaded.value.sha256());
  const auto path = b.find_path(across("level"));
  ASSERT_TRUE(path.ok()) << path.status.error_message();
  EXPECT_EQ(path.value.mask_revision(), uploaded.value.revision());

  std::uint64_t revision = uploaded.value.revision();
  for (int round = 0; round < 10; ++round) {
    std::atomic<int> ok{0};
    std::atomic<int> failed_precondition{0};
    auto patch_through = [&](Client& client, char area) {
      const auto result = client.patch_mask(one_cell_patch("level", revision, area));
      if (result.ok()) {
        ++ok;
      } else if (result.status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
        ++failed_precondition;
      } else {
        ADD_FAILURE() << result.status.error_message();
      }
    };
    // Ids not written the round before: both patches change the mask (one
    // that changes nothing keeps the revision and contends for nothing).
    const char shift = static_cast<char>(2 * (round % 2));
    std::thread through_a([&] { patch_through(a, static_cast<char>('\x02' + shift)); });
    std::thread through_b([&] { patch_through(b, static_cast<char>('\x03' + shift)); });
    through_a.join();
    through_b.join();
    ASSERT_EQ(ok.load(), 1) << "round " << round;
    ASSERT_EQ(failed_precondition.load(), 1) << "round " << round;
    ++revision;
    // A patch through one replica is what queries on the other see within 1 s.
    ASSERT_TRUE(eventually(
        [&] {
          return a.get_mask("level").value.revision() == revision &&
                 b.get_mask("level").value.revision() == revision;
        },
        1s));
  }
  EXPECT_EQ(a.get_mask("level").value.sha256(), b.get_mask("level").value.sha256());
}

TEST(PostgresStoreE2e, WithTheDatabaseDownHeldMasksAnswerAndTheReplicaRecovers) {
  PostgresProcess postgres;
  ServerProcess server(replica_options(postgres.create_database("outage")));
  Client client(server.target());
  ASSERT_TRUE(client.upload_mask(pathtest::open_raw_upload("held", 32, 24)).ok());

  postgres.stop();
  ASSERT_TRUE(eventually(
      [&] {
        return client.upload_mask(pathtest::open_raw_upload("new", 4, 4)).status.error_code() ==
               grpc::StatusCode::UNAVAILABLE;
      },
      3s));
  const auto write = client.upload_mask(pathtest::open_raw_upload("new", 4, 4));
  EXPECT_THAT(write.status.error_message(), HasSubstr("cannot be reached"));
  EXPECT_EQ(client.patch_mask(one_cell_patch("held", 0, '\x02')).status.error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(client.find_path(across("held")).ok());
  EXPECT_TRUE(client.get_mask("held").ok());
  const auto unknown = client.get_mask("unknown");
  EXPECT_EQ(unknown.status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(client.health_check().value, ServingStatus::kServing);  // it answers "held"

  postgres.start();
  ASSERT_TRUE(eventually(
      [&] { return client.upload_mask(pathtest::open_raw_upload("new", 4, 4)).ok(); }, 10s));
  EXPECT_EQ(client.get_mask("unknown").status.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST(PostgresStoreE2e, HealthIsNotServingOnlyWhenNothingCanBeAnswered) {
  PostgresProcess postgres;
  ServerProcess server(replica_options(postgres.create_database("health")));
  Client client(server.target());
  EXPECT_EQ(client.health_check().value, ServingStatus::kServing);
  postgres.stop();
  EXPECT_TRUE(eventually(
      [&] { return client.health_check().value == ServingStatus::kNotServing; }, 3s));
  postgres.start();
  EXPECT_TRUE(
      eventually([&] { return client.health_check().value == ServingStatus::kServing; }, 10s));
}

TEST(PostgresStoreE2e, APasswordOnTheCommandLineIsRefused) {
  const auto run = pathtest::run_command(
      {PATHFINDER_SERVER_BIN, "--store", "postgresql://pathfinder:secret@127.0.0.1:1/db"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.err + run.out, HasSubstr("password"));
  EXPECT_THAT(run.err + run.out, HasSubstr("--store-conninfo-file"));
}

TEST(PostgresStoreE2e, ADataDirIsRefusedAndNotNamed) {
  // The directory would not be used: refused before anything starts.
  pathtest::TempDir scratch("pathfinder-pg-data-dir");
  const auto refused = pathtest::run_command({PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0",
                                              "--store", "postgres", "--data-dir",
                                              scratch.file("data")});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(refused.out.empty()) << refused.out;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("--data-dir"));
  EXPECT_THAT(refused.err, HasSubstr("--store postgres"));
  EXPECT_FALSE(std::filesystem::exists(scratch.file("data")));

  // Without it the start-up line names the store and no data directory.
  PostgresProcess postgres;
  ServerOptions options = replica_options(postgres.create_database("named"));
  options.log_level = "info";
  ServerProcess server(options);
  EXPECT_THAT(server.log(), HasSubstr("starting: store postgres,"));
  EXPECT_THAT(server.log(), Not(HasSubstr("data dir")));
}

}  // namespace
