// The exact any-angle engine on every scenario of the Moving AI benchmark
// maps (tests/data/movingai), one ctest case per map and corner rule, against
// an independent reference, and the default mode's path quality measured
// against it.
//
// Per scenario: the engine's path must start and end at the two centres,
// bend only at corners, have every segment legal by the reference's own
// line test (any_angle_visible) and every pixel it names walkable and
// touching its vertex, and its reported length must be its walked length.
// The walked length L of that legal path is then a true upper bound on the
// optimum, so the reference runs bounded by L (plus its own slack) instead
// of the octile optimum (up to ~8% longer): its ellipse shrinks to the
// corners a path no longer than L can use, and it either finds a shorter
// path (the engine was not optimal: the test fails) or confirms L within
// 1e-9 relative. As a further check independent of the engine, the exact
// length never exceeds the scenario's octile optimum (a grid path is one
// any-angle path; cutting corners only adds freedom, so this holds for both
// rules).
//
// Which reference. The per-query reference (any_angle_shortest_length) is
// affordable where L's ellipse holds few corners (open game maps, the
// random map, whose paths are almost straight). On corridor maps (the maze,
// brc202d) a path winds far from the straight line and the ellipse holds
// most of the map, so there the reference's graph is built once per map
// (support/any_angle_corner_graph.h: same vertices, taut filter and line
// test, checked against the per-query reference in
// any_angle_corner_graph_test) and each scenario is an A* over it. kPlans
// says which map uses which, and on which maps not every scenario fits
// (the maze and the random map: see there); every scenario of every other
// map is checked (sanitizer builds: every test_stride()-th,
// support/test_scale.h).
//
// Corner rules: without corner cutting everywhere; with it only on maps
// that have pinch points (elsewhere the two rules are the same problem, and
// the case says so and skips).
//
// Default mode's quality: for the no-cutting case, FindPath's default
// (eight-connected, SMOOTHING_BEAUTIFY, pathcore::find_path) path length
// over the exact length, per map: mean, p95 and worst are printed and
// recorded (RecordProperty). Asserted: every ratio >= 1 - 1e-9 (the exact
// path is the shortest; a smaller ratio is a bug in one of the two). Not
// asserted against a number: issue 21's 1.0207 is over 17 other Moving AI
// maps, not these 10, so it is no threshold for this set; quality targets
// live in smoothing/path_quality_test. Running the binary by itself also
// prints the ratio over all maps at the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pathcore/any_angle.h"
#include "pathcore/path.h"
#include "support/any_angle_corner_graph.h"
#include "support/any_angle_reference.h"
#include "support/movingai.h"
#include "support/test_scale.h"

