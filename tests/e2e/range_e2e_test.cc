// End-to-end: GetRange and FindPath's max_cost / partial against the real
// server binary. Ranges are checked pixel by pixel (bitmap and float32
// costs) against a textbook Dijkstra from the start (support/range_reference.h)
// on random masks with area costs, both connectivities and the corner rule,
// with clearance and obstacles on the usable pixels of the patched mask
// (support/clearance_reference.h); a large range arrives in chunks of at
// most 1 MiB; every documented error. FindPath with a budget answers
// exactly the plain FindPath when the goal is within it, else the path to
// the pixel within the budget nearest to the goal (the tie rule checked
// against the reference), found = false and the documented reason. Also
// `pathfind range`.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathfinder/client.h"
#include "support/clearance_reference.h"
#include "support/random_mask.h"
#include "support/range_reference.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;

using Costs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

ServerOptions server_options() {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.extra_args = {"--max-obstacles", "4"};
  return options;
}

Client make_client(const ServerProcess& server) {
  pathfinder::ClientOptions options;
  options.deadline = std::chrono::seconds(60);
  return Client(server.target(), options);
}

std::string areas_of(const pathcore::Mask& mask) {
  return {mask.areas().begin(), mask.areas().end()};
}

void upload(Client& client, const std::string& name, const pathcore::Mask& mask) {
  const auto uploaded =
      client.upload_mask(pathtest::raw_upload(name, mask.width(), mask.height(), areas_of(mask)));
  ASSERT_TRUE(uploaded.ok()) << uploaded.status.error_message();
}

struct Options {
  bool eight = false;
  bool cut = false;
  std::uint32_t cost2 = 1;  // area 2's step cost
  std::uint32_t cost3 = 1;
};

pathcore::FieldOptions core_options(const Options& o) {
  pathcore::FieldOptions options;
  options.connectivity = o.eight ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour;
  options.allow_corner_cutting = o.eight && o.cut;
  options.area_costs[2] = static_cast<std::uint8_t>(o.cost2);
  options.area_costs[3] = static_cast<std::uint8_t>(o.cost3);
  return options;
}

template <typename Request>
void set_options(const Options& o, Request& request) {
  request.set_connectivity(o.eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
  request.set_allow_corner_cutting(o.cut);
  if (o.cost2 != 1) (*request.mutable_area_costs())[2] = o.cost2;
  if (o.cost3 != 1) (*request.mutable_area_costs())[3] = o.cost3;
}

pb::GetRangeRequest range_request(const std::string& mask, pathcore::Point start, double max_cost,
                                  const Options& o) {
  pb::GetRangeRequest request;
  request.set_mask(mask);
  *request.mutable_start() = pathfinder::make_point(start.x, start.y);
  request.set_max_cost(max_cost);
  request.set_include_costs(true);
  set_options(o, request);
  return request;
}

// The range against the reference costs (on the mask the request walks).
void expect_range(const pathfinder::Range& range, const pathcore::Mask& reference_mask,
                  const Costs& costs, double max_cost, const std::string& where) {
  std::uint64_t count = 0;
  std::int64_t x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(reference_mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(reference_mask.width()); ++x) {
      const auto cost = costs[reference_mask.index({x, y})];
      const bool in = cost.first != pathtest::kNotReached &&
                      pathtest::reference_cost_value(cost) <= max_cost;
      ASSERT_EQ(range.contains(x, y), in) << where << " at (" << x << "," << y << ")";
      if (!in) continue;
      ++count;
      x0 = std::min<std::int64_t>(x0, x);
      y0 = std::min<std::int64_t>(y0, y);
      x1 = std::max<std::int64_t>(x1, x);
      y1 = std::max<std::int64_t>(y1, y);
      const float got = range.costs[static_cast<std::size_t>(y - range.y) * range.width +
                                    static_cast<std::size_t>(x - range.x)];
      ASSERT_EQ(got, static_cast<float>(pathtest::reference_cost_value(cost)))
          << where << " at (" << x << "," << y << ")";
    }
  }
  ASSERT_EQ(range.pixel_count, count) << where;
  if (count == 0) {
    EXPECT_EQ(range.width, 0U) << where;
    EXPECT_EQ(range.height, 0U) << where;
    return;
  }
  EXPECT_EQ(range.x, x0) << where;
  EXPECT_EQ(range.y, y0) << where;
  EXPECT_EQ(range.width, x1 - x0 + 1) << where;
  EXPECT_EQ(range.height, y1 - y0 + 1) << where;
  // Out-of-range pixels of the rectangle carry +infinity.
  for (std::size_t i = 0; i < range.in_range.size(); ++i) {
    if (range.in_range[i] == 0) {
      ASSERT_TRUE(std::isinf(range.costs[i])) << where;
    }
  }
}

