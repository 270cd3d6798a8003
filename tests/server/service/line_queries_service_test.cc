// LineOfSight and NearestWalkable through the service in-process (loopback,
// port chosen at run time), on random maps, against independent references:
// the pixels each line rule covers decided in exact rational arithmetic
// (support/line_reference.h), the usable pixels of a clearance by brute force
// (support/clearance_reference.h), reachability by a breadth-first search
// written here, and the nearest pixel by exhaustive search. Then bad input,
// missing masks, stale revisions and the limits.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"
#include "support/clearance_reference.h"
#include "support/line_reference.h"
#include "support/loopback_service.h"
#include "support/random_mask.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace pb = pathfinding::v1;
using pathcore::Point;

constexpr int kLineLimit = 300;
constexpr int kNearestLimit = 200;

class LineQueriesServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<FileMaskStore>(dir_.file("data"));
    ServiceLimits limits;
    limits.max_line_pairs = kLineLimit;
    limits.max_nearest_points = kNearestLimit;
    service_ = std::make_unique<PathfinderService>(*store_, cache_, limits);
    server_ = std::make_unique<pathtest::LoopbackService>(*service_);
  }

  void TearDown() override {
    server_.reset();
    service_.reset();
  }

  static void set(pb::Point* out, Point p) {
    out->set_x(p.x);
    out->set_y(p.y);
  }

  grpc::Status line_of_sight(const pb::LineOfSightRequest& r, pb::LineOfSightResponse& response) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return server_->stub().LineOfSight(&ctx, r, &response);
  }

  grpc::Status nearest(const pb::NearestWalkableRequest& r, pb::NearestWalkableResponse& response) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return server_->stub().NearestWalkable(&ctx, r, &response);
  }

  pathtest::TempDir dir_{"pathfinder-line-queries"};
  FieldCache cache_{std::size_t{64} << 20};
  std::unique_ptr<MaskStore> store_;
  std::unique_ptr<PathfinderService> service_;
  std::unique_ptr<pathtest::LoopbackService> server_;
};

// The pixels a request walks on: walkable for enabled and, above half a
// pixel of clearance, usable (brute force).
pathcore::Mask walked_mask(const pathcore::Mask& mask, pathcore::AreaSet enabled, double clearance) {
  if (clearance <= 0.5) return mask;
  return pathtest::mask_of_usable(mask, pathtest::reference_usable(mask, enabled, clearance));
}

// Pixels reachable from `from` over walkable pixels: four neighbours, plus
// the diagonal ones when eight-connected (needing both pixels beside the
// step walkable unless corners may be cut). Breadth-first.
std::vector<bool> reachable_pixels(const pathcore::Mask& mask, pathcore::AreaSet enabled, Point from,
                                   bool eight, bool cutting) {
  const auto w = static_cast<int>(mask.width());
  std::vector<bool> seen(mask.pixel_count(), false);
  if (!mask.walkable(from, enabled)) return seen;
  std::deque<Point> queue{from};
  seen[static_cast<std::size_t>(from.y * w + from.x)] = true;
  while (!queue.empty()) {
    const Point p = queue.front();
    queue.pop_front();
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0) continue;
        const bool diagonal = dx != 0 && dy != 0;
        if (diagonal && !eight) continue;
        const Point n{p.x + dx, p.y + dy};
        if (!mask.walkable(n, enabled) || seen[static_cast<std::size_t>(n.y * w + n.x)]) continue;
        if (diagonal && !cutting &&
            (!mask.walkable({p.x + dx, p.y}, enabled) || !mask.walkable({p.x, p.y + dy}, enabled))) {
          continue;
        }
        seen[static_cast<std::size_t>(n.y * w + n.x)] = true;
        queue.push_back(n);
      }
    }
  }
  return seen;
}