namespace pathcore {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = PATHFINDER_MOVINGAI_DIR;

enum class Reference {
  kPerQuery,     // any_angle_shortest_length bounded by the engine's L
  kPrebuiltGraph  // AnyAngleCornerGraph, built once for the map and rule
};

// Measured (Release, this machine, CPU seconds): the per-query reference
// bounded by L would take several minutes over brc202d's 2,519 scenarios and
// up to 81 s for one maze scenario; the prebuilt graph takes a few ms per
// query on both. On the random map (110,000 corners, 75% open) the graph's
// candidate floods cover whole quadrants, while L's ellipses are thin. Maps
// not listed: per-query reference, every scenario.
//
// What does not fit (the whole replay is held to a few CPU minutes in
// Release): on the maze every scenario costs ~15 ms (engine 9, reference 5),
// so every 8th is checked (1,495, spread over the whole file). On the random
// map the per-query reference takes about a second a scenario on CI's
// machine (the prebuilt graph takes minutes to build there), so every 16th
// scenario (115, spread over the file, all lengths) is checked in Release
// (about 2 CPU minutes; every 8th took 285 s, the longest test of the run),
// without corner cutting; under sanitizers it would take several
// minutes more and says so. Corner cutting there is left to
// any_angle_test's random pinch-heavy masks.
struct MapPlan {
  const char* scen;  // relative to kDataDir
  Reference reference;
  std::size_t stride;  // every stride-th scenario (times test_stride())
  bool check_cutting;  // false: the corner-cutting case is skipped, saying why
  // false: skipped in sanitizer builds (test_stride() > 1), saying why.
  bool under_sanitizers = true;
};
constexpr MapPlan kPlans[] = {
    {"maze/maze512-1-0.map.scen", Reference::kPrebuiltGraph, 8, true},
    {"random/random512-25-0.map.scen", Reference::kPerQuery, 16, false, false},
    {"dao/brc202d.map.scen", Reference::kPrebuiltGraph, 1, true},
    {"dao/hrt201n.map.scen", Reference::kPrebuiltGraph, 1, true},
    {"room/32room_000.map.scen", Reference::kPrebuiltGraph, 1, true},
};

MapPlan plan_for(const std::string& scen) {
  for (const MapPlan& plan : kPlans) {
    if (scen == plan.scen) return plan;
  }
  return {nullptr, Reference::kPerQuery, 1, true};
}

bool has_pinch_points(const Mask& mask) {
  const auto blocked = [&](std::int32_t x, std::int32_t y) {
    return !mask.walkable({x, y}, kAllAreas);
  };
  for (std::int32_t j = 1; j < static_cast<std::int32_t>(mask.height()); ++j) {
    for (std::int32_t i = 1; i < static_cast<std::int32_t>(mask.width()); ++i) {
      const bool a = blocked(i - 1, j - 1);
      const bool b = blocked(i, j - 1);
      const bool c = blocked(i - 1, j);
      const bool d = blocked(i, j);
      if (a == d && b == c && a != b) return true;
    }
  }
  return false;
}

// The walked length of the engine's path if it is legal by the reference's
// rules (see the header comment), else a failure and std::nullopt.
std::optional<double> checked_walked_length(const Mask& mask, bool cut, Point start, Point goal,
                                            const AnyAnglePath& path, const std::string& context) {
  EXPECT_FALSE(path.points.empty()) << context;
  EXPECT_EQ(path.points.size(), path.pixels.size()) << context;
  if (path.points.empty() || path.points.size() != path.pixels.size()) return std::nullopt;
  EXPECT_EQ(path.points.front(), (PointD{start.x + 0.5, start.y + 0.5})) << context;
  EXPECT_EQ(path.points.back(), (PointD{goal.x + 0.5, goal.y + 0.5})) << context;
  bool legal = path.points.front() == PointD{start.x + 0.5, start.y + 0.5} &&
               path.points.back() == PointD{goal.x + 0.5, goal.y + 0.5};
  double walked = 0;
  for (std::size_t i = 0; i < path.points.size(); ++i) {
    const PointD p = path.points[i];
    const Point pixel = path.pixels[i];
    const bool pixel_ok = mask.walkable(pixel, kAllAreas) && p.x >= pixel.x &&
                          p.x <= pixel.x + 1 && p.y >= pixel.y && p.y <= pixel.y + 1;
    EXPECT_TRUE(pixel_ok) << context << " vertex " << i;
    legal = legal && pixel_ok;
    // Vertices are centres or corners: integers in doubled coordinates.
    const Point b2{static_cast<std::int32_t>(2 * p.x), static_cast<std::int32_t>(2 * p.y)};
    const bool on_lattice = b2.x == 2 * p.x && b2.y == 2 * p.y;
    EXPECT_TRUE(on_lattice) << context << " vertex " << i;
    legal = legal && on_lattice;
    if (i == 0) continue;
    const PointD q = path.points[i - 1];
    const Point a2{static_cast<std::int32_t>(2 * q.x), static_cast<std::int32_t>(2 * q.y)};
    const bool visible = pathtest::any_angle_visible(mask, kAllAreas, a2, b2, cut);
    EXPECT_TRUE(visible) << context << " segment " << i;
    legal = legal && visible;
    walked += std::hypot(p.x - q.x, p.y - q.y);
  }
  EXPECT_NEAR(path.length, walked, 1e-9 * std::max(1.0, walked)) << context;
  if (!legal) return std::nullopt;
  return walked;
}

struct RatioSummary {
  std::size_t count = 0;
  double mean = 0;
  double p95 = 0;
  double worst = 0;
};
RatioSummary summarise(std::vector<double> ratios) {
  RatioSummary summary;
  if (ratios.empty()) return summary;
  std::sort(ratios.begin(), ratios.end());
  summary.count = ratios.size();
  double sum = 0;
  for (const double r : ratios) sum += r;
  summary.mean = sum / static_cast<double>(ratios.size());
  summary.p95 = ratios[std::min(ratios.size() - 1, (ratios.size() * 95 + 99) / 100 - 1)];
  summary.worst = ratios.back();
  return summary;
}

// Every map's default-mode ratios, for the summary over all maps printed
// when the binary runs more than one map (ctest runs one case per process).
std::mutex all_ratios_mutex;
std::vector<double> all_ratios;
std::size_t maps_measured = 0;

class OverallRatioPrinter : public testing::Environment {
 public:
  void TearDown() override {
    const std::lock_guard lock(all_ratios_mutex);
    if (maps_measured < 2) return;
    const RatioSummary s = summarise(all_ratios);
    std::printf("default mode / exact over %zu maps, %zu scenarios: mean %.4f p95 %.4f worst %.4f\n",
                maps_measured, s.count, s.mean, s.p95, s.worst);
  }
};
const testing::Environment* const kOverallRatioPrinter =
    testing::AddGlobalTestEnvironment(new OverallRatioPrinter);

// Where a case's time goes, printed (never asserted): seconds per stage.
class StageTimes {
 public:
  using Clock = std::chrono::steady_clock;
  void start() { since_ = Clock::now(); }
  void stop(double& total) {
    total += std::chrono::duration<double>(Clock::now() - since_).count();
  }
  double meshes = 0;
  double engine = 0;
  double checks = 0;
  double reference = 0;
  double default_mode = 0;

