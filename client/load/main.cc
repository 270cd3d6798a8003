// pathfinder-load: a load generator for the pathfinder service.
//
//   pathfinder-load [--server HOST:PORT] [--rpc RPC] [--compare-health] [--concurrency N]
//                   [--requests N] [--duration S] [--rate R] [--channels K] [--json] ...
//
// Exit codes: 0 every measured call succeeded; 1 some calls failed (their
// status codes are reported) or the setup (upload, mask lookup) failed;
// 2 a usage error.

#include <absl/synchronization/mutex.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "client_environment.h"
#include "load_generator.h"
#include "number_flags.h"
#include "pathfinder/client.h"
#include "server_address.h"

namespace {

namespace pb = pathfinding::v1;
namespace load = pathfinder::load;
namespace flags = pathfinder::flags;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// Where it connects without --server and PATHFINDER_SERVER: `make run`'s server.
constexpr const char* kDefaultServer = "127.0.0.1:50051";
// The longest --duration, --warmup and --timeout: a day.
constexpr double kMaxSeconds = 24.0 * 3600;

// The mask uploaded when --mask is not given.
constexpr const char* kSyntheticMaskName = "pathfinder-load-maze";

struct Args {
  std::string server = kDefaultServer;
  std::string rpc = "find-warm";
  bool compare_health = false;
  std::string mask;
  std::string upload;
  std::vector<std::string> goals;
  std::vector<std::string> starts;
  int random_starts = 0;
  int batch_starts = 1000;
  std::string smoothing = "default";
  int pairs = 100;
  int concurrency = 32;
  int channels = 4;
  std::uint64_t requests = 0;
  double duration = 10;
  double warmup = 0;
  double rate = 0;
  std::string engine = "callback";
  double timeout = 10;
  int server_pid = 0;
  bool json = false;
  bool no_retry = false;
  bool no_mask_header = false;
  std::string token_file;
  std::string token;  // read from token_file
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  pathfinder::ClientOptions tls;  // TLS fields, read from the tls_* files
};

// A setup step failed (upload, mask lookup): exit 1 with the message.
class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "CODE: message", and "is the server running at HOST:PORT?" when it could not connect.
std::string rpc_error(const grpc::Status& status, const std::string& server) {
  std::string text = pathfinder::status_code_name(status.error_code());
  if (!status.error_message().empty()) text += ": " + status.error_message();
  return text + flags::connection_hint(status, server);
}

// "X,Y" -> Point.
pb::Point parse_point(const std::string& text, const std::string& what) {
  const auto comma = text.find(',');
  try {
    std::size_t used_x = 0;
    std::size_t used_y = 0;
    if (comma == std::string::npos) throw std::invalid_argument("no comma");
    const int x = std::stoi(text.substr(0, comma), &used_x);
    const int y = std::stoi(text.substr(comma + 1), &used_y);
    if (used_x != comma || used_y != text.size() - comma - 1) throw std::invalid_argument("junk");
    return pathfinder::make_point(x, y);
  } catch (const std::exception&) {
    throw CLI::ValidationError(what, "expected X,Y, got '" + text + "'");
  }
}

// Makes sure the mask exists (uploading it when asked) and returns its shape
// and name.
std::pair<std::string, load::MaskShape> prepare_mask(const Args& args) {
  pathfinder::ClientOptions options = args.tls;
  options.deadline = std::chrono::seconds(30);
  options.bearer_token = args.token;
  options.retry.enabled = !args.no_retry;
  pathfinder::Client client(args.server, options);
  load::MaskShape shape;
  std::string name = args.mask;
  if (name.empty()) {
    name = kSyntheticMaskName;
    pb::UploadMaskRequest request;
    request.set_name(name);
    request.set_image(load::SyntheticMaze::areas());
    request.set_format(pb::MASK_FORMAT_RAW);
    request.set_width(load::SyntheticMaze::kWidth);
    request.set_height(load::SyntheticMaze::kHeight);
    const auto uploaded = client.upload_mask(request);
    if (!uploaded.ok()) {
      throw SetupError("uploading the built-in maze as '" + name +
                       "' failed: " + rpc_error(uploaded.status, args.server));
    }
    shape.synthetic = true;
  } else if (!args.upload.empty()) {
    const auto uploaded = client.upload_mask_file(name, args.upload);  // throws FileError
    if (!uploaded.ok()) {
      throw SetupError("uploading '" + args.upload + "' as '" + name +
                       "' failed: " + rpc_error(uploaded.status, args.server));
    }
  }
  // Random points need walkability; the built-in maze knows its own.
  const bool want_areas = !shape.synthetic && args.random_starts > 0;
  const auto info = client.get_mask(name, want_areas);
  if (!info.ok()) {
    if (info.status.error_code() == grpc::StatusCode::NOT_FOUND) {
      throw SetupError("mask '" + name +
                       "' not found: upload it (--upload FILE), or omit --mask to use the "
                       "built-in maze");
    }
    throw SetupError("looking up mask '" + name + "' failed: " + rpc_error(info.status, args.server));
  }
  shape.width = info.value.width();
  shape.height = info.value.height();
  if (want_areas) shape.areas = info.value.areas();
  return {name, shape};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "pathfinder-load: a load generator for the pathfinder gRPC service.\n"
      "Keeps --concurrency calls of one RPC outstanding (or starts them at --rate per second)\n"
      "for --duration seconds or --requests calls, whichever ends first, and prints\n"
      "requests/s, latency percentiles and errors by status code.\n"
      "Masks: without --mask the built-in 128x96 maze is uploaded as mask\n"
      "'pathfinder-load-maze' (replacing it); --mask NAME uses a stored mask, and with\n"
      "--upload FILE stores FILE as NAME first.\n"
      "The server is --server, else env PATHFINDER_SERVER, else 127.0.0.1:50051; the token\n"
      "--token-file, else env PATHFINDER_TOKEN (as for pathfind).\n"
      "Exit codes: 0 all calls ok, 1 some calls failed or the setup failed, 2 usage error.",
      "pathfinder-load"};

