#include "pathfinder/client.h"

#include <absl/status/status.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iterator>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

namespace pathfinder {

namespace pb = pathfinding::v1;

void add_bearer_token(grpc::ClientContext& context, const std::string& token) {
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
}

void add_mask_header(grpc::ClientContext& context, const std::string& mask) {
  // gRPC refuses a call whose metadata values are not printable ASCII; such a
  // name goes without the header (routing is only an optimisation).
  constexpr std::size_t kMaxHeaderBytes = 1024;
  if (mask.empty() || mask.size() > kMaxHeaderBytes) return;
  for (const char c : mask) {
    if (c < 0x20 || c > 0x7e) return;
  }
  context.AddMetadata(kMaskHeader, mask);
}

namespace {

// Runs one unary call through the generated stub with the client's deadline
// and, when the call names one, the mask header.
template <class Response, class Request, class Method>
Result<Response> call(pb::Pathfinder::Stub* stub, Method method, const Request& request,
                      const ClientOptions& options, const std::string& mask = {}) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + options.deadline);
  add_bearer_token(context, options.bearer_token);
  if (options.send_mask_header) add_mask_header(context, mask);
  Result<Response> result;
  result.status = (stub->*method)(&context, request, &result.value);
  return result;
}

// Runs one server-streaming call like `call`, handing each message to
// on_message; when it returns false the call is cancelled and drained
// (CANCELLED "stopped by the caller").
template <class Message, class Request, class Method>
grpc::Status read_stream(pb::Pathfinder::Stub* stub, Method method, const Request& request,
                         const ClientOptions& options,
                         const std::function<bool(const Message&)>& on_message) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + options.deadline);
  add_bearer_token(context, options.bearer_token);
  if (options.send_mask_header) add_mask_header(context, request.mask());
  const std::unique_ptr<grpc::ClientReader<Message>> reader = (stub->*method)(&context, request);
  Message message;
  while (reader->Read(&message)) {
    if (!on_message(message)) {
      context.TryCancel();
      while (reader->Read(&message)) {
      }
      (void)reader->Finish();
      return {grpc::StatusCode::CANCELLED, "stopped by the caller"};
    }
  }
  return reader->Finish();
}

// Decodes `count` little-endian float32 from bytes into out.
void decode_float32_le(const std::string& bytes, std::size_t count, float* out) {
  const auto* at = reinterpret_cast<const unsigned char*>(bytes.data());
  for (std::size_t i = 0; i < count; ++i, at += 4) {
    const std::uint32_t word = at[0] | (std::uint32_t{at[1]} << 8) | (std::uint32_t{at[2]} << 16) |
                               (std::uint32_t{at[3]} << 24);
    out[i] = std::bit_cast<float>(word);
  }
}

// Protobuf wire format of grpc.health.v1.HealthCheckRequest { string service = 1; }.
std::string encode_health_request(const std::string& service) {
  std::string bytes;
  if (service.empty()) {
    return bytes;  // proto3 omits default values: the empty message
  }
  bytes.push_back('\x0a');  // field 1, wire type 2 (length-delimited)
  std::uint64_t length = service.size();
  while (length >= 0x80) {
    bytes.push_back(static_cast<char>((length & 0x7f) | 0x80));
    length >>= 7;
  }
  bytes.push_back(static_cast<char>(length));
  bytes += service;
  return bytes;
}

bool read_varint(const std::string& bytes, std::size_t& pos, std::uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && pos < bytes.size(); shift += 7) {
    const auto byte = static_cast<std::uint8_t>(bytes[pos++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      return true;
    }
  }
  return false;
}

