// End-to-end: several goals (FindPathRequest.goals, BatchFindPathsRequest.goals,
// GetFieldRequest.goals) against the real server binary. Every answer is
// checked against a brute force: one textbook Dijkstra per goal
// (support/reference.h), the minimum over the goals, the lowest index at
// that minimum. Also: a one-goal list answers as `goal` does, the errors the
// docs promise, the field cache serving a repeated goal list, snapping when
// no goal is reachable, and the CLI's --goals.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathfinder/client.h"
#include "support/invariants.h"
#include "support/random_mask.h"
#include "support/raw_upload.h"
#include "support/reference.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;

ServerOptions server_options(std::vector<std::string> extra = {}) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.extra_args = std::move(extra);
  return options;
}

Client make_client(const ServerProcess& server) {
  pathfinder::ClientOptions options;
  options.deadline = std::chrono::seconds(60);
  return Client(server.target(), options);
}

pb::Point wire(pathcore::Point p) { return pathfinder::make_point(p.x, p.y); }

pb::UploadMaskRequest upload_of(const std::string& name, const pathcore::Mask& mask) {
  return pathtest::raw_upload(name, mask.width(), mask.height(),
                              std::string(mask.areas().begin(), mask.areas().end()));
}

// The brute force: per goal a textbook Dijkstra; per pixel the cheapest and
// the lowest goal index at it (-1: no goal reachable).
struct Nearest {
  std::vector<double> cost;
  std::vector<int> index;
};

Nearest brute_force(const pathcore::Mask& mask, const std::vector<pathcore::Point>& goals,
                    const pathcore::FieldOptions& options) {
  const pathtest::ReferenceGrid grid = pathtest::reference_grid_for(options);
  Nearest out{std::vector<double>(mask.pixel_count(), pathtest::kNoPath),
              std::vector<int>(mask.pixel_count(), -1)};
  for (std::size_t j = 0; j < goals.size(); ++j) {
    const std::vector<double> d = pathtest::reference_distances(mask, goals[j], grid);
    for (std::size_t i = 0; i < d.size(); ++i) {
      // Distinct exact costs differ by far more than 1e-9 on these masks.
      if (d[i] < out.cost[i] - 1e-9) {
        out.cost[i] = d[i];
        out.index[i] = static_cast<int>(j);
      }
    }
  }
  return out;
}

struct Case {
  pb::Connectivity connectivity;
  bool cutting;
  bool costs;
};
constexpr Case kCases[] = {{pb::CONNECTIVITY_FOUR, false, false},
                           {pb::CONNECTIVITY_EIGHT, false, true},
                           {pb::CONNECTIVITY_EIGHT, true, false},
                           {pb::CONNECTIVITY_FOUR, false, true}};

pathcore::FieldOptions core_options(const Case& c) {
  pathcore::FieldOptions options;
  options.connectivity = c.connectivity == pb::CONNECTIVITY_EIGHT ? pathcore::Connectivity::kEight
                                                                  : pathcore::Connectivity::kFour;
  options.allow_corner_cutting = c.cutting;
  if (c.costs) {
    options.area_costs[2] = 3;
    options.area_costs[3] = 7;
  }
  return options;
}

template <typename Request>
void set_options(const Case& c, Request& request) {
  request.set_connectivity(c.connectivity);
  request.set_allow_corner_cutting(c.cutting);
  if (c.costs) {
    (*request.mutable_area_costs())[2] = 3;
    (*request.mutable_area_costs())[3] = 7;
  }
}

class GoalsE2E : public ::testing::Test {
 protected:
  GoalsE2E() : server_(server_options({"--max-goals", "16"})), client_(make_client(server_)) {}
  ServerProcess server_;
  Client client_;
};