  Args args;
  app.add_option("--server", args.server,
                 "Server address (default: env PATHFINDER_SERVER when set, else " +
                     std::string(kDefaultServer) + ")")
      ->type_name("HOST:PORT")
      ->envname(flags::kServerVariable);
  app.add_option("--token-file", args.token_file,
                 "Send the token in FILE as 'authorization: Bearer <token>' on every call "
                 "(default: env PATHFINDER_TOKEN when set)")
      ->type_name("FILE");
  app.add_option("--tls-ca", args.tls_ca, "Connect with TLS, trusting the PEM CAs in FILE")
      ->type_name("FILE");
  app.add_option("--tls-cert", args.tls_cert,
                 "Connect with TLS, presenting the PEM client certificate in FILE (mutual TLS; "
                 "needs --tls-key)")
      ->type_name("FILE");
  app.add_option("--tls-key", args.tls_key, "PEM private key of --tls-cert")->type_name("FILE");
  app.add_option("--rpc", args.rpc,
                 "What to call: health (grpc.health.v1 Check, the no-op baseline), find-warm "
                 "(FindPath, one goal, a few starts: cached field), find-cold (FindPath, a new "
                 "goal each call), reachable (Reachable, --pairs pairs), standard-move, batch "
                 "(BatchFindPaths: find-warm's requests, --batch-starts starts to one goal per "
                 "call; requests/s counts calls, not paths)")
      ->check(CLI::IsMember(
          {"health", "find-warm", "find-cold", "reachable", "standard-move", "batch"}))
      ->capture_default_str();
  app.add_flag("--compare-health", args.compare_health,
               "Run the health baseline first, then --rpc, with the same options, and print "
               "the throughput ratio --rpc / health");
  auto* mask_option =
      app.add_option("--mask", args.mask, "Stored mask to use (must exist unless --upload)")
          ->type_name("NAME");
  app.add_option("--upload", args.upload, "Upload FILE (format sniffed) as --mask NAME first")
      ->type_name("FILE")
      ->needs(mask_option);
  app.add_option("--goal", args.goals,
                 "FindPath goal, repeatable: find-warm sends its starts to the goals in turn "
                 "(default: (108,10) on the built-in maze, (7/8 w, h/2) otherwise; find-cold "
                 "ignores it)")
      ->type_name("X,Y");
  app.add_option("--start", args.starts,
                 "FindPath start, repeatable (find-cold uses the first; default: four points "
                 "west of the built-in maze's wall, or of the west eighth of the mask)")
      ->type_name("X,Y");
  app.add_option("--random-starts", args.random_starts,
                 "find-warm and batch: start from N distinct random walkable pixels of the "
                 "mask's west half in turn instead of --start (more than the server's "
                 "4096-answer FindPath cache makes every call trace and smooth a new path)")
      ->type_name("N")
      ->check(flags::whole_number(1, 10000000));
  app.add_option("--smoothing", args.smoothing,
                 "FindPath smoothing: default (leave unset: the server beautifies), beautify, "
                 "simplify, none")
      ->check(CLI::IsMember({"default", "beautify", "simplify", "none"}))
      ->capture_default_str();
  app.add_option("--batch-starts", args.batch_starts, "Starts per BatchFindPaths call (batch)")
      ->check(flags::whole_number(1, 1000000))
      ->capture_default_str();
  app.add_option("--pairs", args.pairs, "Point pairs per Reachable call")
      ->check(flags::whole_number(1, 100000))
      ->capture_default_str();
  app.add_option("--concurrency", args.concurrency,
                 "Calls kept outstanding (with --rate: the most outstanding at once)")
      ->check(flags::whole_number(1, 4096))
      ->capture_default_str();
  app.add_option("--channels", args.channels,
                 "Channels (one HTTP/2 connection each) the calls are spread over")
      ->check(flags::whole_number(1, 256))
      ->capture_default_str();
  auto* requests_option = app.add_option("--requests", args.requests,
                                         "Stop after this many measured calls (default: no cap)")
                              ->check(flags::whole_number(1));
  auto* duration_option =
      app.add_option("--duration", args.duration,
                     "Stop after this many measured seconds (default 10, or none when only "
                     "--requests is given)")
          ->check(flags::number_above(0, kMaxSeconds));
  app.add_option("--warmup", args.warmup,
                 "Seconds of calls before the measurement starts (not counted)")
      ->check(flags::number_from(0, kMaxSeconds))
      ->capture_default_str();
  app.add_option("--rate", args.rate,
                 "Open loop: start this many calls per second on a fixed schedule; latency is "
                 "measured from the scheduled time (default: closed loop)")
      ->check(flags::number_above(0, 1e9));
  app.add_option("--engine", args.engine,
                 "callback: gRPC callback API, completions start the next call; sync: one "
                 "thread per outstanding call making blocking calls")
      ->check(CLI::IsMember({"callback", "sync"}))
      ->capture_default_str();
  app.add_option("--timeout", args.timeout, "Deadline of each call, in seconds")
      ->check(flags::number_above(0, kMaxSeconds))
      ->capture_default_str();
  app.add_option("--server-pid", args.server_pid,
                 "The server's process id: also report its CPU time (read from /proc) and, with "
                 "--compare-health, the ratio by CPU per call (generator + server), which other "
                 "load on the machine disturbs less than the throughput ratio")
      ->type_name("PID")
      ->check(flags::whole_number(1, std::numeric_limits<int>::max()));
  app.add_flag("--no-retry", args.no_retry,
               "Do not retry calls that fail with UNAVAILABLE (by default the idempotent calls "
               "are retried up to 5 attempts, with backoff)");
  app.add_flag("--no-mask-header", args.no_mask_header,
               "Do not send the mask's name as the x-pathfinder-mask header (a load balancer "
               "hashing on it then spreads one mask's calls over its replicas)");
  app.add_flag("--json", args.json,
               "Print one JSON object per line: the run, or with --compare-health "
               "{\"baseline\":...,\"target\":...,\"ratio\":R,\"cpu_ratio\":R or null}");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? kExitOk : kExitUsage;
  }
  // gRPC's locks are absl::Mutex; Debian's absl checks every lock order for
  // deadlock cycles, which costs the generator several percent of its CPU.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);

  try {
    if (args.server.empty()) args.server = kDefaultServer;  // PATHFINDER_SERVER= (empty)
    if (const auto problem = flags::server_address_problem("--server", args.server)) {
      std::cerr << "error: " << *problem << "\n";
      return kExitUsage;
    }
    const flags::EnvironmentToken environment = flags::token_from_environment();
    if (!environment.warning.empty()) std::cerr << "warning: " << environment.warning << "\n";
    const load::Rpc rpc = *load::parse_rpc(args.rpc);
    load::RunOptions run_options;
    run_options.server = args.server;
    run_options.engine = args.engine == "sync" ? load::Engine::kSync : load::Engine::kCallback;
    run_options.concurrency = args.concurrency;
    run_options.channels = args.channels;
    run_options.max_requests = args.requests;
    const bool only_requests = requests_option->count() > 0 && duration_option->count() == 0;
    run_options.duration = std::chrono::duration<double>(only_requests ? 0.0 : args.duration);
    run_options.warmup = std::chrono::duration<double>(args.warmup);
    run_options.rate = args.rate;
    run_options.deadline =
        std::chrono::milliseconds(static_cast<std::int64_t>(args.timeout * 1000.0 + 0.5));
    run_options.server_pid = args.server_pid;
    args.token = args.token_file.empty() ? environment.token
                                         : pathfinder::read_token_file(args.token_file);
    run_options.bearer_token = args.token;
    run_options.retry.enabled = !args.no_retry;
    run_options.mask_header = !args.no_mask_header;
    if (!args.tls_ca.empty() || !args.tls_cert.empty() || !args.tls_key.empty()) {
      pathfinder::load_tls_files(args.tls, args.tls_ca, args.tls_cert, args.tls_key);
    }
    run_options.tls = args.tls;

    load::WorkloadOptions workload_options;
    workload_options.pairs = args.pairs;
    if (args.smoothing == "beautify") workload_options.smoothing = pb::SMOOTHING_BEAUTIFY;
    if (args.smoothing == "simplify") workload_options.smoothing = pb::SMOOTHING_SIMPLIFY;
    if (args.smoothing == "none") workload_options.smoothing = pb::SMOOTHING_NONE;
    for (const auto& goal : args.goals) {
      workload_options.goals.push_back(parse_point(goal, "--goal"));
    }
    for (const auto& start : args.starts) {
      workload_options.starts.push_back(parse_point(start, "--start"));
    }
    workload_options.random_starts = args.random_starts;
    workload_options.batch_starts = args.batch_starts;
    if (rpc != load::Rpc::kHealth) {
      std::tie(workload_options.mask, workload_options.shape) = prepare_mask(args);
    }
    const load::Workload target = load::build_workload(rpc, workload_options);

    std::optional<load::RunReport> baseline;
    if (args.compare_health && rpc != load::Rpc::kHealth) {
      const load::Workload health = load::build_workload(load::Rpc::kHealth, workload_options);
      if (!args.json) std::cout << "baseline: " << health.description << "\n";
      baseline = load::run_load(health, run_options);
      if (!args.json) std::cout << load::format_report(*baseline) << "\n";
    }
    if (!args.json) std::cout << "target: " << target.description << "\n";
    const load::RunReport report = load::run_load(target, run_options);

    bool failed = report.errors() > 0 || report.requests == 0;
    if (baseline) failed = failed || baseline->errors() > 0 || baseline->requests == 0;
    const double ratio = baseline && baseline->requests_per_second > 0
                             ? report.requests_per_second / baseline->requests_per_second
                             : 0.0;
    if (args.json) {
      if (baseline) {
        char ratio_text[32];
        std::snprintf(ratio_text, sizeof ratio_text, "%.4f", ratio);
        const double by_cpu = load::cpu_ratio(*baseline, report);
        char cpu_ratio_text[32] = "null";
        if (by_cpu >= 0) std::snprintf(cpu_ratio_text, sizeof cpu_ratio_text, "%.4f", by_cpu);
        std::cout << "{\"baseline\":" << load::report_json(*baseline)
                  << ",\"target\":" << load::report_json(report) << ",\"ratio\":" << ratio_text
                  << ",\"cpu_ratio\":" << cpu_ratio_text << "}\n";
      } else {
        std::cout << load::report_json(report) << "\n";
      }
    } else {
      std::cout << load::format_report(report) << "\n";
      if (baseline) {
        char ratio_text[32];
        std::snprintf(ratio_text, sizeof ratio_text, "%.3f", ratio);
        std::cout << "ratio " << report.rpc << " / health requests/s: " << ratio_text << "\n";
        const double by_cpu = load::cpu_ratio(*baseline, report);
        if (by_cpu >= 0) {
          std::snprintf(ratio_text, sizeof ratio_text, "%.3f", by_cpu);
          std::cout << "ratio by CPU per call (generator + server, health / " << report.rpc
                    << "): " << ratio_text << "\n";
        }
      }
    }
    return failed ? kExitFailed : kExitOk;
  } catch (const CLI::ValidationError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const std::invalid_argument& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const pathfinder::FileError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const SetupError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitFailed;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitFailed;
  }
}
