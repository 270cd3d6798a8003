#include "load_generator.h"

#include <grpcpp/client_context.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "measurement.h"
#include "pathfinding/v1/pathfinding.grpc.pb.h"

namespace pathfinder::load {

namespace pb = pathfinding::v1;
using Clock = std::chrono::steady_clock;

const char* engine_name(Engine engine) { return engine == Engine::kCallback ? "callback" : "sync"; }

// ---- the run ---------------------------------------------------------------

namespace {

struct ChannelState {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::Pathfinder::Stub> stub;  // kSync
  std::unique_ptr<Client> client;              // kSync's health check
  std::unique_ptr<grpc::GenericStub> generic;  // kCallback: requests serialized up front
};

// The full method name of an RPC, as the generic stub calls it.
std::string method_name(Rpc rpc) {
  switch (rpc) {
    case Rpc::kHealth:
      return "/grpc.health.v1.Health/Check";
    case Rpc::kFindWarm:
    case Rpc::kFindCold:
      return "/pathfinding.v1.Pathfinder/FindPath";
    case Rpc::kReachable:
      return "/pathfinding.v1.Pathfinder/Reachable";
    case Rpc::kStandardMove:
      return "/pathfinding.v1.Pathfinder/StandardMove";
    case Rpc::kBatch:
      return "/pathfinding.v1.Pathfinder/BatchFindPaths";
  }
  return {};
}

template <class Message>
grpc::ByteBuffer serialized(const Message& message) {
  grpc::ByteBuffer buffer;
  bool own_buffer = false;
  if (!grpc::SerializationTraits<Message>::Serialize(message, &buffer, &own_buffer).ok()) {
    throw std::runtime_error("could not serialize a request");
  }
  return buffer;
}

// The workload's requests as bytes, in order: the callback engine sends them
// as they are, so a call costs the generator no serialization (the requests
// never change) and the ratios measure the server more than the generator.
// The health check request (service "") is the empty message.
std::vector<grpc::ByteBuffer> serialized_requests(const Workload& workload) {
  std::vector<grpc::ByteBuffer> out;
  switch (workload.rpc) {
    case Rpc::kHealth: {
      grpc::Slice nothing;  // a default ByteBuffer holds no buffer at all: not sendable
      out.emplace_back(&nothing, 1);
      break;
    }
    case Rpc::kFindWarm:
    case Rpc::kFindCold:
      for (const auto& request : workload.find_path) out.push_back(serialized(request));
      break;
    case Rpc::kReachable:
      for (const auto& request : workload.reachable) out.push_back(serialized(request));
      break;
    case Rpc::kStandardMove:
      for (const auto& request : workload.standard_move) out.push_back(serialized(request));
      break;
    case Rpc::kBatch:
      for (const auto& request : workload.batch) out.push_back(serialized(request));
      break;
  }
  return out;
}

// When a call should start, and whether it is measured (not warm-up).
struct Ticket {
  Clock::time_point intended;
  bool measured = false;
};

// One outstanding call at a time. Only the thread running its call touches
// it, so its counters need no lock.
struct Slot {
  ChannelState* channel = nullptr;
  std::unique_ptr<grpc::ClientContext> context;
  grpc::ByteBuffer request;   // kCallback: a copy of the serialized request (shares its bytes)
  grpc::ByteBuffer response;  // kCallback: parsed only where the report reads answers
  pb::FindPathResponse find_response;
  pb::ReachableResponse reachable_response;
  pb::StandardMoveResponse standard_move_response;
  pb::BatchFindPathsResponse batch_response;  // kSync only: counted by status
  Ticket ticket;

