#include "http/json_transcoding.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include <memory>

namespace pathserver::http {
namespace {

std::unique_ptr<google::protobuf::Message> new_message(const google::protobuf::Descriptor& type) {
  const google::protobuf::Message* prototype =
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(&type);
  if (prototype == nullptr) return nullptr;
  return std::unique_ptr<google::protobuf::Message>(prototype->New());
}

}  // namespace

grpc::Status json_to_binary(const google::protobuf::Descriptor& type, std::string_view json,
                            std::string& binary) {
  auto message = new_message(type);
  if (message == nullptr)
    return {grpc::StatusCode::INTERNAL, "no message type " + type.full_name()};
  const std::string_view text = json.empty() ? std::string_view("{}") : json;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(text.data(), text.size()), message.get(), options);
  if (!parsed.ok()) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "request body is not a valid JSON " +
                                                    type.full_name() + ": " +
                                                    std::string(parsed.message())};
  }
  binary.clear();
  if (!message->SerializeToString(&binary)) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "request " + type.full_name() + " cannot be encoded (a required field missing?)"};
  }
  return grpc::Status::OK;
}

grpc::Status binary_to_json(const google::protobuf::Descriptor& type, std::string_view binary,
                            std::string& json) {
  auto message = new_message(type);
  if (message == nullptr)
    return {grpc::StatusCode::INTERNAL, "no message type " + type.full_name()};
  if (!message->ParseFromArray(binary.data(), static_cast<int>(binary.size()))) {
    return {grpc::StatusCode::INTERNAL, "the server's answer is not a " + type.full_name()};
  }
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  json.clear();
  const auto printed = google::protobuf::util::MessageToJsonString(*message, &json, options);
  if (!printed.ok()) {
    return {grpc::StatusCode::INTERNAL,
            "the answer cannot be written as JSON: " + std::string(printed.message())};
  }
  return grpc::Status::OK;
}

}  // namespace pathserver::http
