// End-to-end tests of the pathfinder server through the C++ client library.
// Each test starts the real server binary on 127.0.0.1 with its own data dir
// and checks the wire contract of docs/api.md. Every expectation is computed
// here, independently of core and server (BFS, Dijkstra, Bresenham, sha256sum).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pathcore/codec.h"
#include "pathcore/mask.h"
#include "pathfinder/client.h"
#include "support/raw_upload.h"
#include "support/server_process.h"

namespace {

namespace pb = pathfinding::v1;
using pathfinder::Client;
using pathtest::ServerOptions;
using pathtest::ServerProcess;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------
// Independent grid model and reference algorithms.

struct Grid {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> areas;  // row-major area ids

  Grid(std::uint32_t w, std::uint32_t h, std::uint8_t fill = 0)
      : width(w), height(h), areas(static_cast<std::size_t>(w) * h, fill) {}

  [[nodiscard]] bool inside(int x, int y) const {
    return x >= 0 && y >= 0 && x < static_cast<int>(width) && y < static_cast<int>(height);
  }
  [[nodiscard]] std::size_t index(int x, int y) const {
    return static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x);
  }
  [[nodiscard]] std::uint8_t at(int x, int y) const { return areas[index(x, y)]; }
  void set(int x, int y, std::uint8_t area) { areas[index(x, y)] = area; }
  void fill_rect(int x0, int y0, int x1, int y1, std::uint8_t area) {  // inclusive
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        set(x, y, area);
      }
    }
  }
  // enabled: the request's bit set (0 = all); area 0 is never walkable.
  [[nodiscard]] bool walkable(int x, int y, std::uint64_t enabled = 0) const {
    if (!inside(x, y)) {
      return false;
    }
    const std::uint8_t area = at(x, y);
    if (area == 0) {
      return false;
    }
    return enabled == 0 || ((enabled >> area) & 1U) != 0;
  }
  [[nodiscard]] std::string bytes() const { return std::string(areas.begin(), areas.end()); }
  [[nodiscard]] std::uint64_t walkable_count() const {
    return static_cast<std::uint64_t>(
        std::count_if(areas.begin(), areas.end(), [](std::uint8_t a) { return a != 0; }));
  }
  [[nodiscard]] std::uint64_t areas_present() const {
    std::uint64_t present = 0;
    for (const auto a : areas) {
      present |= std::uint64_t{1} << a;
    }
    return present;
  }
};

// Binary PGM (P5, maxval 255) whose grey value is the area id.
std::string pgm_bytes(const Grid& grid) {
  return "P5\n" + std::to_string(grid.width) + " " + std::to_string(grid.height) + "\n255\n" +
         grid.bytes();
}

// A perfect maze of cw x ch cells (corridors of area 1) with a few open rooms
// of area 2 carved into it, so smoothing has room to work.
Grid maze(int cw, int ch, std::uint64_t seed) {
  Grid grid(static_cast<std::uint32_t>(2 * cw + 1), static_cast<std::uint32_t>(2 * ch + 1));
  std::mt19937_64 rng(seed);
  std::vector<bool> visited(static_cast<std::size_t>(cw) * ch, false);
  std::vector<std::pair<int, int>> stack{{0, 0}};
  visited[0] = true;
  grid.set(1, 1, 1);
  const int dx[] = {1, -1, 0, 0};
  const int dy[] = {0, 0, 1, -1};
  while (!stack.empty()) {
    const auto [cx, cy] = stack.back();
    std::vector<int> options;
    for (int d = 0; d < 4; ++d) {
      const int nx = cx + dx[d];
      const int ny = cy + dy[d];
      if (nx >= 0 && ny >= 0 && nx < cw && ny < ch &&
          !visited[static_cast<std::size_t>(ny) * cw + nx]) {
        options.push_back(d);
      }
    }
    if (options.empty()) {
      stack.pop_back();
      continue;
    }
    const int d = options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(rng)];
    const int nx = cx + dx[d];
    const int ny = cy + dy[d];
    visited[static_cast<std::size_t>(ny) * cw + nx] = true;
    grid.set(2 * cx + 1 + dx[d], 2 * cy + 1 + dy[d], 1);
    grid.set(2 * nx + 1, 2 * ny + 1, 1);
    stack.emplace_back(nx, ny);
  }
  const int w = static_cast<int>(grid.width);
  const int h = static_cast<int>(grid.height);
  grid.fill_rect(w / 6, h / 5, w / 6 + w / 4, h / 5 + h / 4, 2);
  grid.fill_rect(w / 2 + 2, h / 2 + 1, w / 2 + 2 + w / 4, h / 2 + 1 + h / 4, 2);
  return grid;
}

struct P {
  int x = 0;
  int y = 0;
  friend bool operator==(const P&, const P&) = default;
};

std::ostream& operator<<(std::ostream& out, const P& p) {
  return out << "(" << p.x << "," << p.y << ")";
}

P to_p(const pb::Point& point) { return {point.x(), point.y()}; }

// Four-neighbour BFS distances from `from`; -1 where unreachable.
std::vector<int> bfs4(const Grid& grid, P from, std::uint64_t enabled = 0) {
  std::vector<int> distance(grid.areas.size(), -1);
  if (!grid.walkable(from.x, from.y, enabled)) {
    return distance;
  }
  std::deque<P> queue{from};
  distance[grid.index(from.x, from.y)] = 0;
  const int dx[] = {1, -1, 0, 0};
  const int dy[] = {0, 0, 1, -1};
  while (!queue.empty()) {
    const P p = queue.front();
    queue.pop_front();
    for (int d = 0; d < 4; ++d) {
      const int nx = p.x + dx[d];
      const int ny = p.y + dy[d];
      if (grid.walkable(nx, ny, enabled) && distance[grid.index(nx, ny)] < 0) {
        distance[grid.index(nx, ny)] = distance[grid.index(p.x, p.y)] + 1;
        queue.push_back({nx, ny});
      }
    }
  }
  return distance;
}

// Dijkstra from `from`: entering a pixel of area a costs costs[a] (1 when
// unlisted), times sqrt 2 for a diagonal step. eight without corner cutting:
// a diagonal step needs both cardinal neighbours walkable. Infinity = unreachable.
std::vector<double> dijkstra(const Grid& grid, P from, std::uint64_t enabled, bool eight,
                             const std::map<std::uint32_t, std::uint32_t>& costs) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> distance(grid.areas.size(), inf);
  if (!grid.walkable(from.x, from.y, enabled)) {
    return distance;
  }
  using Item = std::pair<double, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  distance[grid.index(from.x, from.y)] = 0;
  queue.emplace(0.0, grid.index(from.x, from.y));
  while (!queue.empty()) {
    const auto [d, i] = queue.top();
    queue.pop();
    if (d > distance[i]) {
      continue;
    }
    const int x = static_cast<int>(i % grid.width);
    const int y = static_cast<int>(i / grid.width);
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dx == 0 && dy == 0) || (!eight && dx != 0 && dy != 0)) {
          continue;
        }
        const int nx = x + dx;
        const int ny = y + dy;
        if (!grid.walkable(nx, ny, enabled)) {
          continue;
        }
        const bool diagonal = dx != 0 && dy != 0;
        if (diagonal &&
            (!grid.walkable(x + dx, y, enabled) || !grid.walkable(x, y + dy, enabled))) {
          continue;
        }
        const auto found = costs.find(grid.at(nx, ny));
        const double step_cost = found == costs.end() ? 1.0 : static_cast<double>(found->second);
        const double next = d + step_cost * (diagonal ? std::sqrt(2.0) : 1.0);
        const std::size_t j = grid.index(nx, ny);
        if (next < distance[j] - 1e-12) {
          distance[j] = next;
          queue.emplace(next, j);
        }
      }
    }
  }
  return distance;
}

// Classic all-octant Bresenham from a to b inclusive.
std::vector<P> bresenham(P a, P b) {
  std::vector<P> line;
  const int dx = std::abs(b.x - a.x);
  const int sx = a.x < b.x ? 1 : -1;
  const int dy = -std::abs(b.y - a.y);
  const int sy = a.y < b.y ? 1 : -1;
  int error = dx + dy;
  P p = a;
  while (true) {
    line.push_back(p);
    if (p == b) {
      break;
    }
    const int e2 = 2 * error;
    if (e2 >= dy) {
      error += dy;
      p.x += sx;
    }
    if (e2 <= dx) {
      error += dx;
      p.y += sy;
    }
  }
  return line;
}

double polyline_length(const std::vector<P>& points) {
  double length = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    length += std::hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y);
  }
  return length;
}

std::vector<P> points_of(const pb::FindPathResponse& response) {
  std::vector<P> points;
  for (const auto& point : response.points()) {
    points.push_back(to_p(point));
  }
  return points;
}

