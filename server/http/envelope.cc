#include "http/envelope.h"

namespace pathserver::http {

void append_envelope(std::string& out, std::uint8_t flags, std::string_view message) {
  out += envelope_header(flags, message.size());
  out += message;
}

std::string envelope_header(std::uint8_t flags, std::size_t length) {
  const auto n = static_cast<std::uint32_t>(length);
  return {static_cast<char>(flags), static_cast<char>(n >> 24), static_cast<char>(n >> 16),
          static_cast<char>(n >> 8), static_cast<char>(n)};
}

std::optional<Envelope> next_envelope(std::string_view body, std::string_view& rest) {
  if (body.size() < kEnvelopeHeaderBytes) return std::nullopt;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(body[i]); };
  const std::uint64_t length = (std::uint64_t{byte(1)} << 24) | (std::uint64_t{byte(2)} << 16) |
                               (std::uint64_t{byte(3)} << 8) | std::uint64_t{byte(4)};
  if (body.size() - kEnvelopeHeaderBytes < length) return std::nullopt;
  rest = body.substr(kEnvelopeHeaderBytes + length);
  return Envelope{.flags = byte(0), .message = body.substr(kEnvelopeHeaderBytes, length)};
}

}  // namespace pathserver::http
