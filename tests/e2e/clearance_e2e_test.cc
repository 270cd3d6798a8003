// End-to-end: FindPathRequest.clearance (issue 21) against the real server
// binary on random masks and the demo level. Every answer is checked against
// brute force: the usable pixels of support/clearance_reference.h (every
// pixel against every blocked square), found / not found against a textbook
// flood fill over them (support/reference.h), grid costs against a textbook
// Dijkstra, and SMOOTHING_ANY_ANGLE lengths against
// support/any_angle_reference.h on the usable pixels. Also the CLI's
// --clearance.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pathcore/mask.h"
#include "pathfinder/client.h"
#include "support/any_angle_reference.h"
#include "support/clearance_reference.h"
#include "support/line_reference.h"
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

const std::string kDemo = std::string(PATHFINDER_SOURCE_DIR) + "/assets/demo.png";

ServerOptions server_options() {
  ServerOptions options;
  options.binary = PATHFINDER_SERVER_BIN;
  return options;
}

Client make_client(const ServerProcess& server) {
  pathfinder::ClientOptions options;
  options.deadline = std::chrono::seconds(60);
  return Client(server.target(), options);
}

// What the brute force says about one mask and clearance.
struct Reference {
  pathcore::Mask mask;
  std::vector<bool> usable;
  pathcore::Mask usable_mask;  // the mask with every pixel that is not usable blocked

  Reference(pathcore::Mask source, double clearance)
      : mask(std::move(source)),
        usable(pathtest::reference_usable(mask, pathcore::kAllAreas, clearance)),
        usable_mask(pathtest::mask_of_usable(mask, usable)) {}

  [[nodiscard]] bool is_usable(pathcore::Point p) const {
    return usable[static_cast<std::size_t>(p.y) * mask.width() + static_cast<std::size_t>(p.x)];
  }
  [[nodiscard]] bool is_usable(const pb::Point& p) const { return is_usable({p.x(), p.y()}); }
  // The reason a request between two ends that no path joins gets.
  [[nodiscard]] pb::PathReason failure(pathcore::Point start, pathcore::Point goal) const {
    if (!is_usable(start)) {
      return mask.walkable(start, pathcore::kAllAreas) ? pb::PATH_REASON_START_LACKS_CLEARANCE
                                                       : pb::PATH_REASON_START_NOT_WALKABLE;
    }
    if (!is_usable(goal)) {
      return mask.walkable(goal, pathcore::kAllAreas) ? pb::PATH_REASON_GOAL_LACKS_CLEARANCE
                                                      : pb::PATH_REASON_GOAL_NOT_WALKABLE;
    }
    return pb::PATH_REASON_NO_ROUTE;
  }
};

pb::FindPathRequest request_for(const std::string& mask, pathcore::Point start,
                                pathcore::Point goal, double clearance) {
  pb::FindPathRequest request;
  request.set_mask(mask);
  *request.mutable_start() = pathfinder::make_point(start.x, start.y);
  *request.mutable_goal() = pathfinder::make_point(goal.x, goal.y);
  request.set_clearance(clearance);
  return request;
}

