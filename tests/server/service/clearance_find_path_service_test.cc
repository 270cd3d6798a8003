// FindPathRequest.clearance through the service in-process (loopback, port
// chosen at run time): validation, the LACKS_CLEARANCE reasons, snapping to
// usable pixels, and caches keyed by clearance. Answers are checked against
// the brute-force usable pixels (support/clearance_reference.h) and textbook
// searches over them (support/reference.h, support/any_angle_reference.h).

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"
#include "support/any_angle_reference.h"
#include "support/clearance_reference.h"
#include "support/loopback_service.h"
#include "support/reference.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace pb = pathfinding::v1;

// 60x40, all walkable but a wall at x = 30 with a narrow door (y 5..7, three
// pixels: no centre in it is 2 from the wall) and a wide one (y 25..34).
constexpr int kWidth = 60;
constexpr int kHeight = 40;
constexpr double kWide = 2;  // passes the wide door only

bool in_wall(int x, int y) {
  return x == 30 && !(y >= 5 && y <= 7) && !(y >= 25 && y <= 34);
}

pathcore::Mask two_doors() {
  std::vector<std::uint8_t> areas(std::size_t{kWidth} * kHeight, 1);
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      if (in_wall(x, y)) areas[static_cast<std::size_t>(y) * kWidth + x] = 0;
    }
  }
  return pathcore::Mask(kWidth, kHeight, std::move(areas));
}

class ClearanceFindPathServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<FileMaskStore>(dir_.file("data"));
    store_->put("doors", two_doors());
    service_ = std::make_unique<PathfinderService>(*store_, cache_, ServiceLimits{});
    server_ = std::make_unique<pathtest::LoopbackService>(*service_);
  }

  void TearDown() override {
    server_.reset();
    service_.reset();
  }

  static pb::FindPathRequest request(pathcore::Point start, pathcore::Point goal,
                                     std::optional<double> clearance) {
    pb::FindPathRequest r;
    r.set_mask("doors");
    r.mutable_start()->set_x(start.x);
    r.mutable_start()->set_y(start.y);
    r.mutable_goal()->set_x(goal.x);
    r.mutable_goal()->set_y(goal.y);
    if (clearance) r.set_clearance(*clearance);
    return r;
  }

  grpc::Status find(const pb::FindPathRequest& r, pb::FindPathResponse& response) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return server_->stub().FindPath(&ctx, r, &response);
  }

  pb::FindPathResponse find_ok(const pb::FindPathRequest& r) {
    pb::FindPathResponse response;
    const grpc::Status status = find(r, response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  // An any-angle goal's complete table is built after its first call is
  // answered: asks again until the answer comes from the cache (at most
  // about 10 s), and returns that answer.
  pb::FindPathResponse find_cached(const pb::FindPathRequest& r) {
    pb::FindPathResponse response = find_ok(r);
    for (int tries = 0; !response.cache_hit() && tries < 1000; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      response = find_ok(r);
    }
    return response;
  }

  CacheUsage usage(const std::string& name) const {
    for (const CacheUsage& u : cache_.budget().usage()) {
      if (u.name == name) return u;
    }
    ADD_FAILURE() << "no cache named " << name;
    return {};
  }

  pathtest::TempDir dir_{"pathfinder-clearance-service"};
  FieldCache cache_{std::size_t{64} << 20};
  std::unique_ptr<MaskStore> store_;
  std::unique_ptr<PathfinderService> service_;
  std::unique_ptr<pathtest::LoopbackService> server_;
};

const pathcore::Mask& doors() {
  static const pathcore::Mask mask = two_doors();
  return mask;
}

bool usable(const std::vector<bool>& flags, int x, int y) {
  return flags[static_cast<std::size_t>(y) * kWidth + static_cast<std::size_t>(x)];
}

// The optimal four-connected grid cost from start to goal over the brute-force
// usable pixels (kNoPath when none).
double reference_grid_cost(double clearance, pathcore::Point start, pathcore::Point goal) {
  const pathcore::Mask usable_mask = pathtest::mask_of_usable(
      doors(), pathtest::reference_usable(doors(), pathcore::kAllAreas, clearance));
  const std::vector<double> distances =
      pathtest::reference_distances(usable_mask, goal, pathtest::ReferenceGrid{});
  return distances[static_cast<std::size_t>(start.y) * kWidth + static_cast<std::size_t>(start.x)];
}

bool passes_door(const pb::FindPathResponse& response, int low, int high) {
  for (const auto& p : response.points()) {
    if (p.x() == 30 && p.y() >= low && p.y() <= high) return true;
  }
  return false;
}

TEST_F(ClearanceFindPathServiceTest, FieldsAreKeyedByClearance) {
  const pathcore::Point start{10, 6};
  const pathcore::Point goal{50, 6};
  pb::FindPathRequest r = request(start, goal, kWide);
  r.set_smoothing(pb::SMOOTHING_NONE);  // every pixel, so the door it takes shows

  const pb::FindPathResponse first = find_ok(r);
  ASSERT_TRUE(first.found());
  EXPECT_FALSE(first.cache_hit());
  EXPECT_EQ(first.reason(), pb::PATH_REASON_FOUND);
  EXPECT_TRUE(passes_door(first, 25, 34));
  const std::vector<bool> flags = pathtest::reference_usable(doors(), pathcore::kAllAreas, kWide);
  for (const auto& p : first.points()) {
    EXPECT_TRUE(usable(flags, p.x(), p.y())) << p.x() << "," << p.y();
  }
  ASSERT_TRUE(first.has_grid_cost());
  EXPECT_NEAR(first.grid_cost(), reference_grid_cost(kWide, start, goal), 1e-9);
  EXPECT_EQ(usage("usable_masks").entries, 1U);
  EXPECT_GT(usage("usable_masks").bytes, std::uint64_t{kWidth} * kHeight);

  // The same clearance: the field (and the usable mask) come from the cache.
  const pb::FindPathResponse second = find_ok(r);
  EXPECT_TRUE(second.cache_hit());
  ASSERT_EQ(second.points_size(), first.points_size());
  EXPECT_EQ(second.grid_cost(), first.grid_cost());

  // Another start toward the same goal shares the field too.
  pb::FindPathResponse other_start = find_ok(request({12, 20}, goal, kWide));
  EXPECT_TRUE(other_start.cache_hit());

  // Without clearance: not that field, and the narrow door is open again.
  r.clear_clearance();
  const pb::FindPathResponse plain = find_ok(r);
  ASSERT_TRUE(plain.found());
  EXPECT_FALSE(plain.cache_hit());
  EXPECT_TRUE(passes_door(plain, 5, 7));
  EXPECT_NEAR(plain.grid_cost(), reference_grid_cost(0, start, goal), 1e-9);
  EXPECT_LT(plain.grid_cost(), first.grid_cost());

  // Another clearance that excludes pixels: a field of its own.
  r.set_clearance(kWide + 0.5);
  const pb::FindPathResponse wider = find_ok(r);
  ASSERT_TRUE(wider.found());
  EXPECT_FALSE(wider.cache_hit());
  EXPECT_NEAR(wider.grid_cost(), reference_grid_cost(kWide + 0.5, start, goal), 1e-9);
  EXPECT_EQ(usage("usable_masks").entries, 2U);
}

TEST_F(ClearanceFindPathServiceTest, ClearanceUpToHalfAPixelIsTheAnswerWithoutIt) {
  // The beeline between them meets the wall: every smoothing needs a field.
  const pathcore::Point start{10, 20};
  const pathcore::Point goal{50, 15};
  for (const pb::Smoothing smoothing : {pb::SMOOTHING_BEAUTIFY, pb::SMOOTHING_NONE,
                                        pb::SMOOTHING_SIMPLIFY, pb::SMOOTHING_ANY_ANGLE}) {
    pb::FindPathRequest r = request(start, goal, std::nullopt);
    r.set_smoothing(smoothing);
    const pb::FindPathResponse without = find_ok(r);
    ASSERT_TRUE(without.found());
    for (const double clearance : {0.0, 0.25, 0.5}) {
      r.set_clearance(clearance);
      const pb::FindPathResponse with = find_cached(r);
      SCOPED_TRACE(testing::Message() << "smoothing " << smoothing << ", clearance " << clearance);
      // The same field (or graph and table) as without clearance.
      EXPECT_TRUE(with.cache_hit());
      ASSERT_EQ(with.points_size(), without.points_size());
      for (int i = 0; i < with.points_size(); ++i) {
        EXPECT_EQ(with.points(i).x(), without.points(i).x());
        EXPECT_EQ(with.points(i).y(), without.points(i).y());
      }
      EXPECT_EQ(with.length(), without.length());
      EXPECT_EQ(with.reason(), without.reason());
    }
  }
  // No usable mask was made for them.
  EXPECT_EQ(usage("usable_masks").entries, 0U);
}

TEST_F(ClearanceFindPathServiceTest, BadClearanceIsInvalidArgumentNamingIt) {
  for (const double clearance :
       {-1.0, -1e-300, std::numeric_limits<double>::quiet_NaN(),
        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(clearance);
    for (const pb::Smoothing smoothing : {pb::SMOOTHING_BEAUTIFY, pb::SMOOTHING_ANY_ANGLE}) {
      pb::FindPathRequest r = request({10, 6}, {50, 6}, clearance);
      r.set_smoothing(smoothing);
      pb::FindPathResponse response;
      const grpc::Status status = find(r, response);
      EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
      EXPECT_EQ(status.error_message().rfind("clearance:", 0), 0U) << status.error_message();
    }
  }
}

TEST_F(ClearanceFindPathServiceTest, EndsLackingClearanceHaveTheirOwnReasons) {
  // y = 1: walkable, its centre 1.5 from the top edge; (30, 0): the wall.
  const pathcore::Point open{10, 20};
  const pathcore::Point near_edge{10, 1};
  const pathcore::Point near_wall{31, 10};  // 0.5 from the wall
  const pathcore::Point wall{30, 0};
  const std::vector<bool> flags = pathtest::reference_usable(doors(), pathcore::kAllAreas, kWide);
  ASSERT_TRUE(usable(flags, open.x, open.y));
  ASSERT_FALSE(usable(flags, near_edge.x, near_edge.y));
  ASSERT_FALSE(usable(flags, near_wall.x, near_wall.y));
  ASSERT_TRUE(doors().walkable(near_edge, pathcore::kAllAreas));
  ASSERT_TRUE(doors().walkable(near_wall, pathcore::kAllAreas));

  struct Case {
    pathcore::Point start, goal;
    pb::PathReason reason;
  };
  const Case cases[] = {
      {near_edge, open, pb::PATH_REASON_START_LACKS_CLEARANCE},
      {open, near_wall, pb::PATH_REASON_GOAL_LACKS_CLEARANCE},
      {near_edge, near_wall, pb::PATH_REASON_START_LACKS_CLEARANCE},  // the start's first
      {wall, open, pb::PATH_REASON_START_NOT_WALKABLE},
      {open, wall, pb::PATH_REASON_GOAL_NOT_WALKABLE},
      {near_edge, near_edge, pb::PATH_REASON_START_LACKS_CLEARANCE},
  };
  for (const pb::Smoothing smoothing : {pb::SMOOTHING_BEAUTIFY, pb::SMOOTHING_NONE,
                                        pb::SMOOTHING_ANY_ANGLE}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(testing::Message() << "smoothing " << smoothing << " (" << c.start.x << ","
                                      << c.start.y << ") -> (" << c.goal.x << "," << c.goal.y
                                      << ")");
      pb::FindPathRequest r = request(c.start, c.goal, kWide);
      r.set_smoothing(smoothing);
      const pb::FindPathResponse response = find_ok(r);
      EXPECT_FALSE(response.found());
      EXPECT_EQ(response.reason(), c.reason);
      EXPECT_EQ(response.points_size(), 0);
      // Without clearance the same ends are found.
      if (c.reason == pb::PATH_REASON_START_LACKS_CLEARANCE ||
          c.reason == pb::PATH_REASON_GOAL_LACKS_CLEARANCE) {
        r.clear_clearance();
        EXPECT_TRUE(find_ok(r).found());
      }
    }
  }
}

// The usable pixel nearest to p (Euclidean, ties to the first in row-major
// order) among flags.
std::optional<pathcore::Point> nearest(const std::vector<bool>& flags, pathcore::Point p) {
  std::optional<pathcore::Point> best;
  std::int64_t best_d2 = 0;
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      if (!usable(flags, x, y)) continue;
      const std::int64_t d2 = std::int64_t{x - p.x} * (x - p.x) + std::int64_t{y - p.y} * (y - p.y);
      if (!best || d2 < best_d2) {
        best = pathcore::Point{x, y};
        best_d2 = d2;
      }
    }
  }
  return best;
}