Options random_options(std::mt19937_64& rng) {
  Options o;
  o.eight = rng() % 2 == 0;
  o.cut = o.eight && rng() % 2 == 0;
  if (rng() % 2 == 0) {
    o.cost2 = 1 + static_cast<std::uint32_t>(rng() % 5);
    o.cost3 = 1 + static_cast<std::uint32_t>(rng() % 5);
  }
  return o;
}

class RangeE2e : public ::testing::Test {
 protected:
  ServerProcess server_{server_options()};
  Client client_ = make_client(server_);
};

TEST_F(RangeE2e, RangesEqualTheReferenceOnRandomMasks) {
  std::mt19937_64 rng(808);
  for (int round = 0; round < 40; ++round) {
    const pathcore::Mask mask = pathtest::random_mask(rng, 30 + rng() % 20, 20 + rng() % 20,
                                                      0.05 * static_cast<double>(rng() % 6), 3);
    const std::string name = "m" + std::to_string(round);
    ASSERT_NO_FATAL_FAILURE(upload(client_, name, mask));
    for (int query = 0; query < 4; ++query) {
      const Options o = random_options(rng);
      const pathcore::Point start = pathtest::random_point(rng, mask);
      const double budget = 0.5 + static_cast<double>(rng() % 300) / 10.0;
      const auto got = client_.get_range(range_request(name, start, budget, o));
      ASSERT_TRUE(got.ok()) << got.status.error_message();
      const Costs costs = pathtest::reference_costs_from(mask, start, core_options(o));
      ASSERT_NO_FATAL_FAILURE(expect_range(got.value, mask, costs, budget,
                                           "round " + std::to_string(round)));
    }
  }
}

TEST_F(RangeE2e, WithClearanceAndObstaclesTheRangeOfThePatchedUsablePixels) {
  std::mt19937_64 rng(909);
  for (int round = 0; round < 15; ++round) {
    const pathcore::Mask mask = pathtest::random_mask(rng, 40, 30, 0.04, 3);
    const std::string name = "c" + std::to_string(round);
    ASSERT_NO_FATAL_FAILURE(upload(client_, name, mask));
    const double clearance = round % 3 == 0 ? 0 : 0.6 + static_cast<double>(rng() % 20) / 10.0;
    const Options o = random_options(rng);
    pb::GetRangeRequest request =
        range_request(name, pathtest::random_point(rng, mask), 5 + rng() % 30, o);
    request.set_clearance(clearance);
    // A rectangle and a circle, patched into the reference mask by hand.
    const std::int32_t rx = static_cast<std::int32_t>(rng() % 35), ry = static_cast<std::int32_t>(rng() % 25);
    auto* rect = request.add_obstacles()->mutable_rect();
    rect->set_x(rx);
    rect->set_y(ry);
    rect->set_width(4);
    rect->set_height(3);
    const double cx = static_cast<double>(rng() % 400) / 10.0, cy = static_cast<double>(rng() % 300) / 10.0;
    auto* circle = request.add_obstacles()->mutable_circle();
    circle->mutable_centre()->set_x(cx);
    circle->mutable_centre()->set_y(cy);
    circle->set_radius(2.5);
    std::vector<std::uint8_t> areas = mask.areas();
    for (std::int32_t y = 0; y < 30; ++y) {
      for (std::int32_t x = 0; x < 40; ++x) {
        const double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
        const bool in_rect = x >= rx && x < rx + 4 && y >= ry && y < ry + 3;
        if (in_rect || dx * dx + dy * dy <= 2.5 * 2.5) areas[static_cast<std::size_t>(y) * 40 + x] = 0;
      }
    }
    const pathcore::Mask patched(40, 30, std::move(areas));
    const pathcore::Mask usable = pathtest::mask_of_usable(
        patched, pathtest::reference_usable(patched, pathcore::kAllAreas, clearance));
    const pathcore::Point start = {request.start().x(), request.start().y()};
    const auto got = client_.get_range(request);
    ASSERT_TRUE(got.ok()) << got.status.error_message();
    const Costs costs = pathtest::reference_costs_from(usable, start, core_options(o));
    ASSERT_NO_FATAL_FAILURE(expect_range(got.value, usable, costs, request.max_cost(),
                                         "round " + std::to_string(round)));
  }
}

