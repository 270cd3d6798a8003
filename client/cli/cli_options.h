#pragma once

// Option groups several `pathfind` commands share: how an image file becomes
// a mask (upload, render --mask-file) and how a path is asked for (find,
// render). Each group registers its options on a CLI11 command and turns the
// parsed values into the request fields.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "number_flags.h"
#include "pathcore/mask.h"
#include "pathfinder/client.h"
#include "pathfinding/v1/pathfinding.pb.h"

namespace pathfinder::cli {

// --format, --rule, --palette, --width, --height.
struct DecodeArgs {
  std::string format = "auto";
  std::string rule = "auto";
  std::vector<std::string> palette;
  bool block_unmapped = false;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
};

void add_decode_options(CLI::App& command, DecodeArgs& args);
// Only --rule, --palette and --block-unmapped (for images whose format is
// known, e.g. patch --png).
void add_rule_options(CLI::App& command, DecodeArgs& args);

// The parsed values as upload options. Throws UsageError (a bad --palette entry).
[[nodiscard]] UploadOptions to_upload_options(const DecodeArgs& args);

// Decodes the local image file at path with core's codec, as the server would
// decode an upload of it. Throws FileError (unreadable or undecodable, naming
// the file) or UsageError (a bad --palette entry).
[[nodiscard]] pathcore::Mask decode_mask_file(const std::string& path, const DecodeArgs& args);

// Writes bytes to the file at path, replacing it. Throws FileError naming it.
void write_binary_file(const std::string& path, const std::vector<std::uint8_t>& bytes);

// --areas, --eight, --corner-cutting, --smoothing, --snap, --cost, --clearance.
struct PathArgs {
  std::string areas;
  bool eight = false;
  bool corner_cutting = false;
  std::string smoothing = "beautify";
  bool snap = false;
  std::vector<std::string> costs;
  double clearance = 0;  // pixels; checked finite and >= 0 when parsed
};

void add_path_options(CLI::App& command, PathArgs& args);

// The options of a fill, which field and range share with find: --areas,
// --eight, --corner-cutting, --cost and --clearance (the help of the last two
// given, as each command reads them its own way).
void add_fill_options(CLI::App& command, PathArgs& args, const std::string& corner_cutting_help,
                      const std::string& clearance_help);

// The largest --max-cost: more than any path on the largest mask costs.
inline constexpr double kMaxCost = 1e12;

// The largest --clearance, in pixels: wider than any mask.
inline constexpr double kMaxClearance = 65536;

// --clearance PIXELS, a number from 0 to kMaxClearance; help is its description.
void add_clearance_option(CLI::App& command, double& clearance, const std::string& help);

// --expected-revision N, a whole number (0 or more; 0 = any revision); help
// is its description.
void add_expected_revision_option(
    CLI::App& command, std::uint64_t& revision,
    const std::string& help =
        "Answer only from this mask revision, else FAILED_PRECONDITION (default any)");

// Refuses (UsageError) a flag given without the one that gives it a meaning:
// "<flag> does nothing without <needed>". Flags that do nothing are refused,
// not ignored.
void require_flag(bool given, bool meaningful, const std::string& flag, const std::string& needed);

// Refuses the path flags that do nothing in args: --corner-cutting without
// --eight (or, where any_angle_allowed, --smoothing any-angle), and --eight
// with --smoothing any-angle.
void check_path_flags(const PathArgs& args, bool any_angle_allowed);

// Sets enabled_areas, connectivity, allow_corner_cutting, smoothing,
// snap_to_reachable, area_costs and clearance of request. Throws UsageError (--areas, --cost).
void fill_path_request(const PathArgs& args, pathfinding::v1::FindPathRequest& request);

// text without leading and trailing spaces, tabs and carriage returns.
[[nodiscard]] std::string_view trimmed(std::string_view text);

// A whole decimal integer, spaces around it allowed.
[[nodiscard]] bool parse_int(std::string_view text, std::int32_t& value);

// "X,Y" (spaces around either integer allowed) as a point; otherwise throws
// UsageError "<where>: expected <expected> (two integers), got '<text>'".
[[nodiscard]] pathfinding::v1::Point parse_xy(std::string_view text, const std::string& where,
                                              std::string_view expected = "X,Y");

}  // namespace pathfinder::cli
