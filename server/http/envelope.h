#pragma once

// The 5-byte envelope around each message of a Connect stream and of
// gRPC-Web bodies: one flag byte, then the message length as a 32-bit
// big-endian integer, then the message.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pathserver::http {

inline constexpr std::size_t kEnvelopeHeaderBytes = 5;

// Flags of the first byte.
inline constexpr std::uint8_t kEnvelopeCompressed = 0x01;  // both protocols
inline constexpr std::uint8_t kConnectEndStream = 0x02;    // Connect: the end-of-stream message
inline constexpr std::uint8_t kGrpcWebTrailers = 0x80;     // gRPC-Web: the trailers frame

struct Envelope {
  std::uint8_t flags = 0;
  std::string_view message;  // points into the parsed bytes
};

// Appends flags, the big-endian length and `message` to `out`.
void append_envelope(std::string& out, std::uint8_t flags, std::string_view message);

// The 5-byte header of a message of `length` bytes.
[[nodiscard]] std::string envelope_header(std::uint8_t flags, std::size_t length);

// Splits `body` at its first envelope: the envelope, and in `rest` what
// follows it. nullopt when `body` is shorter than the header or than the
// length it declares (a truncated body).
[[nodiscard]] std::optional<Envelope> next_envelope(std::string_view body, std::string_view& rest);

}  // namespace pathserver::http