TEST_F(RangeE2e, ALargeRangeArrivesInChunksOfAtMostOneMebibyte) {
  const std::uint32_t side = 1100;
  ASSERT_TRUE(client_.upload_mask(pathtest::open_raw_upload("open", side, side)).ok());
  const double budget = 1000;
  pb::GetRangeRequest request = range_request("open", {550, 550}, budget, Options{});
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::size_t>> chunks;
  const grpc::Status status = client_.get_range_chunks(request, [&](const pb::RangeChunk& chunk) {
    chunks.emplace_back(chunk.first_row(), chunk.row_count(),
                        chunk.in_range().size() + chunk.costs().size());
    return true;
  });
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_GT(chunks.size(), 3U);
  std::uint32_t next = 0;
  for (const auto& [first, rows, bytes] : chunks) {
    EXPECT_EQ(first, next);
    EXPECT_LE(bytes, std::size_t{1} << 20);
    next += rows;
  }
  EXPECT_EQ(next, side);
  // The four-connected diamond |dx| + |dy| <= 1000, clipped to the mask.
  const auto got = client_.get_range(request);
  ASSERT_TRUE(got.ok()) << got.status.error_message();
  std::uint64_t expected = 0;
  for (std::int64_t y = 0; y < side; ++y) {
    for (std::int64_t x = 0; x < side; ++x) {
      const bool in = std::abs(x - 550) + std::abs(y - 550) <= 1000;
      expected += in ? 1 : 0;
      ASSERT_EQ(got.value.contains(x, y), in);
    }
  }
  EXPECT_EQ(got.value.pixel_count, expected);
  EXPECT_TRUE(std::isinf(got.value.costs[0]));  // (0,0): 550 + 550 > 1000, out of range
  EXPECT_EQ(got.value.costs[550 * side + 50], 500.0F);
}

TEST_F(RangeE2e, ABlockedStartHasAnEmptyRange) {
  const pathcore::Mask mask(3, 1, {0, 1, 1});
  ASSERT_NO_FATAL_FAILURE(upload(client_, "wall", mask));
  int chunks = 0;
  pb::RangeChunk seen;
  const grpc::Status status = client_.get_range_chunks(
      range_request("wall", {0, 0}, 5, Options{}), [&](const pb::RangeChunk& chunk) {
        ++chunks;
        seen = chunk;
        return true;
      });
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(chunks, 1);
  EXPECT_EQ(seen.pixel_count(), 0U);
  EXPECT_EQ(seen.bounds().width(), 0U);
  EXPECT_EQ(seen.bounds().height(), 0U);
  EXPECT_EQ(seen.row_count(), 0U);
  EXPECT_GT(seen.mask_revision(), 0U);
}

TEST_F(RangeE2e, EveryDocumentedError) {
  ASSERT_TRUE(client_.upload_mask(pathtest::open_raw_upload("room", 10, 10)).ok());
  const auto expect = [&](pb::GetRangeRequest request, grpc::StatusCode code,
                          const std::string& names) {
    const auto got = client_.get_range(request);
    EXPECT_EQ(got.status.error_code(), code) << names << ": " << got.status.error_message();
    EXPECT_THAT(got.status.error_message(), HasSubstr(names));
  };
  const pb::GetRangeRequest good = range_request("room", {5, 5}, 4, Options{});
  ASSERT_TRUE(client_.get_range(good).ok());
  for (const double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    pb::GetRangeRequest request = good;
    request.set_max_cost(bad);
    expect(request, grpc::StatusCode::INVALID_ARGUMENT, "max_cost");
  }
  pb::GetRangeRequest request = good;
  *request.mutable_start() = pathfinder::make_point(10, 0);
  expect(request, grpc::StatusCode::INVALID_ARGUMENT, "start");
  request = good;
  request.clear_start();
  expect(request, grpc::StatusCode::INVALID_ARGUMENT, "start");
  request = good;
  request.set_mask("nope");
  expect(request, grpc::StatusCode::NOT_FOUND, "nope");
  request = good;
  (*request.mutable_area_costs())[64] = 2;
  expect(request, grpc::StatusCode::INVALID_ARGUMENT, "area_costs");
  request = good;
  request.set_clearance(-1);
  expect(request, grpc::StatusCode::INVALID_ARGUMENT, "clearance");
  request = good;
  request.set_expected_revision(99);
  expect(request, grpc::StatusCode::FAILED_PRECONDITION, "expected_revision");
  request = good;
  request.set_enabled_areas(1);
  expect(request, grpc::StatusCode::INVALID_ARGUMENT, "enabled_areas");
  request = good;
  for (int i = 0; i < 5; ++i) request.add_obstacles()->mutable_pixels()->add_pixels()->set_x(i);
  expect(request, grpc::StatusCode::RESOURCE_EXHAUSTED, "--max-obstacles");
  request = good;
  request.add_obstacles();  // no shape
  expect(request, grpc::StatusCode::INVALID_ARGUMENT, "obstacles[0]");
}

