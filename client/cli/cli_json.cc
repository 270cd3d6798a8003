#include "cli_json.h"

#include <google/protobuf/struct.pb.h>

#include <cmath>
#include <cstdio>

#include "cli_format.h"

namespace pathfinder::cli {

std::string json_string(std::string_view text) {
  google::protobuf::Value value;
  value.set_string_value(std::string(text));
  return to_json(value);  // protobuf's printer does the escaping
}

JsonObject& JsonObject::add_raw(std::string_view key, std::string_view json) {
  if (!body_.empty()) body_ += ",";
  body_ += json_string(key) + ":" + std::string(json);
  return *this;
}

JsonObject& JsonObject::add_string(std::string_view key, std::string_view value) {
  return add_raw(key, json_string(value));
}

JsonObject& JsonObject::add_bool(std::string_view key, bool value) {
  return add_raw(key, value ? "true" : "false");
}

JsonObject& JsonObject::add_number(std::string_view key, double value) {
  if (!std::isfinite(value)) return add_raw(key, "null");
  google::protobuf::Value number;
  number.set_number_value(value);
  return add_raw(key, to_json(number));  // the same digits as the messages' doubles
}

JsonObject& JsonObject::add_uint64(std::string_view key, std::uint64_t value) {
  return add_raw(key, "\"" + std::to_string(value) + "\"");
}

JsonObject& JsonObject::add_json(std::string_view key, std::string_view json) {
  return add_raw(key, json);
}

JsonObject& JsonObject::add_message(std::string_view key,
                                    const google::protobuf::Message& message) {
  return add_raw(key, to_json(message));
}

}  // namespace pathfinder::cli
