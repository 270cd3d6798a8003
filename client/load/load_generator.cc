#include "load_generator.h"

#include <grpcpp/client_context.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/channel_arguments.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "pathfinding/v1/pathfinding.grpc.pb.h"

namespace pathfinder::load {

namespace pb = pathfinding::v1;
using Clock = std::chrono::steady_clock;

// ---- names -----------------------------------------------------------------

const char* rpc_name(Rpc rpc) {
  switch (rpc) {
    case Rpc::kHealth:
      return "health";
    case Rpc::kFindWarm:
      return "find-warm";
    case Rpc::kFindCold:
      return "find-cold";
    case Rpc::kReachable:
      return "reachable";
    case Rpc::kStandardMove:
      return "standard-move";
  }
  return "?";
}

std::optional<Rpc> parse_rpc(std::string_view text) {
  for (const Rpc rpc :
       {Rpc::kHealth, Rpc::kFindWarm, Rpc::kFindCold, Rpc::kReachable, Rpc::kStandardMove}) {
    if (text == rpc_name(rpc)) return rpc;
  }
  return std::nullopt;
}

const char* engine_name(Engine engine) { return engine == Engine::kCallback ? "callback" : "sync"; }

// ---- LatencyHistogram ------------------------------------------------------

namespace {
constexpr std::size_t kSubBuckets = std::size_t{1} << 6;
}  // namespace

LatencyHistogram::LatencyHistogram()
    : buckets_(kSubBuckets + static_cast<std::size_t>(kMaxBits - kSubBucketBits) * kSubBuckets) {}

std::size_t LatencyHistogram::bucket_of(std::uint64_t value) {
  if (value < kSubBuckets) return static_cast<std::size_t>(value);
  const int msb = std::bit_width(value) - 1;  // >= kSubBucketBits
  if (msb >= kMaxBits) {
    return kSubBuckets + static_cast<std::size_t>(kMaxBits - kSubBucketBits) * kSubBuckets - 1;
  }
  const int shift = msb - kSubBucketBits;
  const std::uint64_t top = value >> shift;  // in [64, 128)
  return kSubBuckets + static_cast<std::size_t>(shift) * kSubBuckets +
         static_cast<std::size_t>(top - kSubBuckets);
}

std::uint64_t LatencyHistogram::upper_edge(std::size_t bucket) {
  if (bucket < kSubBuckets) return bucket;
  const std::size_t shift = (bucket - kSubBuckets) / kSubBuckets;
  const std::uint64_t top = kSubBuckets + (bucket - kSubBuckets) % kSubBuckets;
  return ((top + 1) << shift) - 1;
}

void LatencyHistogram::record(std::uint64_t nanoseconds) {
  ++buckets_[bucket_of(nanoseconds)];
  ++count_;
  max_ = std::max(max_, nanoseconds);
  sum_ += static_cast<long double>(nanoseconds);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ / static_cast<long double>(count_));
}

std::uint64_t LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const auto target = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= target) return std::min(upper_edge(i), max_);
  }
  return max_;
}

// ---- workloads -------------------------------------------------------------

namespace {

constexpr int kWallLeft = 63;
constexpr int kWallRight = 64;
constexpr int kWallBottom = 80;  // the wall covers rows 0..79; rows 80..95 are the gap

pb::Point point(int x, int y) { return make_point(x, y); }

std::string point_text(const pb::Point& p) {
  return "(" + std::to_string(p.x()) + "," + std::to_string(p.y()) + ")";
}

}  // namespace

bool MaskShape::walkable(int x, int y) const {
  if (synthetic) return SyntheticMaze::walkable(x, y);
  if (x < 0 || y < 0 || x >= static_cast<int>(width) || y >= static_cast<int>(height)) {
    return false;
  }
  return areas.empty() ||
         areas[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)] != 0;
}

bool SyntheticMaze::walkable(int x, int y) {
  if (x < 0 || y < 0 || x >= static_cast<int>(kWidth) || y >= static_cast<int>(kHeight)) {
    return false;
  }
  return !(x >= kWallLeft && x <= kWallRight && y < kWallBottom);
}

std::string SyntheticMaze::areas() {
  std::string areas(static_cast<std::size_t>(kWidth) * kHeight, '\x01');
  for (int y = 0; y < static_cast<int>(kHeight); ++y) {
    for (int x = 0; x < static_cast<int>(kWidth); ++x) {
      if (!walkable(x, y)) areas[static_cast<std::size_t>(y) * kWidth + x] = '\0';
    }
  }
  return areas;
}

