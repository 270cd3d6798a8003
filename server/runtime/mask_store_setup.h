#pragma once

#include <memory>
#include <string>

#include "runtime/config.h"
#include "store/mask_store.h"

namespace pathserver {

// The environment variable holding the PostgreSQL store's connection string
// when --store-conninfo-file is not given.
inline constexpr const char* kStoreConninfoEnv = "PATHFINDER_STORE_CONNINFO";

// True for the --store values that select PostgreSQL: "postgres" or a
// postgres:// / postgresql:// URI.
[[nodiscard]] bool is_postgres_store(const std::string& store);

// Why `store` is not a valid --store value (a URI holding a password among
// them), or "" when it is.
[[nodiscard]] std::string store_option_problem(const std::string& store);

// Why the store flags do not go together, or "" when they do: --data-dir
// (data_dir_given: on the command line) with a postgres store,
// --store-conninfo-file without one, or both a URI and the file. Checked
// with the command line, before anything starts.
[[nodiscard]] std::string store_flags_problem(const ServerConfig& config, bool data_dir_given);

// The libpq connection string --store postgres connects with: the URI given
// to --store, else the contents of --store-conninfo-file (trailing
// whitespace trimmed), else $PATHFINDER_STORE_CONNINFO, else "" (libpq's
// PG* variables and defaults). Throws StartupError when the file cannot be
// read. The flags must have passed store_flags_problem.
[[nodiscard]] std::string postgres_conninfo(const ServerConfig& config);

// Opens the store --store names (the file store on --data-dir by default)
// with the limits of the flags and logs what it loaded. Throws StartupError,
// StoreError (StoreUnavailable when the database cannot be reached).
[[nodiscard]] std::unique_ptr<MaskStore> open_mask_store(const ServerConfig& config);

}  // namespace pathserver