  LatencyHistogram histogram;
  std::array<std::uint64_t, 17> by_code{};
  std::uint64_t cache_hits = 0;
  std::uint64_t not_found = 0;
  Clock::time_point last_end{};
};

class LoadRun {
 public:
  LoadRun(const Workload& workload, const RunOptions& options)
      : workload_(workload),
        options_(options),
        method_(method_name(workload.rpc)),
        requests_(serialized_requests(workload)) {
    if (options.concurrency < 1) throw std::invalid_argument("concurrency must be at least 1");
    if (options.channels < 1) throw std::invalid_argument("channels must be at least 1");
    ClientOptions client_options = options.tls;
    client_options.deadline = options.deadline;
    client_options.bearer_token.clear();
    client_options.retry = options.retry;
    for (int i = 0; i < options.channels; ++i) {
      grpc::ChannelArguments arguments;
      // A channel of its own for each: without this, channels with equal
      // arguments share one connection (the global subchannel pool).
      arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      auto state = std::make_unique<ChannelState>();
      state->channel = make_channel(options.server, client_options, arguments);
      state->stub = pb::Pathfinder::NewStub(state->channel);
      state->client = std::make_unique<Client>(state->channel, client_options);
      state->generic = std::make_unique<grpc::GenericStub>(state->channel);
      channels_.push_back(std::move(state));
    }
    slots_.resize(static_cast<std::size_t>(options.concurrency));
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      slots_[i].channel = channels_[i % channels_.size()].get();
    }
  }

  RunReport run() {
    RunReport report;
    report.rpc = rpc_name(workload_.rpc);
    report.engine = engine_name(options_.engine);
    report.concurrency = options_.concurrency;
    report.channels = options_.channels;
    report.rate = options_.rate;

    // Connect every channel first so the measurement holds no handshakes.
    const auto connect_deadline = std::chrono::system_clock::now() + std::chrono::seconds(2);
    for (auto& channel : channels_) {
      report.connected = channel->channel->WaitForConnected(connect_deadline) && report.connected;
    }

    start_ = Clock::now();
    measure_start_ = start_ + std::chrono::duration_cast<Clock::duration>(options_.warmup);
    end_ = options_.duration.count() > 0
               ? measure_start_ + std::chrono::duration_cast<Clock::duration>(options_.duration)
               : Clock::time_point::max();

    std::thread sampler;  // takes the CPU snapshot at the end of the warm-up
    double client_cpu_start = self_cpu_seconds();
    double server_cpu_start = process_cpu_seconds(options_.server_pid);
    if (options_.warmup.count() > 0) {
      sampler = std::thread([&] {
        std::this_thread::sleep_until(measure_start_);
        client_cpu_start = self_cpu_seconds();
        server_cpu_start = process_cpu_seconds(options_.server_pid);
      });
    }

    if (options_.engine == Engine::kSync) {
      run_sync();
    } else if (options_.rate > 0) {
      run_callback_open_loop();
    } else {
      run_callback_closed_loop();
    }
    const Clock::time_point finished = Clock::now();
    if (sampler.joinable()) sampler.join();
    const double client_cpu_end = self_cpu_seconds();
    const double server_cpu_end = process_cpu_seconds(options_.server_pid);

    LatencyHistogram histogram;
    Clock::time_point last_end = measure_start_;
    for (const Slot& slot : slots_) {
      histogram.merge(slot.histogram);
      for (std::size_t code = 0; code < slot.by_code.size(); ++code) {
        report.by_code[code] += slot.by_code[code];
      }
      report.cache_hits += slot.cache_hits;
      report.not_found += slot.not_found;
      last_end = std::max(last_end, slot.last_end);
    }
    if (histogram.count() == 0) last_end = std::max(finished, measure_start_);
    report.requests = histogram.count();
    report.ok = report.by_code[0];
    report.elapsed_seconds = std::chrono::duration<double>(last_end - measure_start_).count();
    report.requests_per_second = report.elapsed_seconds > 0
                                     ? static_cast<double>(report.requests) / report.elapsed_seconds
                                     : 0.0;
    const auto to_us = [](std::uint64_t ns) { return (ns + 500) / 1000; };
    report.p50_us = to_us(histogram.quantile(0.50));
    report.p90_us = to_us(histogram.quantile(0.90));
    report.p99_us = to_us(histogram.quantile(0.99));
    report.max_us = to_us(histogram.max());
    report.mean_us = histogram.mean() / 1000.0;
    report.client_cpu_seconds = client_cpu_end - client_cpu_start;
    if (server_cpu_start >= 0 && server_cpu_end >= 0) {
      report.server_cpu_seconds = server_cpu_end - server_cpu_start;
    }
    return report;
  }

