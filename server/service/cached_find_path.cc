#include "service/cached_find_path.h"

#include <memory>
#include <optional>
#include <utility>

#include "pathcore/agent_clearance.h"
#include "pathcore/distance_field.h"
#include "service/endpoint_snapping.h"

namespace pathserver {
namespace {

// Beautify's working memory, one per thread that answers FindPath (gRPC's
// and the compute pool's), so a warm path does not allocate it per call.
pathcore::SmoothingScratch& smoothing_scratch() {
  thread_local pathcore::SmoothingScratch scratch;
  return scratch;
}

// The traces of this thread's SharedPathsScope, while one is alive.
struct SharedTraces {
  bool active = false;
  pathcore::TraceMemo memo;
};
SharedTraces& shared_traces() {
  thread_local SharedTraces traces;
  return traces;
}

}  // namespace

SharedPathsScope::SharedPathsScope() {
  smoothing_scratch().remember_corners();
  shared_traces().active = true;
}

SharedPathsScope::~SharedPathsScope() {
  smoothing_scratch().forget_corners();
  SharedTraces& traces = shared_traces();
  traces.active = false;
  traces.memo.clear();
}

void SharedPathsScope::bound(std::size_t max_bytes) {
  pathcore::SmoothingScratch& scratch = smoothing_scratch();
  pathcore::TraceMemo& traces = shared_traces().memo;
  if (scratch.remembered_bytes() + traces.memory_bytes() > max_bytes) {
    scratch.forget_corners();
    scratch.remember_corners();
    traces.clear();
  }
}

namespace {

pathcore::FieldOptions field_options(const FieldKey& key) {
  pathcore::FieldOptions options;
  options.enabled = key.enabled;
  options.connectivity = key.connectivity;
  options.allow_corner_cutting = key.allow_corner_cutting;
  options.area_costs = key.area_costs;
  return options;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

FieldKey field_key(const MaskEntry& entry, const pathcore::FieldOptions& options,
                   pathcore::Point goal, double clearance) {
  const pathcore::FieldOptions normal = pathcore::normalized(options);
  return FieldKey{entry.name,
                  entry.revision,
                  normal.enabled,
                  normal.connectivity,
                  normal.allow_corner_cutting,
                  normal.area_costs,
                  clearance_key(clearance),
                  goal,
                  {}};
}

FieldLease CacheOnlySource::field(const FieldKey& key, const MaskEntry& /*entry*/,
                                  pathcore::Point /*start*/) {
  FieldPtr field = cache_.get(key);
  if (!field) {
    missed_ = key;
    throw NeedsFill{};
  }
  return {field.get(), field, true};
}

std::function<bool()> FillingSource::begin_scan() {
  return [this] { return flights_.stopping() || (request_ != nullptr && !request_->gone().ok()); };
}

void FillingSource::build_shared(const FieldKey& flight_key, const std::string& what,
                                 const SharedBuild& build) {
  if (request_ == nullptr) {  // nobody to park: a private build
    build({}, {});
    return;
  }
  bool leader = false;
  const std::shared_ptr<Flight> flight = flights_.lead_or_wait(flight_key, request_, leader, what);
  if (!leader) {
    cache_.record_shared_wait();
    throw Parked{};
  }
  // Without a budget nothing is kept: no reason to build for nobody.
  flight->finish_for_cache = cache_.budget_bytes() != 0;
  const std::function<bool()> interrupt = [this, f = flight.get()] {
    return flights_.poll(*f, request_.get());
  };
  try {
    build(interrupt, flight->progress.reporter());
  } catch (const pathcore::Interrupted&) {
    // poll() removed the flight and answered its waiters: nothing was kept.
    throw RequestGone{};
  } catch (...) {
    flights_.complete(*flight, nullptr);
    throw;
  }
  const bool still_mine = flights_.end_leading(*flight);
  flights_.complete(*flight, nullptr);  // no field: the waiters run again and find it
  // Answered while building (gave up waiting): the build was for the cache only.
  if (!still_mine || !request_->gone().ok()) throw RequestGone{};
}

FieldLease PartialSource::field(const FieldKey& key, const MaskEntry& /*entry*/,
                                pathcore::Point start) {
  if (!(key == key_) || !(start == settled_)) throw NeedsFill{};
  return {&partial_, nullptr, true};
}

// A fill answered from half-built, finished after the answer.
struct FillingSource::Deferred {
  std::shared_ptr<Flight> flight;
  std::shared_ptr<const pathcore::Mask> mask;  // the builder reads it: declared first
  pathcore::FieldBuilder builder;
  double seconds = 0;  // filling time so far
};

FillingSource::FillingSource(FieldCache& cache, FieldFlights& flights,
                             std::shared_ptr<FieldRequest> request)
    : cache_(cache), flights_(flights), request_(std::move(request)) {}

FillingSource::~FillingSource() { finish_deferred(); }

void FillingSource::give(const FieldKey& key, FieldPtr field) {
  given_key_ = key;
  given_ = std::move(field);
}

FieldLease FillingSource::field(const FieldKey& key, const MaskEntry& entry,
                                pathcore::Point start) {
  if (given_ && given_key_ == key) return {given_.get(), given_, true};
  FieldPtr cached = counted_miss_ == key ? cache_.peek(key) : cache_.get(key);
  if (cached) return {cached.get(), cached, true};
  if (request_ == nullptr) {
    // No request to park or to poll: a private fill.
    auto flight = std::make_shared<Flight>();
    flight->key = key;
    return lead(flight, entry, start);
  }
  bool leader = false;
  const std::shared_ptr<Flight> flight = flights_.lead_or_wait(key, request_, leader);
  if (!leader) {
    cache_.record_shared_wait();
    throw Parked{};
  }
  // A fill may have ended between the miss and lead_or_wait.
  if (FieldPtr late = cache_.peek(key)) {
    flights_.complete(*flight, late);
    return {late.get(), late, true};
  }
  return lead(flight, entry, start);
}

FieldLease FillingSource::lead(const std::shared_ptr<Flight>& flight, const MaskEntry& entry,
                               pathcore::Point start) {
  const FieldKey& key = flight->key;
  std::unique_ptr<Deferred> fill;
  const auto started = std::chrono::steady_clock::now();
  try {
    // Built in the memory of a field dropped earlier when there is one.
    fill = std::make_unique<Deferred>(Deferred{
        flight, entry.mask,
        key.goals.empty()
            ? pathcore::FieldBuilder(
                  *entry.mask, key.goal, field_options(key),
                  cache_.storage_pool().take(entry.mask->width(), entry.mask->height()))
            : pathcore::FieldBuilder(*entry.mask, key.goals, field_options(key)),
        0});
    if (request_ != nullptr) {
      fill->builder.set_interrupt(
          [this, f = flight.get()] { return flights_.poll(*f, request_.get()); });
      fill->builder.set_progress(flight->progress.reporter());
      // Finished for the cache after its callers give up only when it can be kept
      // (a field takes at least 2 bytes per pixel; to several goals, 10).
      flight->finish_for_cache = cache_.budget_bytes() >=
                                 (key.goals.empty() ? 2 : 10) * entry.mask->pixel_count();
    }
    if (whole_fields_) {
      fill->builder.finish();
    } else {
      fill->builder.run_until_settled(start);
    }
  } catch (const pathcore::Interrupted&) {
    // poll() removed the flight: nobody needs it. Not cached.
    cache_.record_interrupted();
    throw RequestGone{};
  } catch (...) {
    flights_.complete(*flight, nullptr);  // the waiters try on their own
    throw;
  }
  fill->seconds = seconds_since(started);
  // Answered by the give-up thread while filling: its call is not to be touched.
  const bool claimed = request_ != nullptr && !flights_.end_leading(*flight);
  if (fill->builder.finished()) {
    // Whole fills, or start was not reachable: the fill ran to the end already.
    FieldPtr field = publish(*flight, fill->builder, fill->seconds);
    // As finish_fill does: memory for the next fill of this size, paged in
    // after the answer (a batch's whole fill would otherwise fault in fresh
    // pages on every cold call).
    after_answer([this, field](const std::function<bool()>& /*interrupt*/) {
      cache_.storage_pool().keep_spare_like(*field);
    });
    if (claimed) throw RequestGone{};
    return {field.get(), field, false};
  }
  if (claimed || (request_ != nullptr && !request_->gone().ok())) {
    // Expired while filling, with others waiting (or not: finish_deferred's
    // poll then stops the fill): no answer from here.
    deferred_.push_back(std::move(fill));
    throw RequestGone{};
  }
  flights_.mark_served(*flight);
  deferred_.push_back(std::move(fill));
  return {&deferred_.back()->builder.field(), nullptr, false};
}

void FillingSource::finish_deferred() noexcept {
  for (auto& fill : deferred_) (void)finish_fill(*fill, nullptr);
  deferred_.clear();
  const std::function<bool()> stopping = [this] { return flights_.stopping(); };
  for (LaterWork& work : later_) {
    try {
      work(stopping);
    } catch (...) {
      // Stopped by shutdown, or out of memory: later calls do the work again.
    }
  }
  later_.clear();
}

FieldPtr FillingSource::publish(Flight& flight, pathcore::FieldBuilder& builder, double seconds) {
  FieldPtr field = cache_.storage_pool().share(builder.take());
  cache_.put(flight.key, field);
  flights_.complete(flight, field);
  cache_.record_computed(seconds);
  return field;
}

FieldPtr FillingSource::finish_fill(Deferred& fill, FieldRequest* leader) noexcept {
  Flight& flight = *fill.flight;
  try {
    if (request_ != nullptr) {
      // Only waiters (and shutdown) are checked now: the leader has its answer.
      fill.builder.set_interrupt(
          [this, &flight, leader] { return flights_.poll(flight, leader); });
    }
    const auto started = std::chrono::steady_clock::now();
    // Parked requests first, each as soon as its start is settled; a few
    // rounds, for those that park meanwhile (later ones get the final field).
    for (int round = 0; round < 3 && !fill.builder.finished(); ++round) {
      const auto waiters = flights_.waiters(flight);
      if (waiters.empty()) break;
      for (const auto& waiter : waiters) {
        // Read and served only while taken off the flight: the give-up thread
        // cannot answer it meanwhile (parked again for the rest of the fill).
        if (!flights_.take_waiter(flight, waiter.get())) continue;  // answered meanwhile
        const std::optional<pathcore::Point> start = waiter->start();
        flights_.park_again(flight, waiter);
        if (!start || !fill.mask->contains(*start) ||
            !fill.mask->walkable(*start, flight.key.enabled)) {
          continue;
        }
        if (!fill.builder.run_until_settled(*start)) break;  // finished: all get it below
        if (!flights_.take_waiter(flight, waiter.get())) continue;
        if (!waiter->serve_partial(flight.key, fill.builder.field())) {
          flights_.park_again(flight, waiter);
        }
      }
    }
    fill.builder.finish();
    FieldPtr field = publish(flight, fill.builder, fill.seconds + seconds_since(started));
    // Answered and cached: memory for the next fill of this size, paged
    // in here rather than on that fill's answer path.
    cache_.storage_pool().keep_spare_like(*field);
    return field;
  } catch (const pathcore::Interrupted&) {
    cache_.record_interrupted();  // poll() removed the flight and answered its waiters
  } catch (...) {
    flights_.complete(flight, nullptr);
  }
  return nullptr;
}

FieldPtr FillingSource::whole_field(const FieldKey& key, const MaskEntry& entry, bool& hit) {
  const FieldLease lease = field(key, entry, key.goal);
  hit = lease.hit;
  if (lease.owner) return lease.owner;
  // This request leads the fill and holds it half-built (the goal settled): finish it now.
  std::unique_ptr<Deferred> fill = std::move(deferred_.back());
  deferred_.pop_back();
  if (request_ != nullptr) flights_.begin_leading(*fill->flight);
  FieldPtr whole = finish_fill(*fill, request_.get());
  const bool claimed = request_ != nullptr && !flights_.end_leading(*fill->flight);
  if (!whole || claimed) throw RequestGone{};
  return whole;
}

CachedPathResult cached_find_path(const MaskEntry& entry, FieldSource& source,
                                  pathcore::Point start, pathcore::Point goal,
                                  const pathcore::FindPathOptions& options,
                                  const FieldKey* goal_key, EndpointSnapper* snapper) {
  const pathcore::Mask& mask = *entry.mask;
  const pathcore::ClearanceMap* clearance = entry.clearance.get();
  const FieldKey key =
      goal_key != nullptr ? *goal_key : field_key(entry, options.field, goal, options.clearance);
  // A field held already may show that no beeline can be walkable, sparing
  // its segment check (a batch's starts after the first).
  const pathcore::DistanceField* held = source.held(key);
  if (held == nullptr || !pathcore::beeline_ruled_out(*held, start)) {
    if (auto beeline = pathcore::beeline_answer(mask, start, goal, options, clearance)) {
      return {std::move(*beeline), false};
    }
  }
  const pathcore::AreaSet enabled = options.field.enabled & pathcore::kAllAreas;
  std::optional<bool> goal_reachable;
  bool hit = false;
  if (mask.walkable(start, enabled) && mask.walkable(goal, enabled)) {
    const FieldLease lease = source.field(key, entry, start);
    hit = lease.hit;
    if (lease.field->reachable(start) || !options.snap_to_reachable) {
      SharedTraces& traces = shared_traces();
      return {
          pathcore::path_from_field(mask, *lease.field, start, options, clearance,
                                    &smoothing_scratch(), traces.active ? &traces.memo : nullptr),
          hit};
    }
    goal_reachable = false;
  }
  if (!options.snap_to_reachable) {
    CachedPathResult result;
    result.path.goal = goal;
    return result;
  }
  std::optional<pathcore::SnappedEndpoints> ends;
  if (snapper != nullptr) {
    ends = snapper->snap(entry, source, options.field, options.clearance, start, goal);
  } else {
    const std::function<bool()> interrupt = source.begin_scan();
    try {
      ends = pathcore::snap_endpoints(mask, options.field, start, goal, goal_reachable, interrupt);
    } catch (const pathcore::Interrupted&) {
      throw RequestGone{};
    }
  }
  if (!ends) {
    CachedPathResult result;
    result.path.goal = goal;
    return result;
  }
  pathcore::FindPathOptions plain = options;
  plain.snap_to_reachable = false;
  CachedPathResult result = cached_find_path(entry, source, ends->start, ends->goal, plain);
  result.cache_hit = result.cache_hit || hit;
  return result;
}

CachedPathResult cached_find_path(const MaskEntry& entry, FieldCache& cache, pathcore::Point start,
                                  pathcore::Point goal, const pathcore::FindPathOptions& options) {
  FieldFlights flights;  // private: a null request never joins or polls flights
  FillingSource source(cache, flights, nullptr);
  CachedPathResult result = cached_find_path(entry, source, start, goal, options);
  source.finish_deferred();
  return result;
}

}  // namespace pathserver
