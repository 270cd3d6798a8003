#include "support/movingai.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>

#include "pathcore/codec.h"

namespace pathtest {

namespace fs = std::filesystem;

std::vector<std::string> movingai_scenario_files(const fs::path& dir) {
  std::vector<std::string> files;
  if (fs::is_directory(dir)) {
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > 9 && name.ends_with(".map.scen")) {
        files.push_back(fs::relative(entry.path(), dir).string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_whole_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

namespace {

// The printed lengths are rounded (bg512 to 2 decimals, dao to 6 significant
// digits, street to 8 decimals): allow half a unit of the last printed digit
// (at least 1e-4), plus 1e-6 relative.
double tolerance_for(const std::string& printed, double value) {
  const std::size_t dot = printed.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(printed.size() - dot - 1);
  return std::max(1e-4, 0.5 * std::pow(10.0, -decimals)) + 1e-6 * value;
}

}  // namespace

std::vector<MovingAiScenario> parse_movingai_scenarios(const std::string& text,
                                                       const std::string& map_name) {
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("version", 0), 0U) << "first line: " << line;
  std::vector<MovingAiScenario> scenarios;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::istringstream fields(line);
    int bucket = 0;
    std::string map;
    int width = 0;
    int height = 0;
    MovingAiScenario s;
    std::string optimal;
    fields >> bucket >> map >> width >> height >> s.start.x >> s.start.y >> s.goal.x >> s.goal.y >>
        optimal;
    EXPECT_FALSE(fields.fail()) << "unreadable scenario: " << line;
    EXPECT_EQ(fs::path(map).filename().string(), map_name) << line;
    s.optimal = std::stod(optimal);
    s.tolerance = tolerance_for(optimal, s.optimal);
    s.line = line;
    scenarios.push_back(s);
  }
  return scenarios;
}

pathcore::Mask load_movingai_map(const fs::path& scen_path) {
  const fs::path map_path = scen_path.parent_path() / scen_path.stem();  // "x.map"
  const std::string text = read_whole_file(map_path);
  if (text.empty()) throw pathcore::InvalidArgument("cannot read " + map_path.string());
  pathcore::DecodeOptions decode;
  decode.format = pathcore::MaskFormat::kMovingAi;
  return pathcore::decode_mask(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), decode);
}

}  // namespace pathtest
