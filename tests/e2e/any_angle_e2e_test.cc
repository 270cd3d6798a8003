// End-to-end: FindPath with SMOOTHING_ANY_ANGLE (issue 21) against the real
// server. Lengths and segments are checked against the independent reference
// (support/any_angle_reference.h: its own visibility graph and line test),
// reasons and snapped ends against a breadth-first search written here; the
// other smoothings' precise_points against their points. Also: bad input,
// the cache (cache_hit on a warm call, the same bytes as the cold call's
// answer), and a mesh build that outlives its caller's deadline.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pathcore/mask.h"
#include "pathfinder/client.h"
#include "support/any_angle_reference.h"
#include "support/http_get.h"
#include "support/movingai.h"
#include "support/prometheus_text.h"
#include "support/random_mask.h"
#include "support/raw_upload.h"
#include "support/server_process.h"
#include "support/text_mask.h"

namespace {

namespace fs = std::filesystem;
namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;
using namespace std::chrono_literals;
using ::testing::StartsWith;

const fs::path kMovingAiDir = fs::path(PATHFINDER_SOURCE_DIR) / "tests/data/movingai";

ServerOptions server_options(std::vector<std::string> extra = {}) {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  options.extra_args = std::move(extra);
  return options;
}

Client make_client(const ServerProcess& server,
                   std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
  pathfinder::ClientOptions options;
  options.deadline = deadline;
  return Client(server.target(), options);
}

std::string areas_of(const pathcore::Mask& mask) {
  return {mask.areas().begin(), mask.areas().end()};
}

pb::FindPathRequest any_angle_request(const std::string& mask, pathcore::Point start,
                                      pathcore::Point goal, bool cut = false) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  *request.mutable_start() = pathfinder::make_point(start.x, start.y);
  *request.mutable_goal() = pathfinder::make_point(goal.x, goal.y);
  request.set_smoothing(pb::SMOOTHING_ANY_ANGLE);
  request.set_allow_corner_cutting(cut);
  return request;
}

// Which pixels an any-angle path can reach from `from`: four neighbours (a
// pinch point blocks), or also diagonals past two blocked pixels with corner
// cutting. Breadth-first, written here.
std::vector<bool> reachable_from(const pathcore::Mask& mask, pathcore::Point from, bool cut) {
  const auto w = static_cast<std::int32_t>(mask.width());
  const auto h = static_cast<std::int32_t>(mask.height());
  const auto open = [&](std::int32_t x, std::int32_t y) {
    return x >= 0 && y >= 0 && x < w && y < h && mask.areas()[y * w + x] != 0;
  };
  std::vector<bool> seen(static_cast<std::size_t>(w) * h, false);
  if (!open(from.x, from.y)) return seen;
  std::deque<pathcore::Point> queue{from};
  seen[from.y * w + from.x] = true;
  while (!queue.empty()) {
    const pathcore::Point p = queue.front();
    queue.pop_front();
    for (std::int32_t dy = -1; dy <= 1; ++dy) {
      for (std::int32_t dx = -1; dx <= 1; ++dx) {
        if ((dx == 0 && dy == 0) || (dx != 0 && dy != 0 && !cut)) continue;
        const std::int32_t x = p.x + dx;
        const std::int32_t y = p.y + dy;
        if (!open(x, y) || seen[y * w + x]) continue;
        seen[y * w + x] = true;
        queue.push_back({x, y});
      }
    }
  }
  return seen;
}

