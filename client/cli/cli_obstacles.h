#pragma once

// --obstacle SHAPE (repeatable), the temporary obstacles of find, batch, los,
// reachable and range: rect:X,Y,W,H, circle:X,Y,R or pixels:X,Y;X,Y;...

#include <CLI/CLI.hpp>
#include <google/protobuf/repeated_ptr_field.h>

#include <string>
#include <string_view>
#include <vector>

#include "pathfinding/v1/pathfinding.pb.h"

namespace pathfinder::cli {

void add_obstacle_option(CLI::App& command, std::vector<std::string>& obstacles);

// One --obstacle value as the wire's Obstacle. Throws UsageError naming
// --obstacle and saying what was expected.
[[nodiscard]] pathfinding::v1::Obstacle parse_obstacle(std::string_view text);

// Every --obstacle value, in order. Throws as parse_obstacle.
[[nodiscard]] google::protobuf::RepeatedPtrField<pathfinding::v1::Obstacle> parse_obstacles(
    const std::vector<std::string>& texts);

}  // namespace pathfinder::cli
