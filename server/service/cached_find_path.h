#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cache/field_cache.h"
#include "cache/field_flights.h"
#include "pathcore/agent_clearance.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"
#include "pathcore/path.h"
#include "store/mask_store.h"

namespace pathserver {

class EndpointSnapper;  // endpoint_snapping.h

struct CachedPathResult {
  pathcore::PathResult path;
  bool cache_hit = false;  // the distance field came from the cache (or another request's fill)
};

// The clearance that keys caches for a valid request clearance: 0 when it
// excludes no pixel (up to half a pixel), so such requests share the entries
// of requests without one.
[[nodiscard]] inline double clearance_key(double clearance) {
  return pathcore::clearance_excludes_pixels(clearance) ? clearance : 0;
}

// The cache key of the field a request needs toward goal; clearance: the
// request's agent clearance (valid; normalised to 0 when it excludes no
// pixel, so such requests share today's fields).
[[nodiscard]] FieldKey field_key(const MaskEntry& entry, const pathcore::FieldOptions& options,
                                 pathcore::Point goal, double clearance = 0);

// A distance field lent to cached_find_path: final, or half-built with the
// start pixel settled (its cost final, see pathcore::FieldBuilder).
struct FieldLease {
  const pathcore::DistanceField* field = nullptr;  // valid while the source lives
  FieldPtr owner;                                  // keeps a shared field alive
  bool hit = false;  // from the cache, or from a fill another request ran
};

// Where cached_find_path gets its fields.
class FieldSource {
 public:
  virtual ~FieldSource() = default;
  // The field for key (of entry's mask), with start settled. May throw
  // (see the implementations).
  [[nodiscard]] virtual FieldLease field(const FieldKey& key, const MaskEntry& entry,
                                         pathcore::Point start) = 0;
  // The field for key when this source holds it already (lent before, no
  // lookup, no fill), else null: lets a caller skip work the field answers
  // (pathcore::beeline_ruled_out). The default holds none.
  [[nodiscard]] virtual const pathcore::DistanceField* held(const FieldKey& /*key*/) const {
    return nullptr;
  }
  // The finished field for key when a cache holds it, without a fill or a
  // wait, else null: for work that only pays off with the field at hand (a
  // path around a request's obstacles). The default holds none.
  [[nodiscard]] virtual FieldPtr cached(const FieldKey& /*key*/) { return nullptr; }
  // Work that reads the whole mask without a field (snapping's tables, a
  // scan: O(pixels), like a fill). Called before it: returns the interrupt
  // check the work runs with (empty: none), or throws to have it run
  // elsewhere (see the implementations). The default allows it, unchecked.
  [[nodiscard]] virtual std::function<bool()> begin_scan() { return {}; }
  // Other heavy work shared by requests (a usable mask, an any-angle
  // structure): runs build(interrupt, progress), which leaves its result
  // where the callers look for it (a cache), at most once at a time per
  // flight_key (a key no field has), or throws to have it run elsewhere or
  // later (see the implementations). `what` names the build in the answer of
  // a call that gives up waiting for it ("any-angle structure for mask 'x'
  // rev 3"). The build should pass both to its core builder. The default
  // runs it, unchecked.
  using SharedBuild = std::function<void(const std::function<bool()>& interrupt,
                                         const pathcore::ProgressReport& progress)>;
  virtual void build_shared(const FieldKey& /*flight_key*/, const std::string& /*what*/,
                            const SharedBuild& build) {
    build({}, {});
  }
  // build_shared for a build that takes no interrupt or progress.
  void build_once(const FieldKey& flight_key, const std::function<void()>& build) {
    build_shared(flight_key, {},
                 [&build](const auto& /*interrupt*/, const auto& /*progress*/) { build(); });
  }
  // Work for later calls, not for this call's answer: run after the call is answered, with an interrupt check
  // that says stop when the server stops. The default runs it now, unchecked.
  using LaterWork = std::function<void(const std::function<bool()>& interrupt)>;
  virtual void after_answer(LaterWork work) { work({}); }
};

// Thrown by CacheOnlySource when a field is not cached: the request needs a fill.
struct NeedsFill {};
// Thrown by FillingSource when the request was parked on another request's
// fill (single flight): it is resumed through FieldRequest::resume.
struct Parked {};
// Thrown by FillingSource when the request is no longer wanted (its deadline
// passed, it was cancelled, or the server stops): it was answered already
// (FieldRequest::abandon), or should be answered with its gone() status.
struct RequestGone {};

// Fields from the cache only (the warm path, on gRPC's threads): throws
// NeedsFill on a miss. The key that missed is remembered, so the fill does
// not count it as a miss twice.
class CacheOnlySource final : public FieldSource {
 public:
  explicit CacheOnlySource(FieldCache& cache) : cache_(cache) {}
  [[nodiscard]] FieldLease field(const FieldKey& key, const MaskEntry& entry,
                                 pathcore::Point start) override;
  [[nodiscard]] FieldPtr cached(const FieldKey& key) override { return cache_.get(key); }
  [[nodiscard]] const std::optional<FieldKey>& missed() const { return missed_; }
  // Throw NeedsFill: scans and builds belong on the compute pool, as fills do.
  [[nodiscard]] std::function<bool()> begin_scan() override { throw NeedsFill{}; }
  void build_shared(const FieldKey& /*flight_key*/, const std::string& /*what*/,
                    const SharedBuild& /*build*/) override {
    throw NeedsFill{};
  }

