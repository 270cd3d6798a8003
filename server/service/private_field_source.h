#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pathcore/distance_field.h"
#include "service/cached_find_path.h"

namespace pathserver {

// Fields for one call's private entry (a mask patched with the request's
// obstacles, obstacle_entry.h), filled on the calling thread and cached
// nowhere: no lookup in the field cache, no single flight, nothing kept
// after the source. Each field is filled until the asked start is settled
// and kept half-built for the next start of a batch. Fills, scans and
// builds run with `interrupt` (the call's: deadline, cancellation,
// shutdown); a stopped one throws RequestGone. Work for after the answer
// is dropped (it would be for the caches). For the compute pool only.
class PrivateFieldSource final : public FieldSource {
 public:
  explicit PrivateFieldSource(std::function<bool()> interrupt)
      : interrupt_(std::move(interrupt)) {}

  [[nodiscard]] FieldLease field(const FieldKey& key, const MaskEntry& entry,
                                 pathcore::Point start) override;
  [[nodiscard]] std::function<bool()> begin_scan() override { return interrupt_; }
  void build_shared(const FieldKey& flight_key, const std::string& what,
                    const SharedBuild& build) override;
  void after_answer(LaterWork /*work*/) override {}

 private:
  struct Fill {
    FieldKey key;
    std::shared_ptr<const pathcore::Mask> mask;  // the builder reads it: declared first
    pathcore::FieldBuilder builder;
  };
  std::function<bool()> interrupt_;
  std::vector<std::unique_ptr<Fill>> fills_;
};

}  // namespace pathserver