// The answer's shape, whatever the mask: for the exact vertices in order,
// walkable pixels whose squares touch them, no pixel twice in a row (a
// vertex on the pixel before adds none), centres at the ends, the length the
// polyline's, and every segment visible for the reference (doubled
// coordinates: corners even, centres odd).
void expect_legal_path(const pathcore::Mask& mask, const pb::FindPathResponse& answer,
                       pathcore::Point start, pathcore::Point goal, bool cut,
                       const std::string& context) {
  ASSERT_TRUE(answer.found()) << context;
  ASSERT_GE(answer.precise_points_size(), answer.points_size()) << context;
  ASSERT_GE(answer.points_size(), 1) << context;
  const pb::PointF& first = answer.precise_points(0);
  const pb::PointF& last = answer.precise_points(answer.precise_points_size() - 1);
  EXPECT_EQ(first.x(), start.x + 0.5) << context;
  EXPECT_EQ(first.y(), start.y + 0.5) << context;
  EXPECT_EQ(last.x(), goal.x + 0.5) << context;
  EXPECT_EQ(last.y(), goal.y + 0.5) << context;
  const auto touches = [](const pb::PointF& v, const pb::Point& pixel) {
    return v.x() >= pixel.x() && v.x() <= pixel.x() + 1 && v.y() >= pixel.y() &&
           v.y() <= pixel.y() + 1;
  };
  for (int j = 0; j < answer.points_size(); ++j) {
    const pb::Point& pixel = answer.points(j);
    EXPECT_TRUE(mask.walkable({pixel.x(), pixel.y()}, pathcore::kAllAreas)) << context << " " << j;
    if (j > 0) {
      const pb::Point& before = answer.points(j - 1);
      EXPECT_FALSE(pixel.x() == before.x() && pixel.y() == before.y())
          << context << " pixel (" << pixel.x() << "," << pixel.y() << ") twice in a row";
    }
  }
  // The pixels are the vertices' in order, repeats dropped: vertex i's is
  // vertex i-1's or the next one. may[j]: pixel j can be the current vertex's.
  std::vector<bool> may(static_cast<std::size_t>(answer.points_size()), false);
  may[0] = touches(answer.precise_points(0), answer.points(0));
  double walked = 0;
  for (int i = 0; i < answer.precise_points_size(); ++i) {
    const pb::PointF& v = answer.precise_points(i);
    if (i > 0) {
      for (int j = answer.points_size() - 1; j >= 0; --j) {
        const auto at = static_cast<std::size_t>(j);
        may[at] = (may[at] || (j > 0 && may[at - 1])) && touches(v, answer.points(j));
      }
    }
    EXPECT_TRUE(std::find(may.begin(), may.end(), true) != may.end())
        << context << " vertex " << i << " (" << v.x() << "," << v.y() << ") touches no pixel "
        << "that can be its";
    // Vertices are centres or square corners: twice each is an integer.
    EXPECT_EQ(2 * v.x(), std::round(2 * v.x())) << context;
    EXPECT_EQ(2 * v.y(), std::round(2 * v.y())) << context;
    if (i == 0) continue;
    const pb::PointF& u = answer.precise_points(i - 1);
    walked += std::hypot(v.x() - u.x(), v.y() - u.y());
    const pathcore::Point a2{static_cast<std::int32_t>(std::lround(2 * u.x())),
                             static_cast<std::int32_t>(std::lround(2 * u.y()))};
    const pathcore::Point b2{static_cast<std::int32_t>(std::lround(2 * v.x())),
                             static_cast<std::int32_t>(std::lround(2 * v.y()))};
    EXPECT_TRUE(pathtest::any_angle_visible(mask, pathcore::kAllAreas, a2, b2, cut))
        << context << " segment " << i;
  }
  EXPECT_TRUE(may.back()) << context << ": the last vertex is not on the last pixel";
  EXPECT_NEAR(walked, answer.length(), 1e-9 * std::max(1.0, walked)) << context;
}

