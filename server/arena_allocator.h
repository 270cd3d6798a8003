#pragma once

#include <google/protobuf/arena.h>
#include <grpcpp/support/message_allocator.h>

namespace pathserver {

// Allocates a callback RPC's request and response on one protobuf arena per
// call, so a request with thousands of nested messages (Reachable's point
// pairs) is parsed with bump allocation and freed at once. Thread-safe (holds
// no state); must outlive the server.
template <typename Request, typename Response>
class ArenaMessageAllocator final : public grpc::MessageAllocator<Request, Response> {
 public:
  grpc::MessageHolder<Request, Response>* AllocateMessages() override { return new Holder; }

 private:
  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    Holder() {
      this->set_request(google::protobuf::Arena::CreateMessage<Request>(&arena_));
      this->set_response(google::protobuf::Arena::CreateMessage<Response>(&arena_));
    }
    void Release() override { delete this; }

   private:
    google::protobuf::Arena arena_;
  };
};

}  // namespace pathserver
