// Temporary obstacles through the service in process (loopback, a port
// chosen at run time): FindPath, BatchFindPaths, LineOfSight and Reachable
// with obstacles answer exactly what the same requests without them answer
// on a copy of the mask with those pixels blocked (rasterised here, pixel by
// pixel, by the shapes' definitions), through every smoothing, snapping,
// clearance and both connectivities; the stored mask, its revision and
// later answers are unchanged; nothing computed on the patched mask is left
// in a cache; and every error the API promises.

#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"
#include "support/loopback_service.h"
#include "support/random_mask.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace pb = pathfinding::v1;
using google::protobuf::util::MessageDifferencer;

constexpr int kMaxObstacles = 8;  // the test service's --max-obstacles

pb::Point point(pathcore::Point p) {
  pb::Point out;
  out.set_x(p.x);
  out.set_y(p.y);
  return out;
}

// Is pixel (x, y) under `shape`? By the definitions in the proto.
bool covers(const pb::Obstacle& shape, std::int64_t x, std::int64_t y) {
  switch (shape.shape_case()) {
    case pb::Obstacle::kRect: {
      const pb::Rect& r = shape.rect();
      return x >= r.x() && x < std::int64_t{r.x()} + r.width() && y >= r.y() &&
             y < std::int64_t{r.y()} + r.height();
    }
    case pb::Obstacle::kCircle: {
      const double dx = static_cast<double>(x) + 0.5 - shape.circle().centre().x();
      const double dy = static_cast<double>(y) + 0.5 - shape.circle().centre().y();
      return dx * dx + dy * dy <= shape.circle().radius() * shape.circle().radius();
    }
    case pb::Obstacle::kPixels:
      for (const pb::Point& p : shape.pixels().pixels()) {
        if (p.x() == x && p.y() == y) return true;
      }
      return false;
    default:
      return false;
  }
}

// The mask with every pixel under an obstacle blocked.
pathcore::Mask patched_copy(const pathcore::Mask& mask,
                            const google::protobuf::RepeatedPtrField<pb::Obstacle>& obstacles) {
  std::vector<std::uint8_t> areas = mask.areas();
  for (std::uint32_t y = 0; y < mask.height(); ++y) {
    for (std::uint32_t x = 0; x < mask.width(); ++x) {
      for (const pb::Obstacle& shape : obstacles) {
        if (covers(shape, x, y)) areas[std::size_t{y} * mask.width() + x] = 0;
      }
    }
  }
  return pathcore::Mask(mask.width(), mask.height(), std::move(areas));
}

// A few random shapes over a mask of width x height (some reaching past its edges).
google::protobuf::RepeatedPtrField<pb::Obstacle> random_obstacles(std::mt19937_64& rng,
                                                                  std::uint32_t width,
                                                                  std::uint32_t height) {
  google::protobuf::RepeatedPtrField<pb::Obstacle> shapes;
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < count; ++i) {
    pb::Obstacle& shape = *shapes.Add();
    switch (rng() % 3) {
      case 0: {
        pb::Rect& r = *shape.mutable_rect();
        r.set_x(static_cast<std::uint32_t>(rng() % (width + 2)));
        r.set_y(static_cast<std::uint32_t>(rng() % (height + 2)));
        r.set_width(static_cast<std::uint32_t>(1 + rng() % 8));
        r.set_height(static_cast<std::uint32_t>(1 + rng() % 8));
        break;
      }
      case 1: {
        pb::Circle& c = *shape.mutable_circle();
        c.mutable_centre()->set_x(static_cast<double>(rng() % (2 * width + 4)) / 2 - 1);
        c.mutable_centre()->set_y(static_cast<double>(rng() % (2 * height + 4)) / 2 - 1);
        c.set_radius(0.5 + static_cast<double>(rng() % 10) / 2);
        break;
      }
      default: {
        const int n = 1 + static_cast<int>(rng() % 6);
        for (int k = 0; k < n; ++k) {
          *shape.mutable_pixels()->add_pixels() =
              point({static_cast<std::int32_t>(rng() % width),
                     static_cast<std::int32_t>(rng() % height)});
        }
      }
    }
  }
  return shapes;
}