// The invariants of a found path (docs/design.md): ends, walkable segments, length.
void expect_path_invariants(const Grid& grid, const pb::FindPathRequest& request,
                            const pb::FindPathResponse& response) {
  ASSERT_TRUE(response.found());
  const auto points = points_of(response);
  ASSERT_FALSE(points.empty());
  EXPECT_EQ(points.front(), to_p(request.start()));
  EXPECT_EQ(points.back(), to_p(request.goal()));
  EXPECT_EQ(to_p(response.goal()), to_p(request.goal()));
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    for (const P& p : bresenham(points[i], points[i + 1])) {
      ASSERT_TRUE(grid.walkable(p.x, p.y, request.enabled_areas()))
          << "segment " << points[i] << " -> " << points[i + 1] << " crosses " << p;
    }
  }
  EXPECT_NEAR(response.length(), polyline_length(points), 1e-6);
}

// Hex sha256 of bytes, by the sha256sum tool (independent of core's OpenSSL call).
std::string sha256_hex(const std::string& bytes) {
  pathtest::TempDir dir("pathfinder-sha");
  const std::string path = dir.file("grid");
  pathtest::write_file(path, bytes);
  const auto result = pathtest::run_command({"sha256sum", path});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out.substr(0, 64);
}

pb::UploadMaskRequest pgm_upload(const std::string& name, const Grid& grid) {
  pb::UploadMaskRequest request;
  request.set_name(name);
  request.set_image(pgm_bytes(grid));
  return request;  // format and rule left to sniffing / auto (grey = INDEX)
}

pb::UploadMaskRequest raw_upload(const std::string& name, const Grid& grid) {
  return pathtest::raw_upload(name, grid.width, grid.height, grid.bytes());
}

pb::FindPathRequest find_request(const std::string& mask, P start, P goal,
                                 pb::Smoothing smoothing = pb::SMOOTHING_UNSPECIFIED) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  *request.mutable_start() = pathfinder::make_point(start.x, start.y);
  *request.mutable_goal() = pathfinder::make_point(goal.x, goal.y);
  request.set_smoothing(smoothing);
  return request;
}

// Status checks that evaluate the call exactly once (calls have side effects).
template <class T>
::testing::AssertionResult IsOk(const pathfinder::Result<T>& result) {
  if (result.ok()) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << pathfinder::status_code_name(result.status.error_code())
                                       << ": " << result.status.error_message();
}

template <class T>
::testing::AssertionResult HasCode(const pathfinder::Result<T>& result, grpc::StatusCode code) {
  if (result.status.error_code() == code) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "expected " << pathfinder::status_code_name(code) << ", got "
         << pathfinder::status_code_name(result.status.error_code()) << ": "
         << result.status.error_message();
}

#define ASSERT_OK(expr) ASSERT_TRUE(IsOk(expr))
#define EXPECT_CODE(expr, code) EXPECT_TRUE(HasCode((expr), grpc::StatusCode::code))

// ---------------------------------------------------------------------------
// Fixture: one fresh server (and data dir) per test.

class ServerE2eTest : public ::testing::Test {
 protected:
  void SetUp() override { start_server({}); }

  void TearDown() override {
    if (HasFailure() && server_) {
      std::cerr << "---- server output ----\n" << server_->log() << "-----------------------\n";
    }
    client_.reset();
    server_.reset();
  }

  void start_server(std::vector<std::string> extra_args, std::string data_dir = "") {
    client_.reset();
    server_.reset();
    ServerOptions options;
    options.binary = PATHFINDER_SERVER_BIN;
    options.extra_args = std::move(extra_args);
    options.data_dir = std::move(data_dir);
    server_ = std::make_unique<ServerProcess>(options);
    connect();
  }

  void connect() { client_ = std::make_unique<Client>(server_->target()); }

  // Uploads or fails the test; returns the MaskInfo.
  pb::MaskInfo upload(const pb::UploadMaskRequest& request) {
    auto result = client_->upload_mask(request);
    EXPECT_TRUE(result.ok()) << pathfinder::status_code_name(result.status.error_code()) << ": "
                             << result.status.error_message();
    return result.value;
  }

  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<Client> client_;
};

// ---------------------------------------------------------------------------
// Upload, get, list, delete.

TEST_F(ServerE2eTest, UploadPgmReportsMaskInfo) {
  Grid grid(7, 5, 1);
  grid.fill_rect(2, 0, 2, 3, 0);
  grid.fill_rect(4, 1, 6, 4, 3);
  const auto result = client_->upload_mask(pgm_upload("level/one", grid));
  ASSERT_OK(result);
  const pb::MaskInfo& info = result.value;
  EXPECT_EQ(info.name(), "level/one");
  EXPECT_EQ(info.revision(), 1U);
  EXPECT_EQ(info.width(), 7U);
  EXPECT_EQ(info.height(), 5U);
  EXPECT_EQ(info.walkable_pixels(), grid.walkable_count());
  EXPECT_EQ(info.areas_present(), grid.areas_present());
  EXPECT_EQ(info.sha256(), sha256_hex(grid.bytes()));
}

TEST_F(ServerE2eTest, SameLevelAsPgmRawAndPngHasTheSameDigest) {
  const Grid grid = maze(6, 4, 7);
  const std::string expected = sha256_hex(grid.bytes());

  const auto pgm = upload(pgm_upload("as-pgm", grid));
  const auto raw = upload(raw_upload("as-raw", grid));
  EXPECT_EQ(pgm.sha256(), expected);
  EXPECT_EQ(raw.sha256(), expected);

  pb::UploadMaskRequest png;
  png.set_name("as-png");
  const auto png_bytes =
      pathcore::encode_png_areas(pathcore::Mask(grid.width, grid.height, grid.areas));
  png.set_image(std::string(png_bytes.begin(), png_bytes.end()));
  const auto sniffed = upload(png);  // format sniffed, rule auto (grey = index)
  EXPECT_EQ(sniffed.sha256(), expected);
  EXPECT_EQ(sniffed.width(), grid.width);
  EXPECT_EQ(sniffed.height(), grid.height);

  png.set_name("as-png-explicit");
  png.set_format(pb::MASK_FORMAT_PNG);
  png.set_rule(pb::PIXEL_RULE_INDEX);
  EXPECT_EQ(upload(png).sha256(), expected);
}

TEST_F(ServerE2eTest, UploadAboveTheDefaultFourMebibyteLimitSucceeds) {
  Grid grid(2500, 2000, 1);  // 5,000,000 bytes
  grid.fill_rect(1000, 0, 1000, 1998, 0);
  const auto result = client_->upload_mask(raw_upload("big", grid));
  ASSERT_OK(result);
  EXPECT_EQ(result.value.walkable_pixels(), grid.walkable_count());
  EXPECT_EQ(result.value.sha256(), sha256_hex(grid.bytes()));
}

TEST_F(ServerE2eTest, GetReturnsWhatUploadReported) {
  const Grid grid = maze(5, 5, 3);
  const auto uploaded = upload(pgm_upload("maze", grid));
  const auto got = client_->get_mask("maze");
  ASSERT_OK(got);
  EXPECT_EQ(got.value.SerializeAsString(), uploaded.SerializeAsString());
}

TEST_F(ServerE2eTest, ListIsOrderedByName) {
  const std::vector<std::string> names{"zeta", "alpha", "mid/level-1", "Beta", "mid.level"};
  Grid grid(3, 3, 1);
  for (const auto& name : names) {
    upload(raw_upload(name, grid));
  }
  const auto list = client_->list_masks();
  ASSERT_OK(list);
  std::vector<std::string> listed;
  for (const auto& info : list.value.masks()) {
    listed.push_back(info.name());
    EXPECT_EQ(info.revision(), 1U);
    EXPECT_EQ(info.width(), 3U);
  }
  auto expected = names;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(listed, expected);
}

TEST_F(ServerE2eTest, ListIsEmptyOnAFreshServer) {
  const auto list = client_->list_masks();
  ASSERT_OK(list);
  EXPECT_EQ(list.value.masks_size(), 0);
}

TEST_F(ServerE2eTest, DeleteRemovesTheMask) {
  Grid grid(4, 4, 1);
  upload(raw_upload("keep", grid));
  upload(raw_upload("drop", grid));
  ASSERT_OK(client_->delete_mask("drop"));
  EXPECT_CODE(client_->get_mask("drop"), NOT_FOUND);
  EXPECT_CODE(client_->find_path(find_request("drop", {0, 0}, {3, 3})), NOT_FOUND);
  EXPECT_CODE(client_->delete_mask("drop"), NOT_FOUND);
  const auto list = client_->list_masks();
  ASSERT_OK(list);
  ASSERT_EQ(list.value.masks_size(), 1);
  EXPECT_EQ(list.value.masks(0).name(), "keep");
}

