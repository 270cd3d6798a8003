#pragma once

// A Pathfinder service served in process on 127.0.0.1, at a port the system
// picks, with a stub to it: the server of the service tests. Messages up to
// 64 MiB both ways (the server's default limit). Destroy it before the
// service: it shuts the server down, waiting up to 5 s for calls in flight.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "pathfinding/v1/pathfinding.grpc.pb.h"

namespace pathtest {

class LoopbackService {
 public:
  explicit LoopbackService(grpc::Service& service) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service);
    builder.SetMaxSendMessageSize(kMaxMessageBytes);
    builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
    server_ = builder.BuildAndStart();
    if (!server_ || port_ == 0) throw std::runtime_error("cannot serve on 127.0.0.1");
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(kMaxMessageBytes);
    arguments.SetMaxSendMessageSize(kMaxMessageBytes);
    stub_ = pathfinding::v1::Pathfinder::NewStub(grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials(), arguments));
  }
  ~LoopbackService() {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  }
  LoopbackService(const LoopbackService&) = delete;
  LoopbackService& operator=(const LoopbackService&) = delete;

  [[nodiscard]] pathfinding::v1::Pathfinder::Stub& stub() const { return *stub_; }
  [[nodiscard]] int port() const { return port_; }

 private:
  static constexpr int kMaxMessageBytes = 64 << 20;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<pathfinding::v1::Pathfinder::Stub> stub_;
};

}  // namespace pathtest