// Equal but for cache_hit and mask_revision (which the contract lets differ).
template <typename Message>
void expect_same_answer(Message with_obstacles, Message on_copy, const std::string& what) {
  with_obstacles.clear_mask_revision();
  on_copy.clear_mask_revision();
  if constexpr (requires { with_obstacles.clear_cache_hit(); }) {
    with_obstacles.clear_cache_hit();
    on_copy.clear_cache_hit();
  }
  EXPECT_TRUE(MessageDifferencer::Equals(with_obstacles, on_copy))
      << what << "\nwith obstacles: " << with_obstacles.ShortDebugString()
      << "\non the patched copy: " << on_copy.ShortDebugString();
}

void expect_same_batch(pb::BatchFindPathsResponse with_obstacles, pb::BatchFindPathsResponse on_copy,
                       const std::string& what) {
  ASSERT_EQ(with_obstacles.paths_size(), on_copy.paths_size()) << what;
  for (int i = 0; i < on_copy.paths_size(); ++i) {
    expect_same_answer(with_obstacles.paths(i), on_copy.paths(i),
                       what + " start " + std::to_string(i));
  }
}

class ObstaclesServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<FileMaskStore>(dir_.file("data"));
    ServiceLimits limits;
    limits.max_obstacles = kMaxObstacles;
    service_ = std::make_unique<PathfinderService>(*store_, cache_, limits);
    server_ = std::make_unique<pathtest::LoopbackService>(*service_);
  }
  void TearDown() override {
    server_.reset();
    service_.reset();
  }

  template <typename Request, typename Response, typename Rpc>
  grpc::Status call(Rpc rpc, const Request& request, Response& response) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return (server_->stub().*rpc)(&ctx, request, &response);
  }
  template <typename Response, typename Request, typename Rpc>
  Response ok(Rpc rpc, const Request& request) {
    Response response;
    const grpc::Status status = call(rpc, request, response);
    EXPECT_TRUE(status.ok()) << status.error_message() << "\n" << request.ShortDebugString();
    return response;
  }
  pb::FindPathResponse find(const pb::FindPathRequest& r) {
    return ok<pb::FindPathResponse>(&pb::Pathfinder::Stub::FindPath, r);
  }
  pb::BatchFindPathsResponse batch(const pb::BatchFindPathsRequest& r) {
    return ok<pb::BatchFindPathsResponse>(&pb::Pathfinder::Stub::BatchFindPaths, r);
  }
  pb::LineOfSightResponse los(const pb::LineOfSightRequest& r) {
    return ok<pb::LineOfSightResponse>(&pb::Pathfinder::Stub::LineOfSight, r);
  }
  pb::ReachableResponse reachable(const pb::ReachableRequest& r) {
    return ok<pb::ReachableResponse>(&pb::Pathfinder::Stub::Reachable, r);
  }
  // Waits (at most 2 s) until the field cache holds `count` fields: a cold
  // FindPath's fill is finished for the cache after its answer.
  bool wait_for_cached_fields(std::size_t count) {
    for (int i = 0; i < 200 && cache_.size() < count; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return cache_.size() >= count;
  }
  std::uint64_t revision(const std::string& name) {
    pb::GetMaskRequest r;
    r.set_name(name);
    return ok<pb::MaskInfo>(&pb::Pathfinder::Stub::GetMask, r).revision();
  }

  pathtest::TempDir dir_{"pathfinder-obstacles-service"};
  FieldCache cache_{std::size_t{256} << 20};
  std::unique_ptr<MaskStore> store_;
  std::unique_ptr<PathfinderService> service_;
  std::unique_ptr<pathtest::LoopbackService> server_;
};

// Random options for a FindPath-like request: smoothing, connectivity,
// corners, snapping, clearance, areas and costs.
struct PathOptions {
  pb::Smoothing smoothing = pb::SMOOTHING_BEAUTIFY;
  pb::Connectivity connectivity = pb::CONNECTIVITY_FOUR;
  bool corner_cutting = false;
  bool snap = false;
  double clearance = 0;
  std::uint64_t areas = 0;
  bool costs = false;
};