// True once `cached` says so (polled), false after `timeout`.
bool eventually(const std::function<bool()>& cached, std::chrono::milliseconds timeout) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (!cached()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(AnyAngleE2eTest, RandomMasksMatchTheReference) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  std::mt19937_64 rng(2101);
  int found = 0;
  int not_found = 0;
  for (int round = 0; round < 8; ++round) {
    const std::uint32_t w = 12 + static_cast<std::uint32_t>(rng() % 20);
    const std::uint32_t h = 12 + static_cast<std::uint32_t>(rng() % 20);
    const double obstacles = 0.15 + 0.05 * static_cast<double>(round % 5);
    const pathcore::Mask mask = pathtest::random_mask(rng, w, h, obstacles, 3);
    const std::string name = "random-" + std::to_string(round);
    ASSERT_TRUE(client.upload_mask(pathtest::raw_upload(name, w, h, areas_of(mask))).ok());
    for (const bool cut : {false, true}) {
      for (int pair = 0; pair < 12; ++pair) {
        const pathcore::Point start = pathtest::random_point(rng, mask);
        const pathcore::Point goal = pathtest::random_point(rng, mask);
        const std::string context = name + " cut " + std::to_string(cut) + " (" +
                                    std::to_string(start.x) + "," + std::to_string(start.y) +
                                    ")->(" + std::to_string(goal.x) + "," +
                                    std::to_string(goal.y) + ")";
        pb::FindPathRequest request = any_angle_request(name, start, goal, cut);
        // Connectivity plays no part in any-angle paths.
        request.set_connectivity(pair % 2 == 0 ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
        const auto answer = client.find_path(request);
        ASSERT_TRUE(answer.ok()) << answer.status.error_message();
        const std::optional<double> expected =
            pathtest::any_angle_shortest_length(mask, pathcore::kAllAreas, start, goal,
                                                std::nullopt, cut);
        ASSERT_EQ(answer.value.found(), expected.has_value()) << context;
        if (!expected) {
          ++not_found;
          EXPECT_EQ(answer.value.precise_points_size(), 0) << context;
          const pb::PathReason reason =
              !mask.walkable(start, pathcore::kAllAreas)  ? pb::PATH_REASON_START_NOT_WALKABLE
              : !mask.walkable(goal, pathcore::kAllAreas) ? pb::PATH_REASON_GOAL_NOT_WALKABLE
                                                          : pb::PATH_REASON_NO_ROUTE;
          EXPECT_EQ(answer.value.reason(), reason) << context;
          continue;
        }
        ++found;
        EXPECT_EQ(answer.value.reason(), pb::PATH_REASON_FOUND) << context;
        EXPECT_NEAR(answer.value.length(), *expected, 1e-9 * std::max(1.0, *expected)) << context;
        // No area costs in this mode: the path costs its length; no grid optimum.
        EXPECT_EQ(answer.value.cost(), answer.value.length()) << context;
        EXPECT_FALSE(answer.value.has_grid_cost()) << context;
        expect_legal_path(mask, answer.value, start, goal, cut, context);
      }
    }
  }
  // The sample exercised both outcomes.
  EXPECT_GT(found, 40);
  EXPECT_GT(not_found, 5);
}

// Two exact vertices on the square of one pixel (for (5,7)->(0,3) on this
// map, the corners (8,6) and (8,5) of pixel (8,5)) used to give that pixel
// twice in a row in points: a zero-length step for a client that walks the
// pixels. The vertices stay; the repeat goes.
TEST(AnyAngleE2eTest, PointsNeverRepeatAPixelBackToBack) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  const pathcore::Mask mask = pathtest::mask_from_rows({
      ".#..#..##.",
      "..........",
      "...#.....#",
      "...#.#.#..",
      "...##.##.#",
      ".#.#..#...",
      "...#...#..",
      "##..#....#",
  });
  ASSERT_TRUE(client.upload_mask(pathtest::raw_upload("repeats", 10, 8, areas_of(mask))).ok());
  int fewer_points = 0;
  for (const auto& [start, goal] :
       {std::pair{pathcore::Point{5, 7}, pathcore::Point{0, 3}},
        std::pair{pathcore::Point{5, 4}, pathcore::Point{0, 0}},
        std::pair{pathcore::Point{5, 7}, pathcore::Point{7, 2}},
        std::pair{pathcore::Point{0, 0}, pathcore::Point{9, 6}}}) {
    const std::string context = "(" + std::to_string(start.x) + "," + std::to_string(start.y) +
                                ")->(" + std::to_string(goal.x) + "," + std::to_string(goal.y) + ")";
    const auto answer = client.find_path(any_angle_request("repeats", start, goal));
    ASSERT_TRUE(answer.ok()) << answer.status.error_message();
    const std::optional<double> expected = pathtest::any_angle_shortest_length(
        mask, pathcore::kAllAreas, start, goal, std::nullopt, false);
    ASSERT_TRUE(expected.has_value()) << context;
    EXPECT_NEAR(answer.value.length(), *expected, 1e-9 * *expected) << context;
    expect_legal_path(mask, answer.value, start, goal, false, context);
    if (answer.value.points_size() < answer.value.precise_points_size()) ++fewer_points;
  }
  // The exact paths do touch one pixel's square twice in a row.
  EXPECT_GT(fewer_points, 0);
}

