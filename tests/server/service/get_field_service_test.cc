// GetField in-process (loopback, port chosen at run time): the streamed
// fields against a brute-force Dijkstra written here, the flow directions
// against it, crop and downsample, the chunking, the cache shared with
// FindPath, and bad input.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cache/field_cache.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"
#include "service/pathfinder_service.h"
#include "store/file_mask_store.h"
#include "support/clearance_reference.h"
#include "support/loopback_service.h"
#include "support/random_mask.h"
#include "support/server_process.h"

namespace pathserver {
namespace {

namespace pb = pathfinding::v1;

constexpr std::size_t kMaxChunkRowBytes = std::size_t{1} << 20;
constexpr std::array<std::pair<int, int>, 8> kSteps = {
    {{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}};  // N .. NW

// An exact grid cost: cardinal part + diagonal part * sqrt 2.
struct Cost {
  std::uint64_t straight = 0;
  std::uint64_t diagonal = 0;
  [[nodiscard]] double value() const {
    return static_cast<double>(straight) + static_cast<double>(diagonal) * std::numbers::sqrt2;
  }
  friend bool operator==(const Cost&, const Cost&) = default;
};

struct Rules {
  pathcore::AreaSet enabled = pathcore::kAllAreas;
  bool eight = false;
  bool corner_cutting = false;
  std::map<std::uint32_t, std::uint32_t> costs;  // unlisted: 1
};

// A legal step from p by (dx, dy) on `walk` (true = walkable): inside,
// walkable, and for a diagonal without corner cutting both cardinal pixels
// beside it walkable.
bool legal(const std::vector<bool>& walk, int width, int height, int x, int y, int dx, int dy,
           const Rules& rules) {
  const int nx = x + dx;
  const int ny = y + dy;
  const auto free = [&](int px, int py) {
    return px >= 0 && py >= 0 && px < width && py < height &&
           walk[static_cast<std::size_t>(py) * width + px];
  };
  if (!free(nx, ny)) return false;
  if (dx != 0 && dy != 0) {
    if (!rules.eight) return false;
    if (!rules.corner_cutting && (!free(nx, y) || !free(x, ny))) return false;
  }
  return true;
}

std::uint64_t entry_cost(const pathcore::Mask& mask, int x, int y, const Rules& rules) {
  const auto it = rules.costs.find(mask.area({x, y}));
  return it == rules.costs.end() ? 1 : it->second;
}

// Textbook Dijkstra from the goal over `walk`: the cheapest cost of a path
// from each pixel to the goal, a step costing the entered pixel's area cost
// (sqrt 2 times for a diagonal). nullopt where the goal cannot be reached.
std::vector<std::optional<Cost>> brute_force(const pathcore::Mask& mask,
                                             const std::vector<bool>& walk, pathcore::Point goal,
                                             const Rules& rules) {
  const int width = static_cast<int>(mask.width());
  const int height = static_cast<int>(mask.height());
  std::vector<std::optional<Cost>> best(walk.size());
  const auto at = [&](int x, int y) { return static_cast<std::size_t>(y) * width + x; };
  if (!walk[at(goal.x, goal.y)]) return best;
  using Item = std::tuple<double, std::uint64_t, std::uint64_t, int, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
  best[at(goal.x, goal.y)] = Cost{};
  open.emplace(0.0, 0, 0, goal.x, goal.y);
  while (!open.empty()) {
    const auto [value, straight, diagonal, x, y] = open.top();
    open.pop();
    const Cost here{straight, diagonal};
    if (!(*best[at(x, y)] == here)) continue;
    // Predecessors q of (x, y): a step q -> (x, y) enters (x, y).
    for (const auto& [dx, dy] : kSteps) {
      const int qx = x - dx;
      const int qy = y - dy;
      if (qx < 0 || qy < 0 || qx >= width || qy >= height || !walk[at(qx, qy)]) continue;
      if (!legal(walk, width, height, qx, qy, dx, dy, rules)) continue;
      Cost via = here;
      (dx != 0 && dy != 0 ? via.diagonal : via.straight) += entry_cost(mask, x, y, rules);
      auto& slot = best[at(qx, qy)];
      if (!slot || via.value() < slot->value()) {
        slot = via;
        open.emplace(via.value(), via.straight, via.diagonal, qx, qy);
      }
    }
  }
  return best;
}

float float_at(const std::string& bytes, std::size_t i) {
  std::uint32_t bits = 0;
  for (int b = 3; b >= 0; --b) bits = (bits << 8) | static_cast<unsigned char>(bytes[i * 4 + b]);
  return std::bit_cast<float>(bits);
}

pb::Rect rect(std::uint32_t x, std::uint32_t y, std::uint32_t width, std::uint32_t height) {
  pb::Rect r;
  r.set_x(x);
  r.set_y(y);
  r.set_width(width);
  r.set_height(height);
  return r;
}

struct Downloaded {
  grpc::Status status;
  std::vector<pb::FieldChunk> chunks;
  std::string distances;  // all rows
  std::string flow;
};

class GetFieldServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<FileMaskStore>(dir_.file("data"));
    service_ = std::make_unique<PathfinderService>(*store_, cache_, ServiceLimits{});
    server_ = std::make_unique<pathtest::LoopbackService>(*service_);
  }