// Parses grpc.health.v1.HealthCheckResponse { ServingStatus status = 1; },
// skipping unknown fields. std::nullopt when the bytes are malformed.
std::optional<ServingStatus> decode_health_response(const std::string& bytes) {
  std::uint64_t status = 0;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::uint64_t key = 0;
    if (!read_varint(bytes, pos, key)) {
      return std::nullopt;
    }
    const std::uint64_t field = key >> 3;
    const std::uint64_t wire_type = key & 7;
    std::uint64_t value = 0;
    switch (wire_type) {
      case 0:  // varint
        if (!read_varint(bytes, pos, value)) {
          return std::nullopt;
        }
        if (field == 1) {
          status = value;
        }
        break;
      case 1:  // 64-bit
        pos += 8;
        break;
      case 2:  // length-delimited
        if (!read_varint(bytes, pos, value) || value > bytes.size() - pos) {
          return std::nullopt;
        }
        pos += value;
        break;
      case 5:  // 32-bit
        pos += 4;
        break;
      default:
        return std::nullopt;
    }
    if (pos > bytes.size()) {
      return std::nullopt;
    }
  }
  if (status > 3) {
    return ServingStatus::kUnknown;
  }
  return static_cast<ServingStatus>(status);
}

// The outcome of a finished health call: its status, and the decoded
// response when the status is OK.
Result<ServingStatus> health_result(grpc::Status status, grpc::ByteBuffer& response) {
  Result<ServingStatus> result{std::move(status), ServingStatus::kUnknown};
  if (!result.ok()) {
    return result;
  }
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) {
    result.status = grpc::Status(grpc::StatusCode::INTERNAL, "unreadable health response");
    return result;
  }
  std::string response_bytes;
  for (const auto& part : slices) {
    response_bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
  }
  const auto serving = decode_health_response(response_bytes);
  if (!serving) {
    result.status = grpc::Status(grpc::StatusCode::INTERNAL, "malformed health response");
    return result;
  }
  result.value = *serving;
  return result;
}

}  // namespace

const char* serving_status_name(ServingStatus status) {
  switch (status) {
    case ServingStatus::kUnknown:
      return "UNKNOWN";
    case ServingStatus::kServing:
      return "SERVING";
    case ServingStatus::kNotServing:
      return "NOT_SERVING";
    case ServingStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
  }
  return "UNKNOWN";
}

std::string status_code_name(grpc::StatusCode code) {
  // grpc::StatusCode and absl::StatusCode share their numbering.
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

namespace {

// "0.1s": a google.protobuf.Duration in JSON, as the service config wants it.
std::string json_seconds(std::chrono::milliseconds duration) {
  const auto ms = std::max<std::int64_t>(duration.count(), 1);  // gRPC wants > 0
  std::ostringstream text;
  text << ms / 1000 << "." << std::setw(3) << std::setfill('0') << ms % 1000 << "s";
  return text.str();
}

}  // namespace

std::string retry_service_config(const RetryPolicy& policy) {
  if (!policy.enabled) return "";
  // The calls that change nothing: repeating one is always safe.
  // GetField, GetRange and WatchMask stream: gRPC retries them only until the
  // first message arrives.
  static constexpr const char* kIdempotent[] = {
      "FindPath",        "Reachable", "StandardMove", "BatchFindPaths", "LineOfSight",
      "NearestWalkable", "GetField",  "GetMask",      "ListMasks",      "PrepareMask",
      "GetRange",        "WatchMask"};
  std::ostringstream json;
  json << R"({"methodConfig":[{"name":[)";
  const char* separator = "";
  for (const char* method : kIdempotent) {
    json << separator << R"({"service":"pathfinding.v1.Pathfinder","method":")" << method
         << R"("})";
    separator = ",";
  }
  std::ostringstream multiplier;
  multiplier << std::max(policy.backoff_multiplier, 1.0);
  json << R"(],"retryPolicy":{"maxAttempts":)" << std::clamp(policy.max_attempts, 2, 5)
       << R"(,"initialBackoff":")" << json_seconds(policy.initial_backoff)
       << R"(","maxBackoff":")" << json_seconds(policy.max_backoff)
       << R"(","backoffMultiplier":)" << multiplier.str()
       << R"(,"retryableStatusCodes":["UNAVAILABLE"]}}]})";
  return json.str();
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& target, const ClientOptions& options,
                                            grpc::ChannelArguments arguments) {
  arguments.SetMaxReceiveMessageSize(options.max_message_bytes);
  arguments.SetMaxSendMessageSize(options.max_message_bytes);
  // The service config is ours alone (a DNS TXT record cannot add retries).
  // Off leaves only gRPC's transparent retries, of calls that never reached
  // the server, which are always safe.
  arguments.SetInt(GRPC_ARG_SERVICE_CONFIG_DISABLE_RESOLUTION, 1);
  arguments.SetServiceConfigJSON(options.retry.enabled ? retry_service_config(options.retry)
                                                       : std::string("{}"));
  if (!options.uses_tls()) {
    return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), arguments);
  }
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = options.tls_root_certs_pem;
  ssl.pem_cert_chain = options.tls_client_cert_pem;
  ssl.pem_private_key = options.tls_client_key_pem;
  if (!options.tls_target_name_override.empty()) {
    arguments.SetSslTargetNameOverride(options.tls_target_name_override);
  }
  return grpc::CreateCustomChannel(target, grpc::SslCredentials(ssl), arguments);
}