 private:
  Clock::time_point since_;
};

struct Case {
  std::string scen;
  bool cut;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.scen << (c.cut ? " with corner cutting" : " without corner cutting");
}

class AnyAngleMovingAi : public testing::TestWithParam<Case> {};

TEST_P(AnyAngleMovingAi, EveryScenarioIsExact) {
  const Case& param = GetParam();
  const fs::path scen = kDataDir / param.scen;
  const Mask mask = pathtest::load_movingai_map(scen);
  if (param.cut && !has_pinch_points(mask)) {
    GTEST_SKIP() << param.scen << " has no pinch points: corner cutting changes nothing there";
  }
  const std::vector<pathtest::MovingAiScenario> scenarios =
      pathtest::parse_movingai_scenarios(pathtest::read_whole_file(scen), scen.stem().string());
  ASSERT_FALSE(scenarios.empty());
  const MapPlan plan = plan_for(param.scen);
  if (param.cut && !plan.check_cutting) {
    GTEST_SKIP() << param.scen << ": corner cutting does not fit the time budget here (see the "
                 << "header comment)";
  }
  if (!plan.under_sanitizers && pathtest::test_stride() > 1) {
    GTEST_SKIP() << param.scen << ": too slow under sanitizers (checked in the Release run)";
  }
  const std::size_t stride = pathtest::test_stride() * plan.stride;
  const Reference reference = plan.reference;

  StageTimes times;
  times.start();
  const AnyAngleMesh mesh = AnyAngleMesh::build(mask, kAllAreas, param.cut);
  std::optional<pathtest::AnyAngleCornerGraph> reference_graph;
  if (reference == Reference::kPrebuiltGraph) reference_graph.emplace(mask, kAllAreas, param.cut);
  times.stop(times.meshes);

  FindPathOptions default_mode;  // the default smoothing, SMOOTHING_BEAUTIFY
  default_mode.field.connectivity = Connectivity::kEight;
  std::vector<double> ratios;
  std::size_t checked = 0;
  for (std::size_t i = 0; i < scenarios.size(); i += stride) {
    const pathtest::MovingAiScenario& s = scenarios[i];
    const std::string context = s.line + (param.cut ? " (corner cutting)" : "");
    ++checked;
    times.start();
    const std::optional<AnyAnglePath> path = find_any_angle_path(mesh, s.start, s.goal);
    times.stop(times.engine);
    ASSERT_TRUE(path.has_value()) << context << ": every benchmark scenario has a path";
    times.start();
    const std::optional<double> walked =
        checked_walked_length(mask, param.cut, s.start, s.goal, *path, context);
    if (!walked) {
      ADD_FAILURE() << context << ": not a legal path, so no bound for the reference";
      continue;
    }
    times.stop(times.checks);
    times.start();
    const std::optional<double> exact =
        reference_graph ? reference_graph->shortest_length(s.start, s.goal, *walked)
                        : pathtest::any_angle_shortest_length(mask, kAllAreas, s.start, s.goal,
                                                              *walked, param.cut);
    times.stop(times.reference);
    // A legal path of length L exists, so a correct reference finds one no longer.
    ASSERT_TRUE(exact.has_value()) << context;
    EXPECT_NEAR(path->length, *exact, 1e-9 * std::max(1.0, *exact)) << context;
    EXPECT_LE(*exact, s.optimal + s.tolerance) << context << ": longer than the octile path";
    if (param.cut) continue;
    times.start();
    const PathResult beautified = find_path(mask, s.start, s.goal, default_mode);
    times.stop(times.default_mode);
    ASSERT_TRUE(beautified.found) << context;
    const double ratio = *exact > 0 ? beautified.length / *exact : 1.0;
    EXPECT_GE(ratio, 1 - 1e-9) << context << ": the default path is shorter than the exact one";
    ratios.push_back(ratio);
  }
  std::printf("%s%s: %zu of %zu scenarios; seconds: meshes %.2f, engine %.2f, path checks %.2f, "
              "reference %.2f, default mode %.2f\n",
              param.scen.c_str(), param.cut ? " (corner cutting)" : "", checked, scenarios.size(),
              times.meshes, times.engine, times.checks, times.reference, times.default_mode);
  RecordProperty("scenarios", static_cast<int>(scenarios.size()));
  RecordProperty("checked", static_cast<int>(checked));
  RecordProperty("reference", reference == Reference::kPrebuiltGraph ? "prebuilt graph"
                                                                     : "per query, bounded by L");
  if (param.cut) return;
  const RatioSummary summary = summarise(ratios);
  std::printf("%s: default mode / exact over %zu scenarios: mean %.4f p95 %.4f worst %.4f\n",
              param.scen.c_str(), summary.count, summary.mean, summary.p95, summary.worst);
  RecordProperty("default_ratio_mean", std::to_string(summary.mean));
  RecordProperty("default_ratio_p95", std::to_string(summary.p95));
  RecordProperty("default_ratio_worst", std::to_string(summary.worst));
  const std::lock_guard lock(all_ratios_mutex);
  all_ratios.insert(all_ratios.end(), ratios.begin(), ratios.end());
  ++maps_measured;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const std::string& scen : pathtest::movingai_scenario_files(kDataDir)) {
    cases.push_back({scen, false});
    cases.push_back({scen, true});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllMaps, AnyAngleMovingAi, testing::ValuesIn(all_cases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.scen;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name + (info.param.cut ? "_cutting" : "_no_cutting");
                         });

TEST(AnyAngleMovingAiData, IsThere) {
  EXPECT_GE(pathtest::movingai_scenario_files(kDataDir).size(), 10U)
      << "no Moving AI scenarios under " << kDataDir;
}

}  // namespace
}  // namespace pathcore
