#include "http/static_files.h"

namespace pathserver::http {

const StaticFile* find_static_file(std::string_view target) {
  if (const auto query = target.find_first_of("?#"); query != std::string_view::npos) {
    target = target.substr(0, query);
  }
  if (target == "/") target = "/index.html";
  for (const StaticFile& file : embedded_files()) {
    if (file.path == target) return &file;
  }
  return nullptr;
}

}  // namespace pathserver::http