Client::Client(const std::string& target, ClientOptions options)
    : Client(make_channel(target, options), options) {
  target_ = target;
}

Client::Client(std::shared_ptr<grpc::Channel> channel, ClientOptions options)
    : channel_(std::move(channel)), stub_(pb::Pathfinder::NewStub(channel_)), options_(options) {}

Result<pb::MaskInfo> Client::upload_mask(const pb::UploadMaskRequest& request) {
  return call<pb::MaskInfo>(stub_.get(), &pb::Pathfinder::Stub::UploadMask, request, options_,
                            request.name());
}

Result<pb::MaskInfo> Client::upload_mask_file(const std::string& name, const std::string& path,
                                              const UploadOptions& options) {
  return upload_mask_bytes(name, read_file(path), options);
}

Result<pb::MaskInfo> Client::upload_mask_bytes(const std::string& name, std::string bytes,
                                               const UploadOptions& options) {
  pb::UploadMaskRequest request;
  request.set_name(name);
  request.set_image(std::move(bytes));
  request.set_format(options.format);
  request.set_rule(options.rule);
  for (const auto& [colour, area] : options.palette) {
    (*request.mutable_palette())[colour] = area;
  }
  request.set_block_unmapped(options.block_unmapped);
  request.set_width(options.width);
  request.set_height(options.height);
  return upload_mask(request);
}

Result<pb::MaskInfo> Client::patch_mask(const pb::PatchMaskRequest& request) {
  return call<pb::MaskInfo>(stub_.get(), &pb::Pathfinder::Stub::PatchMask, request, options_,
                            request.name());
}

Result<pb::DeleteMaskResponse> Client::delete_mask(const std::string& name) {
  pb::DeleteMaskRequest request;
  request.set_name(name);
  return call<pb::DeleteMaskResponse>(stub_.get(), &pb::Pathfinder::Stub::DeleteMask, request,
                                      options_, name);
}

Result<pb::MaskInfo> Client::get_mask(const std::string& name, bool include_areas) {
  pb::GetMaskRequest request;
  request.set_name(name);
  request.set_include_areas(include_areas);
  return call<pb::MaskInfo>(stub_.get(), &pb::Pathfinder::Stub::GetMask, request, options_, name);
}

Result<pb::ListMasksResponse> Client::list_masks() {
  return call<pb::ListMasksResponse>(stub_.get(), &pb::Pathfinder::Stub::ListMasks,
                                     pb::ListMasksRequest(), options_);
}

Result<pb::FindPathResponse> Client::find_path(const pb::FindPathRequest& request) {
  return call<pb::FindPathResponse>(stub_.get(), &pb::Pathfinder::Stub::FindPath, request,
                                    options_, request.mask());
}

Result<pb::ReachableResponse> Client::reachable(const pb::ReachableRequest& request) {
  return call<pb::ReachableResponse>(stub_.get(), &pb::Pathfinder::Stub::Reachable, request,
                                     options_, request.mask());
}