// Scenarios of a few Moving AI maps whose ellipse (start and goal as foci, the
// octile optimum as the string) holds few enough convex corners for the
// reference, counted here.
TEST(AnyAngleE2eTest, MovingAiScenariosMatchTheReference) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  constexpr std::size_t kPerMap = 4;
  constexpr std::size_t kMaxEllipseCorners = 1500;
  for (const std::string map :
       {"dao/arena", "dao/den312d", "room/32room_000", "street/Berlin_0_256"}) {
    const fs::path scen = kMovingAiDir / (map + ".map.scen");
    const pathcore::Mask mask = pathtest::load_movingai_map(scen);
    pathfinder::UploadOptions upload;
    upload.format = pb::MASK_FORMAT_MOVINGAI;
    const auto info =
        client.upload_mask_file(map, (kMovingAiDir / (map + ".map")).string(), upload);
    ASSERT_TRUE(info.ok()) << info.status.error_message();
    std::vector<std::pair<double, double>> corners;
    for (std::int32_t j = 1; j < static_cast<std::int32_t>(mask.height()); ++j) {
      for (std::int32_t i = 1; i < static_cast<std::int32_t>(mask.width()); ++i) {
        int blocked = 0;
        for (const auto& [dx, dy] :
             {std::pair{-1, -1}, std::pair{0, -1}, std::pair{-1, 0}, std::pair{0, 0}}) {
          blocked += mask.walkable({i + dx, j + dy}, pathcore::kAllAreas) ? 0 : 1;
        }
        if (blocked == 1) corners.emplace_back(i, j);
      }
    }
    const auto scenarios =
        pathtest::parse_movingai_scenarios(pathtest::read_whole_file(scen), scen.stem().string());
    ASSERT_FALSE(scenarios.empty());
    std::size_t checked = 0;
    // From the longest buckets down, a few scenarios apart.
    const std::size_t gap = std::max<std::size_t>(1, scenarios.size() / 40);
    for (std::size_t i = scenarios.size(); i-- > 0 && checked < kPerMap;) {
      const pathtest::MovingAiScenario& s = scenarios[i];
      if (i % gap != 0) continue;
      const double bound = s.optimal + s.tolerance;
      const double sx = s.start.x + 0.5, sy = s.start.y + 0.5;
      const double gx = s.goal.x + 0.5, gy = s.goal.y + 0.5;
      const auto in_ellipse = std::count_if(corners.begin(), corners.end(), [&](const auto& c) {
        return std::hypot(c.first - sx, c.second - sy) + std::hypot(c.first - gx, c.second - gy) <=
               bound;
      });
      if (static_cast<std::size_t>(in_ellipse) > kMaxEllipseCorners) continue;
      ++checked;
      const auto answer = client.find_path(any_angle_request(map, s.start, s.goal));
      ASSERT_TRUE(answer.ok()) << answer.status.error_message();
      const std::optional<double> expected = pathtest::any_angle_shortest_length(
          mask, pathcore::kAllAreas, s.start, s.goal, bound, false);
      ASSERT_TRUE(expected.has_value()) << s.line;
      EXPECT_NEAR(answer.value.length(), *expected, 1e-9 * std::max(1.0, *expected)) << s.line;
      EXPECT_LE(answer.value.length(), s.optimal + s.tolerance) << s.line;
      expect_legal_path(mask, answer.value, s.start, s.goal, false, map + ": " + s.line);
    }
    EXPECT_EQ(checked, kPerMap) << "too few affordable scenarios on " << map;
  }
}

