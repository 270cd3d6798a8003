#include "service/chunked_answer_stream.h"

#include <string>
#include <utility>

namespace pathserver {

void PathfinderService::ChunkedAnswerStream::end(const grpc::Status& status) {
  (void)service_.answer_watch_.write_done(this);
  release_charges();
  service_.log_and_count(rpc_, logged_mask(), *ctx_, started_, status);
  // gRPC may delete this call as soon as it is finished: nothing of it is
  // touched after Finish. calls_ is left last, so shutdown waits for it.
  PathfinderService& service = service_;
  Finish(status);
  service.calls_.leave();
}

void PathfinderService::ChunkedAnswerStream::OnWriteDone(bool ok) {
  const bool stalled = service_.answer_watch_.write_done(this);
  release_written();
  if (!ok) {
    end(stalled ? service_.answer_watch_.stalled_status()
                : grpc::Status(grpc::StatusCode::CANCELLED, "the client went away during the stream"));
    return;
  }
  if (queued_.empty() && !chunk_left()) {
    end(grpc::Status::OK);
    return;
  }
  write_next();
}

void PathfinderService::ChunkedAnswerStream::OnDone() {
  (void)service_.answer_watch_.write_done(this);
  release_charges();
  delete this;
}

grpc::Status PathfinderService::ChunkedAnswerStream::queue_encoded(
    std::deque<grpc::ByteBuffer> chunks, std::size_t uncharged_bytes) {
  std::size_t bytes = 0;
  for (const grpc::ByteBuffer& chunk : chunks) bytes += chunk.Length();
  if (bytes > uncharged_bytes) {
    if (!service_.pending_answers_.try_charge(bytes)) {
      return service_.pending_answers_.refusal("this stream's " + std::to_string(bytes) +
                                               " bytes would have to wait for its reader too");
    }
    charged_ += bytes;
  }
  queued_ = std::move(chunks);
  return grpc::Status::OK;
}

void PathfinderService::ChunkedAnswerStream::write_next() {
  if (grpc::Status gone = service_.call_gone(*ctx_); !gone.ok()) {
    end(gone);
    return;
  }
  if (!queued_.empty()) {
    buffer_ = std::move(queued_.front());
    queued_.pop_front();
    writing_charge_ = charged_ != 0 ? buffer_.Length() : 0;
  } else {
    if (grpc::Status status = encode_next_chunk(buffer_); !status.ok()) {
      end(status);
      return;
    }
    const std::size_t bytes = buffer_.Length();
    if (bytes > kPendingAnswerMinBytes) {
      if (!service_.pending_answers_.try_charge(bytes)) {
        end(service_.pending_answers_.refusal("this stream's next chunk was dropped"));
        return;
      }
      charged_ += bytes;
      writing_charge_ = bytes;
    }
  }
  grpc::CallbackServerContext* ctx = ctx_;
  service_.answer_watch_.write_started(this, buffer_.Length(), [ctx] { ctx->TryCancel(); });
  StartWrite(&buffer_);
}

void PathfinderService::ChunkedAnswerStream::release_written() {
  if (writing_charge_ == 0) return;
  service_.pending_answers_.release(writing_charge_);
  charged_ -= writing_charge_;
  writing_charge_ = 0;
}

void PathfinderService::ChunkedAnswerStream::release_charges() {
  if (charged_ != 0) service_.pending_answers_.release(charged_);
  charged_ = 0;
  writing_charge_ = 0;
  queued_.clear();
  let_go();
}

}  // namespace pathserver
