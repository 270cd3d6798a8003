// Measures beautified paths against the exact any-angle shortest path
// (support/any_angle_reference.h) on the Moving AI maps, docs/design.md's quality
// target for Beautify: on game maps, eight-connected beautified paths without
// corner cutting average within 0.8% of the exact length, and no path is ever
// shorter than it (that would be a segment cutting a corner the request
// forbids). Four-connected beautify is measured too; only "never shorter" is
// asserted for it. Prints per map: scenarios used, mean and worst ratio
// (ours / exact) per mode with the worst scenarios, and the mean of exact /
// octile optimum (about 0.93-0.95 on game maps: a sanity check of the
// reference). Game maps that miss the target are a separate, named known gap
// (GameMapKnownGap), held to the best path beautify's rules allow where that
// is affordable; the other Moving AI sets (maze, random, room, street) are
// measured and checked for "never shorter" (OtherMapMeasured).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "pathcore/path.h"
#include "support/any_angle_reference.h"
#include "support/movingai.h"
#include "support/test_scale.h"

namespace pathcore {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = PATHFINDER_MOVINGAI_DIR;

// docs/design.md: beautified paths average within 0.8% of the exact length.
constexpr double kDesignMeanRatio = 1.008;

struct MapPlan {
  const char* scen;    // relative to kDataDir
  std::size_t stride;  // replay every stride-th scenario (times test_stride())
  // Only scenarios whose octile optimum is at most this (0: all): on maps
  // full of corners the reference's cost grows with the square of the
  // corners near the path.
  double max_octile = 0;
  // Also measure against the shortest polyline through pixel centres that
  // keeps clear of blocked pixels (pixel_polyline_shortest_length): the best
  // any smoother bound by beautify's rules can do. Small maps only.
  bool pixel_optimum = false;
};

// Small maps in full, the big ones sampled, so that the reference (a
// visibility graph) keeps the whole test within ~20 s in Release.

// Game maps (Dragon Age, Baldur's Gate) that meet DESIGN's target.
const MapPlan kGameMapsOnTarget[] = {
    {"dao/arena.map.scen", 1, 0, true},
    {"dao/brc202d.map.scen", 8},
    {"bg512/AR0011SR.map.scen", 4},
    {"bg512/AR0205SR.map.scen", 4},
};

// Known gap: game maps that do NOT meet DESIGN's target (measured 2026-11-23:
// den312d 1.027, hrt201n 1.012). Mostly narrow corridors and short paths: the
// exact path hugs walls and touches blocked corners, while a beautified path
// bends only at pixel centres (the wire's points are pixels) and never touches
// a blocked pixel (LineRule::kNoCornerCutting), which costs about half a pixel
// of clearance per wall it follows. No smoother under those rules can do much
// better: on den312d the best such polyline (pixel_optimum) is itself 2.6%
// longer than the exact path, and beautify must stay within
// kRulesOptimumMeanRatio of it. hrt201n is too big for that reference; it is
// checked for "never shorter" and its figures are printed.
const MapPlan kGameMapsKnownGap[] = {
    {"dao/den312d.map.scen", 1, 0, true},
    {"dao/hrt201n.map.scen", 4},
};

// Not game maps (DESIGN's target does not cover them): measured and printed,
// checked for "never shorter". Only the shorter scenarios of maze and random,
// whose one-pixel corridors and scattered obstacles give the reference tens
// of thousands of corners.
const MapPlan kOtherMapsMeasured[] = {
    {"maze/maze512-1-0.map.scen", 1, 40},
    {"random/random512-25-0.map.scen", 1, 40},
    {"room/32room_000.map.scen", 4, 100},
    {"street/Berlin_0_256.map.scen", 4, 100},
};

// Beautify against the best polyline its rules allow (pixel_optimum): the
// mean ratio may not exceed this (measured 1.0008 on den312d, 1.0013 on arena).
constexpr double kRulesOptimumMeanRatio = 1.002;

// Test parameters print as their scenario file.
void PrintTo(const MapPlan& plan, std::ostream* out) { *out << plan.scen; }

// One scenario's lengths.
struct Measured {
  pathtest::MovingAiScenario scenario;
  double exact = 0;   // the reference
  double octile = 0;  // the benchmark's optimum
  double eight = 0;   // beautify, eight-connected, no corner cutting
  double four = 0;    // beautify, four-connected
  double pixel = 0;   // the best pixel-centre polyline (MapPlan::pixel_optimum)
};

double beautified_length(const Mask& mask, const pathtest::MovingAiScenario& s,
                         Connectivity connectivity) {
  FindPathOptions options;  // Smoothing::kBeautify, the server default
  options.field.connectivity = connectivity;
  options.field.allow_corner_cutting = false;
  const PathResult result = find_path(mask, s.start, s.goal, options);
  return result.found ? result.length : -1;
}

struct ModeSummary {
  double mean = 0;
  double worst = 0;
  std::vector<const Measured*> worst_cases;  // worst first
};

// Ratios length / yardstick (the exact length unless told).
ModeSummary summarize(const std::vector<Measured>& measured, double Measured::*length,
                      double Measured::*yardstick = &Measured::exact) {
  ModeSummary summary;
  std::vector<const Measured*> order;
  for (const Measured& m : measured) {
    const double ratio = m.*length / m.*yardstick;
    summary.mean += ratio / static_cast<double>(measured.size());
    summary.worst = std::max(summary.worst, ratio);
    order.push_back(&m);
  }
  std::sort(order.begin(), order.end(), [&](const Measured* a, const Measured* b) {
    return a->*length / a->*yardstick > b->*length / b->*yardstick;
  });
  order.resize(std::min<std::size_t>(order.size(), 3));
  summary.worst_cases = order;
  return summary;
}

void print_mode(const char* mode, const ModeSummary& summary, double Measured::*length,
                double Measured::*yardstick = &Measured::exact,
                const char* yardstick_name = "exact", const char* length_name = "ours") {
  std::printf("  %s: mean ratio %.5f, worst %.5f\n", mode, summary.mean, summary.worst);
  for (const Measured* m : summary.worst_cases) {
    std::printf("    (%d,%d)->(%d,%d): %s %.4f, %s %.4f, ratio %.5f\n", m->scenario.start.x,
                m->scenario.start.y, m->scenario.goal.x, m->scenario.goal.y, length_name,
                m->*length, yardstick_name, m->*yardstick, m->*length / m->*yardstick);
  }
}

struct MapMeasurement {
  std::size_t scenarios = 0;
  ModeSummary eight;
  ModeSummary four;
  ModeSummary eight_to_pixel;  // eight against the best pixel polyline (pixel_optimum)
};

// Replays the plan's scenarios through both beautify modes and the reference,
// checks that no path is shorter than the exact optimum, prints the figures.
MapMeasurement measure(const MapPlan& plan) {
  const fs::path scen = kDataDir / plan.scen;
  const Mask mask = pathtest::load_movingai_map(scen);
  const std::vector<pathtest::MovingAiScenario> all =
      pathtest::parse_movingai_scenarios(pathtest::read_whole_file(scen), scen.stem().string());
  std::vector<Measured> measured;
  const std::size_t stride = plan.stride * pathtest::test_stride();
  for (std::size_t i = 0; i < all.size(); i += stride) {
    if (plan.max_octile == 0 || all[i].optimal <= plan.max_octile) measured.push_back({all[i]});
  }
  // Both cores: each thread measures every other scenario.
  std::vector<std::thread> threads;
  for (std::size_t part = 0; part < 2; ++part) {
    threads.emplace_back([&, part] {
      for (std::size_t i = part; i < measured.size(); i += 2) {
        Measured& m = measured[i];
        // The benchmark's octile path is a valid any-angle path: a safe
        // bound for the reference's search.
        const std::optional<double> exact =
            pathtest::any_angle_shortest_length(mask, kAllAreas, m.scenario.start, m.scenario.goal,
                                                m.scenario.optimal + m.scenario.tolerance);
        m.exact = exact.value_or(-1);
        m.octile = m.scenario.optimal;
        m.eight = beautified_length(mask, m.scenario, Connectivity::kEight);
        m.four = beautified_length(mask, m.scenario, Connectivity::kFour);
        if (plan.pixel_optimum) {
          // Bounded by our own path: when that is a valid pixel polyline the
          // optimum is no longer; when it is shorter than the optimum (not
          // valid), no polyline is found and the check below fails.
          m.pixel = pathtest::pixel_polyline_shortest_length(mask, kAllAreas, m.scenario.start,
                                                             m.scenario.goal, m.eight)
                        .value_or(-1);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();

  // Scenarios of length 0 (start == goal) have no ratio.
  std::vector<Measured> compared;
  double exact_to_octile = 0;
  for (const Measured& m : measured) {
    const std::string& where = m.scenario.line;
    EXPECT_GT(m.exact, -1) << "no exact path: " << where;
    EXPECT_GT(m.eight, -1) << "no eight-connected path: " << where;
    EXPECT_GT(m.four, -1) << "no four-connected path: " << where;
    // Shorter than the exact optimum: a segment squeezes through a pinch or
    // crosses a blocked pixel.
    EXPECT_GE(m.eight, m.exact - 1e-6) << "eight-connected path shorter than exact: " << where;
    EXPECT_GE(m.four, m.exact - 1e-6) << "four-connected path shorter than exact: " << where;
    if (plan.pixel_optimum) {
      // Beautify's paths are such polylines: none may beat the best one.
      EXPECT_GT(m.pixel, -1) << "eight-connected path shorter than the best pixel polyline: "
                             << where;
      EXPECT_GE(m.four, m.pixel - 1e-6)
          << "four-connected path shorter than the best pixel polyline: " << where;
      EXPECT_GE(m.pixel, m.exact - 1e-6) << "references disagree: " << where;
    }
    if (m.exact > 0) compared.push_back(m);
  }
  for (const Measured& m : compared) {
    exact_to_octile += m.exact / m.octile / static_cast<double>(compared.size());
  }
  MapMeasurement result;
  result.scenarios = compared.size();
  if (compared.empty()) return result;
  result.eight = summarize(compared, &Measured::eight);
  result.four = summarize(compared, &Measured::four);
  std::printf("[path quality] %s: %zu scenarios (stride %zu", plan.scen, compared.size(), stride);
  if (plan.max_octile > 0) std::printf(", octile optimum <= %g", plan.max_octile);
  std::printf("), exact/octile mean %.5f\n", exact_to_octile);
  print_mode("beautify eight", result.eight, &Measured::eight);
  print_mode("beautify four", result.four, &Measured::four);
  if (plan.pixel_optimum) {
    // What bending at pixel centres and keeping clear of blocked pixels
    // costs, and how close beautify gets to the best path under those rules.
    print_mode("best pixel polyline vs exact", summarize(compared, &Measured::pixel),
               &Measured::pixel, &Measured::exact, "exact", "pixel-best");
    result.eight_to_pixel = summarize(compared, &Measured::eight, &Measured::pixel);
    print_mode("beautify eight vs best pixel polyline", result.eight_to_pixel, &Measured::eight,
               &Measured::pixel, "pixel-best");
    print_mode("beautify four vs best pixel polyline",
               summarize(compared, &Measured::four, &Measured::pixel), &Measured::four,
               &Measured::pixel, "pixel-best");
  }
  std::fflush(stdout);
  testing::Test::RecordProperty("scenarios", static_cast<int>(compared.size()));
  testing::Test::RecordProperty("eight_mean_ratio", std::to_string(result.eight.mean));
  testing::Test::RecordProperty("eight_worst_ratio", std::to_string(result.eight.worst));
  testing::Test::RecordProperty("four_mean_ratio", std::to_string(result.four.mean));
  testing::Test::RecordProperty("exact_to_octile", std::to_string(exact_to_octile));
  return result;
}

std::string test_name(const testing::TestParamInfo<MapPlan>& info) {
  std::string name = info.param.scen;
  name = name.substr(0, name.find(".map.scen"));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// The mean ratios are checked on the sample a normal build takes: a sanitizer
// build, which thins it (test_stride), only checks "never shorter" (in
// measure), then skips the mean's check, saying so.
bool full_sample() { return pathtest::test_stride() == 1; }
constexpr const char* kThinnedSample =
    "sample thinned by test_stride (a sanitizer build): never shorter than exact checked, the "
    "mean ratios only in the Release run";

// Eight-connected beautify within DESIGN's 0.8% of the exact length, and
// (where measured) within kRulesOptimumMeanRatio of the best pixel polyline.
class GameMapOnTarget : public testing::TestWithParam<MapPlan> {};
TEST_P(GameMapOnTarget, BeautifyMeanWithinDesignTarget) {
  const MapMeasurement measured = measure(GetParam());
  ASSERT_GT(measured.scenarios, 0U);
  if (!full_sample()) GTEST_SKIP() << kThinnedSample;
  EXPECT_LE(measured.eight.mean, kDesignMeanRatio);
  if (GetParam().pixel_optimum) {
    EXPECT_LE(measured.eight_to_pixel.mean, kRulesOptimumMeanRatio);
  }
}
INSTANTIATE_TEST_SUITE_P(MovingAi, GameMapOnTarget, testing::ValuesIn(kGameMapsOnTarget),
                         test_name);

// Off DESIGN's target (see kGameMapsKnownGap): never shorter than exact, and
// where measured, within kRulesOptimumMeanRatio of the best pixel polyline.
class GameMapKnownGap : public testing::TestWithParam<MapPlan> {};
TEST_P(GameMapKnownGap, BeautifyNearTheBestPathItsRulesAllow) {
  const MapMeasurement measured = measure(GetParam());
  ASSERT_GT(measured.scenarios, 0U);
  if (!full_sample()) GTEST_SKIP() << kThinnedSample;
  // Without a measured pixel optimum, "never shorter" (in measure) is the check.
  if (GetParam().pixel_optimum) {
    EXPECT_LE(measured.eight_to_pixel.mean, kRulesOptimumMeanRatio);
  }
}
INSTANTIATE_TEST_SUITE_P(MovingAi, GameMapKnownGap, testing::ValuesIn(kGameMapsKnownGap),
                         test_name);

class OtherMapMeasured : public testing::TestWithParam<MapPlan> {};
TEST_P(OtherMapMeasured, NeverShorterThanExact) { EXPECT_GT(measure(GetParam()).scenarios, 0U); }
INSTANTIATE_TEST_SUITE_P(MovingAi, OtherMapMeasured, testing::ValuesIn(kOtherMapsMeasured),
                         test_name);

}  // namespace
}  // namespace pathcore
