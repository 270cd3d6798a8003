#pragma once

// A JSON object written key by key, in the order the keys are added, for the
// answers `pathfind --json` assembles itself (field, render, range) and for
// its errors. Values keep the proto3 JSON forms the response messages use:
// 64-bit integers as strings, 32-bit integers and doubles as numbers.

#include <google/protobuf/message.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace pathfinder::cli {

// text as a JSON string, quoted and escaped.
[[nodiscard]] std::string json_string(std::string_view text);

class JsonObject {
 public:
  JsonObject& add_string(std::string_view key, std::string_view value);
  JsonObject& add_bool(std::string_view key, bool value);
  // A 32-bit integer or a double: a JSON number (non-finite: null).
  JsonObject& add_number(std::string_view key, double value);
  // A 64-bit integer: a JSON string, as proto3 JSON writes uint64 fields.
  JsonObject& add_uint64(std::string_view key, std::uint64_t value);
  // Already JSON (an object, an array): written as it is.
  JsonObject& add_json(std::string_view key, std::string_view json);
  // A message in the proto3 JSON mapping (see to_json).
  JsonObject& add_message(std::string_view key, const google::protobuf::Message& message);

  // "{...}" with the keys in the order they were added.
  [[nodiscard]] std::string str() const { return "{" + body_ + "}"; }

 private:
  JsonObject& add_raw(std::string_view key, std::string_view json);
  std::string body_;
};

}  // namespace pathfinder::cli
