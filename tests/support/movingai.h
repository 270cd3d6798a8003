#pragma once

// Reading the Moving AI benchmark maps and scenarios (tests/data/movingai),
// shared by the replay tests. Uses GoogleTest assertions for malformed lines.

#include <filesystem>
#include <string>
#include <vector>

#include "pathcore/mask.h"

namespace pathtest {

struct MovingAiScenario {
  pathcore::Point start;
  pathcore::Point goal;
  double optimal = 0;    // the benchmark's octile length (no corner cutting)
  double tolerance = 0;  // from the printed precision of `optimal`
  std::string line;      // the scenario line, for messages
};

// Every .map.scen under dir (recursively, sorted), as paths relative to it.
// Empty when dir does not exist.
[[nodiscard]] std::vector<std::string> movingai_scenario_files(const std::filesystem::path& dir);

// The whole file; empty when it cannot be read.
[[nodiscard]] std::string read_whole_file(const std::filesystem::path& path);

// The scenarios of a .map.scen file's text; map_name is the map file's name
// ("x.map") every line must name. Malformed lines fail the current test.
[[nodiscard]] std::vector<MovingAiScenario> parse_movingai_scenarios(const std::string& text,
                                                                     const std::string& map_name);

// The map a .map.scen file belongs to (the .map beside it), decoded as core
// decodes a Moving AI map. Throws pathcore::InvalidArgument when unreadable.
[[nodiscard]] pathcore::Mask load_movingai_map(const std::filesystem::path& scen_path);

}  // namespace pathtest