PathOptions random_options(std::mt19937_64& rng) {
  PathOptions o;
  const pb::Smoothing smoothings[] = {pb::SMOOTHING_BEAUTIFY, pb::SMOOTHING_SIMPLIFY,
                                      pb::SMOOTHING_NONE, pb::SMOOTHING_ANY_ANGLE};
  o.smoothing = smoothings[rng() % 4];
  o.connectivity = rng() % 2 == 0 ? pb::CONNECTIVITY_FOUR : pb::CONNECTIVITY_EIGHT;
  o.corner_cutting = rng() % 3 == 0;
  o.snap = rng() % 2 == 0;
  const double clearances[] = {0, 0, 0.5, 1, 1.5, 2.2};
  o.clearance = clearances[rng() % 6];
  o.areas = rng() % 4 == 0 ? 0b0110 : 0;  // areas 1 and 2 of 1..3, or all
  o.costs = o.smoothing != pb::SMOOTHING_ANY_ANGLE && rng() % 3 == 0;
  return o;
}

template <typename Request>
void apply(const PathOptions& o, Request& r) {
  r.set_smoothing(o.smoothing);
  r.set_connectivity(o.connectivity);
  r.set_allow_corner_cutting(o.corner_cutting);
  r.set_snap_to_reachable(o.snap);
  r.set_clearance(o.clearance);
  r.set_enabled_areas(o.areas);
  if (o.costs) {
    (*r.mutable_area_costs())[2] = 3;
    (*r.mutable_area_costs())[3] = 7;
  }
}

TEST_F(ObstaclesServiceTest, EveryRpcAnswersAsOnThePatchedCopy) {
  std::mt19937_64 rng(20261129);
  for (int round = 0; round < 60; ++round) {
    const auto width = static_cast<std::uint32_t>(12 + rng() % 30);
    const auto height = static_cast<std::uint32_t>(10 + rng() % 24);
    const pathcore::Mask mask = pathtest::random_mask(rng, width, height, 0.15 + 0.1 * (rng() % 3),
                                                      3);
    const auto obstacles = random_obstacles(rng, width, height);
    const std::string base = "base" + std::to_string(round);
    const std::string copy = "copy" + std::to_string(round);
    store_->put(base, mask);
    store_->put(copy, patched_copy(mask, obstacles));
    const std::uint64_t base_revision = revision(base);
    const PathOptions o = random_options(rng);
    const std::string what = "round " + std::to_string(round) + " obstacles " +
                             [&] {
                               std::string text;
                               for (const auto& s : obstacles) text += s.ShortDebugString() + "; ";
                               return text;
                             }();

    // FindPath: a few starts to one goal; first without obstacles (caches
    // warm with the stored mask's answers), then with, then without again.
    const pathcore::Point goal = pathtest::random_point(rng, mask);
    for (int k = 0; k < 4; ++k) {
      pb::FindPathRequest r;
      r.set_mask(base);
      *r.mutable_start() = point(pathtest::random_point(rng, mask));
      *r.mutable_goal() = point(goal);
      apply(o, r);
      // Some rounds ask for the nearest of several goals, or set a budget:
      // the patched copy answers those too.
      if (o.smoothing != pb::SMOOTHING_ANY_ANGLE && round % 3 == 1) {
        r.clear_goal();
        *r.add_goals() = point(goal);
        for (int g = 0; g < 2; ++g) *r.add_goals() = point(pathtest::random_point(rng, mask));
      } else if (o.smoothing != pb::SMOOTHING_ANY_ANGLE && round % 3 == 2 && k % 2 == 0) {
        r.set_max_cost(static_cast<double>(1 + rng() % 20));
      }
      const pb::FindPathResponse before = find(r);
      pb::FindPathRequest with = r;
      *with.mutable_obstacles() = obstacles;
      pb::FindPathRequest on_copy = r;
      on_copy.set_mask(copy);
      expect_same_answer(find(with), find(on_copy), what + " FindPath " + r.ShortDebugString());
      expect_same_answer(find(r), before, what + " FindPath after " + r.ShortDebugString());
    }

    // BatchFindPaths: more starts than gRPC's thread takes (32), every start once.
    pb::BatchFindPathsRequest b;
    b.set_mask(base);
    *b.mutable_goal() = point(goal);
    apply(o, b);
    const int starts = rng() % 2 == 0 ? 5 : 40;
    for (int k = 0; k < starts; ++k) *b.add_starts() = point(pathtest::random_point(rng, mask));
    const pb::BatchFindPathsResponse batch_before = batch(b);
    pb::BatchFindPathsRequest batch_with = b;
    *batch_with.mutable_obstacles() = obstacles;
    pb::BatchFindPathsRequest batch_on_copy = b;
    batch_on_copy.set_mask(copy);
    expect_same_batch(batch(batch_with), batch(batch_on_copy), what + " BatchFindPaths");
    expect_same_batch(batch(b), batch_before, what + " BatchFindPaths after");

    // LineOfSight, with the same clearance and corner rule.
    pb::LineOfSightRequest l;
    l.set_mask(base);
    l.set_allow_corner_cutting(o.corner_cutting);
    l.set_clearance(o.clearance);
    l.set_enabled_areas(o.areas);
    for (int k = 0; k < 12; ++k) {
      pb::PointPair& pair = *l.add_pairs();
      *pair.mutable_a() = point(pathtest::random_point(rng, mask));
      *pair.mutable_b() = point(pathtest::random_point(rng, mask));
    }
    const pb::LineOfSightResponse los_before = los(l);
    pb::LineOfSightRequest los_with = l;
    *los_with.mutable_obstacles() = obstacles;
    pb::LineOfSightRequest los_on_copy = l;
    los_on_copy.set_mask(copy);
    expect_same_answer(los(los_with), los(los_on_copy), what + " LineOfSight");
    expect_same_answer(los(l), los_before, what + " LineOfSight after");

    // Reachable.
    pb::ReachableRequest q;
    q.set_mask(base);
    q.set_connectivity(o.connectivity);
    q.set_enabled_areas(o.areas);
    for (int k = 0; k < 12; ++k) {
      pb::PointPair& pair = *q.add_pairs();
      *pair.mutable_a() = point(pathtest::random_point(rng, mask));
      *pair.mutable_b() = point(pathtest::random_point(rng, mask));
    }
    const pb::ReachableResponse reachable_before = reachable(q);
    pb::ReachableRequest reachable_with = q;
    *reachable_with.mutable_obstacles() = obstacles;
    pb::ReachableRequest reachable_on_copy = q;
    reachable_on_copy.set_mask(copy);
    expect_same_answer(reachable(reachable_with), reachable(reachable_on_copy),
                       what + " Reachable");
    expect_same_answer(reachable(q), reachable_before, what + " Reachable after");

    EXPECT_EQ(revision(base), base_revision) << what;
    if (HasFailure()) break;  // one round's report is enough
  }
}

