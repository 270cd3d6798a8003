#include "http/inprocess_call.h"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

namespace pathserver::http {

namespace asio = boost::asio;

InProcessCall::InProcessCall(const asio::any_io_executor& executor) : timer_(executor) {
  timer_.expires_at(asio::steady_timer::time_point::max());
}

void InProcessCall::wake() {
  // The timer is only touched on its executor; the waiter checks its
  // condition before waiting, on that same (single) thread.
  asio::post(timer_.get_executor(), [self = shared_from_this()] { self->timer_.cancel(); });
}

template <typename Ready>
asio::awaitable<void> InProcessCall::wait_until(Ready ready) {
  for (;;) {
    {
      const std::lock_guard lock(mutex_);
      if (ready()) co_return;
    }
    timer_.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ignored;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
}

asio::awaitable<grpc::Status> InProcessCall::finish() {
  const auto ended = [this] { return done_; };
  co_await wait_until(ended);
  const std::lock_guard lock(mutex_);
  co_return status_;
}

void InProcessUnaryCall::start(grpc::GenericStub& stub, const std::string& method,
                               grpc::ByteBuffer request) {
  request_ = std::move(request);
  // The callback holds the call until it has woken the waiter.
  auto self = std::static_pointer_cast<InProcessUnaryCall>(shared_from_this());
  stub.UnaryCall(&context(), method, grpc::StubOptions(), &request_, &answer_,
                 [self](grpc::Status status) {
                   self->notify([&] {
                     self->done_ = true;
                     self->status_ = std::move(status);
                   });
                 });
}

std::shared_ptr<InProcessStreamCall> InProcessStreamCall::start(
    const asio::any_io_executor& executor, grpc::GenericStub& stub, const std::string& method,
    grpc::ByteBuffer request, const std::function<void(grpc::ClientContext&)>& prepare) {
  auto call = std::make_shared<InProcessStreamCall>(executor);
  prepare(call->context());
  call->self_ = call;
  call->request_ = std::move(request);
  stub.PrepareBidiStreamingCall(&call->context(), method, grpc::StubOptions(), call.get());
  call->held_ = true;
  call->AddHold();
  call->StartWriteLast(&call->request_, grpc::WriteOptions());
  call->StartRead(&call->incoming_);
  call->StartCall();
  return call;
}

asio::awaitable<std::optional<grpc::ByteBuffer>> InProcessStreamCall::next() {
  const auto ready = [this] { return message_ready_ || read_ended_ || done_; };
  co_await wait_until(ready);
  const std::lock_guard lock(mutex_);
  if (!message_ready_) co_return std::nullopt;
  message_ready_ = false;
  grpc::ByteBuffer message;
  message.Swap(&incoming_);
  co_return message;
}

void InProcessStreamCall::OnReadDone(bool ok) {
  notify([&] {
    if (ok) {
      message_ready_ = true;
    } else {
      read_ended_ = true;
    }
  });
  if (!ok) stop_reading();
}

void InProcessStreamCall::stop_reading() {
  {
    const std::lock_guard lock(mutex_);
    if (!held_) return;
    held_ = false;
  }
  RemoveHold();  // outside the lock: OnDone may run right here
}

void InProcessStreamCall::OnDone(const grpc::Status& status) {
  // The last callback: the self-reference goes once the wake-up (which
  // holds the call too) is posted.
  const std::shared_ptr<InProcessStreamCall> self = std::move(self_);
  notify([&] {
    done_ = true;
    status_ = status;
  });
}

grpc::ByteBuffer byte_buffer_of(std::string bytes) {
  auto* owned = new std::string(std::move(bytes));
  grpc::Slice slice(
      owned->data(), owned->size(), [](void* p) { delete static_cast<std::string*>(p); }, owned);
  return grpc::ByteBuffer(&slice, 1);
}

std::string string_of(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  out.reserve(buffer.Length());
  for (const grpc::Slice& slice : slices) {
    out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return out;
}

}  // namespace pathserver::http