TEST_F(ServerE2eTest, ReplacingAMaskIncrementsRevisionAndChangesAnswers) {
  Grid open(20, 10, 1);
  const auto first = upload(pgm_upload("room", open));
  EXPECT_EQ(first.revision(), 1U);
  const auto request = find_request("room", {0, 5}, {19, 5}, pb::SMOOTHING_NONE);
  auto before = client_->find_path(request);
  ASSERT_OK(before);
  EXPECT_EQ(before.value.cost(), 19);
  EXPECT_EQ(before.value.mask_revision(), 1U);

  Grid walled = open;
  walled.fill_rect(10, 1, 10, 9, 0);  // a wall with a gap in row 0
  const auto second = upload(pgm_upload("room", walled));
  EXPECT_EQ(second.revision(), 2U);
  EXPECT_NE(second.sha256(), first.sha256());
  EXPECT_EQ(second.sha256(), sha256_hex(walled.bytes()));
  EXPECT_EQ(client_->get_mask("room").value.revision(), 2U);

  auto after = client_->find_path(request);
  ASSERT_OK(after);
  EXPECT_EQ(after.value.mask_revision(), 2U);
  const int expected = bfs4(walled, {0, 5})[walled.index(19, 5)];
  EXPECT_EQ(after.value.cost(), expected);
  expect_path_invariants(walled, request, after.value);
}

// ---------------------------------------------------------------------------
// FindPath.

class FindPathE2eTest : public ServerE2eTest {
 protected:
  void SetUp() override {
    ServerE2eTest::SetUp();
    grid_ = std::make_unique<Grid>(maze(30, 20, 42));
    upload(pgm_upload("maze", *grid_));
  }
  std::unique_ptr<Grid> grid_;
};

TEST_F(FindPathE2eTest, RawPathIsAnOptimalFourConnectedGridPath) {
  const P start{1, 1};
  const P goal{static_cast<int>(grid_->width) - 2, static_cast<int>(grid_->height) - 2};
  const auto request = find_request("maze", start, goal, pb::SMOOTHING_NONE);
  const auto result = client_->find_path(request);
  ASSERT_OK(result);
  expect_path_invariants(*grid_, request, result.value);
  const int expected = bfs4(*grid_, start)[grid_->index(goal.x, goal.y)];
  ASSERT_GT(expected, 0);
  EXPECT_EQ(result.value.cost(), expected);
  const auto points = points_of(result.value);
  ASSERT_EQ(points.size(), static_cast<std::size_t>(expected) + 1);
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_EQ(std::abs(points[i].x - points[i - 1].x) + std::abs(points[i].y - points[i - 1].y), 1)
        << "step " << points[i - 1] << " -> " << points[i];
  }
  EXPECT_NEAR(result.value.length(), expected, 1e-9);
  EXPECT_EQ(result.value.mask_revision(), 1U);
}

TEST_F(FindPathE2eTest, EverySmoothingKeepsTheInvariants) {
  std::mt19937_64 rng(11);
  std::vector<P> walkable;
  for (int y = 0; y < static_cast<int>(grid_->height); ++y) {
    for (int x = 0; x < static_cast<int>(grid_->width); ++x) {
      if (grid_->walkable(x, y)) {
        walkable.push_back({x, y});
      }
    }
  }
  std::uniform_int_distribution<std::size_t> pick(0, walkable.size() - 1);
  for (int trial = 0; trial < 12; ++trial) {
    const P start = walkable[pick(rng)];
    const P goal = walkable[pick(rng)];
    SCOPED_TRACE(::testing::Message() << "start " << start << " goal " << goal);
    const int distance = bfs4(*grid_, start)[grid_->index(goal.x, goal.y)];
    ASSERT_GE(distance, 0);  // a perfect maze plus rooms is connected

    const auto none_request = find_request("maze", start, goal, pb::SMOOTHING_NONE);
    const auto raw = client_->find_path(none_request);
    ASSERT_OK(raw);
    expect_path_invariants(*grid_, none_request, raw.value);
    EXPECT_EQ(raw.value.cost(), distance);
    ASSERT_TRUE(raw.value.has_grid_cost());
    EXPECT_EQ(raw.value.grid_cost(), distance);
    const double raw_length = raw.value.length();

    const auto simplify_request = find_request("maze", start, goal, pb::SMOOTHING_SIMPLIFY);
    const auto simplified = client_->find_path(simplify_request);
    ASSERT_OK(simplified);
    expect_path_invariants(*grid_, simplify_request, simplified.value);
    // Unit costs: a path's cost is its length (issue 21: cost for every smoothing).
    EXPECT_NEAR(simplified.value.cost(), simplified.value.length(), 1e-9);
    // Four-connected: every answer knows the grid optimum, smoothed or not.
    ASSERT_TRUE(simplified.value.has_grid_cost());
    EXPECT_EQ(simplified.value.grid_cost(), distance);
    EXPECT_LE(simplified.value.length(), raw_length + 1e-9);
    // Either the beeline short-cut (start, goal) or straight runs of the grid path.
    const auto simple_points = points_of(simplified.value);
    for (std::size_t i = 1; simple_points.size() > 2 && i < simple_points.size(); ++i) {
      const int dx = std::abs(simple_points[i].x - simple_points[i - 1].x);
      const int dy = std::abs(simple_points[i].y - simple_points[i - 1].y);
      EXPECT_TRUE(dx == 0 || dy == 0 || dx == dy)
          << "simplified segment is not a straight run: " << simple_points[i - 1] << " -> "
          << simple_points[i];
    }
    EXPECT_LE(simple_points.size(), points_of(raw.value).size());

    for (const auto smoothing : {pb::SMOOTHING_BEAUTIFY, pb::SMOOTHING_UNSPECIFIED}) {
      const auto beautify_request = find_request("maze", start, goal, smoothing);
      const auto beautified = client_->find_path(beautify_request);
      ASSERT_OK(beautified);
      expect_path_invariants(*grid_, beautify_request, beautified.value);
      EXPECT_NEAR(beautified.value.cost(), beautified.value.length(), 1e-9);
      ASSERT_TRUE(beautified.value.has_grid_cost());
      EXPECT_EQ(beautified.value.grid_cost(), distance);
      EXPECT_LE(beautified.value.length(), raw_length + 1e-9);
    }
  }
}

TEST_F(FindPathE2eTest, EnabledAreasRestrictTheWalk) {
  const P start{1, 1};
  const P goal{static_cast<int>(grid_->width) - 2, static_cast<int>(grid_->height) - 2};
  const std::uint64_t corridors_only = std::uint64_t{1} << 1;
  auto request = find_request("maze", start, goal, pb::SMOOTHING_NONE);
  request.set_enabled_areas(corridors_only);
  const auto result = client_->find_path(request);
  ASSERT_OK(result);
  const int expected = bfs4(*grid_, start, corridors_only)[grid_->index(goal.x, goal.y)];
  if (expected < 0 || !grid_->walkable(start.x, start.y, corridors_only) ||
      !grid_->walkable(goal.x, goal.y, corridors_only)) {
    EXPECT_FALSE(result.value.found());
  } else {
    expect_path_invariants(*grid_, request, result.value);
    EXPECT_EQ(result.value.cost(), expected);
  }
  // Only area 2 (the rooms): the corridor start is not walkable.
  request.set_enabled_areas(std::uint64_t{1} << 2);
  const auto rooms = client_->find_path(request);
  ASSERT_OK(rooms);
  EXPECT_FALSE(rooms.value.found());
}

TEST_F(FindPathE2eTest, BeelineInAnOpenRoomIsTheStraightSegment) {
  Grid room(30, 20, 1);
  upload(pgm_upload("room", room));
  const P start{2, 3};
  const P goal{25, 14};
  const auto request = find_request("room", start, goal, pb::SMOOTHING_BEAUTIFY);
  const auto result = client_->find_path(request);
  ASSERT_OK(result);
  expect_path_invariants(room, request, result.value);
  const auto points = points_of(result.value);
  EXPECT_EQ(points, (std::vector<P>{start, goal}));
  EXPECT_NEAR(result.value.length(), std::hypot(goal.x - start.x, goal.y - start.y), 1e-9);
  EXPECT_NEAR(result.value.cost(), result.value.length(), 1e-9);  // unit costs
}

TEST_F(FindPathE2eTest, StartEqualsGoal) {
  const auto request = find_request("maze", {1, 1}, {1, 1}, pb::SMOOTHING_NONE);
  const auto result = client_->find_path(request);
  ASSERT_OK(result);
  expect_path_invariants(*grid_, request, result.value);
  EXPECT_EQ(result.value.cost(), 0);
  EXPECT_EQ(result.value.length(), 0);
}

TEST_F(FindPathE2eTest, NoPathIsNotAnError) {
  Grid split(21, 9, 1);
  split.fill_rect(10, 0, 10, 8, 0);
  upload(pgm_upload("split", split));
  for (const auto smoothing :
       {pb::SMOOTHING_NONE, pb::SMOOTHING_SIMPLIFY, pb::SMOOTHING_BEAUTIFY}) {
    const auto result = client_->find_path(find_request("split", {2, 4}, {18, 4}, smoothing));
    ASSERT_OK(result);
    EXPECT_FALSE(result.value.found());
    EXPECT_EQ(result.value.mask_revision(), 1U);
    EXPECT_EQ(result.value.reason(), pb::PATH_REASON_NO_ROUTE);
  }
}

