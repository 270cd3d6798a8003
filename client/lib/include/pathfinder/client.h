#pragma once

// A thin typed C++ client for the pathfinder gRPC service.
//
// Every call returns a Result<T>: the gRPC status and, when the status is OK,
// the response message. Calls never throw for RPC failures; only
// upload_mask_file throws (FileError) when the local file cannot be read.

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/channel_arguments.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pathfinding/v1/pathfinding.grpc.pb.h"

namespace pathfinder {

// The largest message a client sends or accepts by default: 64 MiB.
inline constexpr int kDefaultMaxMessageBytes = 64 * 1024 * 1024;

// The request header naming the mask a call is about. A load balancer in
// front of several replicas hashes on it (deploy/nginx/), so that the fields
// of one mask stay hot on one replica.
inline constexpr const char* kMaskHeader = "x-pathfinder-mask";

// Retries of calls that failed with UNAVAILABLE (the server or a balancer in
// front of it was unreachable or went away), done by gRPC itself through the
// channel's service config. Only the idempotent calls are retried: FindPath,
// Reachable, StandardMove, BatchFindPaths, LineOfSight, NearestWalkable,
// GetField and PrepareMask (until their first message arrives: gRPC does not
// retry a stream that has begun), GetMask and ListMasks. UploadMask, PatchMask and
// DeleteMask never are: a write that reached a replica which died before
// answering may have been applied, and a repeated PatchMask without
// expected_revision would apply twice.
struct RetryPolicy {
  bool enabled = true;
  // Attempts in all, the first included (gRPC caps it at 5).
  int max_attempts = 5;
  // gRPC waits a random time up to the current backoff before each retry;
  // the backoff starts at initial_backoff and grows by backoff_multiplier up
  // to max_backoff. The defaults bound the waits of one call to about 1.5 s.
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{1000};
  double backoff_multiplier = 2.0;
};

struct ClientOptions {
  // Deadline of every call, measured from the moment it starts.
  std::chrono::milliseconds deadline{std::chrono::seconds(10)};
  // Largest message sent or received, in bytes (gRPC's own default is 4 MiB).
  int max_message_bytes = kDefaultMaxMessageBytes;
  // When not empty, sent as "authorization: Bearer <token>" metadata on every
  // Pathfinder call (the server's admin or client token).
  std::string bearer_token;
  // TLS. Off unless `tls` is true (or any PEM below is set): then the channel
  // uses SSL credentials, trusting the PEM roots (empty = gRPC's default
  // roots) and presenting the client certificate chain and key for mutual
  // TLS when both are set. Contents, not paths: see read_file.
  bool tls = false;
  std::string tls_root_certs_pem;
  std::string tls_client_cert_pem;
  std::string tls_client_key_pem;
  // When not empty, the name the server certificate is checked against
  // instead of the target's host (GRPC_SSL_TARGET_NAME_OVERRIDE_ARG; tests).
  std::string tls_target_name_override;
  // Retries of idempotent calls on UNAVAILABLE (on by default).
  RetryPolicy retry;
  // When true, every call that names a mask carries it in kMaskHeader.
  bool send_mask_header = true;

  // True when the channel uses TLS.
  [[nodiscard]] bool uses_tls() const {
    return tls || !tls_root_certs_pem.empty() || !tls_client_cert_pem.empty() ||
           !tls_client_key_pem.empty();
  }
};

// The outcome of one call: `value` is meaningful only when ok().
template <class T>
struct [[nodiscard]] Result {
  grpc::Status status;
  T value;

  [[nodiscard]] bool ok() const { return status.ok(); }
};

// Raised by upload_mask_file when the file cannot be read. what() names the
// file and the reason.
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How upload_mask_file asks the server to decode the file.
struct UploadOptions {
  pathfinding::v1::MaskFormat format = pathfinding::v1::MASK_FORMAT_UNSPECIFIED;  // sniff
  pathfinding::v1::PixelRule rule = pathfinding::v1::PIXEL_RULE_UNSPECIFIED;      // auto
  std::map<std::uint32_t, std::uint32_t> palette;  // 0xRRGGBB -> area id, PIXEL_RULE_PALETTE
  bool block_unmapped = false;  // PIXEL_RULE_PALETTE: colours not listed become area 0
  std::uint32_t width = 0;                         // MASK_FORMAT_RAW only
  std::uint32_t height = 0;                        // MASK_FORMAT_RAW only
};

// GetField's answer, assembled from its chunks.
struct Field {
  std::uint32_t width = 0;   // samples per row (after crop and downsample)
  std::uint32_t height = 0;  // rows
  // width*height costs to the goal, row-major; +infinity where unreachable.
  std::vector<float> distances;
  // With include_flow, width*height pathfinding.v1.Direction values (0 at
  // the goal and where unreachable); empty otherwise.
  std::vector<std::uint8_t> flow;
  std::uint64_t mask_revision = 0;
  bool cache_hit = false;
};

// GetRange's answer, assembled from its chunks.
struct Range {
  // The smallest rectangle holding every pixel in range (mask coordinates);
  // width and height 0 when the range is empty.
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint64_t pixel_count = 0;
  // width*height flags, row-major over the rectangle: 1 = in range.
  std::vector<std::uint8_t> in_range;
  // With include_costs, width*height costs from the start (+infinity where
  // not in range); empty otherwise.
  std::vector<float> costs;
  std::uint64_t mask_revision = 0;

