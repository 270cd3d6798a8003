// The multi-replica deployment, end to end: scripts/cluster starts three real
// replicas and nginx in front of them (deploy/nginx/pathfinder.conf.template)
// in a temp dir, and each test talks to them through the C++ client library.
//
// With the file store (each replica its own data dir, so masks are uploaded
// to every replica directly): routing by the x-pathfinder-mask header, calls
// without it, and 3,000 FindPath through the balancer while the replica that
// serves them is killed with SIGKILL, with zero failed calls at the client.
// With the shared PostgreSQL store (--store postgres): writes through one
// replica seen on the others (reads, patches, watches), concurrency, kills
// and a database stopped and started again.
//
// Everything binds 127.0.0.1; the cluster is stopped when a test ends,
// whether it passed or not (ClusterProcess's destructor).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pathfinder/client.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathfinder::ClientOptions;
using pathtest::CommandResult;
using pathtest::TempDir;

constexpr int kSide = 64;  // every test mask is kSide x kSide (or a little wider)

struct Replica {
  std::string address;
  pid_t pid = 0;
};

// `scripts/cluster up` in a temp dir of its own, `down` when destroyed.
class ClusterProcess {
 public:
  // store: "file" or "postgres" (CLUSTER_STORE); server_args: more
  // arguments for every replica (CLUSTER_SERVER_ARGS). Throws
  // std::runtime_error with the script's output when the cluster does not
  // come up.
  explicit ClusterProcess(std::string store, std::string server_args = "")
      : dir_("pathfinder-cluster"), store_(std::move(store)), server_args_(std::move(server_args)) {
    // PostgreSQL runs as an unprivileged user when the test runs as root: it
    // must be able to reach its folder below the (private) temp dir.
    ::chmod(dir_.path().c_str(), 0755);
    const CommandResult up = script("up");
    if (up.exit_code != 0) {
      (void)script("down");
      throw std::runtime_error("scripts/cluster up failed (exit " + std::to_string(up.exit_code) +
                               "):\n" + up.out + up.err);
    }
    parse(pathtest::read_text_file(dir_.file("cluster.json")));
  }
  ~ClusterProcess() {
    const CommandResult down = script("down");
    if (down.exit_code != 0) ADD_FAILURE() << "scripts/cluster down failed:\n" << down.err;
  }
  ClusterProcess(const ClusterProcess&) = delete;
  ClusterProcess& operator=(const ClusterProcess&) = delete;

  [[nodiscard]] const std::string& lb() const { return lb_; }
  [[nodiscard]] const std::vector<Replica>& replicas() const { return replicas_; }
  [[nodiscard]] const std::string& postgres() const { return postgres_; }
  // The PostgreSQL postmaster's pid file (scripts/cluster's layout).
  [[nodiscard]] std::string postmaster_pid_file() const {
    return dir_.file("postgres/data/postmaster.pid");
  }
  // Runs scripts/cluster COMMAND against this cluster.
  [[nodiscard]] CommandResult script(const std::string& command) const {
    return pathtest::run_command({"env", "CLUSTER_DIR=" + dir_.path(), "CLUSTER_STORE=" + store_,
                                  "CLUSTER_SERVER_ARGS=" + server_args_,
                                  std::string("PATHFINDER_SERVER=") + PATHFINDER_SERVER_BIN,
                                  std::string("PATHFIND=") + PATHFIND_CLI_BIN,
                                  std::string(PATHFINDER_SOURCE_DIR) + "/scripts/cluster", command},
                                 std::chrono::seconds(90));
  }