 private:
  // The next call's ticket, or nothing when the run is over. Closed loop:
  // now. Open loop: the next slot of the fixed schedule.
  std::optional<Ticket> next_ticket() {
    Ticket ticket;
    if (options_.rate > 0) {
      const std::uint64_t k = scheduled_.fetch_add(1, std::memory_order_relaxed);
      ticket.intended =
          start_ + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(static_cast<double>(k) / options_.rate));
    } else {
      ticket.intended = Clock::now();
    }
    if (ticket.intended >= end_ || stopped_.load(std::memory_order_relaxed)) return std::nullopt;
    ticket.measured = ticket.intended >= measure_start_;
    if (ticket.measured && options_.max_requests > 0 &&
        measured_started_.fetch_add(1, std::memory_order_relaxed) >= options_.max_requests) {
      stopped_.store(true, std::memory_order_relaxed);
      return std::nullopt;
    }
    return ticket;
  }

  void prepare(Slot& slot, const Ticket& ticket) {
    slot.ticket = ticket;
    slot.context = std::make_unique<grpc::ClientContext>();
    slot.context->set_deadline(std::chrono::system_clock::now() + options_.deadline);
    add_bearer_token(*slot.context, options_.bearer_token);
    if (options_.mask_header) add_mask_header(*slot.context, workload_.mask);
  }

  // The request call number i sends, from its RPC's list.
  template <class Request>
  static const Request& pick(const std::vector<Request>& requests, std::uint64_t i) {
    return requests[i % requests.size()];
  }