// One request with every grid smoothing and both connectivities, checked
// against the reference: found exactly when the flood fill over the usable
// pixels joins the ends, every point usable, consecutive points joined by
// usable Bresenham pixels, the reason, and the optimal grid cost.
void check_grid_answers(Client& client, const std::string& name, const Reference& reference,
                        pathcore::Point start, pathcore::Point goal, double clearance,
                        const std::string& context) {
  for (const bool eight : {false, true}) {
    // Without corner cutting a diagonal step needs both cardinal pixels
    // usable, so eight neighbours join what four join; with it, anything.
    for (const bool cut : {false, true}) {
      if (cut && !eight) continue;
      const pathtest::Diagonals diagonals =
          !eight ? pathtest::Diagonals::kNone
                 : (cut ? pathtest::Diagonals::kAlways : pathtest::Diagonals::kBothSidesFree);
      const bool joined =
          reference.is_usable(start) && reference.is_usable(goal) &&
          pathtest::reference_flood_fill(reference.usable_mask, start, pathcore::kAllAreas,
                                         diagonals)[static_cast<std::size_t>(goal.y) *
                                                        reference.mask.width() +
                                                    static_cast<std::size_t>(goal.x)];
      pathtest::ReferenceGrid grid;
      grid.diagonals = diagonals;
      const std::vector<double> distances =
          pathtest::reference_distances(reference.usable_mask, goal, grid);
      for (const pb::Smoothing smoothing :
           {pb::SMOOTHING_NONE, pb::SMOOTHING_SIMPLIFY, pb::SMOOTHING_BEAUTIFY}) {
        const std::string where = context + (eight ? " eight" : " four") + (cut ? " cut" : "") +
                                  " smoothing " + std::to_string(smoothing);
        pb::FindPathRequest request = request_for(name, start, goal, clearance);
        request.set_connectivity(eight ? pb::CONNECTIVITY_EIGHT : pb::CONNECTIVITY_FOUR);
        request.set_allow_corner_cutting(cut);
        request.set_smoothing(smoothing);
        const auto answer = client.find_path(request);
        ASSERT_TRUE(answer.ok()) << where << ": " << answer.status.error_message();
        ASSERT_EQ(answer.value.found(), joined) << where;
        if (!joined) {
          EXPECT_EQ(answer.value.reason(), reference.failure(start, goal)) << where;
          continue;
        }
        EXPECT_EQ(answer.value.reason(), pb::PATH_REASON_FOUND) << where;
        for (const pb::Point& p : answer.value.points()) {
          EXPECT_TRUE(reference.is_usable(p)) << where << " (" << p.x() << "," << p.y() << ")";
        }
        for (int i = 1; i < answer.value.points_size(); ++i) {
          const pb::Point& a = answer.value.points(i - 1);
          const pb::Point& b = answer.value.points(i);
          EXPECT_TRUE(pathtest::reference_bresenham_walkable(
              reference.usable_mask, pathcore::kAllAreas, {a.x(), a.y()}, {b.x(), b.y()}))
              << where << " segment " << i;
        }
        if (answer.value.has_grid_cost()) {
          const double want = distances[static_cast<std::size_t>(start.y) *
                                            reference.mask.width() +
                                        static_cast<std::size_t>(start.x)];
          EXPECT_NEAR(answer.value.grid_cost(), want, 1e-9 * std::max(1.0, want)) << where;
        }
      }
    }
  }
}

TEST(ClearanceE2eTest, RandomMasksMatchTheBruteForce) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  std::mt19937_64 rng(2121);
  int found = 0;
  int lacking = 0;
  int any_angle_checked = 0;
  for (int round = 0; round < 8; ++round) {
    const std::uint32_t w = 14 + static_cast<std::uint32_t>(rng() % 20);
    const std::uint32_t h = 14 + static_cast<std::uint32_t>(rng() % 20);
    const pathcore::Mask mask = pathtest::random_mask(rng, w, h, 0.04 + 0.02 * (round % 4), 2);
    const std::string name = "random-" + std::to_string(round);
    ASSERT_TRUE(client
                    .upload_mask(pathtest::raw_upload(
                        name, w, h, std::string(mask.areas().begin(), mask.areas().end())))
                    .ok());
    for (const double clearance : {0.75, 1.0, 1.5, 2.25}) {
      const Reference reference(mask, clearance);
      std::vector<pathcore::Point> usable_pixels;
      for (std::int32_t y = 0; y < static_cast<std::int32_t>(h); ++y) {
        for (std::int32_t x = 0; x < static_cast<std::int32_t>(w); ++x) {
          if (reference.is_usable({x, y})) usable_pixels.push_back({x, y});
        }
      }
      // Half the ends among the usable pixels, so that paths are found too.
      const auto pick = [&](int pair) {
        if (pair % 2 == 0 || usable_pixels.empty()) return pathtest::random_point(rng, mask);
        return usable_pixels[rng() % usable_pixels.size()];
      };
      for (int pair = 0; pair < 6; ++pair) {
        const pathcore::Point start = pick(pair);
        const pathcore::Point goal = pick(pair);
        const std::string context = name + " clearance " + std::to_string(clearance) + " (" +
                                    std::to_string(start.x) + "," + std::to_string(start.y) +
                                    ")->(" + std::to_string(goal.x) + "," +
                                    std::to_string(goal.y) + ")";
        check_grid_answers(client, name, reference, start, goal, clearance, context);
        if (reference.is_usable(start) && reference.is_usable(goal)) {
          ++found;
        } else {
          ++lacking;
        }

        // Any-angle: the exact shortest path through the usable pixels' squares.
        for (const bool cut : {false, true}) {
          pb::FindPathRequest request = request_for(name, start, goal, clearance);
          request.set_smoothing(pb::SMOOTHING_ANY_ANGLE);
          request.set_allow_corner_cutting(cut);
          const auto answer = client.find_path(request);
          ASSERT_TRUE(answer.ok()) << context << ": " << answer.status.error_message();
          const std::optional<double> expected = pathtest::any_angle_shortest_length(
              reference.usable_mask, pathcore::kAllAreas, start, goal, std::nullopt, cut);
          ASSERT_EQ(answer.value.found(), expected.has_value()) << context << " cut " << cut;
          if (!expected) {
            EXPECT_EQ(answer.value.reason(), reference.failure(start, goal)) << context;
            continue;
          }
          ++any_angle_checked;
          EXPECT_NEAR(answer.value.length(), *expected, 1e-9 * std::max(1.0, *expected))
              << context << " cut " << cut;
          for (const pb::Point& p : answer.value.points()) {
            EXPECT_TRUE(reference.is_usable(p)) << context << " (" << p.x() << "," << p.y() << ")";
          }
        }

        // Snapping ends on usable pixels.
        pb::FindPathRequest snapping = request_for(name, start, goal, clearance);
        snapping.set_snap_to_reachable(true);
        const auto snapped = client.find_path(snapping);
        ASSERT_TRUE(snapped.ok()) << context;
        if (snapped.value.found()) {
          for (const pb::Point& p : snapped.value.points()) {
            EXPECT_TRUE(reference.is_usable(p)) << context << " snapped";
          }
          EXPECT_TRUE(reference.is_usable(snapped.value.goal())) << context << " snapped";
        } else {
          // Only when no pixel at all is usable.
          EXPECT_EQ(std::count(reference.usable.begin(), reference.usable.end(), true), 0)
              << context;
        }
      }
    }
  }
  // The sample exercised both kinds of ends and the any-angle mode.
  EXPECT_GT(found, 40);
  EXPECT_GT(lacking, 20);
  EXPECT_GT(any_angle_checked, 30);
}

