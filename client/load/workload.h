#pragma once

// What `pathfinder-load` sends: the RPC each call makes and the requests a
// run cycles through, built once before the run (on the built-in maze, or on
// a mask the user names).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathfinding/v1/pathfinding.pb.h"

namespace pathfinder::load {

// What each call asks.
enum class Rpc {
  kHealth,        // grpc.health.v1.Health/Check: the no-op baseline
  kFindWarm,      // FindPath, one goal and a few starts: the field is cached after the first call
  kFindCold,      // FindPath, a different goal each call: every call computes a field
  kReachable,     // Reachable with --pairs pairs per call
  kStandardMove,  // StandardMove between nearby tiles
  kBatch,         // BatchFindPaths: find-warm's starts, batch_starts of one goal per call
};

// "health", "find-warm", "find-cold", "reachable", "standard-move".
[[nodiscard]] const char* rpc_name(Rpc rpc);
[[nodiscard]] std::optional<Rpc> parse_rpc(std::string_view text);

// The requests a run sends, in turn (call i sends element i % size of the
// list for its RPC). Built once, read concurrently, never changed during a run.
struct Workload {
  Rpc rpc = Rpc::kHealth;
  std::vector<pathfinding::v1::FindPathRequest> find_path;          // kFindWarm, kFindCold
  std::vector<pathfinding::v1::ReachableRequest> reachable;         // kReachable
  std::vector<pathfinding::v1::StandardMoveRequest> standard_move;  // kStandardMove
  std::vector<pathfinding::v1::BatchFindPathsRequest> batch;        // kBatch
  std::string description;  // one line for people: mask, points, pairs
  std::string mask;         // the mask every request names ("" for health)
};

// A walk mask the generator can upload when the user names none: a 128x96
// room (area 1) split by a 2-pixel wall at x 63..64 that leaves a 16-pixel
// gap at the bottom, so the beeline between the two halves is blocked and a
// grid path between them runs down to the gap and back up (~200-230 pixels).
struct SyntheticMaze {
  static constexpr std::uint32_t kWidth = 128;
  static constexpr std::uint32_t kHeight = 96;
  // width*height area ids, row-major (MASK_FORMAT_RAW).
  [[nodiscard]] static std::string areas();
  [[nodiscard]] static bool walkable(int x, int y);
};

// How to pick points on a mask the generator did not build.
struct MaskShape {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  bool synthetic = false;  // the SyntheticMaze: points are chosen on walkable pixels
  // Area ids, row-major, when the generator fetched them (GetMask include_areas):
  // points are then chosen on walkable (non-zero) pixels too. Empty: unknown.
  std::string areas;
  // True when (x, y) is inside and, as far as the generator knows, walkable.
  [[nodiscard]] bool walkable(int x, int y) const;
};

struct WorkloadOptions {
  std::string mask;
  MaskShape shape;
  int pairs = 100;  // Reachable pairs per call
  // FindPath goals and starts; empty = defaults (see build_workload).
  std::vector<pathfinding::v1::Point> goals;
  std::vector<pathfinding::v1::Point> starts;
  // FindPath smoothing (SMOOTHING_UNSPECIFIED = the server's default, beautify).
  pathfinding::v1::Smoothing smoothing = pathfinding::v1::SMOOTHING_UNSPECIFIED;
  // find-cold: how many distinct goals to cycle through. Every call misses
  // while the goals are new; on the 128x96 maze 4096 fields take ~100 MB, so
  // run the server with a small --cache-mb (e.g. 1) for a sustained cold load.
  int cold_goals = 4096;
  // find-warm: when > 0, this many distinct starts chosen at random (fixed
  // seed) in the west half of the mask, on walkable pixels where known, instead
  // of `starts`, start k going to goal k % goals: every call traces and smooths
  // a new path on a cached field once there are more starts than the server's
  // FindPath answer cache holds (many characters, few destinations).
  int random_starts = 0;
  // batch: starts per BatchFindPaths call (find-warm's requests, grouped by goal).
  int batch_starts = 1000;
};

// Builds the request lists. On the synthetic maze: find-warm goes from four
// starts in the west half to the goal (108,10) in the east half (every start
// to every goal when several are given); find-cold
// keeps the first start and cycles the goal through walkable pixels of the
// east half; reachable and standard-move use walkable pixels chosen by a
// fixed-seed generator (standard-move: goal within 12 tiles of the start).
// On another mask (no walkability known): the goal defaults to (7/8 w, 1/2 h)
// and the starts to points of the west eighth; other points are spread over
// the whole mask. batch: find-warm's requests, each goal's in order, cut into
// calls of batch_starts starts (the last of a goal may have fewer). Throws
// std::invalid_argument on bad options.
[[nodiscard]] Workload build_workload(Rpc rpc, const WorkloadOptions& options);

}  // namespace pathfinder::load