  void TearDown() override {
    server_.reset();
    service_.reset();
  }

  Downloaded download(const pb::GetFieldRequest& request) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    Downloaded out;
    auto reader = server_->stub().GetField(&ctx, request);
    pb::FieldChunk chunk;
    while (reader->Read(&chunk)) {
      out.distances += chunk.distances();
      out.flow += chunk.flow();
      out.chunks.push_back(chunk);
    }
    out.status = reader->Finish();
    return out;
  }

  grpc::Status find(const pb::FindPathRequest& request, pb::FindPathResponse& response) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return server_->stub().FindPath(&ctx, request, &response);
  }

  static pb::GetFieldRequest field_request(const std::string& mask, pathcore::Point goal,
                                           const Rules& rules) {
    pb::GetFieldRequest request;
    request.set_mask(mask);
    request.mutable_goal()->set_x(goal.x);
    request.mutable_goal()->set_y(goal.y);
    request.set_enabled_areas(rules.enabled);
    request.set_connectivity(rules.eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
    request.set_allow_corner_cutting(rules.corner_cutting);
    for (const auto& [area, cost] : rules.costs) (*request.mutable_area_costs())[area] = cost;
    return request;
  }

  // Waits (up to 60 s) until n fields were computed (fills finish after answers).
  FieldCacheStats wait_for_computed(std::uint64_t n) {
    for (int i = 0; i < 6000 && cache_.stats().fields_computed < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return cache_.stats();
  }

  pathtest::TempDir dir_{"pathfinder-get-field-service"};
  FieldCache cache_{std::size_t{1} << 30};
  std::unique_ptr<MaskStore> store_;
  std::unique_ptr<PathfinderService> service_;
  std::unique_ptr<pathtest::LoopbackService> server_;
};

// Checks the chunks' framing: the same size in each, rows in order, each
// chunk's row data within 1 MiB (or one row), every row once.
void expect_framing(const Downloaded& got, std::uint32_t width, std::uint32_t height, bool flow) {
  ASSERT_FALSE(got.chunks.empty());
  std::uint32_t next_row = 0;
  for (const pb::FieldChunk& chunk : got.chunks) {
    EXPECT_EQ(chunk.width(), width);
    EXPECT_EQ(chunk.height(), height);
    EXPECT_EQ(chunk.first_row(), next_row);
    ASSERT_GE(chunk.row_count(), 1U);
    const std::size_t samples = std::size_t{chunk.row_count()} * width;
    EXPECT_EQ(chunk.distances().size(), samples * 4);
    EXPECT_EQ(chunk.flow().size(), flow ? samples : 0);
    const std::size_t row_bytes = chunk.distances().size() + chunk.flow().size();
    EXPECT_TRUE(row_bytes <= kMaxChunkRowBytes || chunk.row_count() == 1) << row_bytes;
    next_row += chunk.row_count();
  }
  EXPECT_EQ(next_row, height);
}

TEST_F(GetFieldServiceTest, FieldsAndFlowsMatchABruteForceDijkstraOnRandomMaps) {
  std::mt19937_64 rng(2311);
  for (int round = 0; round < 40; ++round) {
    const auto width = static_cast<std::uint32_t>(std::uniform_int_distribution(1, 40)(rng));
    const auto height = static_cast<std::uint32_t>(std::uniform_int_distribution(1, 40)(rng));
    const double obstacles = std::uniform_real_distribution(0.0, 0.4)(rng);
    const pathcore::Mask mask = pathtest::random_mask(rng, width, height, obstacles, 4);
    const std::string name = "random-" + std::to_string(round);
    store_->put(name, pathcore::Mask(mask));
    Rules rules;
    rules.eight = round % 2 == 1;
    rules.corner_cutting = round % 4 == 3;
    if (round % 3 == 0) rules.costs = {{2, 3}, {3, 17}};
    if (round % 5 == 1) rules.enabled = 0b1110;  // areas 1..3
    const double clearance = round % 7 == 2 ? 1.25 : 0.0;
    const pathcore::Point goal = pathtest::random_point(rng, mask);
    SCOPED_TRACE(name + " eight " + std::to_string(rules.eight) + " cut " +
                 std::to_string(rules.corner_cutting) + " clearance " + std::to_string(clearance));

    std::vector<bool> walk(mask.pixel_count());
    if (clearance > 0) {
      walk = pathtest::reference_usable(mask, rules.enabled, clearance);
    } else {
      for (std::size_t i = 0; i < walk.size(); ++i)
        walk[i] = (rules.enabled >> mask.areas()[i]) & 1U;
    }
    const auto expected = brute_force(mask, walk, goal, rules);

    pb::GetFieldRequest request = field_request(name, goal, rules);
    request.set_clearance(clearance);
    request.set_include_flow(true);
    const Downloaded got = download(request);
    ASSERT_TRUE(got.status.ok()) << got.status.error_message();
    expect_framing(got, width, height, true);
    ASSERT_EQ(got.distances.size(), mask.pixel_count() * 4);
    ASSERT_EQ(got.flow.size(), mask.pixel_count());
    EXPECT_EQ(got.chunks.front().mask_revision(), 1U);

    const int w = static_cast<int>(width);
    for (int y = 0; y < static_cast<int>(height); ++y) {
      for (int x = 0; x < w; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * w + x;
        const float value = float_at(got.distances, i);
        const auto flow = static_cast<std::uint8_t>(got.flow[i]);
        SCOPED_TRACE("pixel (" + std::to_string(x) + ", " + std::to_string(y) + ")");
        if (!expected[i]) {
          EXPECT_TRUE(std::isinf(value) && value > 0);
          EXPECT_EQ(flow, 0);
          continue;
        }
        // Bitwise: float32 of the exact cost.
        EXPECT_EQ(std::bit_cast<std::uint32_t>(value),
                  std::bit_cast<std::uint32_t>(static_cast<float>(expected[i]->value())));
        if (x == goal.x && y == goal.y) {
          EXPECT_EQ(flow, 0);
          continue;
        }
        ASSERT_GE(flow, 1);
        ASSERT_LE(flow, 8);
        // The tie rule: the first direction (N .. NW) of a legal step whose
        // cost plus the neighbour's equals this pixel's.
        std::uint8_t first = 0;
        for (std::size_t d = 0; d < kSteps.size() && first == 0; ++d) {
          const auto [dx, dy] = kSteps[d];
          if (!legal(walk, w, static_cast<int>(height), x, y, dx, dy, rules)) continue;
          const std::size_t n = static_cast<std::size_t>(y + dy) * w + (x + dx);
          if (!expected[n]) continue;
          Cost via = *expected[n];
          (dx != 0 && dy != 0 ? via.diagonal : via.straight) +=
              entry_cost(mask, x + dx, y + dy, rules);
          if (via == *expected[i]) first = static_cast<std::uint8_t>(d + 1);
        }
        EXPECT_EQ(flow, first);
      }
    }
    // Following the flow from every reachable pixel reaches the goal with
    // legal steps whose costs add up to the pixel's value.
    for (int y = 0; y < static_cast<int>(height); ++y) {
      for (int x = 0; x < w; ++x) {
        const std::size_t start = static_cast<std::size_t>(y) * w + x;
        if (!expected[start]) continue;
        int px = x;
        int py = y;
        double walked = 0;
        for (std::size_t steps = 0; steps <= mask.pixel_count(); ++steps) {
          const std::size_t i = static_cast<std::size_t>(py) * w + px;
          const auto flow = static_cast<std::uint8_t>(got.flow[i]);
          if (flow == 0) break;
          const auto [dx, dy] = kSteps[flow - 1];
          ASSERT_TRUE(legal(walk, w, static_cast<int>(height), px, py, dx, dy, rules));
          px += dx;
          py += dy;
          walked += static_cast<double>(entry_cost(mask, px, py, rules)) *
                    (dx != 0 && dy != 0 ? std::numbers::sqrt2 : 1.0);
        }
        ASSERT_EQ(px, goal.x);
        ASSERT_EQ(py, goal.y);
        EXPECT_NEAR(walked, float_at(got.distances, start), 1e-4 * std::max(1.0, walked));
      }
    }
  }
}

TEST_F(GetFieldServiceTest, CropAndDownsampleSelectTheRightSamples) {
  std::mt19937_64 rng(77);
  const pathcore::Mask mask = pathtest::random_mask(rng, 37, 29, 0.25, 3);
  store_->put("crop", pathcore::Mask(mask));
  const pathcore::Point goal = pathtest::random_point(rng, mask);
  Rules rules;
  rules.eight = true;
  pb::GetFieldRequest whole_request = field_request("crop", goal, rules);
  whole_request.set_include_flow(true);
  const Downloaded whole = download(whole_request);
  ASSERT_TRUE(whole.status.ok()) << whole.status.error_message();

  struct Case {
    std::uint32_t x, y, width, height, downsample;
  };
  for (const Case c : {Case{0, 0, 37, 29, 1}, Case{3, 4, 10, 7, 0}, Case{3, 4, 10, 7, 3},
                       Case{36, 28, 1, 1, 5}, Case{0, 0, 37, 29, 4}, Case{5, 0, 32, 29, 100}}) {
    SCOPED_TRACE(std::to_string(c.x) + "," + std::to_string(c.y) + " " + std::to_string(c.width) +
                 "x" + std::to_string(c.height) + " /" + std::to_string(c.downsample));
    pb::GetFieldRequest request = whole_request;
    request.mutable_crop()->set_x(c.x);
    request.mutable_crop()->set_y(c.y);
    request.mutable_crop()->set_width(c.width);
    request.mutable_crop()->set_height(c.height);
    request.set_downsample(c.downsample);
    const Downloaded got = download(request);
    ASSERT_TRUE(got.status.ok()) << got.status.error_message();
    const std::uint32_t step = std::max<std::uint32_t>(c.downsample, 1);
    const std::uint32_t width = (c.width + step - 1) / step;
    const std::uint32_t height = (c.height + step - 1) / step;
    expect_framing(got, width, height, true);
    EXPECT_TRUE(got.chunks.front().cache_hit());
    for (std::uint32_t row = 0; row < height; ++row) {
      for (std::uint32_t column = 0; column < width; ++column) {
        const std::size_t source =
            std::size_t{c.y + row * step} * mask.width() + c.x + column * step;
        const std::size_t sample = std::size_t{row} * width + column;
        EXPECT_EQ(got.distances.substr(sample * 4, 4), whole.distances.substr(source * 4, 4));
        EXPECT_EQ(got.flow[sample], whole.flow[source]);
      }
    }
  }
}

TEST_F(GetFieldServiceTest, ChunksHoldAtMostOneMebibyteOfRowsOrOneRow) {
  // 700 x 700 with flow: 3,500 bytes a row, 299 rows a chunk, three chunks.
  store_->put("square", pathcore::Mask(700, 700, std::vector<std::uint8_t>(700 * 700, 1)));
  Rules rules;
  pb::GetFieldRequest request = field_request("square", {350, 350}, rules);
  request.set_include_flow(true);
  Downloaded got = download(request);
  ASSERT_TRUE(got.status.ok()) << got.status.error_message();
  expect_framing(got, 700, 700, true);
  EXPECT_EQ(got.chunks.size(), 3U);
  // Four-connected open square: the cost is the Manhattan distance.
  for (std::uint32_t y = 0; y < 700; y += 37) {
    for (std::uint32_t x = 0; x < 700; x += 41) {
      const int manhattan =
          std::abs(static_cast<int>(x) - 350) + std::abs(static_cast<int>(y) - 350);
      EXPECT_EQ(float_at(got.distances, std::size_t{y} * 700 + x), static_cast<float>(manhattan));
    }
  }
  // One row of 300,000 samples is 1.2 MB: each chunk is then a single row.
  store_->put("long", pathcore::Mask(300'000, 2, std::vector<std::uint8_t>(600'000, 1)));
  got = download(field_request("long", {0, 0}, rules));
  ASSERT_TRUE(got.status.ok()) << got.status.error_message();
  expect_framing(got, 300'000, 2, false);
  EXPECT_EQ(got.chunks.size(), 2U);
  EXPECT_EQ(float_at(got.distances, 300'000 + 299'999), 300'000.0F);
}

TEST_F(GetFieldServiceTest, GetFieldAndFindPathShareTheFieldCache) {
  // A wall with a gap, so FindPath cannot answer by a straight line.
  std::vector<std::uint8_t> areas(64 * 64, 1);
  for (int y = 0; y < 60; ++y) areas[static_cast<std::size_t>(y) * 64 + 32] = 0;
  store_->put("wall", pathcore::Mask(64, 64, areas));
  Rules rules;
  rules.eight = true;
  // GetField first (cold), then FindPath to the same goal with the same options.
  Downloaded got = download(field_request("wall", {60, 5}, rules));
  ASSERT_TRUE(got.status.ok()) << got.status.error_message();
  EXPECT_FALSE(got.chunks.front().cache_hit());
  pb::FindPathRequest find_request;
  find_request.set_mask("wall");
  find_request.mutable_start()->set_x(2);
  find_request.mutable_start()->set_y(5);
  find_request.mutable_goal()->set_x(60);
  find_request.mutable_goal()->set_y(5);
  find_request.set_connectivity(pb::CONNECTIVITY_EIGHT);
  find_request.set_smoothing(pb::SMOOTHING_NONE);
  pb::FindPathResponse found;
  ASSERT_TRUE(find(find_request, found).ok());
  EXPECT_TRUE(found.found());
  EXPECT_TRUE(found.cache_hit());
  ASSERT_TRUE(found.has_grid_cost());
  EXPECT_EQ(float_at(got.distances, 5 * 64 + 2), static_cast<float>(found.grid_cost()));
  EXPECT_EQ(cache_.stats().fields_computed, 1U);

  // FindPath first (cold), then GetField: streamed from the cache.
  find_request.mutable_goal()->set_x(61);
  ASSERT_TRUE(find(find_request, found).ok());
  EXPECT_FALSE(found.cache_hit());
  wait_for_computed(2);
  got = download(field_request("wall", {61, 5}, rules));
  ASSERT_TRUE(got.status.ok()) << got.status.error_message();
  EXPECT_TRUE(got.chunks.front().cache_hit());
  EXPECT_EQ(float_at(got.distances, 5 * 64 + 2), static_cast<float>(found.grid_cost()));
  EXPECT_EQ(cache_.stats().fields_computed, 2U);

  // Clearance: the field of the usable mask, cached under the clearance too.
  pb::GetFieldRequest wide = field_request("wall", {61, 5}, rules);
  wide.set_clearance(1.5);
  got = download(wide);
  ASSERT_TRUE(got.status.ok()) << got.status.error_message();
  EXPECT_FALSE(got.chunks.front().cache_hit());
  got = download(wide);
  EXPECT_TRUE(got.chunks.front().cache_hit());
}

TEST_F(GetFieldServiceTest, AnUnwalkableGoalIsUnreachableEverywhere) {
  std::vector<std::uint8_t> areas(8 * 4, 1);
  areas[2 * 8 + 3] = 0;
  store_->put("holed", pathcore::Mask(8, 4, areas));
  pb::GetFieldRequest request = field_request("holed", {3, 2}, Rules{});
  request.set_include_flow(true);
  const Downloaded got = download(request);
  ASSERT_TRUE(got.status.ok()) << got.status.error_message();
  for (std::size_t i = 0; i < 32; ++i) {
    EXPECT_TRUE(std::isinf(float_at(got.distances, i)));
    EXPECT_EQ(got.flow[i], 0);
  }
}

TEST_F(GetFieldServiceTest, BadInputIsRefusedNamingTheField) {
  store_->put("small", pathcore::Mask(10, 6, std::vector<std::uint8_t>(60, 1)));
  const pb::GetFieldRequest good = field_request("small", {1, 1}, Rules{});
  ASSERT_TRUE(download(good).status.ok());
  struct Bad {
    std::string what;
    std::function<void(pb::GetFieldRequest&)> change;
    grpc::StatusCode code;
    std::string names;
  };
  const std::vector<Bad> cases = {
      {"goal outside", [](auto& r) { r.mutable_goal()->set_x(10); },
       grpc::StatusCode::INVALID_ARGUMENT, "goal:"},
      {"goal negative", [](auto& r) { r.mutable_goal()->set_y(-1); },
       grpc::StatusCode::INVALID_ARGUMENT, "goal:"},
      {"goal unset", [](auto& r) { r.clear_goal(); }, grpc::StatusCode::INVALID_ARGUMENT, "goal:"},
      {"crop outside", [](auto& r) { *r.mutable_crop() = rect(5, 0, 6, 1); },
       grpc::StatusCode::INVALID_ARGUMENT, "crop:"},
      {"crop huge", [](auto& r) { *r.mutable_crop() = rect(0xFFFFFFFFU, 0, 2, 1); },
       grpc::StatusCode::INVALID_ARGUMENT, "crop:"},
      {"crop zero width", [](auto& r) { *r.mutable_crop() = rect(1, 1, 0, 3); },
       grpc::StatusCode::INVALID_ARGUMENT, "crop:"},
      {"crop only x", [](auto& r) { *r.mutable_crop() = rect(1, 0, 0, 0); },
       grpc::StatusCode::INVALID_ARGUMENT, "crop:"},
      {"connectivity", [](auto& r) { r.set_connectivity(static_cast<pb::Connectivity>(9)); },
       grpc::StatusCode::INVALID_ARGUMENT, "connectivity:"},
      {"area 0 cost", [](auto& r) { (*r.mutable_area_costs())[0] = 2; },
       grpc::StatusCode::INVALID_ARGUMENT, "area_costs:"},
      {"area 64 cost", [](auto& r) { (*r.mutable_area_costs())[64] = 2; },
       grpc::StatusCode::INVALID_ARGUMENT, "area_costs:"},
      {"cost 0", [](auto& r) { (*r.mutable_area_costs())[1] = 0; },
       grpc::StatusCode::INVALID_ARGUMENT, "area_costs:"},
      {"cost 256", [](auto& r) { (*r.mutable_area_costs())[1] = 256; },
       grpc::StatusCode::INVALID_ARGUMENT, "area_costs:"},
      {"clearance negative", [](auto& r) { r.set_clearance(-1); },
       grpc::StatusCode::INVALID_ARGUMENT, "clearance:"},
      {"clearance NaN", [](auto& r) { r.set_clearance(std::nan("")); },
       grpc::StatusCode::INVALID_ARGUMENT, "clearance:"},
      {"clearance inf", [](auto& r) { r.set_clearance(INFINITY); },
       grpc::StatusCode::INVALID_ARGUMENT, "clearance:"},
      {"area 0 only", [](auto& r) { r.set_enabled_areas(1); }, grpc::StatusCode::INVALID_ARGUMENT,
       "enabled_areas:"},
      {"bad name", [](auto& r) { r.set_mask("../x"); }, grpc::StatusCode::INVALID_ARGUMENT,
       "mask:"},
      {"missing", [](auto& r) { r.set_mask("nope"); }, grpc::StatusCode::NOT_FOUND, "nope"},
      {"revision", [](auto& r) { r.set_expected_revision(7); },
       grpc::StatusCode::FAILED_PRECONDITION, "expected_revision:"},
  };
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.what);
    pb::GetFieldRequest request = good;
    bad.change(request);
    const Downloaded got = download(request);
    EXPECT_EQ(got.status.error_code(), bad.code) << got.status.error_message();
    EXPECT_NE(got.status.error_message().find(bad.names), std::string::npos)
        << got.status.error_message();
    EXPECT_TRUE(got.chunks.empty());
  }
  // The current revision is accepted.
  pb::GetFieldRequest current = good;
  current.set_expected_revision(1);
  EXPECT_TRUE(download(current).status.ok());
}

}  // namespace
}  // namespace pathserver