TEST_F(LineQueriesServiceTest, LineOfSightMatchesTheReferenceOnRandomMaps) {
  std::mt19937_64 rng(101);
  // Clear and blocked answers, without and with a clearance that excludes pixels.
  int clear_total[2] = {0, 0};
  int blocked_total[2] = {0, 0};
  for (int round = 0; round < 24; ++round) {
    const double clearance = std::vector<double>{0, 0, 0.5, 1.2, 1.8, 2.5}[round % 6];
    // With clearance, sparser obstacles and larger maps leave usable ground.
    std::uniform_int_distribution<std::uint32_t> side(clearance > 0.5 ? 16 : 4, 40);
    const double obstacles = clearance > 0.5 ? 0.005 : 0.04 + 0.04 * (round % 6);
    const pathcore::Mask mask = pathtest::random_mask(rng, side(rng), side(rng), obstacles, 3);
    const std::string name = "los-" + std::to_string(round);
    store_->put(name, mask);
    // Areas 1 and 2, or all (not with clearance: a disabled area is an obstacle).
    const std::uint64_t areas = round % 4 == 1 && clearance <= 0.5 ? 0b0110 : 0;
    const pathcore::AreaSet enabled = pathcore::effective_areas(areas);
    const pathcore::Mask walked = walked_mask(mask, enabled, clearance);
    for (const bool cutting : {false, true}) {
      pb::LineOfSightRequest request;
      request.set_mask(name);
      request.set_enabled_areas(areas);
      request.set_allow_corner_cutting(cutting);
      request.set_clearance(clearance);
      std::vector<std::pair<Point, Point>> pairs;
      for (int i = 0; i < 250; ++i) {
        const Point a = pathtest::random_point(rng, mask);
        Point b = pathtest::random_point(rng, mask);
        if (i % 2 == 0) {  // short segments: more of them clear
          std::uniform_int_distribution<int> near(-5, 5);
          b = {std::clamp(a.x + near(rng), 0, static_cast<int>(mask.width()) - 1),
               std::clamp(a.y + near(rng), 0, static_cast<int>(mask.height()) - 1)};
        }
        pairs.emplace_back(a, b);
        auto* pair = request.add_pairs();
        set(pair->mutable_a(), a);
        set(pair->mutable_b(), b);
      }
      pb::LineOfSightResponse response;
      const grpc::Status status = line_of_sight(request, response);
      ASSERT_TRUE(status.ok()) << status.error_message();
      ASSERT_EQ(response.results_size(), static_cast<int>(pairs.size()));
      EXPECT_NE(response.mask_revision(), 0U);
      const auto rule = cutting ? pathcore::LineRule::kBresenham : pathcore::LineRule::kNoCornerCutting;
      int clear_count = 0;  // of this request
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto [a, b] = pairs[i];
        const auto expected = pathtest::reference_first_blocked(walked, enabled, a, b, rule);
        const pb::LineOfSightResult& got = response.results(static_cast<int>(i));
        ASSERT_EQ(got.clear(), !expected.has_value())
            << name << " pair " << i << " cutting " << cutting << " clearance " << clearance;
        ASSERT_EQ(got.has_first_blocked(), expected.has_value());
        if (expected) {
          EXPECT_EQ(got.first_blocked().x(), expected->x) << name << " pair " << i;
          EXPECT_EQ(got.first_blocked().y(), expected->y) << name << " pair " << i;
        }
        clear_count += got.clear() ? 1 : 0;
      }
      clear_total[clearance > 0.5] += clear_count;
      blocked_total[clearance > 0.5] += static_cast<int>(pairs.size()) - clear_count;
    }
  }
  // The maps gave both answers, with and without clearance.
  for (const int with_clearance : {0, 1}) {
    EXPECT_GT(clear_total[with_clearance], 100) << with_clearance;
    EXPECT_GT(blocked_total[with_clearance], 100) << with_clearance;
  }
}

