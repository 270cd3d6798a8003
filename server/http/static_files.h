#pragma once

// The viewer's files (server/http/viewer/), compiled into the binary at
// build time by embed_files.cmake: GET / answers index.html, GET /NAME the
// file NAME. With no files there, the table is empty.

#include <cstddef>
#include <span>
#include <string_view>

namespace pathserver::http {

struct StaticFile {
  std::string_view path;          // "/index.html"
  std::string_view content_type;  // by extension
  std::string_view bytes;
};

// Every embedded file (generated code).
[[nodiscard]] std::span<const StaticFile> embedded_files();

// The file GET `target` answers ("/" is "/index.html"; a query string is
// ignored), or null.
[[nodiscard]] const StaticFile* find_static_file(std::string_view target);

}  // namespace pathserver::http