TEST_F(GoalsE2E, FindPathBatchAndFieldMatchTheBruteForce) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 8; ++round) {
    const pathcore::Mask mask = pathtest::random_mask(rng, 48, 32, 0.25, 3);
    const std::string name = "goals" + std::to_string(round);
    ASSERT_TRUE(client_.upload_mask(upload_of(name, mask)).ok());
    const Case c = kCases[round % 4];
    std::vector<pathcore::Point> goals;
    for (int j = 0; j < 2 + round; ++j) goals.push_back(pathtest::random_point(rng, mask));
    const Nearest nearest = brute_force(mask, goals, core_options(c));

    pb::BatchFindPathsRequest batch;
    batch.set_mask(name);
    set_options(c, batch);
    batch.set_smoothing(round % 2 == 0 ? pb::SMOOTHING_NONE : pb::SMOOTHING_BEAUTIFY);
    for (const auto g : goals) *batch.add_goals() = wire(g);
    for (int s = 0; s < 25; ++s) *batch.add_starts() = wire(pathtest::random_point(rng, mask));
    const auto batched = client_.batch_find_paths(batch);
    ASSERT_TRUE(batched.ok()) << batched.status.error_message();
    ASSERT_EQ(batched.value.paths_size(), batch.starts_size());

    for (int s = 0; s < batch.starts_size(); ++s) {
      pb::FindPathRequest request;
      request.set_mask(name);
      set_options(c, request);
      request.set_smoothing(batch.smoothing());
      *request.mutable_start() = batch.starts(s);
      *request.mutable_goals() = batch.goals();
      const auto answer = client_.find_path(request);
      ASSERT_TRUE(answer.ok()) << answer.status.error_message();
      const pb::FindPathResponse& path = answer.value;
      const std::size_t i = mask.index({batch.starts(s).x(), batch.starts(s).y()});
      const std::string where = name + " start " + std::to_string(s);
      ASSERT_EQ(path.found(), nearest.index[i] >= 0) << where;
      if (path.found()) {
        const auto j = static_cast<std::size_t>(nearest.index[i]);
        EXPECT_EQ(path.goal_index(), j) << where;
        EXPECT_EQ(path.goal().x(), goals[j].x) << where;
        EXPECT_EQ(path.goal().y(), goals[j].y) << where;
        ASSERT_GT(path.points_size(), 0) << where;
        EXPECT_EQ(path.points(path.points_size() - 1).x(), goals[j].x) << where;
        EXPECT_EQ(path.points(path.points_size() - 1).y(), goals[j].y) << where;
        ASSERT_TRUE(path.has_grid_cost()) << where;
        EXPECT_NEAR(path.grid_cost(), nearest.cost[i], 1e-6) << where;
        if (batch.smoothing() == pb::SMOOTHING_NONE) {
          pathcore::Path points;
          for (const auto& p : path.points()) points.push_back({p.x(), p.y()});
          EXPECT_NEAR(pathtest::walked_cost(mask, core_options(c), points), nearest.cost[i], 1e-6)
              << where;
        }
      } else {
        EXPECT_EQ(path.goal_index(), 0U) << where;
      }
      // The batch answers each start exactly as FindPath does.
      pb::FindPathResponse single = path;
      pb::FindPathResponse in_batch = batched.value.paths(s);
      single.set_cache_hit(false);
      in_batch.set_cache_hit(false);
      EXPECT_EQ(in_batch.SerializeAsString(), single.SerializeAsString()) << where;
    }

    pb::GetFieldRequest field_request;
    field_request.set_mask(name);
    set_options(c, field_request);
    *field_request.mutable_goals() = batch.goals();
    field_request.set_include_flow(true);
    const auto field = client_.get_field(field_request);
    ASSERT_TRUE(field.ok()) << field.status.error_message();
    EXPECT_TRUE(field.value.cache_hit) << "the batch filled it";
    ASSERT_EQ(field.value.distances.size(), mask.pixel_count());
    for (std::size_t i = 0; i < mask.pixel_count(); ++i) {
      if (nearest.index[i] < 0) {
        ASSERT_TRUE(std::isinf(field.value.distances[i])) << name << " pixel " << i;
        continue;
      }
      ASSERT_NEAR(field.value.distances[i], static_cast<float>(nearest.cost[i]),
                  1e-4 * (1 + nearest.cost[i]))
          << name << " pixel " << i;
      if (nearest.cost[i] == 0) {
        EXPECT_EQ(field.value.flow[i], 0) << name << " goal pixel " << i;
      } else {
        EXPECT_NE(field.value.flow[i], 0) << name << " pixel " << i;
      }
    }
  }
}