Result<pb::StandardMoveResponse> Client::standard_move(const pb::StandardMoveRequest& request) {
  return call<pb::StandardMoveResponse>(stub_.get(), &pb::Pathfinder::Stub::StandardMove, request,
                                        options_, request.mask());
}

grpc::Status Client::get_field_chunks(
    const pb::GetFieldRequest& request,
    const std::function<bool(const pb::FieldChunk&)>& on_chunk) {
  return read_stream<pb::FieldChunk>(stub_.get(), &pb::Pathfinder::Stub::GetField, request,
                                     options_, on_chunk);
}

Result<Field> Client::get_field(const pb::GetFieldRequest& request) {
  Result<Field> result;
  Field& field = result.value;
  std::uint32_t next_row = 0;
  std::string problem;
  result.status = get_field_chunks(request, [&](const pb::FieldChunk& chunk) {
    if (next_row == 0) {
      field.width = chunk.width();
      field.height = chunk.height();
      field.mask_revision = chunk.mask_revision();
      field.cache_hit = chunk.cache_hit();
      const std::size_t samples = std::size_t{field.width} * field.height;
      field.distances.resize(samples);
      if (request.include_flow()) field.flow.resize(samples);
    }
    const std::size_t samples = std::size_t{chunk.row_count()} * field.width;
    if (chunk.width() != field.width || chunk.height() != field.height ||
        chunk.first_row() != next_row || chunk.row_count() > field.height - next_row ||
        chunk.distances().size() != samples * 4 ||
        (request.include_flow() && chunk.flow().size() != samples)) {
      problem = "GetField: chunk of rows " + std::to_string(chunk.first_row()) + "+" +
                std::to_string(chunk.row_count()) + " does not follow row " +
                std::to_string(next_row) + " of a " + std::to_string(field.width) + "x" +
                std::to_string(field.height) + " field";
      return false;
    }
    const std::size_t offset = std::size_t{next_row} * field.width;
    decode_float32_le(chunk.distances(), samples, field.distances.data() + offset);
    if (request.include_flow()) {
      std::memcpy(field.flow.data() + offset, chunk.flow().data(), samples);
    }
    next_row += chunk.row_count();
    return true;
  });
  if (!problem.empty()) {
    result.status = {grpc::StatusCode::INTERNAL, problem};
  } else if (result.status.ok() && next_row != field.height) {
    result.status = {grpc::StatusCode::INTERNAL,
                     "GetField: the stream ended after " + std::to_string(next_row) + " of " +
                         std::to_string(field.height) + " rows"};
  }
  return result;
}

grpc::Status Client::get_range_chunks(
    const pb::GetRangeRequest& request,
    const std::function<bool(const pb::RangeChunk&)>& on_chunk) {
  return read_stream<pb::RangeChunk>(stub_.get(), &pb::Pathfinder::Stub::GetRange, request,
                                     options_, on_chunk);
}

