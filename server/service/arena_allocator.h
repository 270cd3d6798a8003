#pragma once

#include <google/protobuf/arena.h>
#include <grpcpp/support/message_allocator.h>

#include <cstddef>

namespace pathserver {

// Allocates a callback RPC's request and response on one protobuf arena per
// call, so the nested messages of an answer (FindPath's and StandardMove's
// points) and of a request are bump-allocated and freed at once instead of
// one heap allocation each. The arena starts in a block inside the call's
// holder (one allocation per call) of InitialBlockBytes; bigger messages grow
// it. Thread-safe (holds no state); must outlive the server.
template <typename Request, typename Response, std::size_t InitialBlockBytes = 4096>
class ArenaMessageAllocator final : public grpc::MessageAllocator<Request, Response> {
 public:
  grpc::MessageHolder<Request, Response>* AllocateMessages() override { return new Holder; }

 private:
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
      options.initial_block_size = InitialBlockBytes;
      return options;
    }

    alignas(std::max_align_t) char initial_block_[InitialBlockBytes];  // before arena_
    google::protobuf::Arena arena_;
  };
};

}  // namespace pathserver