TEST_F(GoalsE2E, OneGoalListAnswersAsTheGoalForm) {
  std::mt19937_64 rng(5);
  const pathcore::Mask mask = pathtest::random_mask(rng, 40, 30, 0.2, 1);
  ASSERT_TRUE(client_.upload_mask(upload_of("one", mask)).ok());
  for (int k = 0; k < 20; ++k) {
    pb::FindPathRequest by_goal;
    by_goal.set_mask("one");
    by_goal.set_connectivity(k % 2 ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
    by_goal.set_snap_to_reachable(k % 3 == 0);
    *by_goal.mutable_start() = wire(pathtest::random_point(rng, mask));
    *by_goal.mutable_goal() = wire(pathtest::random_point(rng, mask));
    pb::FindPathRequest by_list = by_goal;
    by_list.clear_goal();
    *by_list.add_goals() = by_goal.goal();
    auto a = client_.find_path(by_goal);
    auto b = client_.find_path(by_list);
    ASSERT_TRUE(a.ok() && b.ok());
    a.value.set_cache_hit(false);
    b.value.set_cache_hit(false);
    EXPECT_EQ(a.value.SerializeAsString(), b.value.SerializeAsString()) << "request " << k;
  }
}

TEST_F(GoalsE2E, TiesGoToTheLowestIndex) {
  ASSERT_TRUE(client_.upload_mask(pathtest::open_raw_upload("room", 21, 5)).ok());
  for (const bool swapped : {false, true}) {
    pb::FindPathRequest request;
    request.set_mask("room");
    *request.mutable_start() = pathfinder::make_point(10, 2);
    const pb::Point west = pathfinder::make_point(0, 2);
    const pb::Point east = pathfinder::make_point(20, 2);
    *request.add_goals() = swapped ? east : west;
    *request.add_goals() = swapped ? west : east;
    const auto answer = client_.find_path(request);
    ASSERT_TRUE(answer.ok());
    EXPECT_EQ(answer.value.goal_index(), 0U);
    EXPECT_EQ(answer.value.goal().x(), swapped ? 20 : 0);
  }
}

TEST_F(GoalsE2E, RepeatedGoalListHitsTheFieldCache) {
  ASSERT_TRUE(client_.upload_mask(pathtest::open_raw_upload("hall", 64, 48)).ok());
  pb::FindPathRequest request;
  request.set_mask("hall");
  request.set_smoothing(pb::SMOOTHING_NONE);  // no beeline: the field answers
  *request.mutable_start() = pathfinder::make_point(1, 1);
  *request.add_goals() = pathfinder::make_point(60, 40);
  *request.add_goals() = pathfinder::make_point(5, 40);
  const auto first = client_.find_path(request);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first.value.cache_hit());
  *request.mutable_start() = pathfinder::make_point(50, 3);  // another start, same goals
  const auto second = client_.find_path(request);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second.value.cache_hit());
  // Another order is another list: its own field.
  pb::FindPathRequest reordered = request;
  reordered.clear_goals();
  *reordered.add_goals() = pathfinder::make_point(5, 40);
  *reordered.add_goals() = pathfinder::make_point(60, 40);
  const auto third = client_.find_path(reordered);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third.value.cache_hit());
}

TEST_F(GoalsE2E, SnapsTowardTheFirstGoalWhenNoneIsReachable) {
  // Two rooms: x 0..9 and x 11..20, a wall at x 10; both goals in the east room.
  std::string areas(21 * 5, '\x01');
  for (int y = 0; y < 5; ++y) areas[static_cast<std::size_t>(y * 21 + 10)] = '\0';
  ASSERT_TRUE(client_.upload_mask(pathtest::raw_upload("rooms", 21, 5, areas)).ok());
  pb::FindPathRequest request;
  request.set_mask("rooms");
  *request.mutable_start() = pathfinder::make_point(2, 2);
  *request.add_goals() = pathfinder::make_point(12, 0);
  *request.add_goals() = pathfinder::make_point(11, 4);
  const auto unsnapped = client_.find_path(request);
  ASSERT_TRUE(unsnapped.ok());
  EXPECT_FALSE(unsnapped.value.found());
  EXPECT_EQ(unsnapped.value.reason(), pb::PATH_REASON_NO_ROUTE);
  request.set_snap_to_reachable(true);
  const auto snapped = client_.find_path(request);
  ASSERT_TRUE(snapped.ok());
  ASSERT_TRUE(snapped.value.found());
  EXPECT_EQ(snapped.value.reason(), pb::PATH_REASON_GOAL_SNAPPED);
  EXPECT_EQ(snapped.value.goal_index(), 0U);
  // The pixel of the west room nearest to goals[0] (12,0): (9,0).
  EXPECT_EQ(snapped.value.goal().x(), 9);
  EXPECT_EQ(snapped.value.goal().y(), 0);
  EXPECT_NEAR(snapped.value.goal_snap_distance(), 3.0, 1e-9);
  // A blocked start on the wall snaps to (9,4) (row-major ties), whose room
  // reaches only goals[0]: a path to it, the goal not moved.
  *request.mutable_start() = pathfinder::make_point(10, 4);
  request.clear_goals();
  *request.add_goals() = pathfinder::make_point(0, 0);
  *request.add_goals() = pathfinder::make_point(11, 4);
  const auto moved = client_.find_path(request);
  ASSERT_TRUE(moved.ok());
  ASSERT_TRUE(moved.value.found());
  EXPECT_TRUE(moved.value.start_snapped());
  EXPECT_FALSE(moved.value.goal_snapped());
  EXPECT_EQ(moved.value.reason(), pb::PATH_REASON_START_SNAPPED);
  EXPECT_EQ(moved.value.goal_index(), 0U);
  EXPECT_EQ(moved.value.points(0).x(), 9);
}