TEST_F(LineQueriesServiceTest, NearestWalkableMatchesExhaustiveSearch) {
  std::mt19937_64 rng(202);
  for (int round = 0; round < 30; ++round) {
    std::uniform_int_distribution<std::uint32_t> side(3, 30);
    const pathcore::Mask mask =
        pathtest::random_mask(rng, side(rng), side(rng), std::vector<double>{0.3, 0.6, 0.9}[round % 3], 2);
    const std::string name = "near-" + std::to_string(round);
    store_->put(name, mask);
    const std::uint64_t areas = round % 5 == 2 ? 0b0100 : 0;  // area 2 alone, or all
    const pathcore::AreaSet enabled = pathcore::effective_areas(areas);
    const double clearance = std::vector<double>{0, 0, 1.0, 1.6}[round % 4];
    const pathcore::Mask walked = walked_mask(mask, enabled, clearance);
    for (const int mode : {0, 1, 2, 3}) {  // no reachable_from; 4; 8; 8 cutting corners
      pb::NearestWalkableRequest request;
      request.set_mask(name);
      request.set_enabled_areas(areas);
      request.set_clearance(clearance);
      request.set_connectivity(mode >= 2 ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
      request.set_allow_corner_cutting(mode == 3);
      std::vector<bool> qualifies(mask.pixel_count());
      for (std::size_t i = 0; i < qualifies.size(); ++i) {
        qualifies[i] = walked.walkable({static_cast<int>(i % mask.width()),
                                        static_cast<int>(i / mask.width())},
                                       enabled);
      }
      if (mode > 0) {
        const Point from = pathtest::random_point(rng, mask);
        set(request.mutable_reachable_from(), from);
        // An unusable reachable_from first moves to its nearest usable pixel.
        const auto snapped = pathtest::reference_nearest(
            mask.width(), mask.height(), from, [&](Point p) { return walked.walkable(p, enabled); });
        qualifies = snapped ? reachable_pixels(walked, enabled, *snapped, mode >= 2, mode == 3)
                            : std::vector<bool>(mask.pixel_count(), false);
      }
      std::vector<Point> points;
      for (int i = 0; i < 120; ++i) points.push_back(pathtest::random_point(rng, mask));
      for (const Point p : points) set(request.add_points(), p);
      pb::NearestWalkableResponse response;
      const grpc::Status status = nearest(request, response);
      ASSERT_TRUE(status.ok()) << status.error_message();
      ASSERT_EQ(response.results_size(), static_cast<int>(points.size()));
      for (std::size_t i = 0; i < points.size(); ++i) {
        const auto expected =
            pathtest::reference_nearest(mask.width(), mask.height(), points[i], [&](Point p) {
              return qualifies[static_cast<std::size_t>(p.y) * mask.width() + p.x];
            });
        const pb::NearestWalkableResult& got = response.results(static_cast<int>(i));
        ASSERT_EQ(got.found(), expected.has_value()) << name << " mode " << mode << " point " << i;
        if (!expected) continue;
        EXPECT_EQ(got.point().x(), expected->x) << name << " mode " << mode << " point " << i;
        EXPECT_EQ(got.point().y(), expected->y) << name << " mode " << mode << " point " << i;
        const double dx = expected->x - points[i].x;
        const double dy = expected->y - points[i].y;
        EXPECT_DOUBLE_EQ(got.distance(), std::sqrt(dx * dx + dy * dy));
      }
    }
  }
}

TEST_F(LineQueriesServiceTest, NothingWalkableIsNotFound) {
  store_->put("blocked", pathcore::Mask(5, 4, std::vector<std::uint8_t>(20, 0)));
  pb::NearestWalkableRequest request;
  request.set_mask("blocked");
  set(request.add_points(), {2, 2});
  set(request.mutable_reachable_from(), {0, 0});
  pb::NearestWalkableResponse response;
  ASSERT_TRUE(nearest(request, response).ok());
  ASSERT_EQ(response.results_size(), 1);
  EXPECT_FALSE(response.results(0).found());
  EXPECT_FALSE(response.results(0).has_point());
  request.clear_reachable_from();
  ASSERT_TRUE(nearest(request, response).ok());
  EXPECT_FALSE(response.results(0).found());

  pb::LineOfSightRequest los;
  los.set_mask("blocked");
  auto* pair = los.add_pairs();
  set(pair->mutable_a(), {4, 3});
  set(pair->mutable_b(), {0, 0});
  pb::LineOfSightResponse los_response;
  ASSERT_TRUE(line_of_sight(los, los_response).ok());
  EXPECT_FALSE(los_response.results(0).clear());
  EXPECT_EQ(los_response.results(0).first_blocked().x(), 4);  // a itself, walking from a
  EXPECT_EQ(los_response.results(0).first_blocked().y(), 3);
}

TEST_F(LineQueriesServiceTest, BadInputNamesTheField) {
  store_->put("m", pathcore::Mask(6, 5, std::vector<std::uint8_t>(30, 1)));
  const auto los_error = [&](const std::function<void(pb::LineOfSightRequest&)>& change) {
    pb::LineOfSightRequest r;
    r.set_mask("m");
    auto* pair = r.add_pairs();
    set(pair->mutable_a(), {0, 0});
    set(pair->mutable_b(), {5, 4});
    change(r);
    pb::LineOfSightResponse response;
    return line_of_sight(r, response);
  };
  const auto expect_invalid = [](const grpc::Status& status, const std::string& field) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_EQ(status.error_message().rfind(field, 0), 0U) << status.error_message();
  };
  expect_invalid(los_error([](auto& r) { r.mutable_pairs(0)->clear_a(); }), "pairs[0].a: is required");
  expect_invalid(los_error([](auto& r) { r.mutable_pairs(0)->clear_b(); }), "pairs[0].b: is required");
  expect_invalid(los_error([](auto& r) {
                   auto* pair = r.add_pairs();
                   set(pair->mutable_a(), {1, 1});
                   set(pair->mutable_b(), {6, 1});
                 }),
                 "pairs[1].b: (6, 1) is outside");
  expect_invalid(los_error([](auto& r) { r.mutable_pairs(0)->mutable_a()->set_y(-1); }),
                 "pairs[0].a: ");
  expect_invalid(los_error([](auto& r) { r.set_clearance(-1); }), "clearance: ");
  expect_invalid(los_error([](auto& r) { r.set_clearance(std::nan("")); }), "clearance: ");
  expect_invalid(los_error([](auto& r) { r.set_enabled_areas(1); }), "enabled_areas: ");
  expect_invalid(los_error([](auto& r) { r.set_mask(""); }), "mask: ");
  EXPECT_EQ(los_error([](auto& r) { r.set_mask("absent"); }).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(los_error([](auto& r) { r.set_expected_revision(999999); }).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);

  const auto nearest_error = [&](const std::function<void(pb::NearestWalkableRequest&)>& change) {
    pb::NearestWalkableRequest r;
    r.set_mask("m");
    set(r.add_points(), {0, 0});
    change(r);
    pb::NearestWalkableResponse response;
    return nearest(r, response);
  };
  expect_invalid(nearest_error([](auto& r) { set(r.add_points(), {3, 5}); }), "points[1]: (3, 5) is outside");
  expect_invalid(nearest_error([](auto& r) { set(r.mutable_reachable_from(), {-1, 0}); }),
                 "reachable_from: ");
  expect_invalid(nearest_error([](auto& r) { r.set_clearance(std::numeric_limits<double>::infinity()); }),
                 "clearance: ");
  expect_invalid(nearest_error([](auto& r) { r.set_connectivity(static_cast<pb::Connectivity>(7)); }),
                 "connectivity: ");
  expect_invalid(nearest_error([](auto& r) { r.set_enabled_areas(1); }), "enabled_areas: ");
  EXPECT_EQ(nearest_error([](auto& r) { r.set_mask("absent"); }).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(nearest_error([](auto& r) { r.set_expected_revision(999999); }).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(LineQueriesServiceTest, LimitsAnswerResourceExhausted) {
  store_->put("m", pathcore::Mask(6, 5, std::vector<std::uint8_t>(30, 1)));
  pb::LineOfSightRequest los;
  los.set_mask("m");
  for (int i = 0; i < kLineLimit; ++i) {
    auto* pair = los.add_pairs();
    set(pair->mutable_a(), {0, 0});
    set(pair->mutable_b(), {5, 4});
  }
  pb::LineOfSightResponse los_response;
  EXPECT_TRUE(line_of_sight(los, los_response).ok());  // at the limit
  los.add_pairs()->CopyFrom(los.pairs(0));
  const grpc::Status los_status = line_of_sight(los, los_response);
  EXPECT_EQ(los_status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(los_status.error_message().find("--max-line-pairs"), std::string::npos);

  pb::NearestWalkableRequest request;
  request.set_mask("m");
  for (int i = 0; i < kNearestLimit; ++i) set(request.add_points(), {1, 1});
  pb::NearestWalkableResponse response;
  EXPECT_TRUE(nearest(request, response).ok());
  set(request.add_points(), {1, 1});
  const grpc::Status status = nearest(request, response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("--max-nearest-points"), std::string::npos);
}

TEST_F(LineQueriesServiceTest, ExpectedRevisionAndPatchedMasks) {
  store_->put("m", pathcore::Mask(6, 1, {1, 1, 1, 1, 1, 0}));
  pb::NearestWalkableRequest request;
  request.set_mask("m");
  set(request.add_points(), {5, 0});
  pb::NearestWalkableResponse response;
  ASSERT_TRUE(nearest(request, response).ok());
  const std::uint64_t revision = response.mask_revision();
  EXPECT_EQ(response.results(0).point().x(), 4);
  // Block (3,0) and (4,0): the transform of the old revision must not answer.
  MaskPatch patch;
  patch.x = 3;
  patch.y = 0;
  patch.width = 2;
  patch.height = 1;
  const std::vector<std::uint8_t> blocked{0, 0};
  patch.areas = blocked;
  store_->patch("m", patch);
  request.set_expected_revision(revision);
  EXPECT_EQ(nearest(request, response).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  request.set_expected_revision(0);
  ASSERT_TRUE(nearest(request, response).ok());
  EXPECT_NE(response.mask_revision(), revision);
  EXPECT_EQ(response.results(0).point().x(), 2);
  EXPECT_DOUBLE_EQ(response.results(0).distance(), 3);
}

}  // namespace
}  // namespace pathserver