TEST_F(FindPathE2eTest, NoPathSaysWhichEndIsBlocked) {
  Grid split(21, 9, 1);
  split.fill_rect(10, 0, 10, 8, 0);
  upload(pgm_upload("split", split));
  struct Case {
    P start, goal;
    pb::PathReason reason;
  };
  // A blocked start is reported first, also when the goal is blocked too.
  for (const Case c : {Case{{10, 4}, {18, 4}, pb::PATH_REASON_START_NOT_WALKABLE},
                       Case{{2, 4}, {10, 2}, pb::PATH_REASON_GOAL_NOT_WALKABLE},
                       Case{{10, 1}, {10, 2}, pb::PATH_REASON_START_NOT_WALKABLE},
                       Case{{2, 4}, {9, 8}, pb::PATH_REASON_FOUND}}) {
    // Twice: the second answer may come from the answer cache.
    for (int round = 0; round < 2; ++round) {
      const auto result = client_->find_path(find_request("split", c.start, c.goal));
      ASSERT_OK(result);
      EXPECT_EQ(result.value.found(), c.reason == pb::PATH_REASON_FOUND);
      EXPECT_EQ(result.value.reason(), c.reason) << c.start << " -> " << c.goal;
      EXPECT_FALSE(result.value.goal_snapped());
      EXPECT_FALSE(result.value.start_snapped());
    }
  }
}

TEST_F(FindPathE2eTest, SecondRequestToTheSameGoalHitsTheCacheWithTheSameAnswer) {
  const P goal{static_cast<int>(grid_->width) - 2, static_cast<int>(grid_->height) - 2};
  for (const auto smoothing : {pb::SMOOTHING_NONE, pb::SMOOTHING_BEAUTIFY}) {
    // Upload a fresh copy per smoothing so each run starts with a cold cache.
    const std::string name = "cache-" + std::to_string(static_cast<int>(smoothing));
    upload(pgm_upload(name, *grid_));
    const auto request = find_request(name, {1, 1}, goal, smoothing);
    const auto cold = client_->find_path(request);
    ASSERT_OK(cold);
    EXPECT_FALSE(cold.value.cache_hit());
    expect_path_invariants(*grid_, request, cold.value);

    const auto other_start = client_->find_path(find_request(name, {1, 3}, goal, smoothing));
    ASSERT_OK(other_start);
    EXPECT_TRUE(other_start.value.cache_hit());

    const auto warm = client_->find_path(request);
    ASSERT_OK(warm);
    EXPECT_TRUE(warm.value.cache_hit());
    auto cold_copy = cold.value;
    auto warm_copy = warm.value;
    cold_copy.clear_cache_hit();
    warm_copy.clear_cache_hit();
    EXPECT_EQ(cold_copy.SerializeAsString(), warm_copy.SerializeAsString())
        << "cold: " << cold.value.ShortDebugString() << "\nwarm: " << warm.value.ShortDebugString();
  }
}

TEST_F(FindPathE2eTest, EightConnectivityCostIsOctileOptimal) {
  const P start{1, 1};
  const P goal{static_cast<int>(grid_->width) - 2, static_cast<int>(grid_->height) - 2};
  auto request = find_request("maze", start, goal, pb::SMOOTHING_NONE);
  request.set_connectivity(pb::CONNECTIVITY_EIGHT);
  const auto result = client_->find_path(request);
  ASSERT_OK(result);
  expect_path_invariants(*grid_, request, result.value);
  const double expected = dijkstra(*grid_, start, 0, true, {})[grid_->index(goal.x, goal.y)];
  EXPECT_NEAR(result.value.cost(), expected, 1e-6);
  ASSERT_TRUE(result.value.has_grid_cost());
  EXPECT_NEAR(result.value.grid_cost(), expected, 1e-6);
  const auto points = points_of(result.value);
  for (std::size_t i = 1; i < points.size(); ++i) {
    const int dx = points[i].x - points[i - 1].x;
    const int dy = points[i].y - points[i - 1].y;
    ASSERT_TRUE(std::abs(dx) <= 1 && std::abs(dy) <= 1 && (dx != 0 || dy != 0));
    if (dx != 0 && dy != 0) {  // no corner cutting unless allowed
      EXPECT_TRUE(grid_->walkable(points[i - 1].x + dx, points[i - 1].y) &&
                  grid_->walkable(points[i - 1].x, points[i - 1].y + dy))
          << "diagonal step " << points[i - 1] << " -> " << points[i] << " cuts a corner";
    }
  }
}

TEST_F(FindPathE2eTest, AreaCostsGiveTheWeightedOptimum) {
  // Room with a cheap road (area 3) around an expensive field (area 2).
  Grid terrain(24, 16, 2);
  terrain.fill_rect(0, 0, 23, 1, 3);
  terrain.fill_rect(0, 0, 1, 15, 3);
  terrain.fill_rect(22, 0, 23, 15, 3);
  upload(pgm_upload("terrain", terrain));
  const P start{0, 15};
  const P goal{23, 15};
  auto request = find_request("terrain", start, goal, pb::SMOOTHING_NONE);
  (*request.mutable_area_costs())[2] = 9;
  const auto result = client_->find_path(request);
  ASSERT_OK(result);
  expect_path_invariants(terrain, request, result.value);
  const std::map<std::uint32_t, std::uint32_t> costs{{2, 9}};
  const double expected = dijkstra(terrain, start, 0, false, costs)[terrain.index(goal.x, goal.y)];
  EXPECT_NEAR(result.value.cost(), expected, 1e-6);
  // The reported cost is the cost of the returned path.
  const auto points = points_of(result.value);
  double walked = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    walked += terrain.at(points[i].x, points[i].y) == 2 ? 9 : 1;
  }
  EXPECT_NEAR(result.value.cost(), walked, 1e-6);
}

TEST_F(FindPathE2eTest, SnapToReachableEndsOnAReachablePixel) {
  auto request = find_request("maze", {1, 1}, {0, 0}, pb::SMOOTHING_NONE);  // (0,0) is wall
  request.set_snap_to_reachable(true);
  const auto result = client_->find_path(request);
  ASSERT_OK(result);
  ASSERT_TRUE(result.value.found());
  const P snapped = to_p(result.value.goal());
  EXPECT_TRUE(grid_->walkable(snapped.x, snapped.y));
  EXPECT_EQ(points_of(result.value).back(), snapped);
  EXPECT_EQ(points_of(result.value).front(), (P{1, 1}));
  EXPECT_EQ(result.value.reason(), pb::PATH_REASON_GOAL_SNAPPED);
  EXPECT_TRUE(result.value.goal_snapped());
  EXPECT_FALSE(result.value.start_snapped());
  EXPECT_DOUBLE_EQ(result.value.goal_snap_distance(), std::hypot(snapped.x, snapped.y));
}

TEST_F(FindPathE2eTest, SnappingAcrossAWallSaysHowFarTheGoalMoved) {
  Grid split(21, 9, 1);
  split.fill_rect(10, 0, 10, 8, 0);
  upload(pgm_upload("split", split));
  // (18,4) lies beyond the wall: the nearest pixel the start reaches is
  // found here by scanning every pixel the BFS reaches.
  const P start{2, 4};
  const P goal{18, 4};
  const std::vector<int> distance = bfs4(split, start);
  P nearest;
  double best = std::numeric_limits<double>::infinity();
  for (int y = 0; y < static_cast<int>(split.height); ++y) {
    for (int x = 0; x < static_cast<int>(split.width); ++x) {
      const double d = std::hypot(x - goal.x, y - goal.y);
      if (distance[split.index(x, y)] >= 0 && d < best) {
        best = d;
        nearest = {x, y};
      }
    }
  }
  auto request = find_request("split", start, goal);
  request.set_snap_to_reachable(true);
  const auto result = client_->find_path(request);
  ASSERT_OK(result);
  ASSERT_TRUE(result.value.found());
  EXPECT_EQ(to_p(result.value.goal()), nearest);
  EXPECT_EQ(result.value.reason(), pb::PATH_REASON_GOAL_SNAPPED);
  EXPECT_TRUE(result.value.goal_snapped());
  EXPECT_DOUBLE_EQ(result.value.goal_snap_distance(), best);

  // A blocked start moves to its nearest walkable pixel; the goal stays.
  request = find_request("split", {10, 4}, {2, 4});
  request.set_snap_to_reachable(true);
  const auto moved = client_->find_path(request);
  ASSERT_OK(moved);
  ASSERT_TRUE(moved.value.found());
  EXPECT_EQ(moved.value.reason(), pb::PATH_REASON_START_SNAPPED);
  EXPECT_TRUE(moved.value.start_snapped());
  EXPECT_FALSE(moved.value.goal_snapped());
  EXPECT_EQ(moved.value.goal_snap_distance(), 0.0);
  EXPECT_EQ(points_of(moved.value).front(), (P{9, 4}));
}

// ---------------------------------------------------------------------------
// Reachable, PatchMask, StandardMove.