// FindPath's budget and partial answers.

pb::FindPathRequest path_request(const std::string& mask, pathcore::Point start,
                                 pathcore::Point goal, const Options& o, pb::Smoothing smoothing) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  *request.mutable_start() = pathfinder::make_point(start.x, start.y);
  *request.mutable_goal() = pathfinder::make_point(goal.x, goal.y);
  request.set_smoothing(smoothing);
  set_options(o, request);
  return request;
}

// The pixel of `costs` within budget nearest to goal: distance, then cost, then row-major.
std::optional<pathcore::Point> reference_nearest(const pathcore::Mask& mask, const Costs& costs,
                                                 double budget, pathcore::Point goal) {
  std::optional<std::tuple<std::int64_t, double, std::int32_t, std::int32_t>> best;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()); ++x) {
      const auto cost = costs[mask.index({x, y})];
      if (cost.first == pathtest::kNotReached) continue;
      const double value = pathtest::reference_cost_value(cost);
      if (value > budget) continue;
      const std::int64_t dx = x - goal.x, dy = y - goal.y;
      const auto key = std::make_tuple(dx * dx + dy * dy, value, y, x);
      if (!best || key < *best) best = key;
    }
  }
  if (!best) return std::nullopt;
  return pathcore::Point{std::get<3>(*best), std::get<2>(*best)};
}

// A budget or partial answer: it leads from the start to `expected` with its exact grid cost.
void expect_leads_to(const pb::FindPathResponse& got, const pathcore::Mask& mask, const Costs& costs,
                     pathcore::Point start, pathcore::Point expected, pb::Smoothing smoothing,
                     const std::string& where) {
  EXPECT_FALSE(got.found()) << where;
  ASSERT_GT(got.points_size(), 0) << where;
  EXPECT_EQ(got.points(0).x(), start.x) << where;
  EXPECT_EQ(got.points(0).y(), start.y) << where;
  const auto& last = got.points(got.points_size() - 1);
  EXPECT_EQ(last.x(), expected.x) << where;
  EXPECT_EQ(last.y(), expected.y) << where;
  EXPECT_EQ(got.goal().x(), expected.x) << where;
  EXPECT_EQ(got.goal().y(), expected.y) << where;
  ASSERT_TRUE(got.has_grid_cost()) << where;
  EXPECT_DOUBLE_EQ(got.grid_cost(), pathtest::reference_cost_value(costs[mask.index(expected)]))
      << where;
  EXPECT_EQ(got.precise_points_size(), got.points_size()) << where;
  EXPECT_GT(got.mask_revision(), 0U) << where;
  double length = 0;
  for (int i = 1; i < got.points_size(); ++i) {
    const double dx = got.points(i).x() - got.points(i - 1).x();
    const double dy = got.points(i).y() - got.points(i - 1).y();
    length += std::hypot(dx, dy);
    if (smoothing == pb::SMOOTHING_NONE) {
      ASSERT_LE(std::abs(dx), 1) << where;
      ASSERT_LE(std::abs(dy), 1) << where;
      ASSERT_TRUE(mask.walkable({got.points(i).x(), got.points(i).y()}, pathcore::kAllAreas))
          << where;
    }
  }
  EXPECT_NEAR(got.length(), length, 1e-9) << where;
}

