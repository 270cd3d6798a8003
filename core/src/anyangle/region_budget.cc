#include "anyangle/region_budget.h"

namespace pathcore {

std::size_t region_budget(const AnyAngleGraph& graph) { return graph.corner_count() / 2 + 64; }

}  // namespace pathcore