TEST_F(FindPathE2eTest, ReachableAgreesWithAnIndependentFloodFill) {
  Grid islands(16, 12, 1);
  islands.fill_rect(8, 0, 8, 11, 0);  // left | right
  islands.fill_rect(0, 6, 7, 6, 0);   // top-left / bottom-left
  islands.fill_rect(9, 2, 15, 3, 2);  // an area-2 band on the right
  upload(pgm_upload("islands", islands));
  const std::vector<std::pair<P, P>> pairs{{{0, 0}, {7, 5}},   {{0, 0}, {0, 11}},
                                           {{0, 0}, {15, 11}}, {{9, 0}, {15, 11}},
                                           {{8, 4}, {9, 4}},   {{3, 8}, {7, 11}}};
  for (const std::uint64_t enabled : {std::uint64_t{0}, std::uint64_t{1} << 1}) {
    pb::ReachableRequest request;
    request.set_mask("islands");
    request.set_enabled_areas(enabled);
    for (const auto& [a, b] : pairs) {
      auto* pair = request.add_pairs();
      *pair->mutable_a() = pathfinder::make_point(a.x, a.y);
      *pair->mutable_b() = pathfinder::make_point(b.x, b.y);
    }
    const auto result = client_->reachable(request);
    ASSERT_OK(result);
    ASSERT_EQ(result.value.reachable_size(), static_cast<int>(pairs.size()));
    EXPECT_EQ(result.value.mask_revision(), 1U);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const auto& [a, b] = pairs[i];
      const bool expected = bfs4(islands, a, enabled)[islands.index(b.x, b.y)] >= 0;
      EXPECT_EQ(result.value.reachable(static_cast<int>(i)), expected)
          << "enabled " << enabled << " pair " << a << " -> " << b;
    }
  }
}

TEST_F(ServerE2eTest, PatchMaskOverwritesARectangle) {
  Grid grid(12, 8, 1);
  upload(pgm_upload("patched", grid));
  pb::PatchMaskRequest patch;
  patch.set_name("patched");
  patch.set_x(5);
  patch.set_y(0);
  patch.set_width(2);
  patch.set_height(7);
  patch.set_areas(std::string(14, '\0'));  // a wall with a gap in the last row
  const auto result = client_->patch_mask(patch);
  ASSERT_OK(result);
  grid.fill_rect(5, 0, 6, 6, 0);
  EXPECT_EQ(result.value.revision(), 2U);
  EXPECT_EQ(result.value.walkable_pixels(), grid.walkable_count());
  EXPECT_EQ(result.value.sha256(), sha256_hex(grid.bytes()));

  const auto path =
      client_->find_path(find_request("patched", {0, 0}, {11, 0}, pb::SMOOTHING_NONE));
  ASSERT_OK(path);
  EXPECT_EQ(path.value.cost(), bfs4(grid, {0, 0})[grid.index(11, 0)]);
  EXPECT_EQ(path.value.mask_revision(), 2U);

  patch.set_expected_revision(1);  // stale
  EXPECT_CODE(client_->patch_mask(patch), FAILED_PRECONDITION);
  patch.set_expected_revision(2);
  patch.set_x(11);  // 11 + 2 > 12
  EXPECT_CODE(client_->patch_mask(patch), INVALID_ARGUMENT);
  patch.set_name("missing");
  patch.set_expected_revision(0);
  patch.set_x(0);
  EXPECT_CODE(client_->patch_mask(patch), NOT_FOUND);
}

TEST_F(ServerE2eTest, StandardMoveRouteWalksFromStartToGoal) {
  Grid tiles(22, 18, 1);
  tiles.fill_rect(8, 3, 9, 14, 0);
  upload(pgm_upload("tiles", tiles));
  pb::StandardMoveRequest request;
  request.set_mask("tiles");
  *request.mutable_start() = pathfinder::make_point(2, 9);
  *request.mutable_goal() = pathfinder::make_point(17, 12);
  request.set_max_moves(3);
  const auto result = client_->standard_move(request);
  ASSERT_OK(result);
  ASSERT_TRUE(result.value.found());
  const int dx[] = {0, 0, 1, 1, 1, 0, -1, -1, -1};  // indexed by Direction
  const int dy[] = {0, -1, -1, 0, 1, 1, 1, 0, -1};
  P at{2, 9};
  for (const auto& move : result.value.moves()) {
    ASSERT_GE(move.direction(), pb::DIRECTION_N);
    ASSERT_LE(move.direction(), pb::DIRECTION_NW);
    for (std::uint32_t step = 0; step < move.steps(); ++step) {
      at = {at.x + dx[move.direction()], at.y + dy[move.direction()]};
      ASSERT_TRUE(tiles.walkable(at.x, at.y)) << "step onto " << at;
    }
  }
  EXPECT_EQ(at, (P{17, 12}));
  ASSERT_GE(result.value.waypoints_size(), 2);
  EXPECT_EQ(to_p(result.value.waypoints(0)), (P{2, 9}));
  EXPECT_EQ(to_p(result.value.waypoints(result.value.waypoints_size() - 1)), (P{17, 12}));
}

pb::ReachableRequest reachable_request(const std::string& mask,
                                       const std::vector<std::pair<P, P>>& pairs,
                                       std::uint64_t enabled = 0) {
  pb::ReachableRequest request;
  request.set_mask(mask);
  request.set_enabled_areas(enabled);
  for (const auto& [a, b] : pairs) {
    auto* pair = request.add_pairs();
    *pair->mutable_a() = pathfinder::make_point(a.x, a.y);
    *pair->mutable_b() = pathfinder::make_point(b.x, b.y);
  }
  return request;
}

pb::StandardMoveRequest move_request(const std::string& mask, P start, P goal,
                                     std::uint32_t max_moves = 0) {
  pb::StandardMoveRequest request;
  request.set_mask(mask);
  *request.mutable_start() = pathfinder::make_point(start.x, start.y);
  *request.mutable_goal() = pathfinder::make_point(goal.x, goal.y);
  request.set_max_moves(max_moves);
  return request;
}

pb::PatchMaskRequest patch_request(const std::string& name, std::uint64_t expected, int x, int y,
                                   int w, int h, std::uint8_t area) {
  pb::PatchMaskRequest request;
  request.set_name(name);
  request.set_expected_revision(expected);
  request.set_x(static_cast<std::uint32_t>(x));
  request.set_y(static_cast<std::uint32_t>(y));
  request.set_width(static_cast<std::uint32_t>(w));
  request.set_height(static_cast<std::uint32_t>(h));
  request.set_areas(std::string(static_cast<std::size_t>(w) * h, static_cast<char>(area)));
  return request;
}

TEST_F(FindPathE2eTest, ReachableAgreesWithAFloodFillOnRandomMasksBothConnectivities) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 5; ++trial) {
    Grid grid(40, 30);
    for (auto& area : grid.areas) {
      area = std::bernoulli_distribution(0.4)(rng) ? 0 : static_cast<std::uint8_t>(1 + rng() % 2);
    }
    const std::string name = "random" + std::to_string(trial);
    upload(raw_upload(name, grid));
    std::vector<std::pair<P, P>> pairs;
    for (int i = 0; i < 300; ++i) {
      pairs.push_back({{static_cast<int>(rng() % 40), static_cast<int>(rng() % 30)},
                       {static_cast<int>(rng() % 40), static_cast<int>(rng() % 30)}});
    }
    for (const std::uint64_t enabled : {std::uint64_t{0}, std::uint64_t{1} << 2}) {
      for (const auto connectivity : {pb::CONNECTIVITY_FOUR, pb::CONNECTIVITY_EIGHT}) {
        auto request = reachable_request(name, pairs, enabled);
        request.set_connectivity(connectivity);
        const auto result = client_->reachable(request);
        ASSERT_OK(result);
        ASSERT_EQ(result.value.reachable_size(), static_cast<int>(pairs.size()));
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          const auto& [a, b] = pairs[i];
          // EIGHT without corner cutting connects what FOUR connects.
          const bool expected =
              grid.walkable(a.x, a.y, enabled) && bfs4(grid, a, enabled)[grid.index(b.x, b.y)] >= 0;
          ASSERT_EQ(result.value.reachable(static_cast<int>(i)), expected)
              << name << " enabled " << enabled << " pair " << a << " -> " << b;
        }
      }
    }
  }
}

TEST_F(ServerE2eTest, ReachableLimitsAndErrors) {
  upload(pgm_upload("room", Grid(10, 10, 1)));
  std::vector<std::pair<P, P>> pairs(10000, {{0, 0}, {9, 9}});
  const auto full = client_->reachable(reachable_request("room", pairs));
  ASSERT_OK(full);
  EXPECT_EQ(full.value.reachable_size(), 10000);
  pairs.push_back({{0, 0}, {1, 1}});
  const auto too_many = client_->reachable(reachable_request("room", pairs));
  EXPECT_CODE(too_many, RESOURCE_EXHAUSTED);
  EXPECT_THAT(too_many.status.error_message(), HasSubstr("pairs"));
  const auto outside =
      client_->reachable(reachable_request("room", {{{0, 0}, {1, 1}}, {{0, 0}, {10, 1}}}));
  EXPECT_CODE(outside, INVALID_ARGUMENT);
  EXPECT_THAT(outside.status.error_message(), HasSubstr("pairs[1].b"));
  EXPECT_CODE(client_->reachable(reachable_request("nope", {{{0, 0}, {1, 1}}})), NOT_FOUND);
  const auto empty = client_->reachable(reachable_request("room", {}));
  ASSERT_OK(empty);
  EXPECT_EQ(empty.value.reachable_size(), 0);
}