Result<Range> Client::get_range(const pb::GetRangeRequest& request) {
  Result<Range> result;
  Range& range = result.value;
  std::uint32_t next_row = 0;
  bool first = true;
  std::string problem;
  result.status = get_range_chunks(request, [&](const pb::RangeChunk& chunk) {
    if (first) {
      first = false;
      range.x = chunk.bounds().x();
      range.y = chunk.bounds().y();
      range.width = chunk.bounds().width();
      range.height = chunk.bounds().height();
      range.pixel_count = chunk.pixel_count();
      range.mask_revision = chunk.mask_revision();
      const std::size_t pixels = std::size_t{range.width} * range.height;
      range.in_range.assign(pixels, 0);
      if (request.include_costs()) range.costs.assign(pixels, 0.0F);
    }
    const std::size_t row_bytes = (std::size_t{range.width} + 7) / 8;
    const std::size_t samples = std::size_t{chunk.row_count()} * range.width;
    if (chunk.bounds().width() != range.width || chunk.bounds().height() != range.height ||
        chunk.first_row() != next_row || chunk.row_count() > range.height - next_row ||
        chunk.in_range().size() != row_bytes * chunk.row_count() ||
        (request.include_costs() && chunk.costs().size() != samples * 4)) {
      problem = "GetRange: chunk of rows " + std::to_string(chunk.first_row()) + "+" +
                std::to_string(chunk.row_count()) + " does not follow row " +
                std::to_string(next_row) + " of a " + std::to_string(range.width) + "x" +
                std::to_string(range.height) + " range";
      return false;
    }
    const auto* bits = reinterpret_cast<const unsigned char*>(chunk.in_range().data());
    for (std::uint32_t r = 0; r < chunk.row_count(); ++r) {
      for (std::uint32_t i = 0; i < range.width; ++i) {
        range.in_range[std::size_t{next_row + r} * range.width + i] =
            (bits[r * row_bytes + i / 8] >> (i % 8)) & 1U;
      }
    }
    if (request.include_costs()) {
      decode_float32_le(chunk.costs(), samples,
                        range.costs.data() + std::size_t{next_row} * range.width);
    }
    next_row += chunk.row_count();
    return true;
  });
  if (!problem.empty()) {
    result.status = {grpc::StatusCode::INTERNAL, problem};
  } else if (result.status.ok() && (first || next_row != range.height)) {
    result.status = {grpc::StatusCode::INTERNAL,
                     "GetRange: the stream ended after " + std::to_string(next_row) + " of " +
                         std::to_string(range.height) + " rows"};
  }
  return result;
}

Result<pb::PrepareProgress> Client::prepare_mask(
    const pb::PrepareMaskRequest& request,
    const std::function<void(const pb::PrepareProgress&)>& on_progress) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + options_.deadline);
  add_bearer_token(context, options_.bearer_token);
  if (options_.send_mask_header) add_mask_header(context, request.mask());
  const std::unique_ptr<grpc::ClientReader<pb::PrepareProgress>> reader =
      stub_->PrepareMask(&context, request);
  Result<pb::PrepareProgress> result;
  pb::PrepareProgress progress;
  while (reader->Read(&progress)) {
    if (on_progress) on_progress(progress);
    result.value = progress;
  }
  result.status = reader->Finish();
  if (result.status.ok() && !result.value.done()) {
    result.status = {grpc::StatusCode::INTERNAL, "PrepareMask: the stream ended before done"};
  }
  return result;
}

grpc::Status Client::watch_mask(const std::string& mask,
                                const std::function<bool(const pb::MaskChange&)>& on_change,
                                std::optional<std::chrono::milliseconds> duration) {
  grpc::ClientContext context;
  if (duration) context.set_deadline(std::chrono::system_clock::now() + *duration);
  add_bearer_token(context, options_.bearer_token);
  if (options_.send_mask_header) add_mask_header(context, mask);
  pb::WatchMaskRequest request;
  request.set_mask(mask);
  const std::unique_ptr<grpc::ClientReader<pb::MaskChange>> reader =
      stub_->WatchMask(&context, request);
  pb::MaskChange change;
  while (reader->Read(&change)) {
    if (!on_change(change)) {
      context.TryCancel();
      while (reader->Read(&change)) {
      }
      (void)reader->Finish();
      return grpc::Status::OK;
    }
  }
  grpc::Status status = reader->Finish();
  if (duration && status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return grpc::Status::OK;
  }
  return status;
}

Result<pb::LineOfSightResponse> Client::line_of_sight(const pb::LineOfSightRequest& request) {
  return call<pb::LineOfSightResponse>(stub_.get(), &pb::Pathfinder::Stub::LineOfSight, request,
                                       options_, request.mask());
}

Result<pb::NearestWalkableResponse> Client::nearest_walkable(
    const pb::NearestWalkableRequest& request) {
  return call<pb::NearestWalkableResponse>(stub_.get(), &pb::Pathfinder::Stub::NearestWalkable,
                                           request, options_, request.mask());
}

