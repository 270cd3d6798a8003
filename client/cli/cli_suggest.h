#pragma once

// "did you mean ...?" for mistyped subcommands and flags: after CLI11 refuses
// a command line, the words it could not place are compared with the names
// the app and the chosen subcommand know.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pathfinder::cli {

// Edit distance counting an insertion, a deletion, a substitution or a swap
// of two neighbouring characters as one edit ("eigth" -> "eight" is 1).
[[nodiscard]] std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to word, when it is near enough to be a typo of it
// (at most two edits, and fewer edits than word has characters).
[[nodiscard]] std::optional<std::string> nearest(const std::string& word,
                                                 const std::vector<std::string>& candidates);

// Lines to print after CLI11's own error for the arguments (argv without
// argv[0]) of a command line app failed to parse: "unknown command 'X'" for
// an unknown command word, and "did you mean 'Y'?" for it and for each
// unknown --flag (against the app's and the chosen subcommand's flags) when
// a name is near enough.
[[nodiscard]] std::vector<std::string> suggestions(const CLI::App& app,
                                                   const std::vector<std::string>& args);

}  // namespace pathfinder::cli