// With the goal's field cached (on the stored mask), a request with
// obstacles is answered from it, around the obstacles (cache_hit says so):
// the same answer as on the patched copy, on random masks with every
// option but any-angle.
TEST_F(ObstaclesServiceTest, AWarmFieldAnswersAroundTheObstaclesAsOnThePatchedCopy) {
  std::mt19937_64 rng(1129);
  int from_cached_field = 0;
  for (int round = 0; round < 40; ++round) {
    const auto width = static_cast<std::uint32_t>(16 + rng() % 40);
    const auto height = static_cast<std::uint32_t>(12 + rng() % 30);
    const pathcore::Mask mask = pathtest::random_mask(rng, width, height, 0.1 + 0.1 * (rng() % 3),
                                                      3);
    const auto obstacles = random_obstacles(rng, width, height);
    const std::string base = "warm" + std::to_string(round);
    const std::string copy = "warmcopy" + std::to_string(round);
    store_->put(base, mask);
    store_->put(copy, patched_copy(mask, obstacles));
    PathOptions o = random_options(rng);
    if (o.smoothing == pb::SMOOTHING_ANY_ANGLE) o.smoothing = pb::SMOOTHING_BEAUTIFY;
    const pathcore::Point goal = pathtest::random_point(rng, mask);
    if (!mask.walkable(goal, pathcore::kAllAreas)) continue;
    pb::FindPathRequest r;
    r.set_mask(base);
    *r.mutable_goal() = point(goal);
    apply(o, r);
    const std::size_t cached_before = cache_.size();
    *r.mutable_start() = point(pathtest::random_point(rng, mask));
    const pb::FindPathResponse plain = find(r);
    // No field when there was no fill (a blocked end, a beeline).
    if (!plain.found() || !wait_for_cached_fields(cached_before + 1)) continue;
    for (int k = 0; k < 6; ++k) {
      *r.mutable_start() = point(pathtest::random_point(rng, mask));
      pb::FindPathRequest with = r;
      *with.mutable_obstacles() = obstacles;
      pb::FindPathRequest on_copy = r;
      on_copy.set_mask(copy);
      const pb::FindPathResponse answer = find(with);
      from_cached_field += answer.cache_hit() ? 1 : 0;
      expect_same_answer(answer, find(on_copy),
                         "round " + std::to_string(round) + " " + with.ShortDebugString());
    }
    pb::BatchFindPathsRequest b;
    b.set_mask(base);
    *b.mutable_goal() = point(goal);
    apply(o, b);
    for (int k = 0; k < 10; ++k) *b.add_starts() = point(pathtest::random_point(rng, mask));
    pb::BatchFindPathsRequest batch_with = b;
    *batch_with.mutable_obstacles() = obstacles;
    pb::BatchFindPathsRequest batch_on_copy = b;
    batch_on_copy.set_mask(copy);
    expect_same_batch(batch(batch_with), batch(batch_on_copy),
                      "round " + std::to_string(round) + " BatchFindPaths");
    if (HasFailure()) break;
  }
  EXPECT_GT(from_cached_field, 20);  // the detour answered, not only the patched copy
}