 private:
  FieldCache& cache_;
  std::optional<FieldKey> missed_;
};

// Fields from the cache, else from a fill shared through `flights` (the cold
// path, on a compute thread). The first request to miss a key leads: it
// fills until its start is settled, checking `request` (and the waiters)
// about every 16,384 pixels, and answers from the half-built field; the rest
// of the field is filled by finish_deferred(), which the caller runs after
// answering, and then cached and handed to the waiters (those that can be
// are answered before, as soon as their own start is settled:
// FieldRequest::start and serve_partial). A request that
// misses while another fills the same key is parked (throws Parked). A
// request that gives up waiting (its deadline passed, it was cancelled) is
// answered from the fill's poll (FieldFlights::poll: naming the fill and its
// progress) and the fill goes on to the end, for the cache, on this thread;
// it stops (RequestGone, nothing cached) only as poll says: shutdown, a
// replaced or deleted revision, or a field the cache's budget cannot hold.
// `request` may be null (no deadline, never parked: waits are impossible
// without it, so a busy key is filled again; for tests and tools).
class FillingSource final : public FieldSource {
 public:
  FillingSource(FieldCache& cache, FieldFlights& flights, std::shared_ptr<FieldRequest> request);
  ~FillingSource() override;
  FillingSource(const FillingSource&) = delete;
  FillingSource& operator=(const FillingSource&) = delete;

  // A field this request was resumed with (a fill it waited for): served
  // for its key without a cache lookup (it may be too large to be cached).
  void give(const FieldKey& key, FieldPtr field);
  // A key whose cache miss was counted already (by CacheOnlySource).
  void set_counted_miss(std::optional<FieldKey> key) { counted_miss_ = std::move(key); }
  // Fills run to the end before the field is lent (no half-built answers):
  // for callers that trace from many starts on one field (BatchFindPaths).
  void fill_whole_fields() { whole_fields_ = true; }

  [[nodiscard]] FieldLease field(const FieldKey& key, const MaskEntry& entry,
                                 pathcore::Point start) override;
  // A field given for key, else the cache's (looked up without counting:
  // CacheOnlySource counted it on gRPC's thread).
  [[nodiscard]] FieldPtr cached(const FieldKey& key) override {
    return given_ && given_key_ == key ? given_ : cache_.peek(key);
  }
  // The scan stops (pathcore::Interrupted, which cached_find_path turns into
  // RequestGone) once the request is gone or the server stops.
  [[nodiscard]] std::function<bool()> begin_scan() override;
  // Single flight through `flights`: the first request leads and builds; one
  // that comes while another builds is parked (throws Parked) and resumed
  // with a null field when the build ends, to run again and find the result
  // cached (or, when it could not be cached, build it in turn). The build's
  // interrupt is the flight's poll: a caller whose deadline passes is
  // answered (naming the build and its progress) while the build goes on for
  // the cache; it stops only as FieldFlights::poll says (shutdown, a stale
  // revision, a cache with no budget). When the leader was answered that
  // way, throws RequestGone after the build.
  void build_shared(const FieldKey& flight_key, const std::string& what,
                    const SharedBuild& build) override;
  // Kept until finish_deferred.
  void after_answer(LaterWork work) override { later_.push_back(std::move(work)); }
  // Finishes the fields this request answered from half-built, caches them and
  // resumes their waiters, then runs the work left for after the answer.
  // Never throws; a fill or work stopped by shutdown is dropped.
  void finish_deferred() noexcept;
  // The whole field for key (GetField): from the cache, a field given, or a
  // fill this request leads, finished here (cached, its waiters served)
  // before returning; hit: it was not filled by this request. Throws Parked and RequestGone like field(); a fill
  // stopped by shutdown throws RequestGone. The flood fill is not stopped
  // when this request goes away (it is finished for the cache), but the
  // request is answered at once (FieldRequest::abandon).
  [[nodiscard]] FieldPtr whole_field(const FieldKey& key, const MaskEntry& entry, bool& hit);