 private:
  void parse(const std::string& json) {
    std::smatch match;
    if (!std::regex_search(json, match, std::regex(R"re("lb": "([0-9.:]+)")re"))) {
      throw std::runtime_error("cluster.json has no lb: " + json);
    }
    lb_ = match[1];
    const std::regex replica(R"re(\{"address": "([0-9.:]+)", "pid": ([0-9]+)\})re");
    for (auto it = std::sregex_iterator(json.begin(), json.end(), replica);
         it != std::sregex_iterator(); ++it) {
      replicas_.push_back({(*it)[1], static_cast<pid_t>(std::stol((*it)[2]))});
    }
    if (replicas_.size() != 3) throw std::runtime_error("cluster.json: not 3 replicas: " + json);
    if (std::regex_search(json, match, std::regex(R"re("postgres": "([^"]*)")re"))) {
      postgres_ = match[1];
    }
  }

  TempDir dir_;
  std::string store_;
  std::string server_args_;
  std::string lb_;
  std::vector<Replica> replicas_;
  std::string postgres_;
};

std::unique_ptr<ClusterProcess> make_cluster(const std::string& store,
                                             const std::string& server_args = "") {
  return std::make_unique<ClusterProcess>(store, server_args);
}

ClientOptions client_options(bool mask_header = true) {
  ClientOptions options;
  options.deadline = std::chrono::seconds(20);
  options.send_mask_header = mask_header;
  return options;
}

// A kSide+extra_width by kSide mask, area 1 everywhere but a wall at x = 32
// with a gap at the bottom, so that paths across it bend.
pb::UploadMaskRequest wall_mask(const std::string& name, int extra_width = 0) {
  const int width = kSide + extra_width;
  std::string areas(static_cast<std::size_t>(width * kSide), '\x01');
  for (int y = 0; y < kSide - 4; ++y) areas[static_cast<std::size_t>(y * width + 32)] = '\0';
  pb::UploadMaskRequest request;
  request.set_name(name);
  request.set_image(areas);
  request.set_format(pb::MASK_FORMAT_RAW);
  request.set_width(static_cast<std::uint32_t>(width));
  request.set_height(kSide);
  return request;
}

pb::FindPathRequest find_request(const std::string& mask, int i) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  *request.mutable_start() = pathfinder::make_point(i % 30, (i / 30) % kSide);
  *request.mutable_goal() = pathfinder::make_point(40 + i % 20, (i * 7) % kSide);
  return request;
}

// True when process pid runs. The replicas are not our children: once stopped
// they may stay zombies until whoever inherited them reaps them.
// Every process of a PostgreSQL server (the postmaster, found by its pid
// file, and its children) stopped with SIGSTOP: as a network partition or a
// full disk leaves it, connections stay open and the kernel still accepts
// and acknowledges, but nothing answers. thaw() (always run by the
// destructor, so a failed test never leaves it stopped) sends SIGCONT; and
// a watchdog process sends it too if this test process dies first (killed,
// or by a signal that runs no destructor).
class FrozenPostgres {
 public:
  explicit FrozenPostgres(const std::string& pid_file) {
    freeze(pid_file);
    const pid_t test_process = ::getpid();
    watchdog_ = ::fork();
    if (watchdog_ == 0) {
      // Polls for its parent; only async-signal-safe calls here.
      while (::getppid() == test_process) ::usleep(50'000);
      for (const pid_t pid : stopped_) ::kill(pid, SIGCONT);
      ::_exit(0);
    }
  }
  ~FrozenPostgres() { thaw(); }
  FrozenPostgres(const FrozenPostgres&) = delete;
  FrozenPostgres& operator=(const FrozenPostgres&) = delete;

  void thaw() {
    for (const pid_t pid : stopped_) ::kill(pid, SIGCONT);
    stopped_.clear();
    if (watchdog_ > 0) {
      ::kill(watchdog_, SIGKILL);
      ::waitpid(watchdog_, nullptr, 0);
      watchdog_ = -1;
    }
  }
  [[nodiscard]] std::size_t processes() const { return stopped_.size(); }

 private:
  void freeze(const std::string& pid_file) {
    const std::string text = pathtest::read_text_file(pid_file);
    const pid_t postmaster = static_cast<pid_t>(std::stol(text.substr(0, text.find('\n'))));
    // The postmaster first, so that it forks no child after the scan.
    stop(postmaster);
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string stat;
      try {
        stat = pathtest::read_text_file(entry.path().string() + "/stat");
      } catch (const std::runtime_error&) {
        continue;  // gone meanwhile
      }
      // "pid (comm) state ppid ...": comm may hold spaces, so after its ')'.
      const auto after_comm = stat.rfind(')');
      if (after_comm == std::string::npos) continue;
      std::istringstream fields(stat.substr(after_comm + 1));
      std::string state;
      long parent = 0;
      fields >> state >> parent;
      if (parent == postmaster) stop(static_cast<pid_t>(std::stol(name)));
    }
  }
  void stop(pid_t pid) {
    if (::kill(pid, SIGSTOP) == 0) stopped_.push_back(pid);
  }
  std::vector<pid_t> stopped_;
  pid_t watchdog_ = -1;
};

using Millis = std::chrono::duration<double, std::milli>;

Millis since(std::chrono::steady_clock::time_point start) {
  return std::chrono::steady_clock::now() - start;
}

bool running(pid_t pid) {
  std::string status;
  try {
    status = pathtest::read_text_file("/proc/" + std::to_string(pid) + "/status");
  } catch (const std::runtime_error&) {
    return false;  // gone
  }
  return status.find("\nState:\tZ") == std::string::npos;
}

// ---- file store: the balancer alone -----------------------------------------

TEST(ClusterE2eTest, TheHeaderPinsAMaskToOneReplicaAndCallsWithoutItAreSpread) {
  const auto cluster = make_cluster("file");
  // The same name with a different width on each replica: GetMask's width
  // tells which replica answered.
  for (std::size_t i = 0; i < cluster->replicas().size(); ++i) {
    Client direct(cluster->replicas()[i].address, client_options());
    const auto uploaded = direct.upload_mask(wall_mask("level", static_cast<int>(i)));
    ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  }
  Client with_header(cluster->lb(), client_options(true));
  Client without_header(cluster->lb(), client_options(false));
  std::set<std::uint32_t> widths_with;
  std::set<std::uint32_t> widths_without;
  for (int i = 0; i < 30; ++i) {
    const auto pinned = with_header.get_mask("level");
    ASSERT_TRUE(pinned.ok()) << pinned.status.error_message();
    widths_with.insert(pinned.value.width());
    const auto spread = without_header.get_mask("level");
    ASSERT_TRUE(spread.ok()) << spread.status.error_message();
    widths_without.insert(spread.value.width());
  }
  EXPECT_EQ(widths_with.size(), 1u) << "one mask's calls reached several replicas";
  EXPECT_GE(widths_without.size(), 2u) << "calls without the header all reached one replica";

  // Both kinds of call find paths, and health answers through the balancer.
  for (int i = 0; i < 20; ++i) {
    for (Client* client : {&with_header, &without_header}) {
      const auto found = client->find_path(find_request("level", i));
      ASSERT_TRUE(found.ok()) << found.status.error_message();
      EXPECT_TRUE(found.value.found());
    }
  }
  const auto health = with_header.health_check();
  ASSERT_TRUE(health.ok()) << health.status.error_message();
  EXPECT_EQ(health.value, pathfinder::ServingStatus::kServing);
}

TEST(ClusterE2eTest, ThreeThousandFindPathWhileAReplicaIsKilledAllSucceed) {
  constexpr int kCalls = 3000;
  constexpr int kThreads = 8;
  constexpr int kKillAfter = kCalls / 3;
  const auto cluster = make_cluster("file");
  // File stores share nothing: the mask goes to every replica, each with its
  // own width so that the replica serving the mask through the balancer can
  // be told (the width is never used by the paths asked for).
  for (std::size_t i = 0; i < cluster->replicas().size(); ++i) {
    Client direct(cluster->replicas()[i].address, client_options());
    ASSERT_TRUE(direct.upload_mask(wall_mask("level", static_cast<int>(i))).ok());
  }
  Client probe(cluster->lb(), client_options());
  const auto serving = probe.get_mask("level");
  ASSERT_TRUE(serving.ok()) << serving.status.error_message();
  const Replica victim = cluster->replicas()[serving.value.width() - kSide];

  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::mutex mutex;
  std::map<std::string, int> failures;  // status code -> calls, every one a failure
  int not_found = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      Client client(cluster->lb(), client_options());  // the default retry policy
      for (int i = next++; i < kCalls; i = next++) {
        const auto found = client.find_path(find_request("level", i));
        if (!found.ok() || !found.value.found()) {
          std::lock_guard lock(mutex);
          if (!found.ok()) {
            ++failures[pathfinder::status_code_name(found.status.error_code()) + ": " +
                       found.status.error_message()];
          } else {
            ++not_found;
          }
        }
        ++done;
      }
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (done.load() < kKillAfter && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const int done_at_kill = done.load();
  ASSERT_EQ(::kill(victim.pid, SIGKILL), 0) << "replica " << victim.address;
  for (auto& thread : threads) thread.join();

  std::cout << "killed the replica at " << victim.address << " after " << done_at_kill
            << " of " << kCalls << " calls\n";
  EXPECT_GE(done_at_kill, kKillAfter);
  EXPECT_LT(done_at_kill, kCalls) << "the load ended before the kill";
  EXPECT_EQ(done.load(), kCalls);
  for (const auto& [status, count] : failures) {
    ADD_FAILURE() << count << " calls failed with " << status;
  }
  EXPECT_EQ(not_found, 0);
  // The mask moved on to a surviving replica.
  const auto after = probe.get_mask("level");
  ASSERT_TRUE(after.ok()) << after.status.error_message();
  EXPECT_NE(cluster->replicas()[after.value.width() - kSide].address, victim.address);
}

TEST(ClusterE2eTest, DownIsSafeTwiceAndStopsEveryProcess) {
  const auto cluster = make_cluster("file");
  const CommandResult first = cluster->script("down");
  EXPECT_EQ(first.exit_code, 0) << first.err;
  const CommandResult second = cluster->script("down");
  EXPECT_EQ(second.exit_code, 0) << second.err;
  for (const auto& replica : cluster->replicas()) {
    EXPECT_FALSE(running(replica.pid)) << "replica " << replica.pid << " still runs";
  }
}

// ---- PostgreSQL store: written against --store postgres ---------------------

class SharedStoreE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = make_cluster("postgres", server_args());
  }
  // More arguments for every replica.
  [[nodiscard]] virtual std::string server_args() const { return ""; }

  // Waits until every replica holds `name` at `revision` or later: a write
  // reaches the other replicas by NOTIFY, within about a millisecond when idle
  // and (the documented promise) within a second. False after a second.
  [[nodiscard]] bool every_replica_holds(const std::string& name, std::uint64_t revision) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    for (const auto& replica : cluster_->replicas()) {
      Client direct(replica.address, client_options());
      while (true) {
        const auto info = direct.get_mask(name);
        if (info.ok() && info.value.revision() >= revision) break;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    return true;
  }

  std::unique_ptr<ClusterProcess> cluster_;
};

TEST_F(SharedStoreE2eTest, AnUploadThroughTheBalancerIsOnEveryReplica) {
  Client lb(cluster_->lb(), client_options());
  const auto uploaded = lb.upload_mask(wall_mask("shared"));
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  ASSERT_TRUE(every_replica_holds("shared", uploaded.value.revision()));
  for (const auto& replica : cluster_->replicas()) {
    Client direct(replica.address, client_options());
    const auto info = direct.get_mask("shared");
    ASSERT_TRUE(info.ok()) << replica.address << ": " << info.status.error_message();
    EXPECT_EQ(info.value.revision(), uploaded.value.revision()) << replica.address;
    EXPECT_EQ(info.value.sha256(), uploaded.value.sha256()) << replica.address;
  }
}

TEST_F(SharedStoreE2eTest, APatchThroughOneReplicaIsSeenOnTheOthersWithinOneSecond) {
  Client first(cluster_->replicas()[0].address, client_options());
  const auto uploaded = first.upload_mask(wall_mask("patched"));
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  ASSERT_TRUE(every_replica_holds("patched", uploaded.value.revision()));
  // Every replica answers on the mask first, so each holds it in memory.
  for (const auto& replica : cluster_->replicas()) {
    Client direct(replica.address, client_options());
    const auto found = direct.find_path(find_request("patched", 0));
    ASSERT_TRUE(found.ok()) << found.status.error_message();
  }
  pb::PatchMaskRequest patch;
  patch.set_name("patched");
  patch.set_x(32);
  patch.set_y(kSide - 4);
  patch.set_width(1);
  patch.set_height(4);
  patch.set_areas(std::string(4, '\0'));  // closes the gap: the two halves part
  const auto patched = first.patch_mask(patch);
  ASSERT_TRUE(patched.ok()) << patched.status.error_message();
  const auto patched_at = std::chrono::steady_clock::now();
  for (std::size_t i = 1; i < cluster_->replicas().size(); ++i) {
    Client other(cluster_->replicas()[i].address, client_options());
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() - patched_at < std::chrono::seconds(1)) {
      const auto found = other.find_path(find_request("patched", 0));
      ASSERT_TRUE(found.ok()) << found.status.error_message();
      seen = !found.value.found();
    }
    EXPECT_TRUE(seen) << cluster_->replicas()[i].address << " still finds a path after 1 s";
  }
}

TEST_F(SharedStoreE2eTest, APatchThroughOneReplicaReachesWatchersOnTheOthersWithinOneSecond) {
  Client first(cluster_->replicas()[0].address, client_options());
  const auto uploaded = first.upload_mask(wall_mask("watched"));
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  ASSERT_TRUE(every_replica_holds("watched", uploaded.value.revision()));

  // A watcher on each other replica, on a thread of its own, until it is told
  // of the delete (or 20 s pass).
  struct Told {
    pb::MaskChange change;
    std::chrono::steady_clock::time_point at;
  };
  struct Watcher {
    std::mutex mutex;
    std::vector<Told> told;
    grpc::Status status;
    std::thread thread;
  };
  const std::size_t watchers = cluster_->replicas().size() - 1;
  std::vector<std::unique_ptr<Watcher>> watching;
  for (std::size_t i = 1; i <= watchers; ++i) {
    auto watcher = std::make_unique<Watcher>();
    watcher->thread = std::thread([&, address = cluster_->replicas()[i].address,
                                   w = watcher.get()] {
      Client client(address, client_options());
      w->status = client.watch_mask(
          "watched",
          [w](const pb::MaskChange& change) {
            const std::lock_guard lock(w->mutex);
            w->told.push_back({change, std::chrono::steady_clock::now()});
            return change.kind() != pb::MASK_CHANGE_KIND_DELETE;
          },
          std::chrono::seconds(20));
    });
    watching.push_back(std::move(watcher));
  }
  const auto told_count = [](Watcher& w) {
    const std::lock_guard lock(w.mutex);
    return w.told.size();
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (auto& w : watching) {
    while (told_count(*w) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  pb::PatchMaskRequest patch;
  patch.set_name("watched");
  patch.set_x(32);
  patch.set_y(kSide - 4);
  patch.set_width(1);
  patch.set_height(4);
  patch.set_areas(std::string(4, '\0'));
  const auto patched = first.patch_mask(patch);
  ASSERT_TRUE(patched.ok()) << patched.status.error_message();
  const auto patched_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(first.delete_mask("watched").ok());
  for (auto& w : watching) w->thread.join();

  for (std::size_t i = 0; i < watching.size(); ++i) {
    Watcher& w = *watching[i];
    const std::string replica = cluster_->replicas()[i + 1].address;
    EXPECT_TRUE(w.status.ok()) << replica << ": " << w.status.error_message();
    ASSERT_EQ(w.told.size(), 3U) << replica;
    EXPECT_EQ(w.told[0].change.kind(), pb::MASK_CHANGE_KIND_CURRENT) << replica;
    EXPECT_EQ(w.told[0].change.revision(), uploaded.value.revision()) << replica;
    EXPECT_EQ(w.told[0].change.sha256(), uploaded.value.sha256()) << replica;
    const pb::MaskChange& change = w.told[1].change;
    EXPECT_EQ(change.kind(), pb::MASK_CHANGE_KIND_PATCH) << replica;
    EXPECT_EQ(change.revision(), patched.value.revision()) << replica;
    EXPECT_EQ(change.sha256(), patched.value.sha256()) << replica;
    EXPECT_EQ(change.changed().x(), 32U);
    EXPECT_EQ(change.changed().y(), static_cast<std::uint32_t>(kSide - 4));
    EXPECT_EQ(change.changed().width(), 1U);
    EXPECT_EQ(change.changed().height(), 4U);
    EXPECT_LT(w.told[1].at - patched_at, std::chrono::seconds(1)) << replica;
    EXPECT_EQ(w.told[2].change.kind(), pb::MASK_CHANGE_KIND_DELETE) << replica;
    EXPECT_EQ(w.told[2].change.revision(), patched.value.revision()) << replica;
  }
}

TEST_F(SharedStoreE2eTest, TwoPatchesOfOneRevisionThroughTwoReplicasOneSucceeds) {
  Client a(cluster_->replicas()[0].address, client_options());
  Client b(cluster_->replicas()[1].address, client_options());
  const auto uploaded = a.upload_mask(wall_mask("contested"));
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  ASSERT_TRUE(every_replica_holds("contested", uploaded.value.revision()));
  pb::PatchMaskRequest patch;
  patch.set_name("contested");
  patch.set_expected_revision(uploaded.value.revision());
  patch.set_width(1);
  patch.set_height(1);
  patch.set_areas(std::string(1, '\x02'));
  grpc::Status first;
  grpc::Status second;
  std::thread ta([&] { first = a.patch_mask(patch).status; });
  std::thread tb([&] { second = b.patch_mask(patch).status; });
  ta.join();
  tb.join();
  std::multiset<grpc::StatusCode> codes{first.error_code(), second.error_code()};
  EXPECT_EQ(codes.count(grpc::StatusCode::OK), 1u)
      << first.error_message() << " / " << second.error_message();
  EXPECT_EQ(codes.count(grpc::StatusCode::FAILED_PRECONDITION), 1u)
      << first.error_message() << " / " << second.error_message();
}

TEST_F(SharedStoreE2eTest, UploadsAcknowledgedBeforeAReplicaIsKilledSurviveIt) {
  Client lb(cluster_->lb(), client_options());
  std::map<std::string, std::string> sha_by_name;
  for (int i = 0; i < 12; ++i) {
    const std::string name = "kept-" + std::to_string(i);
    const auto uploaded = lb.upload_mask(wall_mask(name));
    ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
    sha_by_name[name] = uploaded.value.sha256();
  }
  ASSERT_EQ(::kill(cluster_->replicas()[0].pid, SIGKILL), 0);
  for (int i = 0; i < 300; ++i) {
    const auto found = lb.find_path(find_request("kept-" + std::to_string(i % 12), i));
    ASSERT_TRUE(found.ok()) << found.status.error_message();
  }
  for (const auto& [name, sha] : sha_by_name) {
    const auto info = lb.get_mask(name);
    ASSERT_TRUE(info.ok()) << name << ": " << info.status.error_message();
    EXPECT_EQ(info.value.sha256(), sha) << name;
  }
}

TEST_F(SharedStoreE2eTest, PostgresStoppedAndRestartedHeldMasksAnswerWritesWaitAndAllRecovers) {
  Client lb(cluster_->lb(), client_options());
  const auto uploaded = lb.upload_mask(wall_mask("held"));
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  ASSERT_TRUE(every_replica_holds("held", uploaded.value.revision()));
  // Every replica holds the mask before the database goes away.
  for (const auto& replica : cluster_->replicas()) {
    Client direct(replica.address, client_options());
    ASSERT_TRUE(direct.find_path(find_request("held", 0)).ok());
  }
  const CommandResult stopped = cluster_->script("postgres-stop");
  ASSERT_EQ(stopped.exit_code, 0) << stopped.err;
  for (const auto& replica : cluster_->replicas()) {
    ClientOptions options = client_options();
    options.retry.enabled = false;  // each answer as the replica gives it
    Client direct(replica.address, options);
    for (int i = 0; i < 20; ++i) {
      const auto found = direct.find_path(find_request("held", i));
      ASSERT_TRUE(found.ok()) << replica.address << ": " << found.status.error_message();
    }
    const auto write = direct.upload_mask(wall_mask("while-down"));
    EXPECT_EQ(write.status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << replica.address << ": " << write.status.error_message();
  }
  const CommandResult started = cluster_->script("postgres-start");
  ASSERT_EQ(started.exit_code, 0) << started.err;
  // Every replica takes writes again without a restart (it reconnects with
  // backoff: allow it some seconds).
  for (std::size_t n = 0; n < cluster_->replicas().size(); ++n) {
    const auto& replica = cluster_->replicas()[n];
    Client direct(replica.address, client_options());
    grpc::Status last;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    do {
      last = direct.upload_mask(wall_mask("after-" + std::to_string(n))).status;
      if (!last.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    } while (!last.ok() && last.error_code() == grpc::StatusCode::UNAVAILABLE &&
             std::chrono::steady_clock::now() < until);
    EXPECT_TRUE(last.ok()) << replica.address << " takes no writes 20 s after PostgreSQL is back: "
                           << last.error_message();
    EXPECT_TRUE(running(replica.pid)) << "replica " << replica.address << " is gone";
  }
}

// ---- the database stopped (SIGSTOP), and reads right after writes -----------

// Replicas that give the database one second (--store-timeout 1).
class StalledStoreE2eTest : public SharedStoreE2eTest {
 protected:
  [[nodiscard]] std::string server_args() const override { return "--store-timeout 1"; }
};

constexpr auto kStoreTimeout = std::chrono::seconds(1);
constexpr const char* kWritesHealth = "pathfinding.v1.Pathfinder.writes";

TEST_F(StalledStoreE2eTest, AStoppedDatabaseFreezesNoReplicaAndLosesNothingAcknowledged) {
  const Replica& replica = cluster_->replicas()[0];
  ClientOptions options = client_options();
  options.retry.enabled = false;  // each answer as the replica gives it
  Client direct(replica.address, options);
  // Acknowledged before the stop: four masks, each answered on this replica.
  std::map<std::string, std::string> sha_by_name;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "held-" + std::to_string(i);
    const auto uploaded = direct.upload_mask(wall_mask(name));
    ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
    sha_by_name[name] = uploaded.value.sha256();
    ASSERT_TRUE(direct.find_path(find_request(name, 0)).ok());
  }
  ASSERT_EQ(direct.health_check(kWritesHealth).value, pathfinder::ServingStatus::kServing);

  FrozenPostgres frozen(cluster_->postmaster_pid_file());
  ASSERT_GT(frozen.processes(), 1u) << "the postmaster and its children";
  const auto stopped_at = std::chrono::steady_clock::now();

  // Concurrent writes and deletes, two waves: while the replica still
  // thinks the database is there, and once it knows it is not.
  struct Write {
    std::string what;
    grpc::Status status;
    Millis latency{};
  };
  std::mutex writes_mutex;
  std::vector<Write> writes;
  auto write_wave = [&](int wave) {
    std::vector<std::thread> writers;
    for (int w = 0; w < 6; ++w) {
      writers.emplace_back([&, w] {
        Client writer(replica.address, options);
        const auto started = std::chrono::steady_clock::now();
        Write write;
        if (w % 2 == 0) {
          write.what = "DeleteMask held-" + std::to_string(2 + w / 2 % 2);
          write.status = writer.delete_mask("held-" + std::to_string(2 + w / 2 % 2)).status;
        } else {
          write.what = "UploadMask new-" + std::to_string(wave) + "-" + std::to_string(w);
          write.status =
              writer.upload_mask(wall_mask("new-" + std::to_string(wave) + "-" + std::to_string(w)))
                  .status;
        }
        write.latency = since(started);
        const std::lock_guard lock(writes_mutex);
        writes.push_back(std::move(write));
      });
    }
    for (auto& writer : writers) writer.join();
  };
  std::thread first_wave([&] { write_wave(0); });

  // Meanwhile the replica answers health and queries on its masks, at once.
  Millis slowest_health{};
  Millis slowest_query{};
  bool writes_not_serving = false;
  Millis not_serving_after{};
  int probes = 0;
  while (since(stopped_at) < std::chrono::seconds(4) && probes < 400) {
    ++probes;
    auto started = std::chrono::steady_clock::now();
    const auto overall = direct.health_check();
    slowest_health = std::max(slowest_health, since(started));
    EXPECT_EQ(overall.value, pathfinder::ServingStatus::kServing) << overall.status.error_message();
    if (overall.value != pathfinder::ServingStatus::kServing) break;
    started = std::chrono::steady_clock::now();
    const auto writes_health = direct.health_check(kWritesHealth);
    slowest_health = std::max(slowest_health, since(started));
    if (writes_health.value == pathfinder::ServingStatus::kNotServing && !writes_not_serving) {
      writes_not_serving = true;
      not_serving_after = since(stopped_at);
    }
    started = std::chrono::steady_clock::now();
    const auto info = direct.get_mask("held-0");
    const auto listed = direct.list_masks();
    const auto found = direct.find_path(find_request("held-1", 0));
    slowest_query = std::max(slowest_query, since(started));
    // No ASSERT while the writers run: their thread must be joined.
    EXPECT_TRUE(info.ok()) << info.status.error_message();
    EXPECT_TRUE(listed.ok()) << listed.status.error_message();
    EXPECT_TRUE(found.ok()) << found.status.error_message();
    if (!info.ok() || !listed.ok() || !found.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  first_wave.join();
  EXPECT_TRUE(writes_not_serving) << kWritesHealth << " never said NOT_SERVING";
  EXPECT_LT(slowest_health.count(), 500)
      << "health answered in " << slowest_health.count() << " ms";
  EXPECT_LT(slowest_query.count(), 500)
      << "GetMask + ListMasks + FindPath answered in " << slowest_query.count() << " ms";
  // The second wave, with the database known to be unreachable.
  write_wave(1);
  ASSERT_EQ(writes.size(), 12u);
  for (const Write& write : writes) {
    EXPECT_EQ(write.status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << write.what << ": " << write.status.error_message();
    // The store timeout, plus a wait for a compute thread behind the others.
    EXPECT_LT(write.latency.count(), 2.5 * Millis(kStoreTimeout).count())
        << write.what << " answered after " << write.latency.count() << " ms";
  }
  std::printf(
      "database stopped: health slowest %.1f ms, queries slowest %.1f ms over %d probes; %s "
      "NOT_SERVING %.0f ms after SIGSTOP\n",
      slowest_health.count(), slowest_query.count(), probes, kWritesHealth,
      not_serving_after.count());
  for (const Write& write : writes) {
    std::printf("  %s: %s after %.0f ms\n", write.what.c_str(),
                pathfinder::status_code_name(write.status.error_code()).c_str(),
                write.latency.count());
  }

  frozen.thaw();
  // Writes come back without a restart, and health says so.
  bool serving_again = false;
  const auto thawed_at = std::chrono::steady_clock::now();
  while (!serving_again && since(thawed_at) < std::chrono::seconds(20)) {
    serving_again = direct.health_check(kWritesHealth).value == pathfinder::ServingStatus::kServing;
    if (!serving_again) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(serving_again) << kWritesHealth << " not SERVING 20 s after the database resumed";
  std::printf("writes health SERVING %.0f ms after SIGCONT\n", since(thawed_at).count());
  const auto after = direct.upload_mask(wall_mask("after-the-stop"));
  EXPECT_TRUE(after.ok()) << after.status.error_message();
  // Everything acknowledged is there, on every replica. (The deletes were
  // answered UNAVAILABLE: held-2 and held-3 may or may not be gone.)
  for (const auto& other : cluster_->replicas()) {
    Client reader(other.address, client_options());
    for (const std::string name : {"held-0", "held-1"}) {
      const auto info = reader.get_mask(name);
      ASSERT_TRUE(info.ok()) << other.address << " " << name << ": " << info.status.error_message();
      EXPECT_EQ(info.value.sha256(), sha_by_name[name]) << other.address << " " << name;
    }
    if (after.ok()) {
      const auto info = reader.get_mask("after-the-stop");
      EXPECT_TRUE(info.ok()) << other.address << ": " << info.status.error_message();
    }
  }
  EXPECT_TRUE(running(replica.pid));
}

// Reads without the balancer's header land on any replica: one that has not
// heard of a write yet looks the mask up in the store before answering.
TEST_F(SharedStoreE2eTest, ReadsRightAfterWritesOnAnotherReplicaSeeThem) {
  constexpr int kRounds = 30;
  int stale_answers = 0;
  std::string first_stale;
  for (int round = 0; round < kRounds; ++round) {
    const auto& writer_replica = cluster_->replicas()[round % 3];
    const auto& reader_replica = cluster_->replicas()[(round + 1) % 3];
    Client writer(writer_replica.address, client_options());
    ClientOptions reader_options = client_options();
    reader_options.retry.enabled = false;
    Client reader(reader_replica.address, reader_options);
    const std::string name = "fresh-" + std::to_string(round);
    const auto uploaded = writer.upload_mask(wall_mask(name));
    ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
    // A mask the reader never saw.
    const auto found = reader.find_path(find_request(name, round));
    if (!found.ok()) {
      ++stale_answers;
      if (first_stale.empty())
        first_stale = "FindPath after upload: " + found.status.error_message();
    }
    // A revision newer than the reader holds (it holds the upload now).
    pb::PatchMaskRequest patch;
    patch.set_name(name);
    patch.set_x(static_cast<std::uint32_t>(round % 8));
    patch.set_width(1);
    patch.set_height(1);
    patch.set_areas(std::string(1, '\x02'));
    const auto patched = writer.patch_mask(patch);
    ASSERT_TRUE(patched.ok()) << patched.status.error_message();
    ASSERT_GT(patched.value.revision(), uploaded.value.revision());
    pb::FindPathRequest expecting = find_request(name, round + 1);
    expecting.set_expected_revision(patched.value.revision());
    const auto found_new = reader.find_path(expecting);
    if (!found_new.ok()) {
      ++stale_answers;
      if (first_stale.empty()) {
        first_stale = "FindPath expecting the patch: " + found_new.status.error_message();
      }
    } else {
      EXPECT_EQ(found_new.value.mask_revision(), patched.value.revision());
    }
    const auto info = reader.get_mask(name);
    if (!info.ok()) {
      ++stale_answers;
      if (first_stale.empty()) first_stale = "GetMask: " + info.status.error_message();
    }
    // The streaming calls, on masks this reader has never seen.
    const std::string streamed = "streamed-" + std::to_string(round);
    ASSERT_TRUE(writer.upload_mask(wall_mask(streamed)).ok());
    pb::GetFieldRequest field_request;
    field_request.set_mask(streamed);
    *field_request.mutable_goal() = find_request(streamed, round).goal();
    const auto field = reader.get_field(field_request);
    if (!field.ok()) {
      ++stale_answers;
      if (first_stale.empty()) first_stale = "GetField: " + field.status.error_message();
    }
    const std::string prepared = "prepared-" + std::to_string(round);
    ASSERT_TRUE(writer.upload_mask(wall_mask(prepared)).ok());
    pb::PrepareMaskRequest prepare_request;
    prepare_request.set_mask(prepared);
    prepare_request.set_labels(true);
    const auto prepare = reader.prepare_mask(prepare_request);
    if (!prepare.ok()) {
      ++stale_answers;
      if (first_stale.empty()) first_stale = "PrepareMask: " + prepare.status.error_message();
    }
  }
  EXPECT_EQ(stale_answers, 0) << "of " << 5 * kRounds << " reads; first: " << first_stale;

  // Through the balancer without the header, as the issue's clients did.
  Client lb(cluster_->lb(), client_options(/*mask_header=*/false));
  ClientOptions lb_options = client_options(/*mask_header=*/false);
  lb_options.retry.enabled = false;
  Client lb_reader(cluster_->lb(), lb_options);
  int lb_stale = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string name = "balanced-" + std::to_string(round);
    const auto uploaded = lb.upload_mask(wall_mask(name));
    ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
    pb::FindPathRequest request = find_request(name, round);
    request.set_expected_revision(uploaded.value.revision());
    if (!lb_reader.find_path(request).ok()) ++lb_stale;
  }
  EXPECT_EQ(lb_stale, 0) << "of " << kRounds << " FindPath through the balancer";
}

// A flood of names nobody stored: every call answers NOT_FOUND, promptly,
// and the replica's lookups share their database round trips.
TEST_F(SharedStoreE2eTest, AFloodOfUnknownNamesAnswersNotFound) {
  const auto& replica = cluster_->replicas()[0];
  ClientOptions options = client_options();
  options.retry.enabled = false;
  std::atomic<int> not_found{0};
  std::atomic<int> other{0};
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      Client client(replica.address, options);
      for (int i = 0; i < 50; ++i) {
        const auto found =
            client.find_path(find_request("nobody-" + std::to_string(c * 50 + i), i));
        if (found.status.error_code() == grpc::StatusCode::NOT_FOUND) {
          ++not_found;
        } else {
          ++other;
        }
      }
    });
  }
  for (auto& client : clients) client.join();
  const Millis took = since(started);
  EXPECT_EQ(not_found.load(), 400);
  EXPECT_EQ(other.load(), 0);
  std::printf("400 FindPath on unknown names: %.0f ms\n", took.count());
  EXPECT_LT(took.count(), 20000);
}

}  // namespace