TEST_F(ClearanceFindPathServiceTest, SnappingMovesEndsToUsablePixels) {
  const std::vector<bool> flags = pathtest::reference_usable(doors(), pathcore::kAllAreas, kWide);
  const pathcore::Mask usable_mask = pathtest::mask_of_usable(doors(), flags);
  // Walkable but too close to the edge (start) or the wall (goal), and a goal
  // in the narrow door, walkable and reachable without clearance only.
  const pathcore::Point start{1, 1};
  for (const pathcore::Point goal : {pathcore::Point{31, 10}, pathcore::Point{30, 6}}) {
    for (const pb::Smoothing smoothing : {pb::SMOOTHING_NONE, pb::SMOOTHING_ANY_ANGLE}) {
      SCOPED_TRACE(testing::Message() << "goal (" << goal.x << "," << goal.y << "), smoothing "
                                      << smoothing);
      pb::FindPathRequest r = request(start, goal, kWide);
      r.set_smoothing(smoothing);
      r.set_snap_to_reachable(true);
      const pb::FindPathResponse response = find_ok(r);
      ASSERT_TRUE(response.found());
      EXPECT_EQ(response.reason(), pb::PATH_REASON_GOAL_SNAPPED);
      EXPECT_TRUE(response.start_snapped());
      // The start moves to its nearest usable pixel, the goal to the usable
      // pixel nearest to it that the snapped start reaches (here: all of them).
      const pathcore::Point snapped_start = *nearest(flags, start);
      EXPECT_EQ(response.points(0).x(), snapped_start.x);
      EXPECT_EQ(response.points(0).y(), snapped_start.y);
      const std::vector<bool> reached = pathtest::reference_flood_fill(
          usable_mask, snapped_start, pathcore::kAllAreas, pathtest::Diagonals::kNone);
      const pathcore::Point snapped_goal = *nearest(reached, goal);
      EXPECT_EQ(response.goal().x(), snapped_goal.x);
      EXPECT_EQ(response.goal().y(), snapped_goal.y);
      EXPECT_NEAR(response.goal_snap_distance(),
                  std::hypot(snapped_goal.x - goal.x, snapped_goal.y - goal.y), 1e-12);
      EXPECT_TRUE(usable(flags, response.goal().x(), response.goal().y()));
      for (const auto& p : response.points()) {
        EXPECT_TRUE(usable(flags, p.x(), p.y())) << p.x() << "," << p.y();
      }
    }
  }
}

