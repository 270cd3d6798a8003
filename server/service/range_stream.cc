// GetRange: the pixels within a cost budget of a start, streamed in chunks
// of rows of their bounding rectangle.
//
// The call is validated on gRPC's thread and computed on the compute pool
// (the usable mask of a clearance, once per mask revision and options as
// FindPath's, then a budgeted search whose work follows the budget, not the
// mask). The whole answer is then encoded at once, charged to the
// pending-answer budget (it is at most the budget's square of bits and
// costs), and written one chunk at a time; a reader that takes nothing for
// --stalled-stream-timeout has its stream ended (AnswerWatch).

#include <grpcpp/grpcpp.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "pathcore/agent_clearance.h"
#include "pathcore/movement_range.h"
#include "pathcore/obstacles.h"
#include "service/chunked_answer_stream.h"
#include "service/field_options_wire.h"
#include "service/obstacles_wire.h"
#include "service/pathfinder_service.h"
#include "service/proto_convert.h"
#include "service/range_chunks.h"
#include "service/rpc_status.h"
#include "service/usable_entry.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

}  // namespace

// A GetRange request, validated.
struct PathfinderService::RangePlan {
  MaskEntryPtr entry;
  pathcore::FieldOptions options;  // normalized
  double clearance = 0;            // 0 unless it excludes pixels
  pathcore::Point start;
  double max_cost = 0;
  bool include_costs = false;
};

grpc::Status PathfinderService::plan_range(const v1::GetRangeRequest& request,
                                           RangePlan& plan) const {
  CheckedFieldOptions checked;
  if (auto status = decode_field_options(request, checked); !status.ok()) return status;
  plan.clearance = checked.clearance_key;
  const double max_cost = request.max_cost();
  if (!std::isfinite(max_cost) || !(max_cost > 0)) {
    return invalid("max_cost: must be a finite number > 0 (got " + std::to_string(max_cost) + ")");
  }
  plan.max_cost = max_cost;
  if (!request.has_start()) return invalid("start: is required");

  plan.entry = store_.get(request.mask());
  if (!plan.entry) return mask_missing(store_, request.mask());
  if (auto status = check_revision(request.expected_revision(), *plan.entry); !status.ok()) {
    return status;
  }
  const pathcore::Mask& mask = *plan.entry->mask;
  plan.start = to_core(request.start());
  if (!mask.contains(plan.start)) return invalid(outside("start", plan.start, *plan.entry));
  plan.options = pathcore::normalized(checked.on(mask));
  plan.include_costs = request.include_costs();
  return grpc::Status::OK;
}

// The call (a ChunkedAnswerStream, its chunks encoded ahead). Deleted by
// gRPC (OnDone) after Finish.
class PathfinderService::RangeStream final : public ChunkedAnswerStream {
 public:
  RangeStream(PathfinderService& service, grpc::CallbackServerContext* ctx,
              Metrics::Clock::time_point started)
      : ChunkedAnswerStream(service, ctx, started, "GetRange") {}

  // On gRPC's thread: admits, decodes and validates the call, then hands
  // the search to the compute pool.
  void start(const grpc::ByteBuffer* request_bytes) {
    // admit_query enters calls_: end() leaves.
    grpc::Status status = service_.admit_query(*ctx_, *request_bytes, request_);
    bool look_up = false;
    if (status.ok()) {
      status = service_.plan_range(request_, plan_);
      // A mask not held (or older than expected): looked up in the shared
      // store on the pool, then planned again there.
      look_up = service_.store_lookup_may_help(status, request_.mask(),
                                               request_.expected_revision());
    }
    if (!status.ok() && !look_up) {
      end(status);
      return;
    }
    const auto work = [this, look_up] { run(look_up); };
    if (grpc::Status refused = service_.submit_heavy(*ctx_, work); !refused.ok()) end(refused);
  }

 private:
  ~RangeStream() override = default;

  [[nodiscard]] std::string_view logged_mask() const override { return request_.mask(); }

  // On the compute pool: the search and the encoded answer, then the first write.
  void run(bool look_up) {
    if (grpc::Status gone = service_.call_gone(*ctx_); !gone.ok()) {
      end(gone);
      return;
    }
    grpc::Status status;
    if (look_up) {
      status = service_.catch_up_store(*ctx_, request_.mask());
      if (status.ok()) status = service_.plan_range(request_, plan_);
      if (!status.ok()) {
        end(status);
        return;
      }
    }
    try {
      status = compute();
    } catch (const pathcore::Interrupted&) {
      status = service_.call_gone(*ctx_);
      if (status.ok()) status = {grpc::StatusCode::CANCELLED, "no longer wanted"};
    } catch (const RequestGone&) {
      status = service_.call_gone(*ctx_);
      if (status.ok()) status = {grpc::StatusCode::CANCELLED, "no longer wanted"};
    } catch (const std::bad_alloc&) {
      status = {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory"};
    } catch (const pathcore::InvalidArgument& e) {
      status = invalid(e.what());
    } catch (const std::exception& e) {
      status = {grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()};
    }
    if (!status.ok()) {
      end(status);
      return;
    }
    write_next();
  }

  // The range, encoded and queued (charged).
  grpc::Status compute() {
    const MaskEntry& entry = *plan_.entry;
    pathcore::ObstacleSet obstacles;
    if (grpc::Status status = decode_obstacles(request_.obstacles(), *entry.mask,
                                               service_.limits_.max_obstacles, obstacles);
        !status.ok()) {
      return status;
    }
    const std::function<bool()> interrupt = [this] { return !service_.call_gone(*ctx_).ok(); };
    std::optional<UsableEntry> usable;
    if (plan_.clearance != 0) {
      // A private build when not cached (no flight to park on): the same
      // usable mask FindPath caches, and cached here for it too.
      FillingSource source(service_.cache_, service_.flights_, nullptr);
      usable = usable_entry(service_.usable_masks_, source, entry, plan_.options.enabled,
                            plan_.clearance);
    }
    const pathcore::Mask& walked = usable ? *usable->entry.mask : *entry.mask;
    std::optional<pathcore::ObstacleSet> grown;
    if (plan_.clearance != 0 && !obstacles.empty()) {
      grown = obstacles.grown_by(plan_.clearance, walked.width(), walked.height());
    }
    pathcore::RangeLimits limits;
    limits.interrupt = interrupt;
    if (grown) {
      limits.blocked = &*grown;
    } else if (!obstacles.empty()) {
      limits.blocked = &obstacles;
    }
    const pathcore::MovementRange range =
        pathcore::compute_range(walked, plan_.start, plan_.max_cost, plan_.options, limits);
    std::deque<grpc::ByteBuffer> chunks;
    for (v1::RangeChunk& chunk : range_chunks(range, plan_.include_costs, entry.revision)) {
      bool own = false;
      if (grpc::Status status = grpc::SerializationTraits<v1::RangeChunk>::Serialize(
              chunk, &chunks.emplace_back(), &own);
          !status.ok()) {
        return status;
      }
    }
    return queue_encoded(std::move(chunks), kPendingAnswerMinBytes);
  }

  v1::GetRangeRequest request_;
  RangePlan plan_;
};

grpc::ServerWriteReactor<grpc::ByteBuffer>* PathfinderService::GetRange(
    grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request) {
  auto* call = new RangeStream(*this, ctx, start_call());  // deleted by gRPC (OnDone)
  call->start(request);
  return call;
}

}  // namespace pathserver
