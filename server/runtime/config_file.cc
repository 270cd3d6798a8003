#include "runtime/config_file.h"

#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace pathserver {

std::string read_config_file(const std::string& path) {
  // An ifstream opens a directory without complaint and then reads nothing.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw ConfigFileError("is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigFileError("cannot open: " + std::generic_category().message(errno));
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw ConfigFileError("cannot read");
  return contents;
}

std::string trim_trailing_space(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.pop_back();
  }
  return text;
}

}  // namespace pathserver