  void record(Slot& slot, const grpc::Status& status) {
    const Clock::time_point now = Clock::now();
    if (!slot.ticket.measured) return;
    slot.histogram.record(static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - slot.ticket.intended).count()));
    const auto code = static_cast<std::size_t>(status.error_code());
    ++slot.by_code[code < slot.by_code.size() ? code : 2];  // 2 = UNKNOWN
    slot.last_end = now;
    if (!status.ok()) return;
    if (options_.engine == Engine::kCallback) parse_response(slot);
    switch (workload_.rpc) {
      case Rpc::kFindWarm:
      case Rpc::kFindCold:
        slot.cache_hits += slot.find_response.cache_hit() ? 1 : 0;
        slot.not_found += slot.find_response.found() ? 0 : 1;
        break;
      case Rpc::kStandardMove:
        slot.cache_hits += slot.standard_move_response.cache_hit() ? 1 : 0;
        slot.not_found += slot.standard_move_response.found() ? 0 : 1;
        break;
      default:
        break;
    }
  }

  // The answers the report counts (FindPath, StandardMove), from the slot's
  // response bytes; the other RPCs are counted by status alone.
  void parse_response(Slot& slot) {
    switch (workload_.rpc) {
      case Rpc::kFindWarm:
      case Rpc::kFindCold:
        (void)grpc::SerializationTraits<pb::FindPathResponse>::Deserialize(&slot.response,
                                                                           &slot.find_response);
        break;
      case Rpc::kStandardMove:
        (void)grpc::SerializationTraits<pb::StandardMoveResponse>::Deserialize(
            &slot.response, &slot.standard_move_response);
        break;
      default:
        break;
    }
  }

  // Starts slot's call; done(slot, status) runs on a gRPC thread when it ends.
  template <class Done>
  void start_async(Slot& slot, const Ticket& ticket, Done done) {
    prepare(slot, ticket);
    const std::uint64_t i = next_request_.fetch_add(1, std::memory_order_relaxed);
    slot.request = requests_[i % requests_.size()];
    slot.channel->generic->UnaryCall(slot.context.get(), method_, grpc::StubOptions(),
                                     &slot.request, &slot.response,
                                     [&slot, done](grpc::Status status) { done(slot, status); });
  }

  grpc::Status call_sync(Slot& slot, const Ticket& ticket) {
    prepare(slot, ticket);
    const std::uint64_t i = next_request_.fetch_add(1, std::memory_order_relaxed);
    grpc::ClientContext* context = slot.context.get();
    auto* stub = slot.channel->stub.get();
    switch (workload_.rpc) {
      case Rpc::kHealth: {
        std::mutex mutex;
        std::condition_variable done_cv;
        std::optional<grpc::Status> status;
        slot.channel->client->health_check_async(context, "", [&](Result<ServingStatus> result) {
          std::lock_guard lock(mutex);
          status = std::move(result.status);
          done_cv.notify_one();
        });
        std::unique_lock lock(mutex);
        done_cv.wait(lock, [&] { return status.has_value(); });
        return *status;
      }
      case Rpc::kFindWarm:
      case Rpc::kFindCold:
        return stub->FindPath(context, pick(workload_.find_path, i), &slot.find_response);
      case Rpc::kReachable:
        return stub->Reachable(context, pick(workload_.reachable, i), &slot.reachable_response);
      case Rpc::kStandardMove:
        return stub->StandardMove(context, pick(workload_.standard_move, i),
                                  &slot.standard_move_response);
      case Rpc::kBatch:
        return stub->BatchFindPaths(context, pick(workload_.batch, i), &slot.batch_response);
    }
    return {grpc::StatusCode::INTERNAL, "unknown rpc"};
  }

  // kCallback without --rate: every slot starts its next call from the
  // completion of the previous one.
  void run_callback_closed_loop() {
    running_slots_ = static_cast<int>(slots_.size());
    for (Slot& slot : slots_) continue_or_stop(slot);
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return running_slots_ == 0; });
  }

  void continue_or_stop(Slot& slot) {
    if (const auto ticket = next_ticket()) {
      start_async(slot, *ticket, [this](Slot& s, const grpc::Status& status) {
        record(s, status);
        continue_or_stop(s);
      });
      return;
    }
    std::lock_guard lock(mutex_);
    if (--running_slots_ == 0) done_cv_.notify_all();
  }

  // kCallback with --rate: this thread starts calls on schedule on free slots
  // (waiting for one when all are busy; the wait counts as latency).
  void run_callback_open_loop() {
    std::vector<Slot*> free_slots;
    for (Slot& slot : slots_) free_slots.push_back(&slot);
    while (const auto ticket = next_ticket()) {
      std::this_thread::sleep_until(ticket->intended);
      Slot* slot = nullptr;
      {
        std::unique_lock lock(mutex_);
        done_cv_.wait(lock, [&] { return !free_slots.empty(); });
        slot = free_slots.back();
        free_slots.pop_back();
      }
      start_async(*slot, *ticket, [this, &free_slots](Slot& s, const grpc::Status& status) {
        record(s, status);
        std::lock_guard lock(mutex_);
        free_slots.push_back(&s);
        done_cv_.notify_all();
      });
    }
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return free_slots.size() == slots_.size(); });
  }

  // kSync: one thread per slot, each making blocking calls.
  void run_sync() {
    std::vector<std::thread> threads;
    threads.reserve(slots_.size());
    for (Slot& slot : slots_) {
      threads.emplace_back([this, &slot] {
        while (const auto ticket = next_ticket()) {
          if (options_.rate > 0) std::this_thread::sleep_until(ticket->intended);
          const grpc::Status status = call_sync(slot, *ticket);
          record(slot, status);
        }
      });
    }
    for (auto& thread : threads) thread.join();
  }

  const Workload& workload_;
  const RunOptions& options_;
  const std::string method_;
  const std::vector<grpc::ByteBuffer> requests_;  // serialized workload (kCallback)
  std::vector<std::unique_ptr<ChannelState>> channels_;
  std::vector<Slot> slots_;

  Clock::time_point start_;
  Clock::time_point measure_start_;
  Clock::time_point end_;
  std::atomic<std::uint64_t> scheduled_{0};
  std::atomic<std::uint64_t> measured_started_{0};
  std::atomic<std::uint64_t> next_request_{0};
  std::atomic<bool> stopped_{false};

  std::mutex mutex_;
  std::condition_variable done_cv_;
  int running_slots_ = 0;
};

}  // namespace

RunReport run_load(const Workload& workload, const RunOptions& options) {
  if ((workload.rpc == Rpc::kFindWarm || workload.rpc == Rpc::kFindCold) &&
      workload.find_path.empty()) {
    throw std::invalid_argument("the workload has no FindPath requests");
  }
  if (workload.rpc == Rpc::kReachable && workload.reachable.empty()) {
    throw std::invalid_argument("the workload has no Reachable requests");
  }
  if (workload.rpc == Rpc::kBatch && workload.batch.empty()) {
    throw std::invalid_argument("the workload has no BatchFindPaths requests");
  }
  if (workload.rpc == Rpc::kStandardMove && workload.standard_move.empty()) {
    throw std::invalid_argument("the workload has no StandardMove requests");
  }
  LoadRun run(workload, options);
  return run.run();
}

}  // namespace pathfinder::load