TEST_F(ClearanceFindPathServiceTest, AnyAngleRunsOnTheUsablePixelsAndIsCachedPerClearance) {
  const pathcore::Point start{10, 6};
  const pathcore::Point goal{50, 6};
  pb::FindPathRequest r = request(start, goal, kWide);
  r.set_smoothing(pb::SMOOTHING_ANY_ANGLE);
  const pb::FindPathResponse first = find_ok(r);
  ASSERT_TRUE(first.found());
  EXPECT_FALSE(first.cache_hit());
  const pathcore::Mask usable_mask = pathtest::mask_of_usable(
      doors(), pathtest::reference_usable(doors(), pathcore::kAllAreas, kWide));
  const std::optional<double> expected =
      pathtest::any_angle_shortest_length(usable_mask, pathcore::kAllAreas, start, goal);
  ASSERT_TRUE(expected.has_value());
  EXPECT_NEAR(first.length(), *expected, 1e-9 * *expected);

  EXPECT_TRUE(find_cached(r).cache_hit());

  r.clear_clearance();
  const pb::FindPathResponse plain = find_ok(r);
  ASSERT_TRUE(plain.found());
  EXPECT_FALSE(plain.cache_hit());  // another graph
  const std::optional<double> plain_expected =
      pathtest::any_angle_shortest_length(doors(), pathcore::kAllAreas, start, goal);
  ASSERT_TRUE(plain_expected.has_value());
  EXPECT_NEAR(plain.length(), *plain_expected, 1e-9 * *plain_expected);
  EXPECT_LT(plain.length(), first.length());
}

TEST_F(ClearanceFindPathServiceTest, RepeatedAnswersAreCachedPerClearance) {
  // Answers are kept from their second miss: the third call of each request
  // comes from the answer cache, and must stay its own clearance's answer.
  pb::FindPathRequest wide = request({10, 6}, {50, 6}, kWide);
  pb::FindPathRequest plain = request({10, 6}, {50, 6}, std::nullopt);
  wide.set_smoothing(pb::SMOOTHING_NONE);
  plain.set_smoothing(pb::SMOOTHING_NONE);
  for (int call = 0; call < 3; ++call) {
    const pb::FindPathResponse a = find_ok(wide);
    const pb::FindPathResponse b = find_ok(plain);
    EXPECT_TRUE(passes_door(a, 25, 34)) << call;
    EXPECT_TRUE(passes_door(b, 5, 7)) << call;
  }
  EXPECT_GE(usage("paths").entries, 2U);
}

}  // namespace
}  // namespace pathserver
