#include "cli_coordinates.h"

#include <climits>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_format.h"
#include "pathfinder/client.h"

namespace pathfinder::cli {

void add_file_option(CLI::App& command, std::string& file, const std::string& what) {
  command
      .add_option("--file", file,
                  "Read more " + what +
                      " from FILE ('-': stdin): integers separated by spaces, commas or newlines; "
                      "'#' starts a comment")
      ->type_name("FILE");
}

std::vector<std::int32_t> all_coordinates(const std::vector<std::int32_t>& given,
                                          const std::string& file) {
  std::vector<std::int32_t> values = given;
  if (file.empty()) return values;
  std::ifstream opened;
  if (file != "-") {
    opened.open(file);
    if (!opened) throw FileError("cannot read " + file);
  }
  std::istream& in = file == "-" ? std::cin : opened;
  const std::string shown = file == "-" ? "stdin" : file;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    for (char& c : line) {
      if (c == ',') c = ' ';
    }
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      std::size_t used = 0;
      long long value = 0;
      try {
        value = std::stoll(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size() || value < INT32_MIN || value > INT32_MAX) {
        throw UsageError(shown + ":" + std::to_string(number) + ": '" + word +
                         "' is not a coordinate (an integer)");
      }
      values.push_back(static_cast<std::int32_t>(value));
    }
  }
  if (in.bad()) throw FileError("cannot read " + shown);
  return values;
}

}  // namespace pathfinder::cli