TEST(AnyAngleE2eTest, OtherSmoothingsSendTheCentresOfTheirPoints) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  std::mt19937_64 rng(7);
  const pathcore::Mask mask = pathtest::random_mask(rng, 40, 30, 0.2, 2);
  ASSERT_TRUE(client.upload_mask(pathtest::raw_upload("m", 40, 30, areas_of(mask))).ok());
  int compared = 0;
  for (const pb::Smoothing smoothing : {pb::SMOOTHING_UNSPECIFIED, pb::SMOOTHING_BEAUTIFY,
                                        pb::SMOOTHING_SIMPLIFY, pb::SMOOTHING_NONE}) {
    for (int pair = 0; pair < 6; ++pair) {
      pb::FindPathRequest request =
          any_angle_request("m", pathtest::random_point(rng, mask), pathtest::random_point(rng, mask));
      request.set_smoothing(smoothing);
      request.set_snap_to_reachable(true);
      const auto answer = client.find_path(request);
      ASSERT_TRUE(answer.ok()) << answer.status.error_message();
      ASSERT_EQ(answer.value.precise_points_size(), answer.value.points_size());
      for (int i = 0; i < answer.value.points_size(); ++i) {
        EXPECT_EQ(answer.value.precise_points(i).x(), answer.value.points(i).x() + 0.5);
        EXPECT_EQ(answer.value.precise_points(i).y(), answer.value.points(i).y() + 0.5);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 40);
}

TEST(AnyAngleE2eTest, BadInputIsInvalidArgument) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  ASSERT_TRUE(client.upload_mask(pathtest::open_raw_upload("open", 16, 16)).ok());

  pb::FindPathRequest costs = any_angle_request("open", {1, 1}, {14, 14});
  (*costs.mutable_area_costs())[1] = 3;
  const auto refused = client.find_path(costs);
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.status.error_message(), StartsWith("area_costs:"));
  EXPECT_THAT(refused.status.error_message(), HasSubstr("SMOOTHING_ANY_ANGLE"));

  pb::FindPathRequest unknown = any_angle_request("open", {1, 1}, {14, 14});
  unknown.set_smoothing(static_cast<pb::Smoothing>(5));
  const auto unknown_answer = client.find_path(unknown);
  EXPECT_EQ(unknown_answer.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(unknown_answer.status.error_message(), StartsWith("smoothing:"));

  const auto outside = client.find_path(any_angle_request("open", {1, 1}, {16, 3}));
  EXPECT_EQ(outside.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(outside.status.error_message(), StartsWith("goal:"));

  pb::FindPathRequest no_areas = any_angle_request("open", {1, 1}, {14, 14});
  no_areas.set_enabled_areas(1);  // area 0 only
  EXPECT_EQ(client.find_path(no_areas).status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  // The open room's answer is the beeline.
  const auto fine = client.find_path(any_angle_request("open", {1, 1}, {14, 9}));
  ASSERT_TRUE(fine.ok());
  EXPECT_DOUBLE_EQ(fine.value.length(), std::hypot(13.0, 8.0));
  EXPECT_EQ(fine.value.precise_points_size(), 2);
}

// A room cut by a wall with one door: the first call on the mask builds its
// mesh, later calls (new starts, new goals) are served on it, the other
// corner rule has its own, a patched mask starts over. The cache's bytes show
// in the metrics.
TEST(AnyAngleE2eTest, CallsOnTheSameMaskShareItsMesh) {
  pathtest::TempDir scratch;
  ServerProcess server(server_options({"--metrics-address", "127.0.0.1:0",
                                       "--metrics-port-file", scratch.file("metrics.port")}));
  const int metrics_port = std::stoi(pathtest::read_text_file(scratch.file("metrics.port")));
  const auto cache_bytes = [&](const std::string& cache) {
    const auto response = pathtest::http_request(metrics_port, "GET", "/metrics");
    return pathtest::parse_prometheus_text(response.body)
        .samples.at("pathfinder_cache_bytes{cache=\"" + cache + "\"}");
  };
  EXPECT_EQ(cache_bytes("anyangle_meshes"), 0);
  Client client = make_client(server);
  constexpr std::uint32_t kSide = 40;
  std::string areas(kSide * kSide, '\x01');
  for (std::uint32_t y = 0; y < kSide; ++y) {
    if (y != 7) areas[y * kSide + 20] = '\0';  // the wall at x = 20, a door at y = 7
  }
  ASSERT_TRUE(client.upload_mask(pathtest::raw_upload("door", kSide, kSide, areas)).ok());
  const pathcore::Mask mask(kSide, kSide, std::vector<std::uint8_t>(areas.begin(), areas.end()));

  const auto first = client.find_path(any_angle_request("door", {2, 30}, {35, 30}));
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first.value.cache_hit());
  // Through the door along the wall's top edge below it: corners (20, 8) in, (21, 8) out.
  const double expected =
      std::hypot(20 - 2.5, 30.5 - 8) + 1.0 + std::hypot(35.5 - 21, 30.5 - 8);
  EXPECT_NEAR(first.value.length(), expected, 1e-9 * expected);
  expect_legal_path(mask, first.value, {2, 30}, {35, 30}, false, "door");

  const double mesh_bytes = cache_bytes("anyangle_meshes");
  EXPECT_GT(mesh_bytes, 0);

  const auto warm = client.find_path(any_angle_request("door", {5, 38}, {35, 30}));
  ASSERT_TRUE(warm.ok());
  EXPECT_TRUE(warm.value.cache_hit()) << "new start: the mesh is cached";
  const auto reference = pathtest::any_angle_shortest_length(mask, pathcore::kAllAreas, {5, 38},
                                                             {35, 30});
  ASSERT_TRUE(reference.has_value());
  EXPECT_NEAR(warm.value.length(), *reference, 1e-9 * *reference);

  const auto new_goal = client.find_path(any_angle_request("door", {5, 38}, {30, 2}));
  ASSERT_TRUE(new_goal.ok());
  EXPECT_TRUE(new_goal.value.cache_hit()) << "nothing is kept per goal: the same mesh";
  EXPECT_EQ(cache_bytes("anyangle_meshes"), mesh_bytes) << "on the same mesh";
  const auto other_rule = client.find_path(any_angle_request("door", {5, 38}, {30, 2}, true));
  ASSERT_TRUE(other_rule.ok());
  EXPECT_FALSE(other_rule.value.cache_hit()) << "the corner rule has its own mesh";
  EXPECT_GT(cache_bytes("anyangle_meshes"), mesh_bytes);

  pb::PatchMaskRequest patch;
  patch.set_name("door");
  patch.set_x(20);
  patch.set_y(20);
  patch.set_width(1);
  patch.set_height(1);
  patch.set_areas(std::string(1, '\x01'));  // a second door, nearer
  ASSERT_TRUE(client.patch_mask(patch).ok());
  EXPECT_EQ(cache_bytes("anyangle_meshes"), 0) << "the old revision's meshes are dropped";
  const auto patched = client.find_path(any_angle_request("door", {5, 38}, {35, 30}));
  ASSERT_TRUE(patched.ok());
  EXPECT_FALSE(patched.value.cache_hit()) << "a new revision builds again";
  EXPECT_EQ(patched.value.mask_revision(), 2U);
  EXPECT_LT(patched.value.length(), warm.value.length());
}

// The project's promise: the same request on the same revision gets the
// same answer, cached or not: the first call on a mesh and the calls after
// it give byte for byte the same answer (cache_hit aside), on
// mirror-symmetric rooms where shortest paths tie, both corner rules and
// with a clearance.
TEST(AnyAngleE2eTest, TheSameRequestColdAndCachedGetsTheSameBytes) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  std::mt19937_64 rng(2122);
  constexpr std::uint32_t kSide = 48;
  std::string areas(kSide * kSide, '\x01');
  std::bernoulli_distribution wall(0.2);
  for (std::uint32_t y = 0; y < kSide; ++y) {
    for (std::uint32_t x = 0; x < kSide / 2; ++x) {
      const char cell = wall(rng) ? '\0' : '\x01';
      areas[y * kSide + x] = cell;
      areas[y * kSide + (kSide - 1 - x)] = cell;  // left-right mirror
    }
  }
  ASSERT_TRUE(client.upload_mask(pathtest::raw_upload("mirror", kSide, kSide, areas)).ok());
  const pathcore::Mask mask(kSide, kSide, std::vector<std::uint8_t>(areas.begin(), areas.end()));
  std::uniform_int_distribution<std::int32_t> coordinate(0, kSide - 1);
  const auto walkable_point = [&] {
    for (;;) {
      const pathcore::Point p{coordinate(rng), coordinate(rng)};
      if (mask.walkable(p, pathcore::kAllAreas)) return p;
    }
  };
  int found = 0;
  for (int round = 0; round < 24; ++round) {
    const pathcore::Point goal = walkable_point();
    // Mirror images of the goal across the axis tie most.
    const pathcore::Point start =
        round % 2 == 0 ? pathcore::Point{static_cast<std::int32_t>(kSide) - 1 - goal.x, goal.y}
                       : walkable_point();
    pb::FindPathRequest request = any_angle_request("mirror", start, goal, round % 3 == 1);
    if (round % 4 == 3) request.set_clearance(1.0);
    const std::string context = "round " + std::to_string(round);
    const auto cold = client.find_path(request);
    ASSERT_TRUE(cold.ok()) << context << ": " << cold.status.error_message();
    pb::FindPathResponse first = cold.value;
    first.clear_cache_hit();
    if (!first.found()) {
      // (An end the clearance leaves unusable: no mesh to wait for.)
      const auto again = client.find_path(request);
      ASSERT_TRUE(again.ok()) << context;
      pb::FindPathResponse answer = again.value;
      answer.clear_cache_hit();  // the usable pixels are cached now
      EXPECT_EQ(answer.SerializeAsString(), first.SerializeAsString()) << context;
      continue;
    }
    ++found;
    // Answered again on the cached mesh.
    bool cached = false;
    ASSERT_TRUE(eventually(
        [&] {
          const auto again = client.find_path(request);
          if (!again.ok()) return false;
          cached = again.value.cache_hit();
          pb::FindPathResponse answer = again.value;
          answer.clear_cache_hit();
          EXPECT_EQ(answer.SerializeAsString(), first.SerializeAsString())
              << context << (cached ? " (cached)" : " (searched again)");
          return cached;
        },
        10s))
        << context;
  }
  EXPECT_GT(found, 12);
}

