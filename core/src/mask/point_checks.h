#pragma once

// Argument checks on points shared by the core sources (not installed).

#include <string>

#include "pathcore/mask.h"

namespace pathcore {

// "(x,y)", for messages.
inline std::string point_text(Point p) {
  return "(" + std::to_string(p.x) + "," + std::to_string(p.y) + ")";
}

// Throws InvalidArgument "<name> (x,y) is outside the WxH mask" unless p is inside.
inline void require_inside(const Mask& mask, Point p, const char* name) {
  if (!mask.contains(p)) {
    throw InvalidArgument(std::string(name) + " " + point_text(p) + " is outside the " +
                          std::to_string(mask.width()) + "x" + std::to_string(mask.height()) +
                          " mask");
  }
}

}  // namespace pathcore
