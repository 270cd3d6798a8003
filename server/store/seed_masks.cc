#include "store/seed_masks.h"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "pathcore/codec.h"

namespace pathserver {

void seed_mask(MaskStore& store, const std::string& spec, std::uint64_t max_pixels) {
  const auto eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  const std::string file = spec.substr(eq + 1);
  if (const auto existing = store.get(name)) {
    spdlog::info("seed mask '{}': already stored at revision {}, leaving it", name,
                 existing->revision);
    return;
  }
  if (store.is_corrupt(name)) {
    // What was uploaded is never overwritten, not even when unreadable: the
    // operator decides (upload or delete it).
    spdlog::warn("seed mask '{}': the stored mask is corrupt, leaving it", name);
    return;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw SeedMaskError("seed mask '" + name + "': cannot open '" + file +
                        "': " + std::generic_category().message(errno));
  }
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  if (in.bad()) throw SeedMaskError("seed mask '" + name + "': cannot read '" + file + "'");
  pathcore::DecodeOptions options;  // format sniffed, rule auto
  options.max_pixels = max_pixels;
  std::optional<pathcore::Mask> mask;
  try {
    mask.emplace(pathcore::decode_mask(bytes, options));
  } catch (const std::exception& e) {  // DecodeError, InvalidArgument
    throw SeedMaskError("seed mask '" + name + "': '" + file +
                        "' is not a usable mask: " + e.what());
  }
  const auto entry = store.put(name, std::move(*mask));
  spdlog::info("seed mask '{}': stored '{}' ({}x{}) as revision {}", name, file,
               entry->mask->width(), entry->mask->height(), entry->revision);
}

}  // namespace pathserver
