// BatchFindPaths through the service in-process (loopback, port chosen at run
// time): every answer of a batch is byte for byte what FindPath answers for
// its start (all smoothing modes, corner rules, area costs, clearance,
// snapping, blocked and unreachable starts), grid costs agree with a
// textbook Dijkstra written for the tests, and bad input, limits and
// expected_revision answer FindPath's errors with starts[i] named.

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"
#include "support/clearance_reference.h"
#include "support/loopback_service.h"
#include "support/random_mask.h"
#include "support/reference.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace pb = pathfinding::v1;
using ::testing::HasSubstr;

class BatchFindPathsServiceTest : public ::testing::Test {
 protected:
  void start(ServiceLimits limits = {}) {
    store_ = std::make_unique<FileMaskStore>(dir_.file("data"));
    service_ = std::make_unique<PathfinderService>(*store_, cache_, limits);
    server_ = std::make_unique<pathtest::LoopbackService>(*service_);
  }

  void TearDown() override {
    server_.reset();
    service_.reset();
  }

  grpc::Status batch(const pb::BatchFindPathsRequest& r, pb::BatchFindPathsResponse& response) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return server_->stub().BatchFindPaths(&ctx, r, &response);
  }

  grpc::Status find(const pb::FindPathRequest& r, pb::FindPathResponse& response) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return server_->stub().FindPath(&ctx, r, &response);
  }

  pathtest::TempDir dir_{"pathfinder-batch-find-paths"};
  FieldCache cache_{std::size_t{1} << 28};
  std::unique_ptr<MaskStore> store_;
  std::unique_ptr<PathfinderService> service_;
  std::unique_ptr<pathtest::LoopbackService> server_;
};

pb::Point point(pathcore::Point p) {
  pb::Point out;
  out.set_x(p.x);
  out.set_y(p.y);
  return out;
}

// The FindPath request a batch means for one of its starts.
pb::FindPathRequest single(const pb::BatchFindPathsRequest& r, const pb::Point& start) {
  pb::FindPathRequest s;
  s.set_mask(r.mask());
  *s.mutable_start() = start;
  *s.mutable_goal() = r.goal();
  s.set_enabled_areas(r.enabled_areas());
  s.set_connectivity(r.connectivity());
  s.set_allow_corner_cutting(r.allow_corner_cutting());
  s.set_smoothing(r.smoothing());
  s.set_snap_to_reachable(r.snap_to_reachable());
  *s.mutable_area_costs() = r.area_costs();
  s.set_expected_revision(r.expected_revision());
  s.set_clearance(r.clearance());
  return s;
}

std::string bytes_of(pb::FindPathResponse answer, bool with_cache_hit) {
  if (!with_cache_hit) answer.clear_cache_hit();
  std::string out;
  EXPECT_TRUE(answer.SerializeToString(&out));
  return out;
}

struct Options {
  pb::Connectivity connectivity;
  bool corner_cutting;
  pb::Smoothing smoothing;
  bool snap;
  bool costs;
  double clearance;
};

std::string describe(const Options& o) {
  return "connectivity " + std::to_string(o.connectivity) + ", cutting " +
         std::to_string(o.corner_cutting) + ", smoothing " + std::to_string(o.smoothing) +
         ", snap " + std::to_string(o.snap) + ", costs " + std::to_string(o.costs) +
         ", clearance " + std::to_string(o.clearance);
}

std::vector<Options> every_option_set() {
  std::vector<Options> all;
  for (auto connectivity : {pb::CONNECTIVITY_FOUR, pb::CONNECTIVITY_EIGHT}) {
    for (bool cutting : {false, true}) {
      for (auto smoothing : {pb::SMOOTHING_NONE, pb::SMOOTHING_SIMPLIFY, pb::SMOOTHING_BEAUTIFY,
                             pb::SMOOTHING_ANY_ANGLE}) {
        for (bool snap : {false, true}) {
          for (bool costs : {false, true}) {
            if (costs && smoothing == pb::SMOOTHING_ANY_ANGLE) continue;  // refused there
            for (double clearance : {0.0, 1.5}) {
              all.push_back({connectivity, cutting, smoothing, snap, costs, clearance});
            }
          }
        }
      }
    }
  }
  return all;
}

