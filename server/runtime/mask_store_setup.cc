#include "runtime/mask_store_setup.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "runtime/config_file.h"
#include "runtime/startup_error.h"
#include "store/file_mask_store.h"
#include "store/postgres_connection.h"
#include "store/postgres_mask_store.h"

namespace pathserver {
namespace {

bool is_postgres_uri(const std::string& store) {
  return store.starts_with("postgres://") || store.starts_with("postgresql://");
}

std::string read_conninfo_file(const std::string& path) {
  try {
    return trim_trailing_space(read_config_file(path));
  } catch (const ConfigFileError& e) {
    throw StartupError("--store-conninfo-file '" + path + "': " + e.what());
  }
}

StoreLimits limits_of(const ServerConfig& config) {
  return {.max_masks = config.max_masks,
          .max_bytes = config.max_stored_mb * 1024 * 1024,
          .max_pixels = config.max_pixels};
}

}  // namespace

bool is_postgres_store(const std::string& store) {
  return store == "postgres" || is_postgres_uri(store);
}

std::string store_option_problem(const std::string& store) {
  if (store == "file" || store == "postgres") return {};
  if (!is_postgres_uri(store)) {
    return "expected 'file', 'postgres' or a postgres:// URI, got '" + store + "'";
  }
  try {
    if (conninfo_has_password(store)) {
      // Anyone who can list processes would read it.
      return "the URI holds a password, which must not be on the command line: put the "
             "connection string in --store-conninfo-file or $" +
             std::string(kStoreConninfoEnv) + ", or the password in ~/.pgpass or $PGPASSFILE";
    }
  } catch (const std::invalid_argument& e) {
    return std::string("the URI cannot be parsed: ") + e.what();
  }
  return {};
}

std::string store_flags_problem(const ServerConfig& config, bool data_dir_given) {
  if (!is_postgres_store(config.store)) {
    if (!config.store_conninfo_file.empty()) return "--store-conninfo-file is for --store postgres";
    return {};
  }
  if (data_dir_given) {
    return "--data-dir is for --store file; --store postgres keeps the masks in the database: "
           "give one or the other";
  }
  if (is_postgres_uri(config.store) && !config.store_conninfo_file.empty()) {
    return "--store gives a URI and --store-conninfo-file a connection string: give only one";
  }
  return {};
}

std::string postgres_conninfo(const ServerConfig& config) {
  if (is_postgres_uri(config.store)) return config.store;
  if (!config.store_conninfo_file.empty()) return read_conninfo_file(config.store_conninfo_file);
  if (const char* env = std::getenv(kStoreConninfoEnv); env != nullptr) return env;
  return {};
}

std::unique_ptr<MaskStore> open_mask_store(const ServerConfig& config) {
  if (!is_postgres_store(config.store)) {
    auto store = std::make_unique<FileMaskStore>(config.data_dir, limits_of(config));
    const auto& report = store->load_report();
    spdlog::info(
        "mask store '{}': {} masks loaded, {} bad files skipped ({} of them masks now "
        "answering DATA_LOSS), {} temp files removed, {} other entries ignored, {} links or "
        "special files refused",
        store->dir().string(), report.loaded, report.skipped, report.corrupt.size(),
        report.temp_removed, report.ignored, report.refused);
    return store;
  }
  std::unique_ptr<PostgresMaskStore> store;
  try {
    PostgresStoreOptions options;
    options.timeout = std::chrono::milliseconds(
        static_cast<std::int64_t>(std::lround(config.store_timeout_seconds * 1000)));
    store =
        std::make_unique<PostgresMaskStore>(postgres_conninfo(config), limits_of(config), options);
  } catch (const StoreUnavailable& e) {
    throw StartupError(std::string("--store postgres: ") + e.what());
  }
  spdlog::info(
      "mask store: PostgreSQL {} (schema version {}): {} masks loaded, {} corrupt rows "
      "answering DATA_LOSS",
      store->database(), kPostgresSchemaVersion, store->size(), store->corrupt_count());
  return store;
}

}  // namespace pathserver
