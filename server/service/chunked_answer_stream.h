// ChunkedAnswerStream: a server-streaming call whose answer is written one
// chunk at a time (GetField, GetRange). It holds what is shared: one write
// in flight, what a slow reader keeps charged to the pending answers,
// AnswerWatch's stall timeout, cancellation checks between chunks, and the
// call's one end (logged and counted). A subclass says how its chunks are
// made: encoded ahead and handed over whole (queue_encoded), or encoded one
// at a time as they are written (chunk_left, encode_next_chunk).

#pragma once

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <deque>
#include <string_view>

#include "service/pathfinder_service.h"

namespace pathserver {

class PathfinderService::ChunkedAnswerStream : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  ChunkedAnswerStream(const ChunkedAnswerStream&) = delete;
  ChunkedAnswerStream& operator=(const ChunkedAnswerStream&) = delete;

  [[nodiscard]] grpc::CallbackServerContext& context() const { return *ctx_; }

  // Ends the call (once): releases what it holds, logs and counts it.
  void end(const grpc::Status& status);

  void OnWriteDone(bool ok) override;
  void OnDone() override;
  void OnCancel() override {}  // the next write fails (OnWriteDone(false)) or call_gone says so

 protected:
  // `rpc`: the call's name in logs and metrics. Deleted by gRPC (OnDone) after Finish.
  ChunkedAnswerStream(PathfinderService& service, grpc::CallbackServerContext* ctx,
                      Metrics::Clock::time_point started, const char* rpc)
      : service_(service), ctx_(ctx), started_(started), rpc_(rpc) {}
  ~ChunkedAnswerStream() override = default;

  // The mask the request names, for the log line.
  [[nodiscard]] virtual std::string_view logged_mask() const = 0;
  // Chunks encoded as they are written: whether one is left, and the next
  // one into `out`. Each of more than kPendingAnswerMinBytes is charged to
  // the pending answers while it is written (dropped beyond the budget).
  [[nodiscard]] virtual bool chunk_left() const { return false; }
  virtual grpc::Status encode_next_chunk(grpc::ByteBuffer& /*out*/) {
    return {grpc::StatusCode::INTERNAL, "no chunk to encode"};
  }
  // What the subclass holds for its reader beside the chunks (a field), let
  // go when the call ends.
  virtual void let_go() {}

  // Chunks encoded ahead, written before any encode_next_chunk: charged to
  // the pending answers together until written (refused beyond the budget,
  // nothing kept), unless they take no more than `uncharged_bytes`.
  grpc::Status queue_encoded(std::deque<grpc::ByteBuffer> chunks, std::size_t uncharged_bytes);

  // Writes the next chunk, or ends the call when it is gone.
  void write_next();

  PathfinderService& service_;
  grpc::CallbackServerContext* const ctx_;

 private:
  // The chunk written is no longer the server's.
  void release_written();
  // Everything charged for the stream, and what the subclass holds.
  void release_charges();

  const Metrics::Clock::time_point started_;
  const char* const rpc_;
  std::deque<grpc::ByteBuffer> queued_;  // encoded ahead, not written yet
  grpc::ByteBuffer buffer_;              // the chunk being written
  std::size_t charged_ = 0;              // to pending_answers_: the chunk written and queued_
  std::size_t writing_charge_ = 0;       // of charged_, for buffer_
};

}  // namespace pathserver
