#include <algorithm>
#include <cmath>
#include <string>

#include "pathcore/obstacles.h"

namespace pathcore {
namespace {

// A shape's pixels inside the mask: columns [x0, x1), rows [y0, y1).
struct Box {
  std::int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  [[nodiscard]] bool empty() const { return x0 >= x1 || y0 >= y1; }
};

std::string name_of(std::size_t index) { return "obstacles[" + std::to_string(index) + "]"; }

// Clamps a double pixel bound into [0, limit] before it becomes an integer,
// so huge radii and far centres cannot overflow.
std::int64_t clamp_bound(double value, std::int64_t limit) {
  return static_cast<std::int64_t>(std::clamp(value, 0.0, static_cast<double>(limit)));
}

class ShapeBoxes {
 public:
  ShapeBoxes(std::int64_t width, std::int64_t height) : width_(width), height_(height) {}

  Box operator()(const RectObstacle& rect, std::size_t index) const {
    if (rect.width < 1 || rect.height < 1) {
      throw InvalidArgument(name_of(index) + ".rect: width and height must be at least 1");
    }
    return {std::clamp<std::int64_t>(rect.x, 0, width_), std::clamp<std::int64_t>(rect.y, 0, height_),
            std::clamp<std::int64_t>(rect.x + rect.width, 0, width_),
            std::clamp<std::int64_t>(rect.y + rect.height, 0, height_)};
  }
  Box operator()(const CircleObstacle& circle, std::size_t index) const {
    if (!std::isfinite(circle.centre_x) || !std::isfinite(circle.centre_y)) {
      throw InvalidArgument(name_of(index) + ".circle.centre must be finite");
    }
    if (!std::isfinite(circle.radius) || !(circle.radius > 0)) {
      throw InvalidArgument(name_of(index) + ".circle.radius must be finite and > 0");
    }
    // Pixel x is in when its centre x + 0.5 lies within radius of the centre.
    return {clamp_bound(std::ceil(circle.centre_x - circle.radius - 0.5), width_),
            clamp_bound(std::ceil(circle.centre_y - circle.radius - 0.5), height_),
            clamp_bound(std::floor(circle.centre_x + circle.radius - 0.5) + 1, width_),
            clamp_bound(std::floor(circle.centre_y + circle.radius - 0.5) + 1, height_)};
  }
  Box operator()(const PixelsObstacle& list, std::size_t index) const {
    Box box{width_, height_, 0, 0};
    for (std::size_t i = 0; i < list.pixels.size(); ++i) {
      const Point p = list.pixels[i];
      if (p.x < 0 || p.y < 0 || p.x >= width_ || p.y >= height_) {
        throw InvalidArgument(name_of(index) + ".pixels[" + std::to_string(i) + "] (" +
                              std::to_string(p.x) + "," + std::to_string(p.y) +
                              ") is outside the mask");
      }
      box.x0 = std::min<std::int64_t>(box.x0, p.x);
      box.y0 = std::min<std::int64_t>(box.y0, p.y);
      box.x1 = std::max<std::int64_t>(box.x1, p.x + 1);
      box.y1 = std::max<std::int64_t>(box.y1, p.y + 1);
    }
    return box;
  }

 private:
  std::int64_t width_;
  std::int64_t height_;
};

bool inside_circle(const CircleObstacle& circle, std::int64_t x, std::int64_t y) {
  const double dx = static_cast<double>(x) + 0.5 - circle.centre_x;
  const double dy = static_cast<double>(y) + 0.5 - circle.centre_y;
  return dx * dx + dy * dy <= circle.radius * circle.radius;
}

}  // namespace

ObstacleSet::ObstacleSet(std::uint32_t mask_width, std::uint32_t mask_height,
                         std::span<const Obstacle> obstacles) {
  const ShapeBoxes shape_box(mask_width, mask_height);
  std::vector<Box> boxes;
  boxes.reserve(obstacles.size());
  Box all{mask_width, mask_height, 0, 0};
  for (std::size_t i = 0; i < obstacles.size(); ++i) {
    const Box box = std::visit([&](const auto& shape) { return shape_box(shape, i); }, obstacles[i]);
    boxes.push_back(box);
    if (box.empty()) continue;
    all = {std::min(all.x0, box.x0), std::min(all.y0, box.y0), std::max(all.x1, box.x1),
           std::max(all.y1, box.y1)};
  }
  if (all.empty()) return;
  min_x_ = static_cast<std::int32_t>(all.x0);
  min_y_ = static_cast<std::int32_t>(all.y0);
  end_x_ = static_cast<std::int32_t>(all.x1);
  end_y_ = static_cast<std::int32_t>(all.y1);
  bits_.assign((box_width() * static_cast<std::size_t>(end_y_ - min_y_) + 63) / 64, 0);
  const auto block = [&](std::int64_t x, std::int64_t y) {
    const std::size_t bit =
        static_cast<std::size_t>(y - min_y_) * box_width() + static_cast<std::size_t>(x - min_x_);
    std::uint64_t& word = bits_[bit / 64];
    const std::uint64_t flag = std::uint64_t{1} << (bit % 64);
    blocked_count_ += (word & flag) == 0 ? 1 : 0;
    word |= flag;
  };
  for (std::size_t i = 0; i < obstacles.size(); ++i) {
    const Box& box = boxes[i];
    if (box.empty()) continue;
    if (const auto* list = std::get_if<PixelsObstacle>(&obstacles[i])) {
      for (const Point p : list->pixels) block(p.x, p.y);
      continue;
    }
    const auto* circle = std::get_if<CircleObstacle>(&obstacles[i]);
    for (std::int64_t y = box.y0; y < box.y1; ++y) {
      for (std::int64_t x = box.x0; x < box.x1; ++x) {
        if (circle == nullptr || inside_circle(*circle, x, y)) block(x, y);
      }
    }
  }
}

Mask with_obstacles(const Mask& mask, const ObstacleSet& obstacles) {
  return mask.with_blocked_each([&](const auto& visit) {
    obstacles.for_each([&](Point p) { visit(mask.index(p)); });
  });
}

void with_obstacles(const Mask& mask, const ObstacleSet& obstacles, Mask& into) {
  into.assign_blocked_each(mask, [&](const auto& visit) {
    obstacles.for_each([&](Point p) { visit(mask.index(p)); });
  });
}

}  // namespace pathcore