TEST_F(ServerE2eTest, PatchChangesAnswersAtOnceAndOldCachesAreNotServed) {
  Grid grid(12, 8, 1);
  upload(pgm_upload("level", grid));
  const auto path_request = find_request("level", {0, 3}, {11, 3}, pb::SMOOTHING_NONE);
  const auto move = move_request("level", {0, 3}, {11, 3});
  // Warm every cache on revision 1.
  for (int i = 0; i < 2; ++i) {
    const auto path = client_->find_path(path_request);
    ASSERT_OK(path);
    EXPECT_TRUE(path.value.found());
    const auto reach = client_->reachable(reachable_request("level", {{{0, 3}, {11, 3}}}));
    ASSERT_OK(reach);
    EXPECT_TRUE(reach.value.reachable(0));
    const auto route = client_->standard_move(move);
    ASSERT_OK(route);
    EXPECT_EQ(route.value.moves_size(), 1);
  }
  EXPECT_TRUE(client_->find_path(path_request).value.cache_hit());

  // A wall with a gap at the bottom row: still reachable, but not straight.
  const auto patched = client_->patch_mask(patch_request("level", 1, 5, 0, 1, 7, 0));
  ASSERT_OK(patched);
  EXPECT_EQ(patched.value.revision(), 2U);
  grid.fill_rect(5, 0, 5, 6, 0);
  const auto path = client_->find_path(path_request);
  ASSERT_OK(path);
  EXPECT_EQ(path.value.mask_revision(), 2U);
  EXPECT_FALSE(path.value.cache_hit());
  EXPECT_EQ(path.value.cost(), bfs4(grid, {0, 3})[grid.index(11, 3)]);
  const auto route = client_->standard_move(move);
  ASSERT_OK(route);
  EXPECT_EQ(route.value.mask_revision(), 2U);
  EXPECT_FALSE(route.value.cache_hit());
  EXPECT_TRUE(route.value.found());  // down through the gap, then up: two moves
  EXPECT_EQ(route.value.nodes_size(), 1);

  // Close the gap: nothing connects any more.
  ASSERT_OK(client_->patch_mask(patch_request("level", 2, 5, 7, 1, 1, 0)));
  const auto reach = client_->reachable(reachable_request("level", {{{0, 3}, {11, 3}}}));
  ASSERT_OK(reach);
  EXPECT_EQ(reach.value.mask_revision(), 3U);
  EXPECT_FALSE(reach.value.reachable(0));
  const auto none = client_->find_path(path_request);
  ASSERT_OK(none);
  EXPECT_FALSE(none.value.found());
  const auto no_route = client_->standard_move(move_request("level", {0, 3}, {11, 3}, 3));
  ASSERT_OK(no_route);
  EXPECT_FALSE(no_route.value.found());
  EXPECT_FALSE(no_route.value.cache_hit());
}

TEST_F(ServerE2eTest, PatchWithAStaleRevisionIsAFailedPrecondition) {
  upload(pgm_upload("m", Grid(6, 6, 1)));
  ASSERT_OK(client_->patch_mask(patch_request("m", 1, 0, 0, 2, 2, 3)));
  const auto stale = client_->patch_mask(patch_request("m", 1, 0, 0, 1, 1, 0));
  EXPECT_CODE(stale, FAILED_PRECONDITION);
  EXPECT_THAT(stale.status.error_message(), HasSubstr("expected revision 1"));
  EXPECT_THAT(stale.status.error_message(), HasSubstr("revision 2"));
  const auto bad_area = client_->patch_mask(patch_request("m", 0, 0, 0, 1, 1, 64));
  EXPECT_CODE(bad_area, INVALID_ARGUMENT);
  EXPECT_THAT(bad_area.status.error_message(), HasSubstr("areas"));
  auto short_areas = patch_request("m", 0, 0, 0, 2, 2, 1);
  short_areas.set_areas("abc");
  EXPECT_CODE(client_->patch_mask(short_areas), INVALID_ARGUMENT);
  EXPECT_EQ(client_->get_mask("m").value.revision(), 2U);
}

TEST_F(ServerE2eTest, QueriesNamingARevisionAreNotAnsweredFromAnother) {
  upload(pgm_upload("m", Grid(6, 6, 1)));
  auto reach = reachable_request("m", {{{0, 0}, {5, 5}}});
  reach.set_expected_revision(1);
  auto move = move_request("m", {0, 0}, {5, 3});
  move.set_expected_revision(1);
  auto find = find_request("m", {0, 0}, {5, 5});
  find.set_expected_revision(1);
  ASSERT_OK(client_->reachable(reach));
  ASSERT_OK(client_->standard_move(move));
  ASSERT_OK(client_->find_path(find));
  ASSERT_OK(client_->patch_mask(patch_request("m", 1, 2, 0, 1, 6, 0)));
  const auto stale_reach = client_->reachable(reach);
  EXPECT_CODE(stale_reach, FAILED_PRECONDITION);
  EXPECT_THAT(stale_reach.status.error_message(), HasSubstr("revision 2"));
  EXPECT_CODE(client_->standard_move(move), FAILED_PRECONDITION);
  const auto stale_find = client_->find_path(find);
  EXPECT_CODE(stale_find, FAILED_PRECONDITION);
  EXPECT_THAT(stale_find.status.error_message(), HasSubstr("expected_revision"));
  find.set_expected_revision(2);
  ASSERT_OK(client_->find_path(find));
  reach.set_expected_revision(2);
  const auto current = client_->reachable(reach);
  ASSERT_OK(current);
  EXPECT_FALSE(current.value.reachable(0));
  EXPECT_EQ(current.value.mask_revision(), 2U);
}

TEST_F(ServerE2eTest, ConcurrentPatchesExpectingOneRevisionExactlyOneWins) {
  upload(pgm_upload("shared", Grid(16, 16, 1)));
  constexpr int kThreads = 8;
  std::vector<grpc::StatusCode> codes(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Client client(server_->target());
      codes[static_cast<std::size_t>(t)] =
          client.patch_mask(patch_request("shared", 1, t, t, 1, 1, 0)).status.error_code();
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(std::count(codes.begin(), codes.end(), grpc::StatusCode::OK), 1);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), grpc::StatusCode::FAILED_PRECONDITION),
            kThreads - 1);
  const auto info = client_->get_mask("shared");
  ASSERT_OK(info);
  EXPECT_EQ(info.value.revision(), 2U);
  EXPECT_EQ(info.value.walkable_pixels(), 16U * 16U - 1U);
}

TEST_F(ServerE2eTest, RestartKeepsThePatchedRevisionAndDigest) {
  Grid grid(9, 7, 1);
  upload(pgm_upload("kept", grid));
  const auto patched = client_->patch_mask(patch_request("kept", 1, 2, 1, 3, 4, 2));
  ASSERT_OK(patched);
  grid.fill_rect(2, 1, 4, 4, 2);
  EXPECT_EQ(patched.value.sha256(), sha256_hex(grid.bytes()));
  server_->restart();
  connect();
  const auto got = client_->get_mask("kept");
  ASSERT_OK(got);
  EXPECT_EQ(got.value.revision(), 2U);
  EXPECT_EQ(got.value.sha256(), sha256_hex(grid.bytes()));
  const auto reach = client_->reachable(reachable_request("kept", {{{0, 0}, {3, 2}}}, 1 << 1));
  ASSERT_OK(reach);
  EXPECT_FALSE(reach.value.reachable(0));  // (3,2) is area 2 now
  EXPECT_EQ(reach.value.mask_revision(), 2U);
}

