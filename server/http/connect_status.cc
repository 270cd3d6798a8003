#include "http/connect_status.h"

#include <array>
#include <cstdio>

namespace pathserver::http {
namespace {

struct CodeEntry {
  std::string_view name;
  int http_status;
};

// Indexed by grpc::StatusCode 0..16.
constexpr std::array<CodeEntry, 17> kCodes = {{
    {"ok", 200},
    {"canceled", 499},
    {"unknown", 500},
    {"invalid_argument", 400},
    {"deadline_exceeded", 504},
    {"not_found", 404},
    {"already_exists", 409},
    {"permission_denied", 403},
    {"resource_exhausted", 429},
    {"failed_precondition", 400},
    {"aborted", 409},
    {"out_of_range", 400},
    {"unimplemented", 501},
    {"internal", 500},
    {"unavailable", 503},
    {"data_loss", 500},
    {"unauthenticated", 401},
}};

const CodeEntry& entry(grpc::StatusCode code) {
  const auto index = static_cast<std::size_t>(code);
  return index < kCodes.size() ? kCodes[index] : kCodes[grpc::StatusCode::UNKNOWN];
}

}  // namespace

std::string_view connect_code_name(grpc::StatusCode code) { return entry(code).name; }

int connect_http_status(grpc::StatusCode code) { return entry(code).http_status; }

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;  // UTF-8 passes through
        }
    }
  }
  out += '"';
  return out;
}

std::string connect_error_json(grpc::StatusCode code, std::string_view message) {
  std::string out = "{\"code\":" + json_quote(connect_code_name(code));
  if (!message.empty()) out += ",\"message\":" + json_quote(message);
  out += '}';
  return out;
}

std::string percent_encode_grpc_message(std::string_view message) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte > 0x7E || byte == '%') {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace pathserver::http