 private:
  struct Deferred;
  // Finishes one fill answered from half-built; its field, or null when the
  // fill was stopped or failed. `leader`: polled too (may be null).
  FieldPtr finish_fill(Deferred& fill, FieldRequest* leader) noexcept;
  // A finished fill's field: cached, handed to the flight's waiters, then
  // counted (whoever sees the count finds it cached).
  FieldPtr publish(Flight& flight, pathcore::FieldBuilder& builder, double seconds);
  FieldLease lead(const std::shared_ptr<Flight>& flight, const MaskEntry& entry,
                  pathcore::Point start);

  FieldCache& cache_;
  FieldFlights& flights_;
  std::shared_ptr<FieldRequest> request_;
  std::optional<FieldKey> given_key_;
  FieldPtr given_;
  std::optional<FieldKey> counted_miss_;
  bool whole_fields_ = false;
  std::vector<std::unique_ptr<Deferred>> deferred_;
  std::vector<LaterWork> later_;
};

// A half-built field for one key, valid at one settled start pixel only (a
// parked request answered while the fill it waits for is paused): any other
// key or start throws NeedsFill.
class PartialSource final : public FieldSource {
 public:
  PartialSource(const FieldKey& key, const pathcore::DistanceField& partial,
                pathcore::Point settled)
      : key_(key), partial_(partial), settled_(settled) {}
  [[nodiscard]] FieldLease field(const FieldKey& key, const MaskEntry& entry,
                                 pathcore::Point start) override;
  // Throw NeedsFill: not on the paused fill's thread; the request is
  // resumed with the final field and scans (or builds) then.
  [[nodiscard]] std::function<bool()> begin_scan() override { throw NeedsFill{}; }
  void build_shared(const FieldKey& /*flight_key*/, const std::string& /*what*/,
                    const SharedBuild& /*build*/) override {
    throw NeedsFill{};
  }

 private:
  const FieldKey& key_;
  const pathcore::DistanceField& partial_;
  pathcore::Point settled_;
};

// FindPath on a stored mask with fields from `source`:
// pathcore::beeline_answer when it answers; else the field for (mask,
// revision, normalized options.field, goal) from `source`, and
// pathcore::path_from_field on it. Unwalkable start or goal, or a start that
// cannot reach the goal: found = false, or with options.snap_to_reachable the
// endpoints move per pathcore::snap_endpoints and the path is found between
// them (its field keyed by the snapped goal): looked up in cached tables by
// `snapper` (endpoint_snapping.h; the server's calls), or when it is null
// by the scan (O(pixels) per call; tests and tools). start and goal must be
// inside the mask. With agent clearance, entry is the usable entry
// (usable_entry.h: its mask holds only the usable pixels); options.clearance
// only keys the fields and tables. goal_key: field_key(entry, options.field,
// goal, options.clearance) when the caller has it already (not made again),
// else null. Throws pathcore::InvalidArgument, and what the source throws.
[[nodiscard]] CachedPathResult cached_find_path(const MaskEntry& entry, FieldSource& source,
                                                pathcore::Point start, pathcore::Point goal,
                                                const pathcore::FindPathOptions& options,
                                                const FieldKey* goal_key = nullptr,
                                                EndpointSnapper* snapper = nullptr);

// For the paths of one BatchFindPaths call, which share one mask and
// options (many starts, one goal): while alive, cached_find_path on this
// thread shares work between the paths it answers, and forgets it at the
// end: a trace that meets an earlier one copies the rest of it
// (pathcore::TraceMemo; the batch's leases keep its fields alive), and
// beautify remembers how each corner came out
// (pathcore::SmoothingScratch::remember_corners). The same answers; a
// crowd's paths toward one goal merge within a few dozen steps and then
// share their corners. Not for calls with other masks or options in between
// on the thread (nothing else runs on it while a batch does).
class SharedPathsScope {
 public:
  SharedPathsScope();
  ~SharedPathsScope();
  SharedPathsScope(const SharedPathsScope&) = delete;
  SharedPathsScope& operator=(const SharedPathsScope&) = delete;

  // Forgets and starts over once more than max_bytes are remembered.
  void bound(std::size_t max_bytes);
};

// The same, filling synchronously on the caller's thread on a miss (no
// single flight, no deadline): for tests and tools.
[[nodiscard]] CachedPathResult cached_find_path(const MaskEntry& entry, FieldCache& cache,
                                                pathcore::Point start, pathcore::Point goal,
                                                const pathcore::FindPathOptions& options);

}  // namespace pathserver