TEST_F(RangeE2e, FindPathWithABudgetAgainstTheReference) {
  std::mt19937_64 rng(4040);
  int budget_answers = 0, plain_answers = 0, partial_answers = 0;
  for (int round = 0; round < 30; ++round) {
    const pathcore::Mask mask = pathtest::random_mask(rng, 40, 30, 0.05 * static_cast<double>(rng() % 7), 3);
    const std::string name = "p" + std::to_string(round);
    ASSERT_NO_FATAL_FAILURE(upload(client_, name, mask));
    for (int query = 0; query < 6; ++query) {
      const Options o = random_options(rng);
      const pb::Smoothing smoothing =
          std::array{pb::SMOOTHING_NONE, pb::SMOOTHING_SIMPLIFY, pb::SMOOTHING_BEAUTIFY}[rng() % 3];
      const pathcore::Point start = pathtest::random_point(rng, mask);
      const pathcore::Point goal = pathtest::random_point(rng, mask);
      const double budget = 1.5 + static_cast<double>(rng() % 250) / 10.0;
      const std::string where = "round " + std::to_string(round) + " query " + std::to_string(query);
      const Costs costs = pathtest::reference_costs_from(mask, start, core_options(o));
      const auto goal_cost = costs[mask.index(goal)];
      const bool reachable = goal_cost.first != pathtest::kNotReached;
      const bool start_ok = mask.walkable(start, pathcore::kAllAreas);

      const pb::FindPathRequest plain_request = path_request(name, start, goal, o, smoothing);
      const auto plain = client_.find_path(plain_request);
      ASSERT_TRUE(plain.ok()) << plain.status.error_message();
      for (const bool partial : {false, true}) {
        pb::FindPathRequest request = plain_request;
        request.set_max_cost(budget);
        request.set_partial(partial);
        const auto got = client_.find_path(request);
        ASSERT_TRUE(got.ok()) << where << ": " << got.status.error_message();
        if (reachable && pathtest::reference_cost_value(goal_cost) <= budget) {
          // Within the budget: exactly the plain answer.
          pb::FindPathResponse a = got.value, b = plain.value;
          a.clear_cache_hit();
          b.clear_cache_hit();
          EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString()) << where;
          ++plain_answers;
        } else if (!start_ok) {
          EXPECT_FALSE(got.value.found()) << where;
          EXPECT_EQ(got.value.reason(), pb::PATH_REASON_START_NOT_WALKABLE) << where;
          EXPECT_EQ(got.value.points_size(), 0) << where;
        } else {
          // Beyond the budget (or cut off while the budget cut the search short).
          bool budget_cut = false;
          for (const auto& cost : costs) {
            budget_cut = budget_cut || (cost.first != pathtest::kNotReached &&
                                        pathtest::reference_cost_value(cost) > budget);
          }
          if (!budget_cut && !partial) {
            EXPECT_EQ(got.value.points_size(), 0) << where;
            EXPECT_EQ(got.value.reason(), mask.walkable(goal, pathcore::kAllAreas)
                                              ? pb::PATH_REASON_NO_ROUTE
                                              : pb::PATH_REASON_GOAL_NOT_WALKABLE)
                << where;
            continue;
          }
          if (!mask.walkable(goal, pathcore::kAllAreas) && !partial) {
            EXPECT_EQ(got.value.reason(), pb::PATH_REASON_GOAL_NOT_WALKABLE) << where;
            continue;
          }
          EXPECT_EQ(got.value.reason(),
                    budget_cut ? pb::PATH_REASON_BUDGET_REACHED : pb::PATH_REASON_PARTIAL)
              << where;
          budget_answers += budget_cut ? 1 : 0;
          partial_answers += budget_cut ? 0 : 1;
          const auto expected = reference_nearest(mask, costs, budget, goal);
          ASSERT_TRUE(expected.has_value()) << where;
          ASSERT_NO_FATAL_FAILURE(
              expect_leads_to(got.value, mask, costs, start, *expected, smoothing, where));
        }
      }
    }
  }
  // The random cases covered every kind of answer.
  EXPECT_GT(plain_answers, 10);
  EXPECT_GT(budget_answers, 10);
  EXPECT_GT(partial_answers, 0);
}

