#pragma once

#include <google/protobuf/arena.h>
#include <grpcpp/support/message_allocator.h>

#include <cstddef>

namespace pathserver {

// Allocates a callback RPC's request and response on one protobuf arena per
// call, so a request with thousands of nested messages (Reachable's point
// pairs) is parsed with bump allocation and freed at once. The arena starts in
// a block inside the call's holder (one allocation per call), big enough for
// a request of a few hundred nested messages; larger ones grow it. Thread-safe
// (holds no state); must outlive the server.
template <typename Request, typename Response>
class ArenaMessageAllocator final : public grpc::MessageAllocator<Request, Response> {
 public:
  grpc::MessageHolder<Request, Response>* AllocateMessages() override { return new Holder; }

 private:
  // Reachable with 100 pairs (300 messages) needs about 10 KiB.
  static constexpr std::size_t kInitialBlockBytes = 16 * 1024;

  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    Holder() : arena_(arena_options(initial_block_)) {
      this->set_request(google::protobuf::Arena::CreateMessage<Request>(&arena_));
      this->set_response(google::protobuf::Arena::CreateMessage<Response>(&arena_));
    }
    void Release() override { delete this; }

   private:
    static google::protobuf::ArenaOptions arena_options(char* block) {
      google::protobuf::ArenaOptions options;
      options.initial_block = block;
      options.initial_block_size = kInitialBlockBytes;
      return options;
    }

    alignas(std::max_align_t) char initial_block_[kInitialBlockBytes];  // before arena_
    google::protobuf::Arena arena_;
  };
};

}  // namespace pathserver