Workload build_workload(Rpc rpc, const WorkloadOptions& options) {
  if (options.pairs < 1) throw std::invalid_argument("--pairs must be at least 1");
  if (options.cold_goals < 1) throw std::invalid_argument("cold goals must be at least 1");
  const MaskShape& shape = options.shape;
  if (rpc != Rpc::kHealth && (shape.width == 0 || shape.height == 0)) {
    throw std::invalid_argument("the mask has no pixels");
  }
  const int width = static_cast<int>(shape.width);
  const int height = static_cast<int>(shape.height);

  Workload workload;
  workload.rpc = rpc;
  if (rpc == Rpc::kHealth) {
    workload.description = "grpc.health.v1.Health/Check, service \"\"";
    return workload;
  }
  if (!shape.areas.empty() &&
      std::none_of(shape.areas.begin(), shape.areas.end(), [](char id) { return id != 0; })) {
    throw std::invalid_argument("mask '" + options.mask + "' has no walkable pixel");
  }
  std::mt19937_64 random(20261123);  // fixed seed: every run sends the same requests
  // A uniformly chosen pixel of columns [0, columns): walkable where known.
  const auto random_point = [&](int columns) {
    std::uniform_int_distribution<int> xs(0, columns - 1);
    std::uniform_int_distribution<int> ys(0, height - 1);
    while (true) {
      const int x = xs(random);
      const int y = ys(random);
      if (shape.walkable(x, y)) return point(x, y);
    }
  };

  pb::Point goal =
      options.goal.value_or(shape.synthetic ? point(108, 10) : point(width * 7 / 8, height / 2));
  std::vector<pb::Point> starts = options.starts;
  if (starts.empty()) {
    if (shape.synthetic) {
      starts = {point(20, 10), point(10, 20), point(30, 6), point(16, 30)};
    } else {
      starts = {point(width / 16, height / 4), point(width / 16, height / 2),
                point(width / 16, height * 3 / 4), point(width / 8, height / 2)};
    }
  }
  for (const pb::Point& p : starts) {
    if (p.x() < 0 || p.y() < 0 || p.x() >= width || p.y() >= height) {
      throw std::invalid_argument("start " + point_text(p) + " is outside the mask");
    }
  }
  if (goal.x() < 0 || goal.y() < 0 || goal.x() >= width || goal.y() >= height) {
    throw std::invalid_argument("goal " + point_text(goal) + " is outside the mask");
  }

  switch (rpc) {
    case Rpc::kHealth:
      break;
    case Rpc::kFindWarm: {
      if (options.random_starts > 0) {
        // Distinct walkable pixels of the west half, in a fixed shuffled order.
        std::vector<pb::Point> candidates;
        for (int y = 0; y < height; ++y) {
          for (int x = 0; x < std::max(1, width / 2); ++x) {
            if (shape.walkable(x, y) && (x != goal.x() || y != goal.y())) {
              candidates.push_back(point(x, y));
            }
          }
        }
        if (candidates.empty()) {
          throw std::invalid_argument("the west half of mask '" + options.mask +
                                      "' has no walkable pixel to start from");
        }
        std::shuffle(candidates.begin(), candidates.end(), random);
        if (candidates.size() > static_cast<std::size_t>(options.random_starts)) {
          candidates.resize(static_cast<std::size_t>(options.random_starts));
        }
        for (const pb::Point& start : candidates) {
          pb::FindPathRequest request;
          request.set_mask(options.mask);
          *request.mutable_start() = start;
          *request.mutable_goal() = goal;
          request.set_smoothing(options.smoothing);
          workload.find_path.push_back(std::move(request));
        }
        workload.description = "FindPath on '" + options.mask + "' to goal " + point_text(goal) +
                               " from " + std::to_string(candidates.size()) +
                               " distinct random starts in the west half, in turn (one field, "
                               "cached after the first call; a new path each call while the "
                               "starts outnumber the server's FindPath answer cache)";
        break;
      }
      std::string start_list;
      for (const pb::Point& start : starts) {
        pb::FindPathRequest request;
        request.set_mask(options.mask);
        *request.mutable_start() = start;
        *request.mutable_goal() = goal;
        request.set_smoothing(options.smoothing);
        workload.find_path.push_back(std::move(request));
        start_list += (start_list.empty() ? "" : " ") + point_text(start);
      }
      workload.description = "FindPath on '" + options.mask + "' to goal " + point_text(goal) +
                             " from " + std::to_string(starts.size()) + " starts " + start_list +
                             " (one field, cached after the first call)";
      break;
    }
    case Rpc::kFindCold: {
      std::vector<pb::Point> goals;
      if (shape.synthetic) {
        // East of x 80 the beeline from the west half always hits the wall.
        for (int y = 0; y < height; ++y) {
          for (int x = 80; x < width; ++x) goals.push_back(point(x, y));
        }
        std::shuffle(goals.begin(), goals.end(), random);
        if (goals.size() > static_cast<std::size_t>(options.cold_goals)) {
          goals.resize(static_cast<std::size_t>(options.cold_goals));
        }
      } else {
        // Distinct pixels spread over the mask: k * stride mod pixels, with the
        // stride coprime to the pixel count.
        const std::uint64_t pixels = static_cast<std::uint64_t>(width) * height;
        std::uint64_t stride = 7919;
        while (std::gcd(stride, pixels) != 1) stride += 2;
        const std::uint64_t count = std::min<std::uint64_t>(pixels, options.cold_goals);
        for (std::uint64_t k = 0; k < count; ++k) {
          const std::uint64_t index = (k * stride) % pixels;
          goals.push_back(point(static_cast<int>(index % width), static_cast<int>(index / width)));
        }
      }
      for (const pb::Point& cold_goal : goals) {
        pb::FindPathRequest request;
        request.set_mask(options.mask);
        *request.mutable_start() = starts.front();
        *request.mutable_goal() = cold_goal;
        request.set_smoothing(options.smoothing);
        workload.find_path.push_back(std::move(request));
      }
      workload.description =
          "FindPath on '" + options.mask + "' from " + point_text(starts.front()) + " to " +
          std::to_string(goals.size()) +
          " distinct goals in turn (cold unless the server's --cache-mb holds them)";
      break;
    }
    case Rpc::kReachable: {
      constexpr int kRequests = 16;
      for (int r = 0; r < kRequests; ++r) {
        pb::ReachableRequest request;
        request.set_mask(options.mask);
        for (int i = 0; i < options.pairs; ++i) {
          auto* pair = request.add_pairs();
          *pair->mutable_a() = random_point(width);
          *pair->mutable_b() = random_point(width);
        }
        workload.reachable.push_back(std::move(request));
      }
      workload.description = "Reachable on '" + options.mask + "', " +
                             std::to_string(options.pairs) + " pairs per call (" +
                             std::to_string(kRequests) + " different requests in turn)";
      break;
    }
    case Rpc::kStandardMove: {
      constexpr int kRequests = 256;
      constexpr int kReach = 12;
      std::uniform_int_distribution<int> offsets(-kReach, kReach);
      while (workload.standard_move.size() < static_cast<std::size_t>(kRequests)) {
        const pb::Point start = random_point(width);
        const int gx = std::clamp(start.x() + offsets(random), 0, width - 1);
        const int gy = std::clamp(start.y() + offsets(random), 0, height - 1);
        if (!shape.walkable(gx, gy)) continue;
        pb::StandardMoveRequest request;
        request.set_mask(options.mask);
        *request.mutable_start() = start;
        *request.mutable_goal() = point(gx, gy);
        workload.standard_move.push_back(std::move(request));
      }
      workload.description = "StandardMove on '" + options.mask + "', " +
                             std::to_string(kRequests) +
                             " start/goal pairs at most 12 tiles apart, in turn";
      break;
    }
  }
  return workload;
}