TEST_F(RangeE2e, FindPathPartialLeadsToTheReachablePixelNearestTheGoal) {
  std::mt19937_64 rng(5050);
  int partial_answers = 0;
  for (int round = 0; round < 20; ++round) {
    const pathcore::Mask mask = pathtest::random_mask(rng, 35, 25, 0.3, 2);
    const std::string name = "q" + std::to_string(round);
    ASSERT_NO_FATAL_FAILURE(upload(client_, name, mask));
    for (int query = 0; query < 8; ++query) {
      const Options o = random_options(rng);
      const pathcore::Point start = pathtest::random_point(rng, mask);
      const pathcore::Point goal = pathtest::random_point(rng, mask);
      const std::string where = "round " + std::to_string(round) + " query " + std::to_string(query);
      pb::FindPathRequest request = path_request(name, start, goal, o, pb::SMOOTHING_BEAUTIFY);
      const auto plain = client_.find_path(request);
      ASSERT_TRUE(plain.ok());
      request.set_partial(true);
      const auto got = client_.find_path(request);
      ASSERT_TRUE(got.ok()) << where << ": " << got.status.error_message();
      if (plain.value.found() || !mask.walkable(start, pathcore::kAllAreas)) {
        pb::FindPathResponse a = got.value, b = plain.value;
        a.clear_cache_hit();
        b.clear_cache_hit();
        EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString()) << where;
        continue;
      }
      EXPECT_EQ(got.value.reason(), pb::PATH_REASON_PARTIAL) << where;
      const Costs costs = pathtest::reference_costs_from(mask, start, core_options(o));
      const auto expected =
          reference_nearest(mask, costs, std::numeric_limits<double>::infinity(), goal);
      ASSERT_TRUE(expected.has_value());
      ASSERT_NO_FATAL_FAILURE(
          expect_leads_to(got.value, mask, costs, start, *expected, pb::SMOOTHING_BEAUTIFY, where));
      ++partial_answers;
      // snap_to_reachable wins: the snapped answer, found.
      request.set_snap_to_reachable(true);
      const auto snapped = client_.find_path(request);
      ASSERT_TRUE(snapped.ok());
      EXPECT_TRUE(snapped.value.found()) << where;
      EXPECT_EQ(snapped.value.reason(), pb::PATH_REASON_GOAL_SNAPPED) << where;
    }
  }
  EXPECT_GT(partial_answers, 10);
}

TEST_F(RangeE2e, FindPathBudgetErrors) {
  ASSERT_TRUE(client_.upload_mask(pathtest::open_raw_upload("room", 10, 10)).ok());
  pb::FindPathRequest request = path_request("room", {0, 0}, {9, 9}, Options{}, pb::SMOOTHING_BEAUTIFY);
  const auto expect = [&](const pb::FindPathRequest& bad, const std::string& names) {
    const auto got = client_.find_path(bad);
    EXPECT_EQ(got.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << names;
    EXPECT_THAT(got.status.error_message(), HasSubstr(names));
  };
  for (const double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    pb::FindPathRequest r = request;
    r.set_max_cost(bad);
    expect(r, "max_cost");
  }
  pb::FindPathRequest r = request;
  r.set_max_cost(5);
  r.set_smoothing(pb::SMOOTHING_ANY_ANGLE);
  expect(r, "max_cost");
  r = request;
  r.set_partial(true);
  r.set_smoothing(pb::SMOOTHING_ANY_ANGLE);
  expect(r, "partial");
  r = request;
  r.set_max_cost(5);
  *r.add_goals() = pathfinder::make_point(3, 3);
  expect(r, "max_cost");
  // A far goal on an open room: 18 steps, a budget of 5.
  r = request;
  r.set_max_cost(5);
  const auto got = client_.find_path(r);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got.value.reason(), pb::PATH_REASON_BUDGET_REACHED);
  EXPECT_DOUBLE_EQ(got.value.grid_cost(), 5);
}

TEST_F(RangeE2e, TheCliPrintsTheRange) {
  ASSERT_TRUE(client_.upload_mask(pathtest::open_raw_upload("room", 9, 9)).ok());
  const std::string png = server_.temp_dir() + "/range.png";
  const auto result = pathtest::run_command({PATHFIND_CLI_BIN, "--server", server_.target(),
                                             "range", "room", "4,4", "--max-cost", "2", "--png",
                                             png});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("13 pixels in range, bounds x 2..6 y 2..6 (5x5)"));
  EXPECT_THAT(result.out, HasSubstr("..#..\n.###.\n##S##\n.###.\n..#..\n"));
  EXPECT_EQ(pathtest::read_text_file(png).substr(1, 3), "PNG");
  const auto json = pathtest::run_command({PATHFIND_CLI_BIN, "--server", server_.target(), "--json",
                                           "range", "room", "4,4", "--max-cost", "1", "--costs"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"pixel_count\":\"5\""));  // uint64: a string
  EXPECT_THAT(json.out, HasSubstr("\"costs\":[null,1,null,1,0,1,null,1,null]"));
  const auto bad = pathtest::run_command({PATHFIND_CLI_BIN, "--server", server_.target(), "range",
                                          "room", "4,4", "--max-cost", "0"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--max-cost: must be a number above 0"));
}

}  // namespace
