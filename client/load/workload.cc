#include "workload.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "pathfinder/client.h"

namespace pathfinder::load {

namespace pb = pathfinding::v1;

const char* rpc_name(Rpc rpc) {
  switch (rpc) {
    case Rpc::kHealth:
      return "health";
    case Rpc::kFindWarm:
      return "find-warm";
    case Rpc::kFindCold:
      return "find-cold";
    case Rpc::kReachable:
      return "reachable";
    case Rpc::kStandardMove:
      return "standard-move";
    case Rpc::kBatch:
      return "batch";
  }
  return "?";
}

std::optional<Rpc> parse_rpc(std::string_view text) {
  for (const Rpc rpc : {Rpc::kHealth, Rpc::kFindWarm, Rpc::kFindCold, Rpc::kReachable,
                        Rpc::kStandardMove, Rpc::kBatch}) {
    if (text == rpc_name(rpc)) return rpc;
  }
  return std::nullopt;
}

// ---- workloads -------------------------------------------------------------

namespace {

constexpr int kWallLeft = 63;
constexpr int kWallRight = 64;
constexpr int kWallBottom = 80;  // the wall covers rows 0..79; rows 80..95 are the gap

pb::Point point(int x, int y) { return make_point(x, y); }

std::string point_text(const pb::Point& p) {
  return "(" + std::to_string(p.x()) + "," + std::to_string(p.y()) + ")";
}

}  // namespace

bool MaskShape::walkable(int x, int y) const {
  if (synthetic) return SyntheticMaze::walkable(x, y);
  if (x < 0 || y < 0 || x >= static_cast<int>(width) || y >= static_cast<int>(height)) {
    return false;
  }
  return areas.empty() ||
         areas[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)] != 0;
}

bool SyntheticMaze::walkable(int x, int y) {
  if (x < 0 || y < 0 || x >= static_cast<int>(kWidth) || y >= static_cast<int>(kHeight)) {
    return false;
  }
  return !(x >= kWallLeft && x <= kWallRight && y < kWallBottom);
}

std::string SyntheticMaze::areas() {
  std::string areas(static_cast<std::size_t>(kWidth) * kHeight, '\x01');
  for (int y = 0; y < static_cast<int>(kHeight); ++y) {
    for (int x = 0; x < static_cast<int>(kWidth); ++x) {
      if (!walkable(x, y)) areas[static_cast<std::size_t>(y) * kWidth + x] = '\0';
    }
  }
  return areas;
}