TEST_F(BatchFindPathsServiceTest, EveryAnswerIsWhatFindPathAnswersForItsStart) {
  start();
  std::mt19937_64 rng(2311);
  int compared = 0;
  for (int map = 0; map < 3; ++map) {
    const std::string name = "random-" + std::to_string(map);
    // Small maps with three areas, a third blocked: blocked starts, unreachable
    // pockets and pixels that lack clearance are all common.
    store_->put(name, pathtest::random_mask(rng, 36 + map * 5, 24 + map * 3, 0.3, 3));
    const pathcore::Mask mask = *store_->get(name)->mask;
    for (const Options& o : every_option_set()) {
      pb::BatchFindPathsRequest r;
      r.set_mask(name);
      const pathcore::Point goal = pathtest::random_point(rng, mask);
      *r.mutable_goal() = point(goal);
      r.set_connectivity(o.connectivity);
      r.set_allow_corner_cutting(o.corner_cutting);
      r.set_smoothing(o.smoothing);
      r.set_snap_to_reachable(o.snap);
      r.set_clearance(o.clearance);
      if (o.costs) {
        (*r.mutable_area_costs())[2] = 5;
        (*r.mutable_area_costs())[3] = 2;
      }
      // Small batches are answered on gRPC's thread, large ones on the pool.
      const int starts = (compared % 2 == 0) ? 8 : 45;
      for (int i = 0; i < starts; ++i) *r.add_starts() = point(pathtest::random_point(rng, mask));
      *r.add_starts() = point(goal);
      *r.add_starts() = r.starts(0);  // a start twice

      pb::BatchFindPathsResponse cold;
      ASSERT_TRUE(batch(r, cold).ok()) << describe(o);
      pb::BatchFindPathsResponse warm;
      ASSERT_TRUE(batch(r, warm).ok()) << describe(o);
      ASSERT_EQ(cold.paths_size(), r.starts_size());
      ASSERT_EQ(warm.paths_size(), r.starts_size());
      for (int i = 0; i < r.starts_size(); ++i) {
        pb::FindPathResponse expected;
        ASSERT_TRUE(find(single(r, r.starts(i)), expected).ok());
        // cache_hit says where the field (or the answer) came from, which
        // depends on what was asked before (the path cache admits an answer
        // the second time it is missed): compared apart, below.
        EXPECT_EQ(bytes_of(cold.paths(i), false), bytes_of(expected, false))
            << describe(o) << ", starts[" << i << "]\n"
            << cold.paths(i).DebugString() << "vs\n"
            << expected.DebugString();
        EXPECT_EQ(bytes_of(warm.paths(i), false), bytes_of(expected, false))
            << describe(o) << ", starts[" << i << "]";
        // The caches only fill up: a single call after the batch hits them
        // wherever the batch did.
        EXPECT_TRUE(!warm.paths(i).cache_hit() || expected.cache_hit())
            << describe(o) << ", starts[" << i << "]";
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

// The pixel nearest to target (Euclidean, ties to the first in row-major
// order) among those `allowed` flags, by scanning them all.
std::optional<pathcore::Point> brute_nearest(const pathcore::Mask& mask,
                                             const std::vector<bool>& allowed,
                                             pathcore::Point target) {
  std::optional<pathcore::Point> best;
  std::int64_t best_squared = 0;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      if (!allowed[static_cast<std::size_t>(y) * mask.width() + static_cast<std::size_t>(x)]) {
        continue;
      }
      const std::int64_t dx = x - target.x;
      const std::int64_t dy = y - target.y;
      if (!best || dx * dx + dy * dy < best_squared) {
        best = pathcore::Point{x, y};
        best_squared = dx * dx + dy * dy;
      }
    }
  }
  return best;
}

TEST_F(BatchFindPathsServiceTest, SnappedEndsAreTheNearestReachablePixelsOfABruteForce) {
  // Batches with blocked goals and blocked starts (small ones on gRPC's
  // thread, large ones on the pool; cold tables, then warm) and single
  // FindPath calls, every smoothing mode, corner rule and a clearance: each
  // path starts at the start's nearest walkable (usable) pixel and ends at
  // the pixel nearest the goal that a textbook flood fill from there reaches.
  start();
  std::mt19937_64 rng(5150);
  int starts_moved = 0;
  int goals_moved = 0;
  int compared = 0;
  for (int map = 0; map < 4; ++map) {
    const std::string name = "snap-" + std::to_string(map);
    store_->put(name, pathtest::random_mask(rng, 44 + map * 3, 30 + map * 2, 0.42, 3));
    const pathcore::Mask mask = *store_->get(name)->mask;
    for (auto connectivity : {pb::CONNECTIVITY_FOUR, pb::CONNECTIVITY_EIGHT}) {
      for (bool cutting : {false, true}) {
        for (auto smoothing : {pb::SMOOTHING_NONE, pb::SMOOTHING_SIMPLIFY, pb::SMOOTHING_BEAUTIFY,
                               pb::SMOOTHING_ANY_ANGLE}) {
          for (double clearance : {0.0, 1.5}) {
            const pathcore::AreaSet enabled = (map % 2 == 0) ? pathcore::kAllAreas : 0b0110;
            const pathcore::Mask walked =
                clearance == 0 ? mask
                               : pathtest::mask_of_usable(
                                     mask, pathtest::reference_usable(mask, enabled, clearance));
            std::vector<bool> walkable(walked.pixel_count());
            for (std::size_t i = 0; i < walkable.size(); ++i) {
              walkable[i] = ((enabled >> walked.areas()[i]) & 1U) != 0;
            }
            // What joins pixels: any-angle paths join what four neighbours
            // do, eight with corner cutting.
            const bool grid_cutting = connectivity == pb::CONNECTIVITY_EIGHT && cutting;
            const pathtest::Diagonals diagonals =
                smoothing == pb::SMOOTHING_ANY_ANGLE
                    ? (cutting ? pathtest::Diagonals::kAlways : pathtest::Diagonals::kNone)
                : connectivity == pb::CONNECTIVITY_FOUR ? pathtest::Diagonals::kNone
                : grid_cutting                          ? pathtest::Diagonals::kAlways
                                                        : pathtest::Diagonals::kBothSidesFree;
            // Mostly blocked goals; starts of both kinds.
            pathcore::Point goal = pathtest::random_point(rng, mask);
            for (int tries = 0;
                 tries < 50 && walkable[goal.y * mask.width() + goal.x] && compared % 4 != 0;
                 ++tries) {
              goal = pathtest::random_point(rng, mask);
            }
            pb::BatchFindPathsRequest r;
            r.set_mask(name);
            *r.mutable_goal() = point(goal);
            r.set_enabled_areas(enabled);
            r.set_connectivity(connectivity);
            r.set_allow_corner_cutting(cutting);
            r.set_smoothing(smoothing);
            r.set_snap_to_reachable(true);
            r.set_clearance(clearance);
            const int starts = (compared % 3 == 0) ? 10 : 50;
            for (int i = 0; i < starts; ++i) {
              *r.add_starts() = point(pathtest::random_point(rng, mask));
            }
            // Cold tables, then cached ones; then single FindPath calls.
            for (int round = 0; round < 3; ++round) {
              pb::BatchFindPathsResponse response;
              if (round < 2) {
                ASSERT_TRUE(batch(r, response).ok());
                ASSERT_EQ(response.paths_size(), r.starts_size());
              } else {
                for (int i = 0; i < 6; ++i) {
                  ASSERT_TRUE(find(single(r, r.starts(i)), *response.add_paths()).ok());
                }
              }
              for (int i = 0; i < response.paths_size(); ++i) {
                const pathcore::Point from_request{r.starts(i).x(), r.starts(i).y()};
                const pb::FindPathResponse& path = response.paths(i);
                SCOPED_TRACE(testing::Message()
                             << name << " connectivity " << connectivity << " cutting " << cutting
                             << " smoothing " << smoothing << " clearance " << clearance
                             << " start (" << from_request.x << "," << from_request.y << ") goal ("
                             << goal.x << "," << goal.y << ")");
                const std::optional<pathcore::Point> from =
                    brute_nearest(walked, walkable, from_request);
                if (!from) {
                  EXPECT_FALSE(path.found());
                  continue;
                }
                const pathcore::Point to = *brute_nearest(
                    walked, pathtest::reference_flood_fill(walked, *from, enabled, diagonals),
                    goal);
                ASSERT_TRUE(path.found());
                ASSERT_GT(path.points_size(), 0);
                EXPECT_EQ(path.points(0).x(), from->x);
                EXPECT_EQ(path.points(0).y(), from->y);
                EXPECT_EQ(path.goal().x(), to.x);
                EXPECT_EQ(path.goal().y(), to.y);
                EXPECT_EQ(path.points(path.points_size() - 1).x(), to.x);
                EXPECT_EQ(path.points(path.points_size() - 1).y(), to.y);
                EXPECT_EQ(path.start_snapped(), *from != from_request);
                EXPECT_EQ(path.goal_snapped(), to != goal);
                starts_moved += *from != from_request ? 1 : 0;
                goals_moved += to != goal ? 1 : 0;
                ++compared;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 4000);
  EXPECT_GT(starts_moved, 1300);
  EXPECT_GT(goals_moved, 2600);
}

TEST_F(BatchFindPathsServiceTest, SnappingWithBadInputOrNothingWalkableAnswersLikeFindPath) {
  start();
  store_->put("blocked", pathcore::Mask(6, 4, std::vector<std::uint8_t>(24, 0)));
  std::mt19937_64 rng(8);
  store_->put("random", pathtest::random_mask(rng, 20, 12, 0.5, 2));
  pb::BatchFindPathsRequest r;
  r.set_mask("blocked");
  *r.mutable_goal() = point({5, 3});
  r.set_snap_to_reachable(true);
  for (int i = 0; i < 40; ++i) *r.add_starts() = point({i % 6, i % 4});
  pb::BatchFindPathsResponse response;
  // No walkable pixel at all: nothing to snap to, every start not found.
  ASSERT_TRUE(batch(r, response).ok());
  ASSERT_EQ(response.paths_size(), 40);
  for (const auto& path : response.paths()) {
    EXPECT_FALSE(path.found());
    EXPECT_EQ(path.reason(), pb::PATH_REASON_START_NOT_WALKABLE);
  }
  // Points outside, and areas no pixel has, answer FindPath's errors.
  r.set_mask("random");
  *r.mutable_starts(7) = point({20, 0});
  grpc::Status status = batch(r, response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("starts[7]"));
  *r.mutable_starts(7) = point({0, 0});
  *r.mutable_goal() = point({0, -1});
  status = batch(r, response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("goal"));
  *r.mutable_goal() = point({3, 3});
  r.set_enabled_areas(1ULL << 7);  // an area the mask does not have
  ASSERT_TRUE(batch(r, response).ok());
  for (const auto& path : response.paths()) EXPECT_FALSE(path.found());
}

TEST_F(BatchFindPathsServiceTest, GridCostsAndFoundAgreeWithATextbookDijkstra) {
  start();
  std::mt19937_64 rng(77);
  for (int map = 0; map < 4; ++map) {
    const std::string name = "dijkstra-" + std::to_string(map);
    store_->put(name, pathtest::random_mask(rng, 50, 40, 0.35, 3));
    const pathcore::Mask mask = *store_->get(name)->mask;
    for (auto connectivity : {pb::CONNECTIVITY_FOUR, pb::CONNECTIVITY_EIGHT}) {
      for (bool cutting : {false, true}) {
        pathtest::ReferenceGrid grid;
        grid.diagonals = connectivity == pb::CONNECTIVITY_FOUR ? pathtest::Diagonals::kNone
                         : cutting                             ? pathtest::Diagonals::kAlways
                                   : pathtest::Diagonals::kBothSidesFree;
        grid.area_costs = {{2, 4.0}, {3, 9.0}};
        pb::BatchFindPathsRequest r;
        r.set_mask(name);
        const pathcore::Point goal = pathtest::random_point(rng, mask);
        *r.mutable_goal() = point(goal);
        r.set_connectivity(connectivity);
        r.set_allow_corner_cutting(cutting);
        r.set_smoothing(pb::SMOOTHING_NONE);
        (*r.mutable_area_costs())[2] = 4;
        (*r.mutable_area_costs())[3] = 9;
        for (int y = 0; y < static_cast<int>(mask.height()); y += 3) {
          for (int x = 0; x < static_cast<int>(mask.width()); x += 2) {
            *r.add_starts() = point({x, y});
          }
        }
        pb::BatchFindPathsResponse answer;
        ASSERT_TRUE(batch(r, answer).ok());
        const std::vector<double> distance = pathtest::reference_distances(mask, goal, grid);
        ASSERT_EQ(answer.paths_size(), r.starts_size());
        for (int i = 0; i < r.starts_size(); ++i) {
          const pathcore::Point s{r.starts(i).x(), r.starts(i).y()};
          const double expected = distance[static_cast<std::size_t>(s.y) * mask.width() + s.x];
          const pb::FindPathResponse& path = answer.paths(i);
          EXPECT_EQ(path.found(), std::isfinite(expected)) << "starts[" << i << "]";
          if (path.found()) {
            ASSERT_TRUE(path.has_grid_cost()) << "starts[" << i << "]";
            EXPECT_NEAR(path.grid_cost(), expected, 1e-6 * expected) << "starts[" << i << "]";
            EXPECT_EQ(path.points(0).x(), s.x);
            EXPECT_EQ(path.points(0).y(), s.y);
            EXPECT_EQ(path.points(path.points_size() - 1).x(), goal.x);
            EXPECT_EQ(path.points(path.points_size() - 1).y(), goal.y);
          } else {
            EXPECT_EQ(path.points_size(), 0);
          }
        }
      }
    }
  }
}

// A 64x64 room split by a wall at x = 32 with a one-pixel door at (32, 10):
// no start west of the wall sees the goal east of it (no beeline answer).
pathcore::Mask walled_room() {
  std::vector<std::uint8_t> areas(64 * 64, 1);
  for (int y = 0; y < 64; ++y) {
    if (y != 10) areas[static_cast<std::size_t>(y) * 64 + 32] = 0;
  }
  return pathcore::Mask(64, 64, std::move(areas));
}

TEST_F(BatchFindPathsServiceTest, OneFieldServesTheBatchAndIsCachedForTheNextCalls) {
  start();
  store_->put("room", walled_room());
  for (int starts : {40, 8}) {  // the compute pool, then gRPC's thread; a new goal each
    pb::BatchFindPathsRequest r;
    r.set_mask("room");
    r.mutable_goal()->set_x(starts == 40 ? 60 : 61);
    r.mutable_goal()->set_y(50);
    for (int i = 0; i < starts; ++i) *r.add_starts() = point({i % 30, 20 + i / 30});
    const std::uint64_t computed_before = cache_.stats().fields_computed;
    pb::BatchFindPathsResponse cold;
    ASSERT_TRUE(batch(r, cold).ok());
    EXPECT_EQ(cache_.stats().fields_computed, computed_before + 1);
    for (const auto& path : cold.paths()) {
      EXPECT_TRUE(path.found());
      EXPECT_FALSE(path.cache_hit());
    }
    pb::BatchFindPathsResponse warm;
    ASSERT_TRUE(batch(r, warm).ok());
    for (const auto& path : warm.paths()) EXPECT_TRUE(path.cache_hit());
    EXPECT_EQ(cache_.stats().fields_computed, computed_before + 1);
    pb::FindPathResponse single_answer;
    ASSERT_TRUE(find(single(r, r.starts(0)), single_answer).ok());
    EXPECT_TRUE(single_answer.cache_hit());
  }
}

pathcore::Mask open_mask(std::uint32_t width, std::uint32_t height) {
  return pathcore::Mask(width, height,
                        std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height, 1));
}

pb::BatchFindPathsRequest open_request(int starts) {
  pb::BatchFindPathsRequest r;
  r.set_mask("open");
  r.mutable_goal()->set_x(3);
  r.mutable_goal()->set_y(4);
  for (int i = 0; i < starts; ++i) *r.add_starts() = point({i % 20, i / 20});
  return r;
}

TEST_F(BatchFindPathsServiceTest, BadInputNamesTheFieldAndLimitsAreResourceExhausted) {
  ServiceLimits limits;
  limits.max_batch_starts = 30;
  start(limits);
  store_->put("open", open_mask(20, 10));
  pb::BatchFindPathsResponse answer;

  const auto expect = [&](const pb::BatchFindPathsRequest& r, grpc::StatusCode code,
                          const std::string& text) {
    pb::BatchFindPathsResponse response;
    const grpc::Status status = batch(r, response);
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(text));
    EXPECT_EQ(response.paths_size(), 0);
  };
  expect(open_request(0), grpc::StatusCode::INVALID_ARGUMENT, "starts: at least one");
  expect(open_request(31), grpc::StatusCode::RESOURCE_EXHAUSTED,
         "starts: 31 starts; the limit is 30 per request (--max-batch-starts)");
  ASSERT_TRUE(batch(open_request(30), answer).ok());
  EXPECT_EQ(answer.paths_size(), 30);

  pb::BatchFindPathsRequest r = open_request(5);
  r.mutable_starts(3)->set_x(20);
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "starts[3]: ");
  r = open_request(5);
  r.mutable_starts(4)->set_y(-1);
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "starts[4]: ");
  r = open_request(5);
  r.clear_goal();
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "goal: is required");
  r = open_request(5);
  r.mutable_goal()->set_y(10);
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "goal: ");
  r = open_request(5);
  r.set_connectivity(static_cast<pb::Connectivity>(9));
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "connectivity: unknown value 9");
  r = open_request(5);
  r.set_smoothing(static_cast<pb::Smoothing>(42));
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "smoothing: unknown value 42");
  r = open_request(5);
  (*r.mutable_area_costs())[64] = 3;
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "area_costs: area id 64");
  r = open_request(5);
  (*r.mutable_area_costs())[1] = 0;
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "area_costs: cost 0");
  r = open_request(5);
  r.set_smoothing(pb::SMOOTHING_ANY_ANGLE);
  (*r.mutable_area_costs())[1] = 2;
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "area_costs: must be empty");
  r = open_request(5);
  r.set_clearance(std::nan(""));
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "clearance: ");
  r = open_request(5);
  r.set_clearance(-1);
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "clearance: ");
  r = open_request(5);
  r.set_mask("");
  expect(r, grpc::StatusCode::INVALID_ARGUMENT, "mask: ");
  r = open_request(5);
  r.set_mask("nowhere");
  expect(r, grpc::StatusCode::NOT_FOUND, "nowhere");
}

