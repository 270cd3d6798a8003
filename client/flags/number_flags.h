#pragma once

// CLI11 checks for numeric flags, with short messages. CLI11's own Range and
// PositiveNumber print their bounds with std::to_string (a 300-digit number
// for a double's maximum), and CLI11 reads "-1" into an unsigned flag as
// 18446744073709551615; these do neither. CLI11 puts the flag's name in
// front of the message: "--max-moves: must be a whole number from 1 to 3, got '9'".

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>

namespace pathfinder::flags {

// A whole number from min to max (inclusive); max at the type's largest
// value reads "min or more".
[[nodiscard]] CLI::Validator whole_number(
    std::int64_t min, std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// A finite number from min to max (both inclusive).
[[nodiscard]] CLI::Validator number_from(double min, double max);

// A finite number above min (exclusive) and at most max.
[[nodiscard]] CLI::Validator number_above(double min, double max);

}  // namespace pathfinder::flags