Workload build_workload(Rpc rpc, const WorkloadOptions& options) {
  if (options.pairs < 1) throw std::invalid_argument("--pairs must be at least 1");
  if (options.cold_goals < 1) throw std::invalid_argument("cold goals must be at least 1");
  if (rpc == Rpc::kBatch) {
    if (options.batch_starts < 1) throw std::invalid_argument("--batch-starts must be at least 1");
    const Workload singles = build_workload(Rpc::kFindWarm, options);
    Workload workload;
    workload.rpc = rpc;
    workload.mask = singles.mask;
    std::vector<pb::BatchFindPathsRequest> open;  // per goal, the call being filled
    for (const pb::FindPathRequest& single : singles.find_path) {
      auto batch = std::find_if(open.begin(), open.end(), [&](const auto& b) {
        return b.goal().x() == single.goal().x() && b.goal().y() == single.goal().y();
      });
      if (batch == open.end()) {
        pb::BatchFindPathsRequest fresh;
        fresh.set_mask(single.mask());
        *fresh.mutable_goal() = single.goal();
        fresh.set_smoothing(single.smoothing());
        open.push_back(std::move(fresh));
        batch = open.end() - 1;
      }
      *batch->add_starts() = single.start();
      if (batch->starts_size() == options.batch_starts) {
        workload.batch.push_back(*batch);
        batch->clear_starts();
      }
    }
    for (auto& batch : open) {
      if (batch.starts_size() > 0) workload.batch.push_back(std::move(batch));
    }
    workload.description = "BatchFindPaths, up to " + std::to_string(options.batch_starts) +
                           " starts per call, of: " + singles.description;
    return workload;
  }
  const MaskShape& shape = options.shape;
  if (rpc != Rpc::kHealth && (shape.width == 0 || shape.height == 0)) {
    throw std::invalid_argument("the mask has no pixels");
  }
  const int width = static_cast<int>(shape.width);
  const int height = static_cast<int>(shape.height);

  Workload workload;
  workload.rpc = rpc;
  if (rpc == Rpc::kHealth) {
    workload.description = "grpc.health.v1.Health/Check, service \"\"";
    return workload;
  }
  workload.mask = options.mask;
  if (!shape.areas.empty() &&
      std::none_of(shape.areas.begin(), shape.areas.end(), [](char id) { return id != 0; })) {
    throw std::invalid_argument("mask '" + options.mask + "' has no walkable pixel");
  }
  std::mt19937_64 random(20261123);  // fixed seed: every run sends the same requests
  // A uniformly chosen pixel of columns [0, columns): walkable where known.
  const auto random_point = [&](int columns) {
    std::uniform_int_distribution<int> xs(0, columns - 1);
    std::uniform_int_distribution<int> ys(0, height - 1);
    while (true) {
      const int x = xs(random);
      const int y = ys(random);
      if (shape.walkable(x, y)) return point(x, y);
    }
  };

  std::vector<pb::Point> goals = options.goals;
  if (goals.empty()) {
    goals = {shape.synthetic ? point(108, 10) : point(width * 7 / 8, height / 2)};
  }
  std::vector<pb::Point> starts = options.starts;
  if (starts.empty()) {
    if (shape.synthetic) {
      starts = {point(20, 10), point(10, 20), point(30, 6), point(16, 30)};
    } else {
      starts = {point(width / 16, height / 4), point(width / 16, height / 2),
                point(width / 16, height * 3 / 4), point(width / 8, height / 2)};
    }
  }
  for (const pb::Point& p : starts) {
    if (p.x() < 0 || p.y() < 0 || p.x() >= width || p.y() >= height) {
      throw std::invalid_argument("start " + point_text(p) + " is outside the mask");
    }
  }
  for (const pb::Point& p : goals) {
    if (p.x() < 0 || p.y() < 0 || p.x() >= width || p.y() >= height) {
      throw std::invalid_argument("goal " + point_text(p) + " is outside the mask");
    }
  }
  const auto is_goal = [&](int x, int y) {
    return std::any_of(goals.begin(), goals.end(),
                       [&](const pb::Point& g) { return g.x() == x && g.y() == y; });
  };
  std::string goal_list;
  for (const pb::Point& p : goals) goal_list += (goal_list.empty() ? "" : " ") + point_text(p);
  const std::string goals_text =
      goals.size() == 1 ? "goal " + goal_list
                        : std::to_string(goals.size()) + " goals " + goal_list + " in turn";

  switch (rpc) {
    case Rpc::kHealth:
    case Rpc::kBatch:  // made of find-warm's requests, above
      break;
    case Rpc::kFindWarm: {
      if (options.random_starts > 0) {
        // Distinct walkable pixels of the west half, in a fixed shuffled order.
        std::vector<pb::Point> candidates;
        for (int y = 0; y < height; ++y) {
          for (int x = 0; x < std::max(1, width / 2); ++x) {
            if (shape.walkable(x, y) && !is_goal(x, y)) {
              candidates.push_back(point(x, y));
            }
          }
        }
        if (candidates.empty()) {
          throw std::invalid_argument("the west half of mask '" + options.mask +
                                      "' has no walkable pixel to start from");
        }
        std::shuffle(candidates.begin(), candidates.end(), random);
        if (candidates.size() > static_cast<std::size_t>(options.random_starts)) {
          candidates.resize(static_cast<std::size_t>(options.random_starts));
        }
        for (std::size_t k = 0; k < candidates.size(); ++k) {
          pb::FindPathRequest request;
          request.set_mask(options.mask);
          *request.mutable_start() = candidates[k];
          *request.mutable_goal() = goals[k % goals.size()];
          request.set_smoothing(options.smoothing);
          workload.find_path.push_back(std::move(request));
        }
        workload.description = "FindPath on '" + options.mask + "' to " + goals_text + " from " +
                               std::to_string(candidates.size()) +
                               " distinct random starts in the west half, in turn (one field "
                               "per goal, cached after its first call; a new path each call "
                               "while the starts outnumber the server's FindPath answer cache)";
        break;
      }
      std::string start_list;
      for (const pb::Point& start : starts) {
        for (const pb::Point& to : goals) {
          pb::FindPathRequest request;
          request.set_mask(options.mask);
          *request.mutable_start() = start;
          *request.mutable_goal() = to;
          request.set_smoothing(options.smoothing);
          workload.find_path.push_back(std::move(request));
        }
        start_list += (start_list.empty() ? "" : " ") + point_text(start);
      }
      workload.description = "FindPath on '" + options.mask + "' to " + goals_text + " from " +
                             std::to_string(starts.size()) + " starts " + start_list +
                             " (one field per goal, cached after its first call)";
      break;
    }
    case Rpc::kFindCold: {
      std::vector<pb::Point> cold_goals;
      if (shape.synthetic) {
        // East of x 80 the beeline from the west half always hits the wall.
        for (int y = 0; y < height; ++y) {
          for (int x = 80; x < width; ++x) cold_goals.push_back(point(x, y));
        }
        std::shuffle(cold_goals.begin(), cold_goals.end(), random);
        if (cold_goals.size() > static_cast<std::size_t>(options.cold_goals)) {
          cold_goals.resize(static_cast<std::size_t>(options.cold_goals));
        }
      } else {
        // Distinct pixels spread over the mask: k * stride mod pixels, with the
        // stride coprime to the pixel count.
        const std::uint64_t pixels = static_cast<std::uint64_t>(width) * height;
        std::uint64_t stride = 7919;
        while (std::gcd(stride, pixels) != 1) stride += 2;
        const std::uint64_t count = std::min<std::uint64_t>(pixels, options.cold_goals);
        for (std::uint64_t k = 0; k < count; ++k) {
          const std::uint64_t index = (k * stride) % pixels;
          cold_goals.push_back(point(static_cast<int>(index % width), static_cast<int>(index / width)));
        }
      }
      for (const pb::Point& cold_goal : cold_goals) {
        pb::FindPathRequest request;
        request.set_mask(options.mask);
        *request.mutable_start() = starts.front();
        *request.mutable_goal() = cold_goal;
        request.set_smoothing(options.smoothing);
        workload.find_path.push_back(std::move(request));
      }
      workload.description =
          "FindPath on '" + options.mask + "' from " + point_text(starts.front()) + " to " +
          std::to_string(cold_goals.size()) +
          " distinct goals in turn (cold unless the server's --cache-mb holds them)";
      break;
    }
    case Rpc::kReachable: {
      constexpr int kRequests = 16;
      for (int r = 0; r < kRequests; ++r) {
        pb::ReachableRequest request;
        request.set_mask(options.mask);
        for (int i = 0; i < options.pairs; ++i) {
          auto* pair = request.add_pairs();
          *pair->mutable_a() = random_point(width);
          *pair->mutable_b() = random_point(width);
        }
        workload.reachable.push_back(std::move(request));
      }
      workload.description = "Reachable on '" + options.mask + "', " +
                             std::to_string(options.pairs) + " pairs per call (" +
                             std::to_string(kRequests) + " different requests in turn)";
      break;
    }
    case Rpc::kStandardMove: {
      constexpr int kRequests = 256;
      constexpr int kReach = 12;
      std::uniform_int_distribution<int> offsets(-kReach, kReach);
      while (workload.standard_move.size() < static_cast<std::size_t>(kRequests)) {
        const pb::Point start = random_point(width);
        const int gx = std::clamp(start.x() + offsets(random), 0, width - 1);
        const int gy = std::clamp(start.y() + offsets(random), 0, height - 1);
        if (!shape.walkable(gx, gy)) continue;
        pb::StandardMoveRequest request;
        request.set_mask(options.mask);
        *request.mutable_start() = start;
        *request.mutable_goal() = point(gx, gy);
        workload.standard_move.push_back(std::move(request));
      }
      workload.description = "StandardMove on '" + options.mask + "', " +
                             std::to_string(kRequests) +
                             " start/goal pairs at most 12 tiles apart, in turn";
      break;
    }
  }
  return workload;
}

}  // namespace pathfinder::load
