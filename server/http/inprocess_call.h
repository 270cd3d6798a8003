#pragma once

// One HTTP request's call of the gRPC server, made in-process through a
// grpc::GenericStub on the server's InProcessChannel: raw bytes in, raw
// bytes out, so the call meets the same handlers, limits, auth and metrics
// as any gRPC call. The session's coroutine waits for the call's events on
// its own executor (a timer the gRPC threads wake by posting to it), never
// blocking the I/O thread.
//
// A call's coroutine must wait for its end (finish()) before it lets go of
// the call: gRPC may still call back until then. TryCancel (cancel()) makes
// that end come soon.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace pathserver::http {

// What both kinds of call share: the context, the wake-up, the end.
class InProcessCall : public std::enable_shared_from_this<InProcessCall> {
 public:
  explicit InProcessCall(const boost::asio::any_io_executor& executor);
  virtual ~InProcessCall() = default;
  InProcessCall(const InProcessCall&) = delete;
  InProcessCall& operator=(const InProcessCall&) = delete;

  grpc::ClientContext& context() { return context_; }
  // Asks gRPC to end the call now (the HTTP client went away); thread-safe.
  void cancel() { context_.TryCancel(); }
  // Waits for the call's end and its status.
  boost::asio::awaitable<grpc::Status> finish();

 protected:
  // From gRPC's threads: run `change` under the lock, then wake the waiter.
  template <typename Change>
  void notify(Change&& change) {
    {
      const std::lock_guard lock(mutex_);
      change();
    }
    wake();
  }
  // Holds the call until the wake-up ran.
  void wake();
  // Waits (on the executor) until `ready` holds, checked under the lock.
  template <typename Ready>
  boost::asio::awaitable<void> wait_until(Ready ready);

  std::mutex mutex_;
  bool done_ = false;    // guarded by mutex_
  grpc::Status status_;  // guarded by mutex_, set with done_

 private:
  grpc::ClientContext context_;
  boost::asio::steady_timer timer_;
};

// A unary call: one request, one answer.
class InProcessUnaryCall final : public InProcessCall {
 public:
  using InProcessCall::InProcessCall;
  // Starts the call of `method` (a string that outlives the call).
  void start(grpc::GenericStub& stub, const std::string& method, grpc::ByteBuffer request);
  // The answer, once finish() returned OK.
  grpc::ByteBuffer& answer() { return answer_; }

 private:
  grpc::ByteBuffer request_;
  grpc::ByteBuffer answer_;
};

// A server-streaming call, made as a generic bidi call: the one request is
// written with WritesDone, then answers are read one at a time, the next
// only when the caller asks (read_next), so the server produces no faster
// than the HTTP client reads (back-pressure).
class InProcessStreamCall final
    : public InProcessCall,
      public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  // The call keeps itself alive until gRPC's last callback (OnDone).
  static std::shared_ptr<InProcessStreamCall> start(
      const boost::asio::any_io_executor& executor, grpc::GenericStub& stub,
      const std::string& method, grpc::ByteBuffer request,
      const std::function<void(grpc::ClientContext&)>& prepare);
  explicit InProcessStreamCall(const boost::asio::any_io_executor& executor)
      : InProcessCall(executor) {}

  // The next answer, or nullopt when the stream ended (then finish()).
  boost::asio::awaitable<std::optional<grpc::ByteBuffer>> next();
  // Asks for the answer after the one next() gave.
  void read_next() { StartRead(&incoming_); }
  // No read_next() will follow: lets the call end (idempotent). The call
  // holds itself open meanwhile (gRPC's AddHold), since reads are started
  // outside its reactions: without the hold gRPC could end the call, and
  // free its stream, between two reads.
  void stop_reading();

  void OnReadDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  std::shared_ptr<InProcessStreamCall> self_;  // until OnDone
  grpc::ByteBuffer request_;
  grpc::ByteBuffer incoming_;
  bool message_ready_ = false;  // guarded by mutex_, as read_ended_ and held_
  bool read_ended_ = false;
  bool held_ = false;
};

// `bytes` as a ByteBuffer without a copy (the buffer owns them).
[[nodiscard]] grpc::ByteBuffer byte_buffer_of(std::string bytes);
// The bytes of `buffer` as one string.
[[nodiscard]] std::string string_of(const grpc::ByteBuffer& buffer);

}  // namespace pathserver::http