TEST_F(GoalsE2E, RefusesBadGoalLists) {
  ASSERT_TRUE(client_.upload_mask(pathtest::open_raw_upload("box", 10, 10)).ok());
  const auto expect = [](const grpc::Status& status, grpc::StatusCode code,
                         const std::vector<std::string>& words) {
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    for (const auto& word : words) EXPECT_THAT(status.error_message(), HasSubstr(word));
  };
  const auto add = [](auto& request, int count, bool outside) {
    for (int j = 0; j < count; ++j) *request.add_goals() = pathfinder::make_point(j % 10, 1);
    if (outside) *request.mutable_goals(1) = pathfinder::make_point(3, 10);
  };
  {
    pb::FindPathRequest both;
    both.set_mask("box");
    *both.mutable_start() = pathfinder::make_point(0, 0);
    *both.mutable_goal() = pathfinder::make_point(5, 5);
    add(both, 2, false);
    expect(client_.find_path(both).status, grpc::StatusCode::INVALID_ARGUMENT, {"goals"});
    pb::FindPathRequest many = both;
    many.clear_goal();
    many.clear_goals();
    add(many, 17, false);
    expect(client_.find_path(many).status, grpc::StatusCode::RESOURCE_EXHAUSTED,
           {"goals", "--max-goals"});
    pb::FindPathRequest outside = many;
    outside.clear_goals();
    add(outside, 3, true);
    expect(client_.find_path(outside).status, grpc::StatusCode::INVALID_ARGUMENT, {"goals[1]"});
    pb::FindPathRequest any_angle = outside;
    any_angle.clear_goals();
    add(any_angle, 3, false);
    any_angle.set_smoothing(pb::SMOOTHING_ANY_ANGLE);
    expect(client_.find_path(any_angle).status, grpc::StatusCode::INVALID_ARGUMENT, {"goals"});
  }
  {
    pb::BatchFindPathsRequest batch;
    batch.set_mask("box");
    *batch.add_starts() = pathfinder::make_point(0, 0);
    *batch.mutable_goal() = pathfinder::make_point(5, 5);
    add(batch, 2, false);
    expect(client_.batch_find_paths(batch).status, grpc::StatusCode::INVALID_ARGUMENT, {"goals"});
    batch.clear_goal();
    batch.clear_goals();
    add(batch, 17, false);
    expect(client_.batch_find_paths(batch).status, grpc::StatusCode::RESOURCE_EXHAUSTED,
           {"goals", "--max-goals"});
    batch.clear_goals();
    add(batch, 3, true);
    expect(client_.batch_find_paths(batch).status, grpc::StatusCode::INVALID_ARGUMENT,
           {"goals[1]"});
  }
  {
    pb::GetFieldRequest field;
    field.set_mask("box");
    *field.mutable_goal() = pathfinder::make_point(5, 5);
    add(field, 2, false);
    expect(client_.get_field(field).status, grpc::StatusCode::INVALID_ARGUMENT, {"goals"});
    field.clear_goal();
    field.clear_goals();
    add(field, 17, false);
    expect(client_.get_field(field).status, grpc::StatusCode::RESOURCE_EXHAUSTED,
           {"goals", "--max-goals"});
    field.clear_goals();
    add(field, 3, true);
    expect(client_.get_field(field).status, grpc::StatusCode::INVALID_ARGUMENT, {"goals[1]"});
  }
}

TEST_F(GoalsE2E, CliTakesGoals) {
  ASSERT_TRUE(client_.upload_mask(pathtest::open_raw_upload("cli", 30, 10)).ok());
  const std::string server = server_.target();
  const auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv{PATHFIND_CLI_BIN, "--server", server};
    argv.insert(argv.end(), args.begin(), args.end());
    return pathtest::run_command(argv);
  };
  const auto found = run({"find", "cli", "2", "2", "--goals", "29,9", "5,5"});
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_THAT(found.out, HasSubstr("goal 1 of 2 (5,5) taken"));
  const auto batch = run({"batch", "cli", "28,8", "1,1", "--goals", "29,9", "5,5"});
  EXPECT_EQ(batch.exit_code, 0) << batch.err;
  EXPECT_THAT(batch.out, HasSubstr("goal 0 of 2 (29,9) taken"));
  EXPECT_THAT(batch.out, HasSubstr("goal 1 of 2 (5,5) taken"));
  const auto both = run({"find", "cli", "2", "2", "3", "3", "--goals", "29,9"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.err, HasSubstr("--goals"));
  const auto neither = run({"field", "cli", "-o", "/dev/null"});
  EXPECT_EQ(neither.exit_code, 2);
  const auto bad = run({"find", "cli", "2", "2", "--goals", "29;9"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--goals[0]"));
}

}  // namespace