  // True when mask pixel (px, py) is in range.
  [[nodiscard]] bool contains(std::int64_t px, std::int64_t py) const {
    if (px < x || py < y || px >= std::int64_t{x} + width || py >= std::int64_t{y} + height) {
      return false;
    }
    return in_range[static_cast<std::size_t>(py - y) * width + static_cast<std::size_t>(px - x)] != 0;
  }
};

// grpc.health.v1.HealthCheckResponse.ServingStatus.
enum class ServingStatus { kUnknown = 0, kServing = 1, kNotServing = 2, kServiceUnknown = 3 };

// Name of a serving status as the health proto spells it ("SERVING", ...).
[[nodiscard]] const char* serving_status_name(ServingStatus status);

// Name of a gRPC status code as the gRPC docs spell it ("NOT_FOUND", ...).
[[nodiscard]] std::string status_code_name(grpc::StatusCode code);

// The gRPC service config JSON that makes a channel retry the idempotent
// Pathfinder calls as policy says; "" when retries are off.
[[nodiscard]] std::string retry_service_config(const RetryPolicy& policy);

// A channel to target (TLS when options.uses_tls(), else insecure) with
// options.max_message_bytes as both message limits and options.retry's
// service config (retries off when disabled), on top of `arguments`
// (e.g. GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL = 1, so that several channels to
// one target open several connections).
[[nodiscard]] std::shared_ptr<grpc::Channel> make_channel(const std::string& target,
                                                          const ClientOptions& options,
                                                          grpc::ChannelArguments arguments = {});

// One connection to a pathfinder server. Thread-safe: calls may be made from
// several threads at once (each call uses its own context).
class Client {
 public:
  // Connects (lazily, on the first call) to target, e.g. "127.0.0.1:50051",
  // over make_channel(target, options).
  explicit Client(const std::string& target, ClientOptions options = {});
  // Uses an existing channel (the caller chose its arguments and credentials).
  explicit Client(std::shared_ptr<grpc::Channel> channel, ClientOptions options = {});

  [[nodiscard]] const ClientOptions& options() const { return options_; }
  [[nodiscard]] const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  // The target it was made for ("127.0.0.1:50051"); empty when made from a channel.
  [[nodiscard]] const std::string& target() const { return target_; }

  // Creates or replaces a mask by name.
  Result<pathfinding::v1::MaskInfo> upload_mask(const pathfinding::v1::UploadMaskRequest& request);
  // Uploads image bytes (a file's contents) decoded as options say.
  Result<pathfinding::v1::MaskInfo> upload_mask_bytes(const std::string& name, std::string bytes,
                                                      const UploadOptions& options = {});
  // Uploads the bytes of the file at path. Throws FileError when it cannot be read.
  Result<pathfinding::v1::MaskInfo> upload_mask_file(const std::string& name,
                                                     const std::string& path,
                                                     const UploadOptions& options = {});
  // Overwrites a rectangle of area ids.
  Result<pathfinding::v1::MaskInfo> patch_mask(const pathfinding::v1::PatchMaskRequest& request);
  // Deletes a mask.
  Result<pathfinding::v1::DeleteMaskResponse> delete_mask(const std::string& name);
  // Describes one mask; with include_areas, MaskInfo.areas also holds its area
  // grid (width*height bytes, row-major; RESOURCE_EXHAUSTED when it would not
  // fit in one message).
  Result<pathfinding::v1::MaskInfo> get_mask(const std::string& name, bool include_areas = false);
  // Describes every mask, ordered by name.
  Result<pathfinding::v1::ListMasksResponse> list_masks();
  // Finds a path.
  Result<pathfinding::v1::FindPathResponse> find_path(
      const pathfinding::v1::FindPathRequest& request);
  // Answers, for each pair, whether b can be reached from a.
  Result<pathfinding::v1::ReachableResponse> reachable(
      const pathfinding::v1::ReachableRequest& request);
  // Finds an RPG-style route of standard moves.
  Result<pathfinding::v1::StandardMoveResponse> standard_move(
      const pathfinding::v1::StandardMoveRequest& request);
  // Finds the paths from many starts to one goal: one FindPathResponse per
  // start, in request order.
  Result<pathfinding::v1::BatchFindPathsResponse> batch_find_paths(
      const pathfinding::v1::BatchFindPathsRequest& request);

  // Answers, for each pair, whether the segment a-b is walkable and if not
  // where it is first blocked.
  Result<pathfinding::v1::LineOfSightResponse> line_of_sight(
      const pathfinding::v1::LineOfSightRequest& request);
  // Finds, for each point, the nearest usable pixel (snapping's rule).
  Result<pathfinding::v1::NearestWalkableResponse> nearest_walkable(
      const pathfinding::v1::NearestWalkableRequest& request);