// Many first calls to one goal at once (one of them builds the mesh, the
// others wait for it): every answer equals the one given later.
TEST(AnyAngleE2eTest, ConcurrentFirstCallsToOneGoalAgreeWithTheCachedAnswers) {
  ServerProcess server(server_options());
  Client uploader = make_client(server);
  std::mt19937_64 rng(2123);
  constexpr std::uint32_t kSide = 64;
  std::string areas(kSide * kSide, '\x01');
  std::bernoulli_distribution wall(0.25);
  for (char& cell : areas) cell = wall(rng) ? '\0' : '\x01';
  ASSERT_TRUE(uploader.upload_mask(pathtest::raw_upload("crowd", kSide, kSide, areas)).ok());
  const pathcore::Mask mask(kSide, kSide, std::vector<std::uint8_t>(areas.begin(), areas.end()));
  std::uniform_int_distribution<std::int32_t> coordinate(0, kSide - 1);
  const auto walkable_point = [&] {
    for (;;) {
      const pathcore::Point p{coordinate(rng), coordinate(rng)};
      if (mask.walkable(p, pathcore::kAllAreas)) return p;
    }
  };
  for (int round = 0; round < 4; ++round) {
    const pathcore::Point goal = walkable_point();
    constexpr int kCallers = 8;
    std::vector<pathcore::Point> starts;
    for (int i = 0; i < kCallers; ++i) starts.push_back(walkable_point());
    std::vector<pb::FindPathResponse> first(kCallers);
    std::vector<grpc::Status> statuses(kCallers);
    std::vector<std::thread> callers;
    for (int i = 0; i < kCallers; ++i) {
      callers.emplace_back([&, i] {
        Client client = make_client(server);
        const auto answer = client.find_path(any_angle_request("crowd", starts[i], goal));
        statuses[i] = answer.status;
        first[i] = answer.value;
      });
    }
    for (std::thread& caller : callers) caller.join();
    for (int i = 0; i < kCallers; ++i) {
      const std::string context = "round " + std::to_string(round) + " caller " +
                                  std::to_string(i);
      ASSERT_TRUE(statuses[i].ok()) << context << ": " << statuses[i].error_message();
      first[i].clear_cache_hit();
      bool cached = false;
      ASSERT_TRUE(eventually(
          [&] {
            const auto again = uploader.find_path(any_angle_request("crowd", starts[i], goal));
            if (!again.ok()) return false;
            cached = again.value.cache_hit() || !again.value.found();
            pb::FindPathResponse answer = again.value;
            answer.clear_cache_hit();
            EXPECT_EQ(answer.SerializeAsString(), first[i].SerializeAsString()) << context;
            return cached;
          },
          10s))
          << context;
    }
  }
}

