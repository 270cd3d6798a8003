#include "cache/detour_buffer_pool.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "pathcore/detour.h"
#include "pathcore/distance_field.h"
#include "pathcore/obstacles.h"

namespace pathserver {
namespace {

// ##########
// #G.......#
// ####.#####
// #.......S#
// ##########
pathcore::Mask corridor() {
  std::vector<std::uint8_t> areas(10 * 5, 0);
  for (int x = 1; x < 9; ++x) {
    areas[1 * 10 + x] = 1;
    areas[3 * 10 + x] = 1;
  }
  areas[2 * 10 + 4] = 1;
  return {10, 5, areas};
}

// The detour from S to G through buffers from the pool, with these obstacles.
bool found_through(DetourBuffers& buffers, const pathcore::Mask& mask,
                   const pathcore::DistanceField& field, const pathcore::ObstacleSet& blocked) {
  if (buffers.blocked) {
    pathcore::with_obstacles(mask, blocked, *buffers.blocked);
  } else {
    buffers.blocked.emplace(pathcore::with_obstacles(mask, blocked));
  }
  pathcore::FindPathOptions options;
  const auto path = pathcore::path_around_obstacles(
      *buffers.blocked, field, blocked, {8, 3}, options, std::numeric_limits<std::size_t>::max(),
      {}, nullptr, &buffers.scratch);
  return path && path->found;
}

// Buffers come back when their holder lets go, and the next call on a mask
// of that size gets them, with nothing of what the last call learnt: the
// scratch that saw the corridor open (S's way alive) answers the cut one.
TEST(DetourBufferPool, DroppedBuffersComeBackForgettingTheirObstacles) {
  const pathcore::Mask mask = corridor();
  const pathcore::DistanceField field = pathcore::compute_distance_field(mask, {1, 1}, {});
  auto pool = std::make_shared<DetourBufferPool>(std::size_t{1} << 20);

  std::shared_ptr<DetourBuffers> buffers = pool->take(mask.pixel_count());
  EXPECT_FALSE(buffers->blocked.has_value());  // new
  const std::vector<pathcore::Obstacle> beside = {pathcore::PixelsObstacle{{{6, 1}}}};
  EXPECT_TRUE(found_through(*buffers, mask, field, pathcore::ObstacleSet(10, 5, beside)));
  const DetourBuffers* memory = buffers.get();
  std::shared_ptr<DetourBuffers> second_holder = buffers;
  buffers.reset();
  EXPECT_EQ(pool->bytes(), 0U);  // still held
  second_holder.reset();
  EXPECT_GE(pool->bytes(), mask.pixel_count());

  EXPECT_FALSE(pool->take(mask.pixel_count() + 1)->blocked.has_value());  // another size: new
  std::shared_ptr<DetourBuffers> again = pool->take(mask.pixel_count());
  EXPECT_EQ(again.get(), memory);
  EXPECT_EQ(pool->bytes(), 0U);
  const std::vector<pathcore::Obstacle> cut = {pathcore::PixelsObstacle{{{4, 2}}}};
  EXPECT_FALSE(found_through(*again, mask, field, pathcore::ObstacleSet(10, 5, cut)));
}

// At most max_bytes kept, the oldest freed first; 0 keeps nothing; buffers
// that outlive their pool are freed.
TEST(DetourBufferPool, KeepsAtMostItsBytes) {
  const pathcore::Mask mask = corridor();
  const pathcore::DistanceField field = pathcore::compute_distance_field(mask, {1, 1}, {});
  const auto filled = [&](DetourBufferPool& pool) {
    std::shared_ptr<DetourBuffers> buffers = pool.take(mask.pixel_count());
    EXPECT_TRUE(found_through(*buffers, mask, field, pathcore::ObstacleSet()));
    return buffers;
  };
  auto none = std::make_shared<DetourBufferPool>(0);
  filled(*none).reset();
  EXPECT_EQ(none->bytes(), 0U);

  auto probe = std::make_shared<DetourBufferPool>(std::size_t{1} << 20);
  filled(*probe).reset();
  const std::size_t one = probe->bytes();
  ASSERT_GT(one, 0U);
  auto pool = std::make_shared<DetourBufferPool>(2 * one);
  {
    const auto a = filled(*pool);
    const auto b = filled(*pool);
    const auto c = filled(*pool);
  }
  EXPECT_EQ(pool->bytes(), 2 * one);

  std::shared_ptr<DetourBuffers> outliving = filled(*pool);
  pool.reset();
  outliving.reset();  // freed, nothing to give back to
}

}  // namespace
}  // namespace pathserver