TEST_F(ServerE2eTest, StandardMoveCachesStitchedRoutesAndValidates) {
  Grid tiles(22, 18, 1);
  tiles.fill_rect(8, 3, 9, 14, 0);
  upload(pgm_upload("tiles", tiles));
  const auto request = move_request("tiles", {2, 9}, {17, 12});
  const auto first = client_->standard_move(request);
  ASSERT_OK(first);
  ASSERT_TRUE(first.value.found());
  EXPECT_EQ(first.value.nodes_size(), 1);
  EXPECT_EQ(to_p(first.value.node()), to_p(first.value.nodes(0)));
  EXPECT_FALSE(first.value.cache_hit());
  const auto second = client_->standard_move(request);
  ASSERT_OK(second);
  EXPECT_TRUE(second.value.cache_hit());
  pb::StandardMoveResponse same = second.value;
  same.set_cache_hit(false);
  EXPECT_EQ(same.SerializeAsString(), first.value.SerializeAsString());
  EXPECT_EQ(to_p(second.value.node()), to_p(first.value.node()));
  // One move cannot cross the wall.
  const auto single = client_->standard_move(move_request("tiles", {2, 9}, {17, 12}, 1));
  ASSERT_OK(single);
  EXPECT_FALSE(single.value.found());
  // A clear single move in the open: jog first.
  const auto open = client_->standard_move(move_request("tiles", {0, 0}, {5, 2}));
  ASSERT_OK(open);
  ASSERT_EQ(open.value.moves_size(), 2);
  EXPECT_EQ(open.value.moves(0).direction(), pb::DIRECTION_SE);
  EXPECT_EQ(open.value.moves(0).steps(), 2U);
  EXPECT_EQ(open.value.moves(1).direction(), pb::DIRECTION_E);
  EXPECT_EQ(open.value.moves(1).steps(), 3U);
  EXPECT_EQ(open.value.nodes_size(), 0);

  const auto bad_moves = client_->standard_move(move_request("tiles", {0, 0}, {5, 2}, 4));
  EXPECT_CODE(bad_moves, INVALID_ARGUMENT);
  EXPECT_THAT(bad_moves.status.error_message(), HasSubstr("max_moves"));
  const auto outside = client_->standard_move(move_request("tiles", {0, 0}, {22, 2}));
  EXPECT_CODE(outside, INVALID_ARGUMENT);
  EXPECT_THAT(outside.status.error_message(), HasSubstr("goal"));
  EXPECT_CODE(client_->standard_move(move_request("nope", {0, 0}, {1, 1})), NOT_FOUND);
  // Unwalkable ends are not errors.
  const auto blocked = client_->standard_move(move_request("tiles", {8, 5}, {1, 1}));
  ASSERT_OK(blocked);
  EXPECT_FALSE(blocked.value.found());
}

// ---------------------------------------------------------------------------
// Errors.

TEST_F(ServerE2eTest, UnknownMaskIsNotFound) {
  EXPECT_CODE(client_->get_mask("nope"), NOT_FOUND);
  EXPECT_CODE(client_->delete_mask("nope"), NOT_FOUND);
  EXPECT_CODE(client_->find_path(find_request("nope", {0, 0}, {1, 1})), NOT_FOUND);
  const auto result = client_->get_mask("nope");
  EXPECT_THAT(result.status.error_message(), HasSubstr("nope"));
}

TEST_F(ServerE2eTest, MaskNamesFollowTheContract) {
  const Grid grid(2, 2, 1);
  const std::vector<std::string> good{"a", "Level_01", "dir/sub-level.v2", "a..b",
                                      std::string(128, 'n')};
  for (const auto& name : good) {
    const auto result = client_->upload_mask(raw_upload(name, grid));
    EXPECT_TRUE(result.ok()) << "name '" << name << "': " << result.status.error_message();
  }
  const std::vector<std::string> bad{"",
                                     "/abs",
                                     "..",
                                     "../up",
                                     "a/../b",
                                     "a/..",
                                     "has space",
                                     "semi;colon",
                                     "tab\tname",
                                     "new\nline",
                                     "caf\xc3\xa9",
                                     "back\\slash",
                                     std::string(129, 'n')};
  for (const auto& name : bad) {
    const auto result = client_->upload_mask(raw_upload(name, grid));
    EXPECT_EQ(result.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << "name '" << name << "' gave "
        << pathfinder::status_code_name(result.status.error_code());
    EXPECT_THAT(result.status.error_message(), HasSubstr("name")) << "name '" << name << "'";
  }
  const auto list = client_->list_masks();
  ASSERT_OK(list);
  EXPECT_EQ(list.value.masks_size(), static_cast<int>(good.size()));
}

TEST_F(ServerE2eTest, PointsOutsideTheMaskAreInvalid) {
  Grid grid(10, 6, 1);
  upload(pgm_upload("small", grid));
  const std::vector<std::pair<P, P>> cases{{{-1, 0}, {5, 5}}, {{10, 0}, {5, 5}}, {{0, 6}, {5, 5}},
                                           {{0, -1}, {5, 5}}, {{0, 0}, {10, 5}}, {{0, 0}, {9, 6}},
                                           {{0, 0}, {-3, -3}}};
  for (const auto& [start, goal] : cases) {
    const auto result = client_->find_path(find_request("small", start, goal));
    EXPECT_CODE(result, INVALID_ARGUMENT);
    const bool start_bad = !grid.inside(start.x, start.y);
    EXPECT_THAT(result.status.error_message(), HasSubstr(start_bad ? "start" : "goal"))
        << start << " -> " << goal;
  }
}

TEST_F(ServerE2eTest, BadImagesAreInvalid) {
  pb::UploadMaskRequest garbage;
  garbage.set_name("garbage");
  garbage.set_image("this is not an image, just some text");
  EXPECT_CODE(client_->upload_mask(garbage), INVALID_ARGUMENT);

  pb::UploadMaskRequest empty;
  empty.set_name("empty");
  EXPECT_CODE(client_->upload_mask(empty), INVALID_ARGUMENT);

  const Grid grid(6, 4, 1);
  auto no_dimensions = raw_upload("raw", grid);
  no_dimensions.clear_width();
  no_dimensions.clear_height();
  EXPECT_CODE(client_->upload_mask(no_dimensions), INVALID_ARGUMENT);

  auto wrong_size = raw_upload("raw", grid);
  wrong_size.set_width(7);
  EXPECT_CODE(client_->upload_mask(wrong_size), INVALID_ARGUMENT);

  Grid too_high(3, 3, 1);
  too_high.set(1, 1, 64);  // area ids stop at 63
  EXPECT_CODE(client_->upload_mask(raw_upload("raw", too_high)), INVALID_ARGUMENT);

  auto truncated = pgm_upload("pgm", grid);
  truncated.mutable_image()->resize(truncated.image().size() - 3);
  EXPECT_CODE(client_->upload_mask(truncated), INVALID_ARGUMENT);

  auto mislabelled = pgm_upload("pgm", grid);
  mislabelled.set_format(pb::MASK_FORMAT_PNG);
  EXPECT_CODE(client_->upload_mask(mislabelled), INVALID_ARGUMENT);

  // Nothing was stored.
  const auto list = client_->list_masks();
  ASSERT_OK(list);
  EXPECT_EQ(list.value.masks_size(), 0);
}

TEST_F(ServerE2eTest, PaletteUploadsRefuseUnmappedColoursUnlessAskedToBlockThem) {
  // 3x1 RGBA: green, red, green. The palette maps green only.
  const std::vector<std::uint8_t> rgba = {0, 255, 0, 255, 255, 0, 0, 255, 0, 255, 0, 255};
  const auto png = pathcore::encode_png_rgba(3, 1, rgba);
  pb::UploadMaskRequest request;
  request.set_name("gate");
  request.set_image(std::string(png.begin(), png.end()));
  request.set_rule(pb::PIXEL_RULE_PALETTE);
  (*request.mutable_palette())[0x00FF00] = 4;
  const auto refused = client_->upload_mask(request);
  EXPECT_CODE(refused, INVALID_ARGUMENT);
  EXPECT_THAT(refused.status.error_message(), HasSubstr("0xff0000"));
  EXPECT_THAT(refused.status.error_message(), HasSubstr("(1,0)"));
  EXPECT_CODE(client_->get_mask("gate"), NOT_FOUND);  // nothing stored

  request.set_block_unmapped(true);
  const auto stored = upload(request);
  EXPECT_EQ(stored.sha256(), sha256_hex(std::string{4, 0, 4}));

  request.set_rule(pb::PIXEL_RULE_NONZERO);
  request.clear_palette();
  const auto misused = client_->upload_mask(request);
  EXPECT_CODE(misused, INVALID_ARGUMENT);
  EXPECT_THAT(misused.status.error_message(), HasSubstr("block_unmapped"));
}

TEST_F(ServerE2eTest, BlackAndWhiteGreyImageIsRefusedWithTheRuleThatFits) {
  Grid black_and_white(4, 2, 255);
  black_and_white.set(0, 0, 0);
  auto request = pgm_upload("bw", black_and_white);
  const auto refused = client_->upload_mask(request);
  EXPECT_CODE(refused, INVALID_ARGUMENT);
  EXPECT_THAT(refused.status.error_message(), HasSubstr("grey value 255"));
  EXPECT_THAT(refused.status.error_message(), HasSubstr("NONZERO"));
  request.set_rule(pb::PIXEL_RULE_NONZERO);
  EXPECT_EQ(upload(request).walkable_pixels(), 7U);
}

TEST_F(ServerE2eTest, ImageAboveMaxPixelsIsResourceExhausted) {
  start_server({"--max-pixels", "1000"});
  EXPECT_CODE(client_->upload_mask(pgm_upload("big", Grid(40, 40, 1))), RESOURCE_EXHAUSTED);
  EXPECT_CODE(client_->upload_mask(raw_upload("big", Grid(1001, 1, 1))), RESOURCE_EXHAUSTED);
  ASSERT_OK(client_->upload_mask(pgm_upload("limit", Grid(25, 40, 1))));  // exactly 1000
  EXPECT_CODE(client_->get_mask("big"), NOT_FOUND);
}

TEST_F(ServerE2eTest, MessageAboveMaxMessageSizeIsResourceExhausted) {
  start_server({"--max-message-mb", "1"});
  EXPECT_CODE(client_->upload_mask(raw_upload("huge", Grid(1500, 1500, 1))), RESOURCE_EXHAUSTED);
  // The server keeps serving.
  ASSERT_OK(client_->upload_mask(raw_upload("fits", Grid(500, 500, 1))));
  EXPECT_CODE(client_->get_mask("huge"), NOT_FOUND);
}

// ---------------------------------------------------------------------------
// Durability, start-up, health.

TEST_F(ServerE2eTest, UploadsSurviveKillNine) {
  const Grid level = maze(10, 8, 5);
  const Grid other(9, 4, 3);
  const auto level_info = upload(pgm_upload("level", level));
  upload(pgm_upload("other", Grid(9, 4, 2)));
  const auto other_info = upload(raw_upload("other", other));  // another grid: revision 2
  ASSERT_EQ(other_info.revision(), 2U);

  server_->kill9();
  server_->restart();
  connect();

  const auto got = client_->get_mask("level");
  ASSERT_OK(got);
  EXPECT_EQ(got.value.SerializeAsString(), level_info.SerializeAsString());
  const auto got_other = client_->get_mask("other");
  ASSERT_OK(got_other);
  EXPECT_EQ(got_other.value.SerializeAsString(), other_info.SerializeAsString());

  // The restarted server answers from the reloaded grid, and revisions continue.
  const P goal{static_cast<int>(level.width) - 2, static_cast<int>(level.height) - 2};
  const auto path = client_->find_path(find_request("level", {1, 1}, goal, pb::SMOOTHING_NONE));
  ASSERT_OK(path);
  EXPECT_EQ(path.value.cost(), bfs4(level, {1, 1})[level.index(goal.x, goal.y)]);
  EXPECT_EQ(upload(pgm_upload("level", level)).revision(), 1U);  // the same grid keeps it
  Grid changed = level;
  changed.set(0, 0, changed.at(0, 0) == 0 ? 1 : 0);
  EXPECT_EQ(upload(pgm_upload("level", changed)).revision(), 2U);
}

TEST_F(ServerE2eTest, DeleteSurvivesRestart) {
  upload(pgm_upload("gone", Grid(3, 3, 1)));
  upload(pgm_upload("kept", Grid(3, 3, 1)));
  ASSERT_OK(client_->delete_mask("gone"));
  server_->kill9();
  server_->restart();
  connect();
  EXPECT_CODE(client_->get_mask("gone"), NOT_FOUND);
  ASSERT_OK(client_->get_mask("kept"));
}

TEST_F(ServerE2eTest, SigtermExitsCleanlyAndKeepsData) {
  const auto info = upload(pgm_upload("level", maze(4, 4, 9)));
  EXPECT_EQ(server_->terminate_and_wait(), 0);
  server_->restart();
  connect();
  const auto got = client_->get_mask("level");
  ASSERT_OK(got);
  EXPECT_EQ(got.value.sha256(), info.sha256());
}

std::set<std::string> regular_files(const std::string& dir) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files.insert(entry.path().string());
    }
  }
  return files;
}

