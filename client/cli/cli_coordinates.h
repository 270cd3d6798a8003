#pragma once

// The coordinates of reachable, los and nearest: integers on the command
// line, then more from --file FILE ('-': stdin).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace pathfinder::cli {

// --file FILE: "Read more <what> from FILE ...".
void add_file_option(CLI::App& command, std::string& file, const std::string& what);

// The coordinates of the command line, then those of `file` ("-": stdin;
// "": none): integers separated by whitespace or commas; '#' starts a
// comment to the end of the line. Throws FileError (unreadable) or
// UsageError (not an integer), naming the file and line.
[[nodiscard]] std::vector<std::int32_t> all_coordinates(const std::vector<std::int32_t>& given,
                                                        const std::string& file);

}  // namespace pathfinder::cli
