#include "service/endpoint_snapping.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cache/build_progress.h"
#include "pathcore/snap_lookup.h"

namespace pathserver {
namespace {

// The FieldFlights keys under which the tables are built, so that concurrent
// requests build each once: goals no field has (a field's goal lies inside
// its mask) and no other shared build has (usable_grid_flight_key: (-1, -1);
// any_angle_structure_flight_key: (-2, -2), whose other fields can equal a
// transform's, so the transform takes (-4, -4)).
FieldKey transform_flight_key(const NearestKey& key) {
  FieldKey flight;
  flight.mask = key.mask;
  flight.revision = key.revision;
  flight.enabled = key.enabled;
  flight.clearance = key.clearance;
  flight.goal = {-4, -4};
  return flight;
}

FieldKey labels_flight_key(const ComponentKey& key) {
  FieldKey flight;
  flight.mask = key.mask;
  flight.revision = key.revision;
  flight.enabled = key.enabled;
  flight.connectivity = key.connectivity;
  flight.allow_corner_cutting = key.allow_corner_cutting;
  flight.clearance = key.clearance;
  flight.goal = {-3, -3};
  return flight;
}

// A goal's search whose rings may read more pixels than this runs where
// scans run (the compute pool, with the call's interrupt check), not on
// gRPC's threads: about a warm path's work.
constexpr double kRingPixelsOnCallThread = double{1 << 18};

}  // namespace

std::shared_ptr<const pathcore::NearestPixels> walkable_transform(NearestCache& cache,
                                                                  FieldSource& source,
                                                                  const MaskEntry& walked,
                                                                  pathcore::AreaSet enabled,
                                                                  double clearance_key) {
  // Connectivity plays no part in the nearest walkable pixel: one entry serves all.
  const NearestKey key{walked.name,
                       walked.revision,
                       enabled,
                       clearance_key,
                       pathcore::Connectivity::kFour,
                       false,
                       0};
  std::shared_ptr<const pathcore::NearestPixels> transform = cache.get(key);
  if (transform) return transform;
  source.build_shared(transform_flight_key(key),
                      build_name("nearest-walkable transform", walked.name, walked.revision),
                      [&](const std::function<bool()>& interrupt,
                          const pathcore::ProgressReport& progress) {
    transform = cache.get(key);  // another request may have built it since the miss
    if (transform) return;
    const pathcore::Mask& mask = *walked.mask;
    const std::uint8_t* areas = mask.areas().data();
    std::vector<std::uint8_t> targets(mask.pixel_count());
    for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = (enabled >> areas[i]) & 1U;
    transform = std::make_shared<const pathcore::NearestPixels>(
        mask.width(), mask.height(), std::move(targets), interrupt, progress);
    cache.put(key, transform);
  });
  // Not cached (caching off, or too large for the budget): the build's own result.
  return transform;
}

std::shared_ptr<const pathcore::Components> component_labels(
    ComponentCache& cache, FieldSource& source, const MaskEntry& walked, pathcore::AreaSet enabled,
    pathcore::Connectivity connectivity, bool allow_corner_cutting, double clearance_key) {
  // Eight neighbours without corner cutting connect exactly what four do.
  const bool cutting = connectivity == pathcore::Connectivity::kEight && allow_corner_cutting;
  const pathcore::Connectivity labelled =
      cutting ? pathcore::Connectivity::kEight : pathcore::Connectivity::kFour;
  const ComponentKey key{walked.name, walked.revision, enabled, labelled, cutting, clearance_key};
  std::shared_ptr<const pathcore::Components> labels = cache.get(key);
  if (labels) return labels;
  source.build_shared(labels_flight_key(key),
                      build_name("component labels", walked.name, walked.revision),
                      [&](const std::function<bool()>& interrupt,
                          const pathcore::ProgressReport& progress) {
    labels = cache.get(key);
    if (labels) return;
    pathcore::ComponentOptions options;
    options.enabled = enabled;
    options.connectivity = labelled;
    options.allow_corner_cutting = cutting;
    labels = std::make_shared<const pathcore::Components>(
        pathcore::label_components(*walked.mask, options, interrupt, progress));
    cache.put(key, labels);
  });
  return labels;
}

std::optional<pathcore::SnappedEndpoints> EndpointSnapper::snap(
    const MaskEntry& walked, FieldSource& source, const pathcore::FieldOptions& reach,
    double clearance_key, pathcore::Point start, pathcore::Point goal) {
  const pathcore::Mask& mask = *walked.mask;
  for (const auto& [name, p] : {std::pair{"start", start}, std::pair{"goal", goal}}) {
    if (!mask.contains(p)) {
      throw pathcore::InvalidArgument(std::string(name) + " (" + std::to_string(p.x) + "," +
                                      std::to_string(p.y) + ") is outside the " +
                                      std::to_string(mask.width()) + "x" +
                                      std::to_string(mask.height()) + " mask");
    }
  }
  const pathcore::AreaSet enabled = reach.enabled & pathcore::kAllAreas;
  try {
    const auto transform = walkable_transform(transforms_, source, walked, enabled, clearance_key);
    const auto labels = component_labels(labels_, source, walked, enabled, reach.connectivity,
                                         reach.allow_corner_cutting, clearance_key);
    const std::optional<pathcore::Point> from =
        mask.walkable(start, enabled) ? start : transform->nearest(start);
    if (!from) return std::nullopt;
    const pathcore::Components::Label label = labels->label(*from);
    if (labels->label(goal) == label) return pathcore::SnappedEndpoints{*from, goal};
    {
      const std::lock_guard lock(mutex_);
      if (remembered_labels_ == labels && remembered_goal_ == goal) {
        if (const auto known = snapped_goals_.find(label); known != snapped_goals_.end()) {
          return pathcore::SnappedEndpoints{*from, known->second};
        }
      }
    }
    // The goal's nearest walkable pixel answers when it lies in the start's
    // component (O(distance)); else the search's rings read up to (2R + 1)^2
    // pixels, R at most the goal's distance to *from (a pixel of the
    // component), and a search that may be long runs where scans run.
    std::function<bool()> interrupt;
    const std::optional<pathcore::Point> nearest = transform->nearest(goal);
    if (nearest && labels->label(*nearest) != label) {
      const double reach_pixels = 2 * std::hypot(static_cast<double>(goal.x) - from->x,
                                                 static_cast<double>(goal.y) - from->y) +
                                  1;
      if (reach_pixels * reach_pixels > kRingPixelsOnCallThread) interrupt = source.begin_scan();
    }
    const pathcore::Point snapped_goal =
        *pathcore::nearest_reachable(*transform, *labels, *from, goal, interrupt);
    {
      const std::lock_guard lock(mutex_);
      if (remembered_labels_ != labels || remembered_goal_ != goal) {
        remembered_labels_ = labels;
        remembered_goal_ = goal;
        snapped_goals_.clear();
      }
      snapped_goals_.emplace(label, snapped_goal);
    }
    return pathcore::SnappedEndpoints{*from, snapped_goal};
  } catch (const pathcore::Interrupted&) {
    throw RequestGone{};
  }
}

}  // namespace pathserver
