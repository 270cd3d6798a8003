#include "service/private_field_source.h"

namespace pathserver {

FieldLease PrivateFieldSource::field(const FieldKey& key, const MaskEntry& entry,
                                     pathcore::Point start) {
  Fill* fill = nullptr;
  for (const auto& kept : fills_) {
    if (kept->key == key) fill = kept.get();
  }
  if (fill == nullptr) {
    pathcore::FieldOptions options;
    options.enabled = key.enabled;
    options.connectivity = key.connectivity;
    options.allow_corner_cutting = key.allow_corner_cutting;
    options.area_costs = key.area_costs;
    fills_.push_back(std::make_unique<Fill>(
        Fill{key, entry.mask,
             key.goals.empty() ? pathcore::FieldBuilder(*entry.mask, key.goal, options)
                               : pathcore::FieldBuilder(*entry.mask, key.goals, options)}));
    fill = fills_.back().get();
    if (interrupt_) fill->builder.set_interrupt(interrupt_);
  }
  try {
    (void)fill->builder.run_until_settled(start);
  } catch (const pathcore::Interrupted&) {
    throw RequestGone{};
  }
  return {&fill->builder.field(), nullptr, false};
}

void PrivateFieldSource::build_shared(const FieldKey& /*flight_key*/, const std::string& /*what*/,
                                      const SharedBuild& build) {
  try {
    build(interrupt_, {});
  } catch (const pathcore::Interrupted&) {
    throw RequestGone{};
  }
}

}  // namespace pathserver