TEST_F(ServerE2eTest, CorruptFilesInTheDataDirAreSkippedAtStart) {
  const auto survivor = upload(pgm_upload("survivor", maze(6, 6, 1)));
  ASSERT_EQ(server_->terminate_and_wait(), 0);
  const auto before = regular_files(server_->data_dir());
  ASSERT_FALSE(before.empty()) << "the upload left no file in the data dir";

  server_->restart();
  connect();
  upload(pgm_upload("victim", Grid(5, 5, 1)));
  ASSERT_EQ(server_->terminate_and_wait(), 0);
  const auto after = regular_files(server_->data_dir());

  // Corrupt the victim's own new files, and plant garbage beside each
  // survivor file under the same extension, as a half-written file would look.
  int corrupted = 0;
  for (const auto& file : after) {
    if (before.count(file) == 0) {
      pathtest::write_file(file, "\x01garbage, not a mask file\xff");
      ++corrupted;
    }
  }
  for (const auto& file : before) {
    const std::filesystem::path path(file);
    pathtest::write_file(
        (path.parent_path() / ("planted-garbage" + path.extension().string())).string(),
        "PF\x00\x07 definitely corrupt");
  }

  server_->restart();  // must start despite the corrupt files
  connect();
  const auto got = client_->get_mask("survivor");
  ASSERT_OK(got);
  EXPECT_EQ(got.value.SerializeAsString(), survivor.SerializeAsString());
  if (corrupted > 0) {
    // It existed and cannot be read: DATA_LOSS, not NOT_FOUND (store_e2e_test has the rest).
    EXPECT_CODE(client_->get_mask("victim"), DATA_LOSS);
  }
  const auto list = client_->list_masks();
  ASSERT_OK(list);
  for (const auto& info : list.value.masks()) {
    EXPECT_TRUE(info.name() == "survivor" || (corrupted == 0 && info.name() == "victim"))
        << "unexpected mask '" << info.name() << "' after start-up";
  }
  // And it still accepts new uploads.
  EXPECT_EQ(upload(pgm_upload("fresh", Grid(3, 3, 1))).revision(), 1U);
}

TEST_F(ServerE2eTest, HealthReportsServing) {
  ASSERT_TRUE(client_->wait_until_ready(std::chrono::seconds(10)));
  const auto health = client_->health_check();
  ASSERT_OK(health);
  EXPECT_EQ(health.value, pathfinder::ServingStatus::kServing)
      << pathfinder::serving_status_name(health.value);
}

TEST_F(ServerE2eTest, ConcurrentClientsGetConsistentAnswers) {
  const Grid grid = maze(20, 15, 77);
  upload(pgm_upload("shared", grid));
  const P goal{static_cast<int>(grid.width) - 2, static_cast<int>(grid.height) - 2};
  const auto distances = bfs4(grid, goal);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Client client(server_->target());
      for (int i = 0; i < 20; ++i) {
        const P start{1 + 2 * ((t * 7 + i) % 20), 1 + 2 * ((t * 3 + i) % 15)};
        const auto result =
            client.find_path(find_request("shared", start, goal, pb::SMOOTHING_NONE));
        if (!result.ok() || !result.value.found() ||
            result.value.cost() != distances[grid.index(start.x, start.y)]) {
          ++failures[static_cast<std::size_t>(t)];
        }
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

// Every kind of bad command line, whether CLI11 or the server's own checks
// find it: exit 2, one line on stderr naming the flag, nothing started.
TEST(ServerCommandLineTest, BadCommandLinesExitTwoWithOneLine) {
  pathtest::TempDir scratch("pathfinder-flags");
  pathtest::write_file(scratch.file("conninfo"), "host=127.0.0.1\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--no-such-flag"}, "--no-such-flag"},
      {{"--cache-mb", "lots"}, "--cache-mb"},
      {{"--shutdown-grace", "-1"}, "--shutdown-grace"},
      {{"--log-level", "loud"}, "--log-level"},
      {{"--http-port-file", scratch.file("port")}, "--http-listen"},
      {{"--store", "mysql"}, "--store"},
      {{"--store-conninfo-file", scratch.file("conninfo")}, "--store-conninfo-file"},
      {{"--listen", "50113"}, "--listen"},
      {{"--metrics-address", "0.0.0.0:0"}, "--metrics-allow-remote"},
      {{"--tls-cert", scratch.file("no-such.pem")}, "--tls-key"},
      {{"--tls-client-ca", scratch.file("no-such.pem")}, "--tls-client-ca"},
  };
  for (const auto& [flags, named] : cases) {
    std::vector<std::string> argv = {PATHFINDER_SERVER_BIN, "--data-dir", scratch.file("data")};
    if (flags[0] != "--listen") argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
    argv.insert(argv.end(), flags.begin(), flags.end());
    const auto result = pathtest::run_command(argv);
    EXPECT_EQ(result.exit_code, 2) << flags[0] << "\n" << result.err;
    EXPECT_TRUE(result.out.empty()) << flags[0] << "\n" << result.out;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1)
        << flags[0] << "\n" << result.err;
    EXPECT_THAT(result.err, HasSubstr(named)) << flags[0];
  }
  EXPECT_FALSE(std::filesystem::exists(scratch.file("data")));
  // A problem outside the command line is exit 1: here a token file that is not there.
  const auto missing = pathtest::run_command(
      {PATHFINDER_SERVER_BIN, "--listen", "127.0.0.1:0", "--data-dir", scratch.file("data"),
       "--admin-token-file", scratch.file("no-such-token")});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  const auto help = pathtest::run_command({PATHFINDER_SERVER_BIN, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("2 for a bad command line"));
}

}  // namespace