pathcore::Mask demo_mask(Client& client) {
  const auto uploaded = client.upload_mask_file("demo", kDemo);
  EXPECT_TRUE(uploaded.ok()) << uploaded.status.error_message();
  // The grid as the server holds it, not as this test would decode it.
  const auto info = client.get_mask("demo", /*include_areas=*/true);
  EXPECT_TRUE(info.ok()) << info.status.error_message();
  const std::string& areas = info.value.areas();
  return pathcore::Mask(info.value.width(), info.value.height(),
                        std::vector<std::uint8_t>(areas.begin(), areas.end()));
}

TEST(ClearanceE2eTest, DemoLevelMatchesTheBruteForce) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  const pathcore::Mask mask = demo_mask(client);
  ASSERT_GT(mask.pixel_count(), 0U);
  std::mt19937_64 rng(2122);
  for (const double clearance : {2.0, 4.5}) {
    const Reference reference(mask, clearance);
    int checked = 0;
    for (int pair = 0; pair < 4; ++pair) {
      const pathcore::Point start = pathtest::random_point(rng, mask);
      const pathcore::Point goal = pathtest::random_point(rng, mask);
      const std::string context = "demo clearance " + std::to_string(clearance) + " (" +
                                  std::to_string(start.x) + "," + std::to_string(start.y) +
                                  ")->(" + std::to_string(goal.x) + "," + std::to_string(goal.y) +
                                  ")";
      check_grid_answers(client, "demo", reference, start, goal, clearance, context);
      ++checked;
    }
    // Usable ends far apart: a long path that must keep off the walls.
    pathcore::Point start{20, 20};
    pathcore::Point goal{600, 340};
    ASSERT_TRUE(reference.is_usable(start) && reference.is_usable(goal));
    check_grid_answers(client, "demo", reference, start, goal, clearance, "demo long");
    // The same request again: from the caches.
    const auto again = client.find_path(request_for("demo", start, goal, clearance));
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again.value.cache_hit());
    EXPECT_EQ(checked, 4);
  }
}