// A unit standing in a one-pixel corridor: the path goes the long way round,
// the mask is untouched, and the next request without it walks through again.
TEST_F(ObstaclesServiceTest, AUnitInACorridorSendsThePathRound) {
  // 9x5: a corridor along row 2 (x 0..8), and a detour over rows 0 and 4 at the ends.
  const std::vector<std::string> rows = {
      "#########",
      "#.......#",
      ".........",
      "#.......#",
      "#########",
  };
  std::vector<std::uint8_t> areas;
  for (const std::string& row : rows) {
    for (const char c : row) areas.push_back(c == '#' ? 0 : 1);
  }
  store_->put("corridor", pathcore::Mask(9, 5, std::move(areas)));
  pb::FindPathRequest r;
  r.set_mask("corridor");
  *r.mutable_start() = point({0, 2});
  *r.mutable_goal() = point({8, 2});
  r.set_smoothing(pb::SMOOTHING_NONE);
  const pb::FindPathResponse open = find(r);
  ASSERT_TRUE(open.found());
  EXPECT_EQ(open.points_size(), 9);  // straight along row 2
  // A wall across rows 1..3 at x = 4 but row 1: the way is round through (4, 1).
  pb::FindPathRequest blocked = r;
  pb::Obstacle& unit = *blocked.add_obstacles();
  unit.mutable_rect()->set_x(4);
  unit.mutable_rect()->set_y(2);
  unit.mutable_rect()->set_width(1);
  unit.mutable_rect()->set_height(2);
  const pb::FindPathResponse round = find(blocked);
  ASSERT_TRUE(round.found());
  EXPECT_EQ(round.points_size(), 11);
  bool through_gap = false;
  for (const pb::Point& p : round.points()) {
    EXPECT_FALSE(p.x() == 4 && (p.y() == 2 || p.y() == 3));
    through_gap = through_gap || (p.x() == 4 && p.y() == 1);
  }
  EXPECT_TRUE(through_gap);
  // Answered from the cached field of the mask without the unit once the
  // cache holds it (the path around it), else on the patched copy.
  if (!round.cache_hit()) {
    ASSERT_TRUE(wait_for_cached_fields(1));
    const pb::FindPathResponse warm = find(blocked);
    EXPECT_TRUE(warm.cache_hit());
    expect_same_answer(warm, round, "from the cached field");
  }
  // Blocking the gap too: no route, and the reason says so.
  pb::FindPathRequest walled = blocked;
  walled.mutable_obstacles(0)->mutable_rect()->set_y(1);
  walled.mutable_obstacles(0)->mutable_rect()->set_height(3);
  const pb::FindPathResponse none = find(walled);
  EXPECT_FALSE(none.found());
  EXPECT_EQ(none.reason(), pb::PATH_REASON_NO_ROUTE);
  // A unit on the goal itself: the goal is not walkable.
  pb::FindPathRequest on_goal = r;
  pb::Obstacle& sitter = *on_goal.add_obstacles();
  *sitter.mutable_pixels()->add_pixels() = point({8, 2});
  EXPECT_EQ(find(on_goal).reason(), pb::PATH_REASON_GOAL_NOT_WALKABLE);
  // Nothing stuck: the same request without obstacles answers as before.
  pb::FindPathResponse again = find(r);
  EXPECT_EQ(again.points_size(), 9);
  expect_same_answer(again, open, "after the obstacles");
}