TEST(AnyAngleE2eTest, SnappingMovesTheEndsToWhatAnyAnglePathsReach) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  // Two rooms joined only at a pinch point: (9, 9) and (10, 10) walkable,
  // (10, 9) and (9, 10) blocked.
  constexpr std::uint32_t kSide = 20;
  std::string areas(kSide * kSide, '\0');
  for (std::uint32_t y = 0; y < kSide; ++y) {
    for (std::uint32_t x = 0; x < kSide; ++x) {
      if ((x < 10 && y < 10) || (x >= 10 && y >= 10)) areas[y * kSide + x] = '\x01';
    }
  }
  ASSERT_TRUE(client.upload_mask(pathtest::raw_upload("pinch", kSide, kSide, areas)).ok());
  const pathcore::Mask mask(kSide, kSide, std::vector<std::uint8_t>(areas.begin(), areas.end()));

  // Without corner cutting the far room is out of reach: no route, or with
  // snapping the reachable pixel nearest to the goal (first in row-major
  // order among equals).
  const pathcore::Point start{2, 2};
  const pathcore::Point goal{15, 12};
  const auto plain = client.find_path(any_angle_request("pinch", start, goal));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain.value.found());
  EXPECT_EQ(plain.value.reason(), pb::PATH_REASON_NO_ROUTE);

  pb::FindPathRequest snap = any_angle_request("pinch", start, goal);
  snap.set_snap_to_reachable(true);
  const auto snapped = client.find_path(snap);
  ASSERT_TRUE(snapped.ok());
  ASSERT_TRUE(snapped.value.found());
  EXPECT_EQ(snapped.value.reason(), pb::PATH_REASON_GOAL_SNAPPED);
  const std::vector<bool> reach = reachable_from(mask, start, false);
  pathcore::Point nearest{-1, -1};
  double best = 1e300;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(kSide); ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(kSide); ++x) {
      const double d = std::hypot(x - goal.x, y - goal.y);
      if (reach[y * kSide + x] && d < best) {
        best = d;
        nearest = {x, y};
      }
    }
  }
  EXPECT_EQ(snapped.value.goal().x(), nearest.x);
  EXPECT_EQ(snapped.value.goal().y(), nearest.y);
  EXPECT_NEAR(snapped.value.goal_snap_distance(), best, 1e-12);
  const auto expected = pathtest::any_angle_shortest_length(mask, pathcore::kAllAreas, start,
                                                            nearest);
  ASSERT_TRUE(expected.has_value());
  EXPECT_NEAR(snapped.value.length(), *expected, 1e-9 * *expected);
  expect_legal_path(mask, snapped.value, start, nearest, false, "snapped");

  // With corner cutting the pinch point lets it through, and bends there.
  const auto cut = client.find_path(any_angle_request("pinch", start, goal, true));
  ASSERT_TRUE(cut.ok());
  ASSERT_TRUE(cut.value.found());
  EXPECT_NEAR(cut.value.length(), std::hypot(7.5, 7.5) + std::hypot(5.5, 2.5), 1e-9);
  expect_legal_path(mask, cut.value, start, goal, true, "cut");

  // A blocked start moves to its nearest walkable pixel.
  pb::FindPathRequest blocked_start = any_angle_request("pinch", {12, 3}, {3, 3});
  blocked_start.set_snap_to_reachable(true);
  const auto moved = client.find_path(blocked_start);
  ASSERT_TRUE(moved.ok());
  ASSERT_TRUE(moved.value.found());
  EXPECT_TRUE(moved.value.start_snapped());
  EXPECT_EQ(moved.value.points(0).x(), 9);
  EXPECT_EQ(moved.value.points(0).y(), 3);
  EXPECT_DOUBLE_EQ(moved.value.length(), 6.0);
}

