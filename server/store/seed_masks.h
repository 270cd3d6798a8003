#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "store/mask_store.h"

namespace pathserver {

// A --seed-mask file that cannot be read or decoded; what() names the mask
// and the file.
class SeedMaskError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --seed-mask NAME=FILE (`spec`, checked by the flag): stores FILE (format
// sniffed, at most `max_pixels`) as NAME unless the store already has NAME or
// NAME is corrupt. Throws SeedMaskError, or what MaskStore::put throws.
void seed_mask(MaskStore& store, const std::string& spec, std::uint64_t max_pixels);

}  // namespace pathserver