TEST_F(ObstaclesServiceTest, NothingOfThePatchedMaskIsCached) {
  std::mt19937_64 rng(5);
  const pathcore::Mask mask = pathtest::random_mask(rng, 40, 30, 0.2, 2);
  store_->put("m", mask);
  pb::Obstacle circle;
  circle.mutable_circle()->mutable_centre()->set_x(20);
  circle.mutable_circle()->mutable_centre()->set_y(15);
  circle.mutable_circle()->set_radius(4);
  const PathOptions options[] = {
      {pb::SMOOTHING_BEAUTIFY, pb::CONNECTIVITY_EIGHT, false, true, 1.5, 0, false},
      {pb::SMOOTHING_ANY_ANGLE, pb::CONNECTIVITY_FOUR, true, true, 0, 0, false},
      {pb::SMOOTHING_NONE, pb::CONNECTIVITY_FOUR, false, false, 0, 0, true},
  };
  for (const PathOptions& o : options) {
    pb::FindPathRequest r;
    r.set_mask("m");
    *r.mutable_start() = point({0, 0});
    *r.mutable_goal() = point({39, 29});
    apply(o, r);
    *r.add_obstacles() = circle;
    find(r);
    find(r);  // twice: a path-answer cache would now serve it
    pb::BatchFindPathsRequest b;
    b.set_mask("m");
    *b.mutable_goal() = point({39, 29});
    apply(o, b);
    for (int k = 0; k < 40; ++k) *b.add_starts() = point({k % 40, k % 30});
    *b.add_obstacles() = circle;
    batch(b);
  }
  pb::LineOfSightRequest l;
  l.set_mask("m");
  l.set_clearance(1.5);
  *l.add_pairs()->mutable_a() = point({0, 0});
  *l.mutable_pairs(0)->mutable_b() = point({39, 29});
  *l.add_obstacles() = circle;
  los(l);
  pb::ReachableRequest q;
  q.set_mask("m");
  *q.add_pairs()->mutable_a() = point({0, 0});
  *q.mutable_pairs(0)->mutable_b() = point({39, 29});
  *q.add_obstacles() = circle;
  reachable(q);
  EXPECT_EQ(cache_.size(), 0U);
  EXPECT_EQ(cache_.budget().used_bytes(), 0U);
  EXPECT_EQ(service_->path_cache_entries(), 0U);
  EXPECT_EQ(service_->component_cache_entries(), 0U);
}

