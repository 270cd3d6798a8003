#include "pathcore/path.h"

// Placeholders until trace/simplify/beautify land.
namespace pathcore {

bool segment_walkable(const Mask&, AreaSet, Point, Point, LineRule) { return false; }
std::vector<Point> bresenham_line(Point, Point) { return {}; }
Path trace(const DistanceField&, Point, bool) { return {}; }
Path simplify(const Path& path) { return path; }
Path beautify(const Path& path, const Mask&, AreaSet, LineRule) { return path; }
double polyline_length(const Path&) { return 0; }
LineRule line_rule_for(const FieldOptions&) { return LineRule::kNoCornerCutting; }
std::optional<PathResult> beeline_answer(const Mask&, Point, Point, const FindPathOptions&) {
  return std::nullopt;
}
PathResult path_from_field(const Mask&, const DistanceField&, Point, const FindPathOptions&) {
  return {};
}
PathResult find_path(const Mask&, Point, Point, const FindPathOptions&) { return {}; }

}  // namespace pathcore