  // Streams the distance field toward request.goal: on_chunk runs for each
  // chunk, in order, on the calling thread; returning false cancels the
  // call (CANCELLED). The deadline covers the whole stream.
  grpc::Status get_field_chunks(const pathfinding::v1::GetFieldRequest& request,
                                const std::function<bool(const pathfinding::v1::FieldChunk&)>& on_chunk);
  // The whole field, assembled; INTERNAL when the chunks do not fit together
  // (sizes that disagree, rows missing or out of order).
  Result<Field> get_field(const pathfinding::v1::GetFieldRequest& request);

  // Streams the movement range of request.start (GetRange): on_chunk runs
  // for each chunk, in order, on the calling thread; returning false cancels
  // the call (CANCELLED). The deadline covers the whole stream.
  grpc::Status get_range_chunks(const pathfinding::v1::GetRangeRequest& request,
                                const std::function<bool(const pathfinding::v1::RangeChunk&)>& on_chunk);
  // The whole range, assembled; INTERNAL when the chunks do not fit together.
  Result<Range> get_range(const pathfinding::v1::GetRangeRequest& request);

  // Builds what queries on request.mask will need into the server's caches
  // (PrepareMask): on_progress (when set) runs for each progress message, in
  // order, on the calling thread. The last message (done set) is the value;
  // INTERNAL when the stream ended without one. The deadline covers the
  // whole stream; a server build it cuts short goes on for the cache.
  Result<pathfinding::v1::PrepareProgress> prepare_mask(
      const pathfinding::v1::PrepareMaskRequest& request,
      const std::function<void(const pathfinding::v1::PrepareProgress&)>& on_progress = {});

  // Watches a mask (WatchMask): on_change runs for each message, in order, on
  // the calling thread: the mask's current state first, then one message per
  // change. Returning false ends the watch (OK). Without `duration` the watch
  // has no deadline (options().deadline does not apply) and otherwise ends
  // only with an error: UNAVAILABLE when the server shuts down (watch again);
  // with one it ends OK once `duration` has passed.
  grpc::Status watch_mask(const std::string& mask,
                          const std::function<bool(const pathfinding::v1::MaskChange&)>& on_change,
                          std::optional<std::chrono::milliseconds> duration = std::nullopt);

  // grpc.health.v1.Health/Check for service ("" = the whole server).
  Result<ServingStatus> health_check(const std::string& service = "");
  // The same call without waiting: done runs once, on a gRPC thread, when it
  // ends. context (its deadline is the caller's to set) must outlive the call;
  // done must not block.
  void health_check_async(grpc::ClientContext* context, const std::string& service,
                          std::function<void(Result<ServingStatus>)> done);
  // Waits until the channel is connected, at most timeout. True when it is.
  [[nodiscard]] bool wait_until_ready(std::chrono::milliseconds timeout);

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pathfinding::v1::Pathfinder::Stub> stub_;
  ClientOptions options_;
  std::string target_;
};

// Adds "authorization: Bearer <token>" to context unless token is empty.
void add_bearer_token(grpc::ClientContext& context, const std::string& token);
// Adds "x-pathfinder-mask: <mask>" (kMaskHeader) to context unless mask is
// empty or not a valid header value (then the call goes without it: any
// replica can answer any mask, the server judges the name).
void add_mask_header(grpc::ClientContext& context, const std::string& mask);

// Convenience constructors for request fields.
[[nodiscard]] pathfinding::v1::Point make_point(std::int32_t x, std::int32_t y);
// Temporary obstacles (FindPathRequest.obstacles and the same field of
// BatchFindPaths, LineOfSight and Reachable): pixels x..x+width-1,
// y..y+height-1; every pixel whose centre lies within radius of (x, y); the
// pixels listed. The server checks them (INVALID_ARGUMENT naming obstacles[i]).
[[nodiscard]] pathfinding::v1::Obstacle make_rect_obstacle(std::uint32_t x, std::uint32_t y,
                                                           std::uint32_t width,
                                                           std::uint32_t height);
[[nodiscard]] pathfinding::v1::Obstacle make_circle_obstacle(double centre_x, double centre_y,
                                                             double radius);
[[nodiscard]] pathfinding::v1::Obstacle make_pixels_obstacle(
    const std::vector<pathfinding::v1::Point>& pixels);

// Reads a whole file. Throws FileError naming the file and the reason.
[[nodiscard]] std::string read_file(const std::string& path);
// Turns TLS on in options and fills its PEM fields from files: ca_file (the
// roots; empty = gRPC's default roots), cert_file and key_file (the client
// certificate for mutual TLS: both or neither). Throws FileError when a file
// cannot be read or only one of cert_file and key_file is given.
void load_tls_files(ClientOptions& options, const std::string& ca_file,
                    const std::string& cert_file, const std::string& key_file);
// Reads a token file without its trailing whitespace (newline). Throws
// FileError when it cannot be read or holds no token.
[[nodiscard]] std::string read_token_file(const std::string& path);

}  // namespace pathfinder