// A mesh build outlives the call that started it: on a 2048x2048 mask with
// 30% clutter (its mesh takes over a hundred milliseconds), a first call
// with a 50 ms deadline ends DEADLINE_EXCEEDED naming the build and its
// progress, and a later call finds the mesh cached.
TEST(AnyAngleE2eTest, AMeshBuildOutlivesItsCallersDeadline) {
  ServerProcess server(server_options({"--compute-threads", "1"}));
  Client client = make_client(server);
  constexpr std::uint32_t kSide = 2048;
  std::mt19937_64 rng(2049);
  std::bernoulli_distribution wall(0.3);
  std::string areas(std::size_t{kSide} * kSide, '\x01');
  for (char& cell : areas) cell = wall(rng) ? '\0' : '\x01';
  areas[0] = '\x01';
  areas[std::size_t{kSide} * 2 + 2] = '\x01';
  ASSERT_TRUE(client.upload_mask(pathtest::raw_upload("clutter", kSide, kSide, areas)).ok());
  const pb::FindPathRequest request = any_angle_request("clutter", {0, 0}, {2, 2});

  Client hurried = make_client(server, std::chrono::milliseconds(50));
  const auto expired = hurried.find_path(request);
  EXPECT_EQ(expired.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(expired.status.error_message(),
              ::testing::AllOf(::testing::HasSubstr("any-angle structure for mask 'clutter' rev 1"),
                               ::testing::MatchesRegex(".*: ([0-9]+% built|building);.*")));

  bool hit = false;
  ASSERT_TRUE(eventually(
      [&] {
        const auto again = make_client(server, std::chrono::seconds(30)).find_path(request);
        if (!again.ok()) return false;
        hit = again.value.cache_hit();
        return true;
      },
      30s));
  EXPECT_TRUE(hit) << "the build the expired call started was kept";
}

}  // namespace
