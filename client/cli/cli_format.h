#pragma once

// Text the `pathfind` CLI prints: human-readable lines, or one JSON object
// per response. Parsing of the CLI's small value languages lives here too.

#include <google/protobuf/message.h>
#include <grpcpp/support/status.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "pathfinding/v1/pathfinding.pb.h"

namespace pathfinder::cli {

// Exit codes of `pathfind`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRpcError = 1;  // the server (or the connection) reported an error
inline constexpr int kExitUsage = 2;     // a usage error or unusable local input
inline constexpr int kExitNoPath = 3;    // find answered, but found no path (found = false)

// A bad command-line value the argument parser could not catch; exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "error: STATUS_CODE: message" (without the message when it is empty). The
// server's message names proto fields and enum values; those the CLI sets
// from a flag are named as the flag (see cli_message).
[[nodiscard]] std::string format_status(const grpc::Status& status);

// A server message with proto names put in the CLI's words: enum values
// (PIXEL_RULE_NONZERO, MASK_FORMAT_PNG, CONNECTIVITY_EIGHT, SMOOTHING_NONE,
// and core's "rule INDEX") become the flag and its value ("--rule nonzero",
// "--format png", "--eight", "--smoothing none"), block_unmapped becomes
// --block-unmapped, and a leading "field: "
// becomes the flag that sets the field ("area_costs: " -> "--cost: ").
[[nodiscard]] std::string cli_message(const std::string& server_message);

// The message as one line of JSON (proto field names, defaults included).
[[nodiscard]] std::string to_json(const google::protobuf::Message& message);

// "mask demo  revision 1  640x360  walkable 180000  areas 1,2  sha256 ab12..."
// (areas: the walkable area ids present; area 0 is never walkable).
[[nodiscard]] std::string format_mask_info(const pathfinding::v1::MaskInfo& info);
// "found true  length ...  cost ...  goal (x,y)  revision r  cache_hit false",
// then, when an end was snapped, "goal snapped to (x,y), 3.2 px from (a,b)"
// and/or "start snapped to (x,y), ... px from (a,b)"; when found is false,
// "no path: <why>" (see find_path_reason_text) instead of the points line
// "points N: (x,y) (x,y) ..."; with SMOOTHING_ANY_ANGLE also the exact path,
// "precise N: (12.5,3) (20,7.25) ..." (up to three decimals).
[[nodiscard]] std::string format_find_path(const pathfinding::v1::FindPathRequest& request,
                                           const pathfinding::v1::FindPathResponse& response);
// Why there is no path, in plain words: "the start (x,y) is not walkable",
// "the goal (x,y) is not walkable", "no route between them", "the start (x,y)
// lacks clearance 3 (too close to something blocked)" (or the goal); for a server that
// does not report a reason, "the server gave no reason".
[[nodiscard]] std::string find_path_reason_text(const pathfinding::v1::FindPathRequest& request,
                                                const pathfinding::v1::FindPathResponse& response);
// "revision r", then one "(ax,ay) -> (bx,by): reachable|unreachable" line per pair.
[[nodiscard]] std::string format_reachable(const pathfinding::v1::ReachableRequest& request,
                                           const pathfinding::v1::ReachableResponse& response);
// "found ...  revision r  cache_hit ...  node (x,y)", "moves E 3, SE 2", "waypoints N: ...".
[[nodiscard]] std::string format_standard_move(
    const pathfinding::v1::StandardMoveResponse& response);

// "1,2,5" -> bit set with those bits; "all" or "" -> 0. Ids must be 1..63.
[[nodiscard]] std::uint64_t parse_areas(const std::string& text);
// "1,2,5" for a bit set; "none" when empty.
[[nodiscard]] std::string format_areas(std::uint64_t areas);
// "KEY=VALUE" with integers in decimal or 0x hex (a leading '#' also means hex).
[[nodiscard]] std::pair<std::uint32_t, std::uint32_t> parse_key_value(const std::string& text,
                                                                      const std::string& what);

[[nodiscard]] pathfinding::v1::MaskFormat parse_format(const std::string& text);
[[nodiscard]] pathfinding::v1::PixelRule parse_rule(const std::string& text);
[[nodiscard]] pathfinding::v1::Smoothing parse_smoothing(const std::string& text);

}  // namespace pathfinder::cli