Result<pb::BatchFindPathsResponse> Client::batch_find_paths(
    const pb::BatchFindPathsRequest& request) {
  return call<pb::BatchFindPathsResponse>(stub_.get(), &pb::Pathfinder::Stub::BatchFindPaths,
                                          request, options_, request.mask());
}

Result<ServingStatus> Client::health_check(const std::string& service) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + options_.deadline);
  std::mutex mutex;
  std::condition_variable done_cv;
  std::optional<Result<ServingStatus>> result;
  health_check_async(&context, service, [&](Result<ServingStatus> outcome) {
    std::lock_guard lock(mutex);
    result = std::move(outcome);
    done_cv.notify_one();
  });
  std::unique_lock lock(mutex);
  done_cv.wait(lock, [&] { return result.has_value(); });
  return std::move(*result);
}

void Client::health_check_async(grpc::ClientContext* context, const std::string& service,
                                std::function<void(Result<ServingStatus>)> done) {
  // Debian installs no health .proto, so the call goes through the generic
  // stub with the two tiny messages encoded by hand. The buffers live until
  // the call ends.
  struct Call {
    grpc::ByteBuffer request;
    grpc::ByteBuffer response;
    std::function<void(Result<ServingStatus>)> done;
  };
  auto call = std::make_shared<Call>();
  const std::string request_bytes = encode_health_request(service);
  grpc::Slice slice(request_bytes);
  call->request = grpc::ByteBuffer(&slice, 1);
  call->done = std::move(done);
  grpc::GenericStub generic(channel_);
  generic.UnaryCall(context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &call->request,
                    &call->response, [call](grpc::Status status) {
                      call->done(health_result(std::move(status), call->response));
                    });
}

bool Client::wait_until_ready(std::chrono::milliseconds timeout) {
  return channel_->WaitForConnected(std::chrono::system_clock::now() + timeout);
}

pb::Point make_point(std::int32_t x, std::int32_t y) {
  pb::Point point;
  point.set_x(x);
  point.set_y(y);
  return point;
}

pb::Obstacle make_rect_obstacle(std::uint32_t x, std::uint32_t y, std::uint32_t width,
                                std::uint32_t height) {
  pb::Obstacle obstacle;
  pb::Rect& rect = *obstacle.mutable_rect();
  rect.set_x(x);
  rect.set_y(y);
  rect.set_width(width);
  rect.set_height(height);
  return obstacle;
}

pb::Obstacle make_circle_obstacle(double centre_x, double centre_y, double radius) {
  pb::Obstacle obstacle;
  pb::Circle& circle = *obstacle.mutable_circle();
  circle.mutable_centre()->set_x(centre_x);
  circle.mutable_centre()->set_y(centre_y);
  circle.set_radius(radius);
  return obstacle;
}

pb::Obstacle make_pixels_obstacle(const std::vector<pb::Point>& pixels) {
  pb::Obstacle obstacle;
  pb::PixelList& list = *obstacle.mutable_pixels();
  for (const pb::Point& p : pixels) *list.add_pixels() = p;
  return obstacle;
}

std::string read_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw FileError("cannot read '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw FileError("cannot read '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    throw FileError("cannot read '" + path + "': read failed");
  }
  return std::move(contents).str();
}

void load_tls_files(ClientOptions& options, const std::string& ca_file,
                    const std::string& cert_file, const std::string& key_file) {
  if (cert_file.empty() != key_file.empty()) {
    throw FileError("a TLS client certificate and its key go together: give both or neither");
  }
  options.tls = true;
  if (!ca_file.empty()) options.tls_root_certs_pem = read_file(ca_file);
  if (!cert_file.empty()) {
    options.tls_client_cert_pem = read_file(cert_file);
    options.tls_client_key_pem = read_file(key_file);
  }
}

std::string read_token_file(const std::string& path) {
  std::string token = read_file(path);
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())) != 0) {
    token.pop_back();
  }
  if (token.empty()) throw FileError("token file '" + path + "' is empty");
  return token;
}

}  // namespace pathfinder