TEST(ClearanceE2eTest, CliTakesClearanceAndRefusesBadValues) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  const pathcore::Mask mask = demo_mask(client);
  const Reference reference(mask, 3);
  const auto pathfind = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {PATHFIND_CLI_BIN, "--server", server.target()});
    return pathtest::run_command(args);
  };

  const auto found = pathfind({"find", "demo", "20", "20", "600", "340", "--clearance", "3"});
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_THAT(found.out, HasSubstr("found true"));
  // The printed points are usable.
  const std::string points = found.out.substr(found.out.find("points"));
  std::size_t at = 0;
  int seen = 0;
  while ((at = points.find('(', at)) != std::string::npos) {
    int x = 0;
    int y = 0;
    ASSERT_EQ(std::sscanf(points.c_str() + at, "(%d,%d)", &x, &y), 2);
    EXPECT_TRUE(reference.is_usable(pathcore::Point{x, y})) << x << "," << y;
    ++seen;
    ++at;
  }
  EXPECT_GE(seen, 2);

  // A walkable start too close to a wall: exit 3, and why.
  std::optional<pathcore::Point> lacking;
  for (std::int32_t y = 0; y < static_cast<std::int32_t>(mask.height()) && !lacking; ++y) {
    for (std::int32_t x = 0; x < static_cast<std::int32_t>(mask.width()) && !lacking; ++x) {
      if (mask.walkable({x, y}, pathcore::kAllAreas) && !reference.is_usable({x, y})) {
        lacking = pathcore::Point{x, y};
      }
    }
  }
  ASSERT_TRUE(lacking);
  const auto refused = pathfind({"find", "demo", std::to_string(lacking->x),
                                 std::to_string(lacking->y), "600", "340", "--clearance", "3"});
  EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
  EXPECT_THAT(refused.out, HasSubstr("lacks clearance 3"));

  for (const std::string bad : {"-1", "nan", "inf", "three"}) {
    const auto result = pathfind({"find", "demo", "20", "20", "600", "340", "--clearance=" + bad});
    EXPECT_EQ(result.exit_code, 2) << bad << ": " << result.out << result.err;
    EXPECT_THAT(result.err, HasSubstr("--clearance: must be a number from 0 to 65536"))
        << bad;
  }

  const auto help = pathfind({"find", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--clearance PIXELS"));
}

// LineOfSight with a clearance names the first pixel the segment cannot use
// and says whether it is a wall (not walkable) or a walkable pixel an agent
// of that clearance does not fit on; so does `pathfind los`.
TEST(ClearanceE2eTest, LineOfSightSaysWhetherThePixelIsBlockedOrLacksClearance) {
  ServerProcess server(server_options());
  Client client = make_client(server);
  const pathcore::Mask mask = demo_mask(client);
  constexpr double kClearance = 3;
  const Reference reference(mask, kClearance);
  std::mt19937 random(36);
  std::uniform_int_distribution<std::int32_t> xs(0, static_cast<std::int32_t>(mask.width()) - 1);
  std::uniform_int_distribution<std::int32_t> ys(0, static_cast<std::int32_t>(mask.height()) - 1);
  pb::LineOfSightRequest request;
  request.set_mask("demo");
  request.set_clearance(kClearance);
  for (int i = 0; i < 400; ++i) {
    auto* pair = request.add_pairs();
    *pair->mutable_a() = pathfinder::make_point(xs(random), ys(random));
    *pair->mutable_b() = pathfinder::make_point(xs(random), ys(random));
  }
  const auto answer = client.line_of_sight(request);
  ASSERT_TRUE(answer.ok()) << answer.status.error_message();
  ASSERT_EQ(answer.value.results_size(), request.pairs_size());
  std::optional<std::size_t> a_wall;
  std::optional<std::size_t> too_close;
  for (int i = 0; i < request.pairs_size(); ++i) {
    const pathcore::Point a{request.pairs(i).a().x(), request.pairs(i).a().y()};
    const pathcore::Point b{request.pairs(i).b().x(), request.pairs(i).b().y()};
    const pb::LineOfSightResult& result = answer.value.results(i);
    const std::optional<pathcore::Point> first = pathtest::reference_first_blocked(
        reference.usable_mask, pathcore::kAllAreas, a, b, pathcore::LineRule::kNoCornerCutting);
    ASSERT_EQ(result.clear(), !first.has_value()) << i;
    if (!first) {
      EXPECT_FALSE(result.first_blocked_lacks_clearance()) << i;
      continue;
    }
    EXPECT_EQ(result.first_blocked().x(), first->x) << i;
    EXPECT_EQ(result.first_blocked().y(), first->y) << i;
    const bool walkable = mask.walkable(*first, pathcore::kAllAreas);
    EXPECT_EQ(result.first_blocked_lacks_clearance(), walkable) << i;
    (walkable ? too_close : a_wall) = static_cast<std::size_t>(i);
  }
  ASSERT_TRUE(a_wall && too_close) << "the pairs should meet both kinds";

  // Without a clearance nothing lacks it.
  request.set_clearance(0);
  const auto plain = client.line_of_sight(request);
  ASSERT_TRUE(plain.ok()) << plain.status.error_message();
  for (const pb::LineOfSightResult& result : plain.value.results()) {
    EXPECT_FALSE(result.first_blocked_lacks_clearance());
  }

  // The CLI says which, one pair each.
  for (const std::size_t i : {*a_wall, *too_close}) {
    const pb::PointPair& pair = request.pairs(static_cast<int>(i));
    const pb::Point& first = answer.value.results(static_cast<int>(i)).first_blocked();
    const auto los = pathtest::run_command(
        {PATHFIND_CLI_BIN, "--server", server.target(), "los", "demo", std::to_string(pair.a().x()),
         std::to_string(pair.a().y()), std::to_string(pair.b().x()), std::to_string(pair.b().y()),
         "--clearance", "3"});
    ASSERT_EQ(los.exit_code, 0) << los.err;
    const std::string at =
        "(" + std::to_string(first.x()) + "," + std::to_string(first.y()) + ")";
    EXPECT_THAT(los.out, HasSubstr((i == *a_wall ? ": blocked at " : ": lacks clearance at ") + at))
        << los.out;
  }
}

}  // namespace