TEST_F(BatchFindPathsServiceTest, ExpectedRevisionIsEnforcedLikeFindPath) {
  start();
  store_->put("open", open_mask(20, 10));
  store_->put("open", open_mask(20, 11));  // revision 2
  const std::uint64_t revision = store_->get("open")->revision;
  ASSERT_GT(revision, 1U);
  for (int starts : {3, 40}) {  // gRPC's thread and the pool
    pb::BatchFindPathsRequest r = open_request(starts);
    r.set_expected_revision(revision - 1);
    pb::BatchFindPathsResponse answer;
    const grpc::Status stale = batch(r, answer);
    EXPECT_EQ(stale.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(stale.error_message(), HasSubstr("expected_revision"));
    pb::FindPathResponse single_answer;
    const grpc::Status stale_single = find(single(r, r.starts(0)), single_answer);
    EXPECT_EQ(stale_single.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_EQ(stale_single.error_message(), stale.error_message());

    r.set_expected_revision(revision);
    ASSERT_TRUE(batch(r, answer).ok());
    ASSERT_EQ(answer.paths_size(), starts);
    for (const auto& path : answer.paths()) EXPECT_EQ(path.mask_revision(), revision);
    r.set_expected_revision(0);
    ASSERT_TRUE(batch(r, answer).ok());
  }
}

TEST_F(BatchFindPathsServiceTest, AnAnswerOverTheMessageLimitIsResourceExhausted) {
  ServiceLimits limits;
  limits.max_message_bytes = 16 * 1024;
  start(limits);
  store_->put("open", open_mask(200, 200));
  pb::BatchFindPathsRequest r;
  r.set_mask("open");
  r.mutable_goal()->set_x(199);
  r.mutable_goal()->set_y(199);
  r.set_smoothing(pb::SMOOTHING_NONE);  // every pixel: ~400 points a path
  for (int i = 0; i < 100; ++i) *r.add_starts() = point({0, i});
  pb::BatchFindPathsResponse answer;
  const grpc::Status status = batch(r, answer);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("--max-message-mb"));
  r.mutable_starts()->DeleteSubrange(1, 99);  // one path of ~10 KiB fits
  ASSERT_TRUE(batch(r, answer).ok());
  EXPECT_EQ(answer.paths_size(), 1);
}

TEST_F(BatchFindPathsServiceTest, ABatchPastItsDeadlineIsNotAnswered) {
  start();
  store_->put("big", open_mask(2000, 2000));
  pb::BatchFindPathsRequest r;
  r.set_mask("big");
  r.mutable_goal()->set_x(1999);
  r.mutable_goal()->set_y(1999);
  r.set_smoothing(pb::SMOOTHING_NONE);
  for (int i = 0; i < 2000; ++i) *r.add_starts() = point({i, 0});
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(20));
  pb::BatchFindPathsResponse answer;
  const grpc::Status status = server_->stub().BatchFindPaths(&ctx, r, &answer);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  EXPECT_EQ(answer.paths_size(), 0);
}

}  // namespace
}  // namespace pathserver