// ---- the run ---------------------------------------------------------------

namespace {

// CPU time (user + system) of this process, in seconds.
double self_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// CPU time of process pid from /proc/PID/stat, in seconds; -1 when unreadable.
double process_cpu_seconds(int pid) {
  if (pid <= 0) return -1;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');  // the command name may hold spaces
  if (paren == std::string::npos || paren + 2 > text.size()) return -1;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  double utime = -1;
  double stime = -1;
  // Fields after the name start at field 3 (state); utime is 14, stime 15.
  for (int number = 3; number <= 15 && (fields >> field); ++number) {
    if (number == 14) utime = std::stod(field);
    if (number == 15) stime = std::stod(field);
  }
  if (utime < 0 || stime < 0) return -1;
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

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

std::string number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace

RunReport run_load(const Workload& workload, const RunOptions& options) {
  if ((workload.rpc == Rpc::kFindWarm || workload.rpc == Rpc::kFindCold) &&
      workload.find_path.empty()) {
    throw std::invalid_argument("the workload has no FindPath requests");
  }
  if (workload.rpc == Rpc::kReachable && workload.reachable.empty()) {
    throw std::invalid_argument("the workload has no Reachable requests");
  }
  if (workload.rpc == Rpc::kStandardMove && workload.standard_move.empty()) {
    throw std::invalid_argument("the workload has no StandardMove requests");
  }
  LoadRun run(workload, options);
  return run.run();
}

double RunReport::client_cpu_us_per_request() const {
  return requests == 0 ? -1.0 : client_cpu_seconds * 1e6 / static_cast<double>(requests);
}

double RunReport::server_cpu_us_per_request() const {
  return requests == 0 || server_cpu_seconds < 0
             ? -1.0
             : server_cpu_seconds * 1e6 / static_cast<double>(requests);
}

double cpu_ratio(const RunReport& baseline, const RunReport& target) {
  if (baseline.server_cpu_us_per_request() < 0 || target.server_cpu_us_per_request() < 0) {
    return -1;
  }
  const double base = baseline.client_cpu_us_per_request() + baseline.server_cpu_us_per_request();
  const double cost = target.client_cpu_us_per_request() + target.server_cpu_us_per_request();
  return cost > 0 ? base / cost : -1;
}

std::string format_report(const RunReport& report) {
  std::string text = report.rpc + ": " + std::to_string(report.requests) + " requests in " +
                     number(report.elapsed_seconds, 3) + " s, " +
                     number(report.requests_per_second, 1) + " requests/s (engine " +
                     report.engine + ", concurrency " + std::to_string(report.concurrency) +
                     ", channels " + std::to_string(report.channels);
  if (report.rate > 0) text += ", rate " + number(report.rate, 1) + "/s";
  text += ")\n";
  text += "  ok " + std::to_string(report.ok) + ", errors " + std::to_string(report.errors());
  for (std::size_t code = 1; code < report.by_code.size(); ++code) {
    if (report.by_code[code] != 0) {
      text += ", " + status_code_name(static_cast<grpc::StatusCode>(code)) + " " +
              std::to_string(report.by_code[code]);
    }
  }
  text += "\n  latency us: p50 " + std::to_string(report.p50_us) + "  p90 " +
          std::to_string(report.p90_us) + "  p99 " + std::to_string(report.p99_us) + "  max " +
          std::to_string(report.max_us) + "  mean " + number(report.mean_us, 1);
  if (report.rpc == "find-warm" || report.rpc == "find-cold" || report.rpc == "standard-move") {
    text += "\n  answers: cache_hit " + std::to_string(report.cache_hits) + ", found=false " +
            std::to_string(report.not_found) + " (of " + std::to_string(report.ok) + " ok)";
  }
  const double elapsed = report.elapsed_seconds > 0 ? report.elapsed_seconds : 1;
  text += "\n  cpu: generator " + number(report.client_cpu_seconds, 2) + " s (" +
          number(report.client_cpu_seconds / elapsed, 2) + " cores, " +
          number(report.client_cpu_us_per_request(), 1) + " us/call)";
  if (report.server_cpu_seconds >= 0) {
    text += ", server " + number(report.server_cpu_seconds, 2) + " s (" +
            number(report.server_cpu_seconds / elapsed, 2) + " cores, " +
            number(report.server_cpu_us_per_request(), 1) + " us/call)";
  }
  if (!report.connected) text += "\n  warning: not every channel connected before the run";
  return text;
}

std::string report_json(const RunReport& report) {
  std::string json =
      "{\"rpc\":\"" + report.rpc + "\",\"engine\":\"" + report.engine +
      "\",\"concurrency\":" + std::to_string(report.concurrency) +
      ",\"channels\":" + std::to_string(report.channels) + ",\"rate\":" + number(report.rate, 3) +
      ",\"elapsed_s\":" + number(report.elapsed_seconds, 6) +
      ",\"requests\":" + std::to_string(report.requests) + ",\"ok\":" + std::to_string(report.ok) +
      ",\"errors\":" + std::to_string(report.errors()) + ",\"errors_by_code\":{";
  bool first = true;
  for (std::size_t code = 1; code < report.by_code.size(); ++code) {
    if (report.by_code[code] == 0) continue;
    json += std::string(first ? "" : ",") + "\"" +
            status_code_name(static_cast<grpc::StatusCode>(code)) +
            "\":" + std::to_string(report.by_code[code]);
    first = false;
  }
  json += "},\"requests_per_second\":" + number(report.requests_per_second, 3) +
          ",\"latency_us\":{\"p50\":" + std::to_string(report.p50_us) +
          ",\"p90\":" + std::to_string(report.p90_us) +
          ",\"p99\":" + std::to_string(report.p99_us) +
          ",\"max\":" + std::to_string(report.max_us) + ",\"mean\":" + number(report.mean_us, 3) +
          "}" + ",\"cache_hits\":" + std::to_string(report.cache_hits) +
          ",\"not_found\":" + std::to_string(report.not_found) +
          ",\"client_cpu_s\":" + number(report.client_cpu_seconds, 3) + ",\"server_cpu_s\":" +
          (report.server_cpu_seconds >= 0 ? number(report.server_cpu_seconds, 3) : "null") +
          ",\"client_cpu_us_per_request\":" +
          (report.requests > 0 ? number(report.client_cpu_us_per_request(), 3) : "null") +
          ",\"server_cpu_us_per_request\":" +
          (report.server_cpu_us_per_request() >= 0 ? number(report.server_cpu_us_per_request(), 3)
                                                   : "null") +
          ",\"connected\":" + (report.connected ? "true" : "false") + "}";
  return json;
}

}  // namespace pathfinder::load
