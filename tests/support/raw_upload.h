#pragma once

// UploadMask requests of raw area grids, for the end-to-end tests (which link
// the client library and its generated protos; test_support does not).
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "pathfinding/v1/pathfinding.pb.h"

namespace pathtest {

// MASK_FORMAT_RAW: width*height area ids, row-major.
inline pathfinding::v1::UploadMaskRequest raw_upload(const std::string& name, std::uint32_t width,
                                                     std::uint32_t height, std::string areas) {
  pathfinding::v1::UploadMaskRequest request;
  request.set_name(name);
  request.set_image(std::move(areas));
  request.set_format(pathfinding::v1::MASK_FORMAT_RAW);
  request.set_width(width);
  request.set_height(height);
  return request;
}

// An open room: every pixel area 1.
inline pathfinding::v1::UploadMaskRequest open_raw_upload(const std::string& name,
                                                          std::uint32_t width,
                                                          std::uint32_t height) {
  return raw_upload(name, width, height,
                    std::string(static_cast<std::size_t>(width) * height, '\x01'));
}

}  // namespace pathtest