// Every error the API promises, for each RPC that takes obstacles.
TEST_F(ObstaclesServiceTest, BadObstaclesAreRefusedNamingTheField) {
  store_->put("m", pathcore::Mask(10, 8, std::vector<std::uint8_t>(80, 1)));
  struct Case {
    std::string name;
    std::vector<pb::Obstacle> shapes;
    grpc::StatusCode code;
    std::string message;  // contained in the status message
  };
  pb::Obstacle unset;
  pb::Obstacle zero_rect;
  zero_rect.mutable_rect()->set_x(1);
  zero_rect.mutable_rect()->set_width(0);
  zero_rect.mutable_rect()->set_height(3);
  pb::Obstacle zero_radius;
  zero_radius.mutable_circle()->set_radius(0);
  pb::Obstacle nan_radius;
  nan_radius.mutable_circle()->set_radius(std::nan(""));
  pb::Obstacle inf_centre;
  inf_centre.mutable_circle()->mutable_centre()->set_x(INFINITY);
  inf_centre.mutable_circle()->set_radius(1);
  pb::Obstacle outside;
  *outside.mutable_pixels()->add_pixels() = point({1, 1});
  *outside.mutable_pixels()->add_pixels() = point({10, 2});
  pb::Obstacle fine;
  fine.mutable_rect()->set_width(1);
  fine.mutable_rect()->set_height(1);
  const std::vector<Case> cases = {
      {"unset", {fine, unset}, grpc::StatusCode::INVALID_ARGUMENT,
       "obstacles[1]: no shape set"},
      {"zero-size rect", {zero_rect}, grpc::StatusCode::INVALID_ARGUMENT,
       "obstacles[0].rect: width and height must be at least 1"},
      {"zero radius", {zero_radius}, grpc::StatusCode::INVALID_ARGUMENT,
       "obstacles[0].circle.radius must be finite and > 0"},
      {"NaN radius", {fine, fine, nan_radius}, grpc::StatusCode::INVALID_ARGUMENT,
       "obstacles[2].circle.radius"},
      {"infinite centre", {inf_centre}, grpc::StatusCode::INVALID_ARGUMENT,
       "obstacles[0].circle.centre must be finite"},
      {"pixel outside", {outside}, grpc::StatusCode::INVALID_ARGUMENT,
       "obstacles[0].pixels[1] (10,2) is outside the mask"},
      {"too many", std::vector<pb::Obstacle>(kMaxObstacles + 1, fine),
       grpc::StatusCode::RESOURCE_EXHAUSTED, "--max-obstacles"},
  };
  for (const Case& c : cases) {
    const auto expect = [&](const grpc::Status& status, const char* rpc) {
      EXPECT_EQ(status.error_code(), c.code) << c.name << " " << rpc << ": " << status.error_message();
      EXPECT_NE(status.error_message().find(c.message), std::string::npos)
          << c.name << " " << rpc << ": " << status.error_message();
    };
    pb::FindPathRequest f;
    f.set_mask("m");
    *f.mutable_start() = point({0, 0});
    *f.mutable_goal() = point({9, 7});
    for (const auto& s : c.shapes) *f.add_obstacles() = s;
    pb::FindPathResponse fr;
    expect(call(&pb::Pathfinder::Stub::FindPath, f, fr), "FindPath");
    pb::BatchFindPathsRequest b;
    b.set_mask("m");
    *b.mutable_goal() = point({9, 7});
    *b.add_starts() = point({0, 0});
    for (const auto& s : c.shapes) *b.add_obstacles() = s;
    pb::BatchFindPathsResponse br;
    expect(call(&pb::Pathfinder::Stub::BatchFindPaths, b, br), "BatchFindPaths");
    pb::LineOfSightRequest l;
    l.set_mask("m");
    *l.add_pairs()->mutable_a() = point({0, 0});
    *l.mutable_pairs(0)->mutable_b() = point({9, 7});
    for (const auto& s : c.shapes) *l.add_obstacles() = s;
    pb::LineOfSightResponse lr;
    expect(call(&pb::Pathfinder::Stub::LineOfSight, l, lr), "LineOfSight");
    pb::ReachableRequest q;
    q.set_mask("m");
    *q.add_pairs()->mutable_a() = point({0, 0});
    *q.mutable_pairs(0)->mutable_b() = point({9, 7});
    for (const auto& s : c.shapes) *q.add_obstacles() = s;
    pb::ReachableResponse qr;
    expect(call(&pb::Pathfinder::Stub::Reachable, q, qr), "Reachable");
  }
  // At the limit is fine.
  pb::FindPathRequest f;
  f.set_mask("m");
  *f.mutable_start() = point({0, 0});
  *f.mutable_goal() = point({9, 7});
  for (int i = 0; i < kMaxObstacles; ++i) {
    pb::Rect& r = *f.add_obstacles()->mutable_rect();
    r.set_x(static_cast<std::uint32_t>(i + 1));
    r.set_y(3);
    r.set_width(1);
    r.set_height(1);
  }
  EXPECT_TRUE(find(f).found());
}

}  // namespace
}  // namespace pathserver
