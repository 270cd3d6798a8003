#include "store/postgres_mask_store.h"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "store/postgres_connection.h"

namespace pathserver {
namespace {

// pg_advisory_xact_lock keys ("pf" and a number): schema creation, and puts
// (whose limit check spans the whole table).
constexpr std::int64_t kSchemaLock = 0x7066'0001;
constexpr std::int64_t kPutLock = 0x7066'0002;

// Patch rectangles kept for notices still to come (each comes right after
// its rectangle; a flood of rectangles without notices is dropped).
constexpr std::size_t kMaxPatchNotices = 1024;
// How long the listener waits on its socket before it looks at the stop flag.
constexpr int kListenPollMs = 200;
// Names whose rows one statement fetches when re-reading.
constexpr std::size_t kFetchBatch = 64;
// Stored bytes (deflated grids) one statement fetches at most when re-reading.
constexpr std::uint64_t kFetchBatchBytes = 16 * 1024 * 1024;

constexpr const char* kEncodingRaw = "raw";
constexpr const char* kEncodingZlib = "zlib";

// One statement each (statements with parameters cannot be batched).
constexpr const char* kCreateSchema[] = {
    "CREATE TABLE IF NOT EXISTS pathfinder_masks ("
    "  name text PRIMARY KEY,"
    "  revision bigint NOT NULL CHECK (revision > 0),"
    "  width integer NOT NULL,"
    "  height integer NOT NULL,"
    "  sha256 text NOT NULL,"
    "  encoding text NOT NULL,"
    "  areas bytea NOT NULL)",
    // Deflated already when that pays: PostgreSQL's own compression would only cost time.
    "ALTER TABLE pathfinder_masks ALTER COLUMN areas SET STORAGE EXTERNAL",
    "CREATE TABLE IF NOT EXISTS pathfinder_revisions ("
    "  name text PRIMARY KEY,"
    "  last_revision bigint NOT NULL)",
};

constexpr const char* kRowColumns = "name, revision, width, height, sha256, encoding, areas";

// The area grid as stored: deflated when that makes it smaller.
struct EncodedAreas {
  const char* encoding = kEncodingRaw;
  std::vector<std::uint8_t> deflated;  // empty for raw
};

EncodedAreas encode_areas(const std::vector<std::uint8_t>& areas) {
  EncodedAreas encoded;
  uLongf size = compressBound(static_cast<uLong>(areas.size()));
  encoded.deflated.resize(size);
  // The fastest level: grids are mostly long runs, which it already packs well.
  if (compress2(encoded.deflated.data(), &size, areas.data(), static_cast<uLong>(areas.size()),
                Z_BEST_SPEED) == Z_OK &&
      size < areas.size()) {
    encoded.deflated.resize(size);
    encoded.encoding = kEncodingZlib;
  } else {
    encoded.deflated.clear();
  }
  return encoded;
}

std::span<const std::uint8_t> stored_bytes_of(const EncodedAreas& encoded,
                                              const std::vector<std::uint8_t>& areas) {
  return encoded.deflated.empty() ? std::span<const std::uint8_t>(areas)
                                  : std::span<const std::uint8_t>(encoded.deflated);
}

// A name as an element of a text[] literal (names hold no quotes or backslashes).
std::string array_literal(std::span<const std::string> names) {
  std::string literal = "{";
  for (const std::string& name : names) {
    if (literal.size() > 1) literal += ',';
    literal += '"' + name + '"';
  }
  return literal + "}";
}

void notify(PgConnection& connection, std::uint64_t revision, std::string_view name,
            bool deleted) {
  std::string payload = std::to_string(revision) + " " + std::string(name);
  if (deleted) payload += " deleted";
  connection.exec("SELECT pg_notify($1, $2)", {kMaskChannel, payload});
}

void notify_patch(PgConnection& connection, std::uint64_t revision, std::string_view name,
                  const MaskPatch& patch) {
  const std::string payload = std::to_string(revision) + " " + std::string(name) + " " +
                              std::to_string(patch.x) + " " + std::to_string(patch.y) + " " +
                              std::to_string(patch.width) + " " + std::to_string(patch.height);
  connection.exec("SELECT pg_notify($1, $2)", {kMaskPatchChannel, payload});
}

// A kMaskPatchChannel payload: '<revision> <name> <x> <y> <width> <height>'.
struct PatchPayload {
  std::string name;
  std::uint64_t revision = 0;
  PixelRect rect;
};

std::optional<PatchPayload> parse_patch_notice(std::string_view payload) {
  std::istringstream words{std::string(payload)};
  PatchPayload notice;
  if (!(words >> notice.revision >> notice.name >> notice.rect.x >> notice.rect.y >>
        notice.rect.width >> notice.rect.height) ||
      mask_name_problem(notice.name)) {
    return std::nullopt;
  }
  return notice;
}

// A notification's payload: '<revision> <name>' or '<revision> <name> deleted'.
struct Notice {
  std::uint64_t revision = 0;
  std::string name;
  bool deleted = false;
};

std::optional<Notice> parse_notice(std::string_view payload) {
  const auto space = payload.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  Notice notice;
  try {
    notice.revision = std::stoull(std::string(payload.substr(0, space)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string_view rest = payload.substr(space + 1);
  constexpr std::string_view kDeleted = " deleted";
  if (rest.ends_with(kDeleted)) {
    notice.deleted = true;
    rest.remove_suffix(kDeleted.size());
  }
  if (mask_name_problem(rest)) return std::nullopt;
  notice.name = std::string(rest);
  return notice;
}

// What clients see when the database cannot be reached.
std::string unavailable_message(const std::string& action) {
  return "could not " + action +
         ": the mask store's database cannot be reached; retry later";
}

}  // namespace

PostgresMaskStore::PostgresMaskStore(const std::string& conninfo, StoreLimits limits,
                                     PostgresStoreOptions options)
    : conninfo_(conninfo), limits_(limits), options_(options) {
  writer_ = std::make_unique<PgConnection>(conninfo_, options_.timeout);
  database_ = writer_->describe();
  ensure_schema(*writer_);
  // LISTEN before the first read, so no write between them goes unseen.
  auto listener = std::make_unique<PgConnection>(conninfo_, options_.timeout);
  listener->exec("LISTEN pathfinder_masks");
  listener->exec("LISTEN pathfinder_mask_patches");
  sync(*listener);
  available_ = true;
  listener_ = std::thread([this, connection = std::move(listener)]() mutable {
    listen_loop(std::move(connection));
  });
}

PostgresMaskStore::~PostgresMaskStore() {
  {
    const std::lock_guard lock(stop_mutex_);
    stopping_ = true;
  }
  stop_requested_ = true;
  stop_changed_.notify_all();
  if (listener_.joinable()) listener_.join();
}

void PostgresMaskStore::ensure_schema(PgConnection& connection) {
  try {
    connection.exec("BEGIN");
    connection.exec("SELECT pg_advisory_xact_lock($1)", {kSchemaLock});
    connection.exec("CREATE TABLE IF NOT EXISTS pathfinder_schema (version integer NOT NULL)");
    const PgResult version = connection.exec("SELECT max(version) FROM pathfinder_schema");
    if (version.is_null(0, 0)) {
      for (const char* statement : kCreateSchema) connection.exec(statement);
      connection.exec("INSERT INTO pathfinder_schema (version) VALUES ($1)",
                      {kPostgresSchemaVersion});
    } else if (const int found = version.int4(0, 0); found != kPostgresSchemaVersion) {
      throw StoreError("the mask store's database " + database_ + " has schema version " +
                       std::to_string(found) + "; this server reads version " +
                       std::to_string(kPostgresSchemaVersion));
    }
    connection.exec("COMMIT");
  } catch (const PgQueryError& e) {
    throw StoreError("cannot create the mask store's schema in " + database_ + ": " + e.what());
  }
}

// --- What the store holds -------------------------------------------------

namespace {
// A later revision wins; at the same revision a delete beats the mask (or
// corrupt row) it deleted.
auto order_of(std::uint64_t revision, bool deleted) { return std::tuple(revision, deleted); }
}  // namespace

bool PostgresMaskStore::hold(const std::string& name, std::uint64_t revision, State state,
                             MaskEntryPtr entry, std::optional<PixelRect> patched) {
  StoreChange change{.name = name,
                     .revision = revision,
                     .kind = StoreChange::Kind::kReplaced,
                     .patched = {},
                     .entry = entry};
  if (state == State::kDeleted) {
    change.kind = StoreChange::Kind::kDeleted;
    change.entry = nullptr;
  } else if (patched && state == State::kMask) {
    change.kind = StoreChange::Kind::kPatched;
    change.patched = *patched;
  }
  if (!hold_locked(name, revision, state, std::move(entry))) return false;
  tell_change_listener(change);
  return true;
}

bool PostgresMaskStore::hold_locked(const std::string& name, std::uint64_t revision, State state,
                                    MaskEntryPtr entry) {
  const std::unique_lock lock(map_mutex_);
  auto [it, inserted] = held_.try_emplace(name);
  Held& slot = it->second;
  if (!inserted && order_of(revision, state == State::kDeleted) <=
                       order_of(slot.revision, slot.state == State::kDeleted)) {
    return false;
  }
  if (slot.state == State::kMask) {
    --mask_count_;
    stored_bytes_ -= slot.entry->mask->pixel_count();
  } else if (slot.state == State::kCorrupt) {
    --corrupt_count_;
  }
  slot = Held{state, revision, state == State::kMask ? std::move(entry) : nullptr};
  if (state == State::kMask) {
    ++mask_count_;
    stored_bytes_ += slot.entry->mask->pixel_count();
  } else if (state == State::kCorrupt) {
    ++corrupt_count_;
  }
  return true;
}

MaskEntryPtr PostgresMaskStore::hold_written(const MaskEntryPtr& entry,
                                             std::optional<PixelRect> patched) {
  if (hold(entry->name, entry->revision, State::kMask, entry, patched)) return entry;
  // The listener may have read this very revision back first: answer with
  // the entry get() returns, so both share one grid.
  const auto current = held(entry->name);
  return current && current->entry && current->revision == entry->revision ? current->entry
                                                                           : entry;
}

std::optional<PostgresMaskStore::Held> PostgresMaskStore::held(std::string_view name) const {
  const std::shared_lock lock(map_mutex_);
  const auto it = held_.find(name);
  if (it == held_.end()) return std::nullopt;
  return it->second;
}

bool PostgresMaskStore::is_news(std::string_view name, std::uint64_t revision, State state) const {
  const auto current = held(name);
  return !current || order_of(revision, state == State::kDeleted) >
                         order_of(current->revision, current->state == State::kDeleted);
}

MaskEntryPtr PostgresMaskStore::get(std::string_view name) const {
  const std::shared_lock lock(map_mutex_);
  const auto it = held_.find(name);
  return it == held_.end() ? nullptr : it->second.entry;
}

std::vector<MaskEntryPtr> PostgresMaskStore::list() const {
  const std::shared_lock lock(map_mutex_);
  std::vector<MaskEntryPtr> entries;
  entries.reserve(mask_count_);
  for (const auto& [name, slot] : held_) {
    if (slot.entry) entries.push_back(slot.entry);
  }
  return entries;
}

bool PostgresMaskStore::is_corrupt(std::string_view name) const {
  const auto current = held(name);
  return current && current->state == State::kCorrupt;
}

std::size_t PostgresMaskStore::corrupt_count() const {
  const std::shared_lock lock(map_mutex_);
  return corrupt_count_;
}

std::size_t PostgresMaskStore::size() const {
  const std::shared_lock lock(map_mutex_);
  return mask_count_;
}

std::uint64_t PostgresMaskStore::stored_bytes() const {
  const std::shared_lock lock(map_mutex_);
  return stored_bytes_;
}

// --- Reading rows ---------------------------------------------------------

MaskEntryPtr PostgresMaskStore::decode_row(const PgResult& rows, int row) const {
  const std::string name(rows.text(row, 0));
  const std::int64_t revision = rows.int8(row, 1);
  const std::int32_t width = rows.int4(row, 2);
  const std::int32_t height = rows.int4(row, 3);
  const std::string_view sha256 = rows.text(row, 4);
  const std::string_view encoding = rows.text(row, 5);
  const std::span<const std::uint8_t> stored = rows.bytes(row, 6);
  if (revision <= 0) throw std::runtime_error("revision " + std::to_string(revision));
  if (width <= 0 || height <= 0) {
    throw std::runtime_error("size " + std::to_string(width) + "x" + std::to_string(height));
  }
  const std::uint64_t pixels = std::uint64_t(width) * std::uint64_t(height);
  // Before anything is allocated for the grid, as for an upload.
  if (pixels > limits_.max_pixels) {
    throw std::runtime_error(std::to_string(pixels) + " pixels, more than --max-pixels (" +
                             std::to_string(limits_.max_pixels) + ")");
  }
  std::vector<std::uint8_t> areas(pixels);
  if (encoding == kEncodingRaw) {
    if (stored.size() != pixels) {
      throw std::runtime_error(std::to_string(stored.size()) + " area bytes for " +
                               std::to_string(pixels) + " pixels");
    }
    std::copy(stored.begin(), stored.end(), areas.begin());
  } else if (encoding == kEncodingZlib) {
    uLongf size = static_cast<uLongf>(pixels);
    if (uncompress(areas.data(), &size, stored.data(), static_cast<uLong>(stored.size())) !=
            Z_OK ||
        size != pixels) {
      throw std::runtime_error("its zlib areas do not inflate to " + std::to_string(pixels) +
                               " bytes");
    }
  } else {
    throw std::runtime_error("unknown encoding '" + std::string(encoding) + "'");
  }
  // Throws pathcore::InvalidArgument for an area id above 63.
  auto entry = make_mask_entry(name, static_cast<std::uint64_t>(revision),
                               pathcore::Mask(static_cast<std::uint32_t>(width),
                                              static_cast<std::uint32_t>(height), std::move(areas)));
  if (entry->sha256 != sha256) {
    throw std::runtime_error("its sha256 column does not match its area grid");
  }
  return entry;
}

void PostgresMaskStore::hold_rows(const PgResult& rows, std::optional<PatchNotice> patch) {
  for (int row = 0; row < rows.rows(); ++row) {
    const std::string name(rows.text(row, 0));
    const auto revision = static_cast<std::uint64_t>(rows.int8(row, 1));
    if (auto problem = mask_name_problem(name)) {
      spdlog::warn("mask store: ignoring a row of pathfinder_masks whose name {}", *problem);
      continue;
    }
    try {
      std::optional<PixelRect> patched;
      if (patch && patch->revision == revision) patched = patch->rect;
      hold(name, revision, State::kMask, decode_row(rows, row), patched);
    } catch (const std::exception& e) {
      if (hold(name, revision, State::kCorrupt, nullptr)) {
        spdlog::error(
            "mask store: mask '{}' at revision {} in the database is unreadable ({}); it "
            "answers DATA_LOSS until it is uploaded again or deleted",
            name, revision, e.what());
      }
    }
  }
}

void PostgresMaskStore::sync(PgConnection& connection) {
  // Every name ever written: its last revision, and its mask's revision if
  // it has one now. A name with no mask is deleted up to its last revision.
  const PgResult names = connection.exec(
      "SELECT name, coalesce(r.last_revision, m.revision), m.revision, "
      "coalesce(octet_length(m.areas), 0)::bigint "
      "FROM pathfinder_masks m FULL JOIN pathfinder_revisions r USING (name)");
  std::vector<std::string> changed;
  std::vector<std::uint64_t> changed_bytes;
  for (int row = 0; row < names.rows(); ++row) {
    const std::string name(names.text(row, 0));
    if (names.is_null(row, 2)) {
      hold(name, static_cast<std::uint64_t>(names.int8(row, 1)), State::kDeleted, nullptr);
    } else if (is_news(name, static_cast<std::uint64_t>(names.int8(row, 2)), State::kMask)) {
      changed.push_back(name);
      changed_bytes.push_back(static_cast<std::uint64_t>(names.int8(row, 3)));
    }
  }
  // Each statement must arrive within the store's timeout: a batch stops at
  // kFetchBatch names or kFetchBatchBytes stored bytes.
  for (std::size_t first = 0; first < changed.size();) {
    std::size_t count = 0;
    std::uint64_t bytes = 0;
    while (first + count < changed.size() && count < kFetchBatch &&
           (count == 0 || bytes + changed_bytes[first + count] <= kFetchBatchBytes)) {
      bytes += changed_bytes[first + count];
      ++count;
    }
    hold_rows(connection.exec(
        (std::string("SELECT ") + kRowColumns + " FROM pathfinder_masks WHERE name = ANY($1)")
            .c_str(),
        {array_literal(std::span(changed).subspan(first, count))}));
    first += count;
  }
}

void PostgresMaskStore::refresh(PgConnection& connection, const std::string& name,
                                std::uint64_t revision, std::optional<PatchNotice> patch) {
  const PgResult rows = connection.exec(
      (std::string("SELECT ") + kRowColumns + " FROM pathfinder_masks WHERE name = $1").c_str(),
      {name});
  if (rows.rows() == 0) {
    // Deleted since: no mask up to the notified revision (its own delete
    // notification follows and may raise that).
    hold(name, revision, State::kDeleted, nullptr);
    return;
  }
  hold_rows(rows, patch);
}

// --- Writes -----------------------------------------------------------------

template <typename Body>
auto PostgresMaskStore::write(const std::string& action, Body&& body) {
  // The whole write, its wait for the lock included, has the store's timeout.
  const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  const std::unique_lock lock(write_mutex_, deadline);
  if (!lock.owns_lock()) {
    spdlog::warn("mask store: could not {}: the write before it still waits for the database",
                 action);
    throw StoreUnavailable(unavailable_message(action));
  }
  // The store cannot follow the database now: a write could not be seen by
  // this replica's readers, so none is tried (the listener reconnects).
  if (!available_) throw StoreUnavailable(unavailable_message(action));
  try {
    if (!writer_ || writer_->is_broken()) {
      writer_ = std::make_unique<PgConnection>(conninfo_, options_.timeout, deadline);
    }
    writer_->set_deadline(deadline);
    try {
      writer_->exec("BEGIN");
    } catch (const StoreUnavailable&) {
      if (writer_->is_broken() && std::chrono::steady_clock::now() < deadline &&
          PQstatus(writer_->get()) == CONNECTION_BAD) {
        // A connection the database dropped while idle (say it restarted):
        // nothing was sent, so one fresh connection may try again.
        writer_ = std::make_unique<PgConnection>(conninfo_, options_.timeout, deadline);
        writer_->set_deadline(deadline);
        writer_->exec("BEGIN");
      } else {
        throw;
      }
    }
  } catch (const StoreUnavailable& e) {
    writer_.reset();
    suspect_database();
    spdlog::warn("mask store: could not {}: {}", action, e.what());
    throw StoreUnavailable(unavailable_message(action));
  } catch (const PgQueryError& e) {
    spdlog::error("mask store: could not {}: {}", action, e.what());
    throw StoreError("could not " + action);
  }
  try {
    auto result = body(*writer_);
    writer_->exec("COMMIT");
    return result;
  } catch (const StoreUnavailable& e) {
    // A server-side timeout leaves a working connection; anything else is
    // a database that did not answer in time or went away.
    if (!writer_ || writer_->is_broken()) suspect_database();
    writer_.reset();
    spdlog::warn("mask store: could not {} (if the connection broke during the commit, the "
                 "change may have been made): {}",
                 action, e.what());
    throw StoreUnavailable(unavailable_message(action));
  } catch (const PgQueryError& e) {
    spdlog::error("mask store: could not {}: {}", action, e.what());
    try {
      writer_->exec("ROLLBACK");
    } catch (const std::exception&) {
      writer_.reset();
    }
    throw StoreError("could not " + action);
  } catch (...) {
    try {
      writer_->exec("ROLLBACK");
    } catch (const std::exception&) {
      writer_.reset();
    }
    throw;
  }
}

std::uint64_t PostgresMaskStore::next_revision(PgConnection& connection, std::string_view name) {
  const PgResult revision = connection.exec(
      "INSERT INTO pathfinder_revisions (name, last_revision) VALUES ($1, 1) "
      "ON CONFLICT (name) DO UPDATE SET last_revision = pathfinder_revisions.last_revision + 1 "
      "RETURNING last_revision",
      {name});
  return static_cast<std::uint64_t>(revision.int8(0, 0));
}

MaskEntryPtr PostgresMaskStore::put(std::string_view name, pathcore::Mask mask,
                                    bool* unchanged) {
  if (auto problem = mask_name_problem(name)) throw InvalidMaskName("name: " + *problem);
  // Refused before any work for a mask no store may hold.
  check_store_limits(limits_, {}, name, mask, std::nullopt);
  // The digest, clearance and deflated grid are built outside every lock.
  auto entry = make_mask_entry(std::string(name), 0, std::move(mask));
  const EncodedAreas encoded = encode_areas(entry->mask->areas());
  const std::uint32_t width = entry->mask->width();
  const std::uint32_t height = entry->mask->height();

  struct Outcome {
    std::uint64_t revision = 0;
    bool unchanged = false;
  };
  const Outcome outcome = write("store mask '" + entry->name + "'", [&](PgConnection& db) {
    db.exec("SELECT pg_advisory_xact_lock($1)", {kPutLock});
    const PgResult current = db.exec(
        "SELECT revision, width, height, sha256 FROM pathfinder_masks WHERE name = $1 "
        "FOR UPDATE",
        {entry->name});
    std::optional<std::uint64_t> old_bytes;
    if (current.rows() == 1) {
      const auto revision = static_cast<std::uint64_t>(current.int8(0, 0));
      const bool corrupt = is_corrupt(entry->name) && held(entry->name)->revision == revision;
      // The same grid again: keep the revision (and every cache built on it).
      if (!corrupt && current.int4(0, 1) == static_cast<std::int32_t>(width) &&
          current.int4(0, 2) == static_cast<std::int32_t>(height) &&
          current.text(0, 3) == entry->sha256) {
        return Outcome{revision, true};
      }
      old_bytes = std::uint64_t(current.int4(0, 1)) * std::uint64_t(current.int4(0, 2));
    }
    const PgResult totals = db.exec(
        "SELECT count(*), coalesce(sum(width::bigint * height), 0)::bigint "
        "FROM pathfinder_masks");
    check_store_limits(limits_,
                       {.masks = static_cast<std::size_t>(totals.int8(0, 0)),
                        .bytes = static_cast<std::uint64_t>(totals.int8(0, 1))},
                       entry->name, *entry->mask, old_bytes);
    const std::uint64_t revision = next_revision(db, entry->name);
    db.exec(
        "INSERT INTO pathfinder_masks (name, revision, width, height, sha256, encoding, areas) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO UPDATE SET "
        "revision = EXCLUDED.revision, width = EXCLUDED.width, height = EXCLUDED.height, "
        "sha256 = EXCLUDED.sha256, encoding = EXCLUDED.encoding, areas = EXCLUDED.areas",
        {entry->name, revision, width, height, entry->sha256, encoded.encoding,
         PgParam::bytes(stored_bytes_of(encoded, entry->mask->areas()))});
    notify(db, revision, entry->name, /*deleted=*/false);
    return Outcome{revision, false};
  });
  if (unchanged != nullptr) *unchanged = outcome.unchanged;
  if (outcome.unchanged) {
    if (const auto current = held(entry->name);
        current && current->entry && current->revision == outcome.revision) {
      return current->entry;
    }
  }
  entry->revision = outcome.revision;
  return hold_written(entry);
}

MaskEntryPtr PostgresMaskStore::patch(std::string_view name, const MaskPatch& patch) {
  if (auto problem = mask_name_problem(name)) throw InvalidMaskName("name: " + *problem);
  check_patch(patch);
  const std::string key(name);
  MaskEntryPtr patched = write("patch mask '" + key + "'", [&](PgConnection& db) {
    // Locks the row: a concurrent patch of another replica waits here and
    // then reads the revision this one commits.
    const PgResult locked =
        db.exec("SELECT revision FROM pathfinder_masks WHERE name = $1 FOR UPDATE", {key});
    if (locked.rows() == 0) throw MaskNotFound("mask '" + key + "' not found");
    const auto revision = static_cast<std::uint64_t>(locked.int8(0, 0));
    const auto current_held = held(key);
    if (current_held && current_held->revision == revision &&
        current_held->state == State::kCorrupt) {
      throw MaskCorrupt(corrupt_mask_message(key));
    }
    check_expected_revision(patch, key, revision);
    MaskEntryPtr current = current_held && current_held->revision == revision
                               ? current_held->entry
                               : nullptr;
    if (!current) {  // newer than this replica has seen yet: read the row
      const PgResult row = db.exec(
          (std::string("SELECT ") + kRowColumns + " FROM pathfinder_masks WHERE name = $1")
              .c_str(),
          {key});
      try {
        current = decode_row(row, 0);
      } catch (const std::exception&) {
        throw MaskCorrupt(corrupt_mask_message(key));
      }
    }
    // The grid it already has: no new revision, nothing written.
    if (patch_changes_nothing(*current, patch)) return current;
    auto entry = make_mask_entry(key, 0, apply_patch(*current, patch));
    const EncodedAreas encoded = encode_areas(entry->mask->areas());
    entry->revision = next_revision(db, key);
    db.exec(
        "UPDATE pathfinder_masks SET revision = $2, sha256 = $3, encoding = $4, areas = $5 "
        "WHERE name = $1",
        {key, entry->revision, entry->sha256, encoded.encoding,
         PgParam::bytes(stored_bytes_of(encoded, entry->mask->areas()))});
    notify_patch(db, entry->revision, key, patch);
    notify(db, entry->revision, key, /*deleted=*/false);
    return MaskEntryPtr(entry);
  });
  // A patch that changed nothing returns the entry held, at its revision.
  return hold_written(patched, PixelRect{patch.x, patch.y, patch.width, patch.height});
}

MaskEntryPtr PostgresMaskStore::remove(std::string_view name, bool* was_corrupt) {
  if (auto problem = mask_name_problem(name)) throw InvalidMaskName("name: " + *problem);
  if (was_corrupt != nullptr) *was_corrupt = false;
  const std::string key(name);
  struct Removed {
    std::uint64_t revision = 0;
    MaskEntryPtr entry;  // null: no such mask, or its row was corrupt
    bool corrupt = false;
  };
  const Removed removed = write("delete mask '" + key + "'", [&](PgConnection& db) {
    const PgResult rows = db.exec(
        (std::string("DELETE FROM pathfinder_masks WHERE name = $1 RETURNING ") + kRowColumns)
            .c_str(),
        {key});
    if (rows.rows() == 0) return Removed{};
    Removed result;
    result.revision = static_cast<std::uint64_t>(rows.int8(0, 1));
    notify(db, result.revision, key, /*deleted=*/true);
    if (const auto current = held(key); current && current->revision == result.revision) {
      result.entry = current->entry;
      result.corrupt = current->state == State::kCorrupt;
    }
    if (!result.entry && !result.corrupt) {  // a revision this replica had not read yet
      try {
        result.entry = decode_row(rows, 0);
      } catch (const std::exception&) {
        result.corrupt = true;
      }
    }
    return result;
  });
  if (removed.revision == 0) return nullptr;
  hold(key, removed.revision, State::kDeleted, nullptr);
  if (removed.corrupt && was_corrupt != nullptr) *was_corrupt = true;
  return removed.entry;
}

void PostgresMaskStore::suspect_database() {
  if (available_.exchange(false)) {
    spdlog::warn(
        "mask store: the database {} did not answer a write in time; writes and names "
        "not held answer UNAVAILABLE until it answers again",
        database_);
  }
  check_database_now_ = true;
}

// --- Read-your-writes across replicas ---------------------------------------

bool PostgresMaskStore::may_know_more(std::string_view name, std::uint64_t min_revision) const {
  const auto current = held(name);
  if (!current || current->state == State::kDeleted) return true;  // (re-)uploaded since?
  return current->state == State::kMask && min_revision > current->revision;
}

bool PostgresMaskStore::catch_up(std::string_view name,
                                 std::chrono::steady_clock::time_point deadline) {
  if (!available_) return false;
  std::unique_lock lock(lookup_mutex_);
  lookup_pending_.emplace(name);
  // The round that takes the names pending now: the one after the round
  // running (which may have read the database before this call began).
  const std::uint64_t round = lookup_rounds_started_ + 1;
  while (lookup_rounds_done_ < round) {
    if (!lookup_running_) {  // this caller runs the round, for every name pending
      lookup_running_ = true;
      lookup_rounds_started_ = round;
      std::vector<std::string> names(lookup_pending_.begin(), lookup_pending_.end());
      lookup_pending_.clear();
      lock.unlock();
      const bool read = look_up(names);
      lock.lock();
      lookup_running_ = false;
      lookup_rounds_done_ = round;
      if (!read) {
        lookup_rounds_failed_.insert(round);
        // Only the latest rounds can still have waiters.
        while (lookup_rounds_failed_.size() > 64) {
          lookup_rounds_failed_.erase(lookup_rounds_failed_.begin());
        }
      }
      lookup_done_.notify_all();
      break;
    }
    if (lookup_done_.wait_until(lock, deadline) == std::cv_status::timeout &&
        lookup_rounds_done_ < round) {
      return false;
    }
  }
  return !lookup_rounds_failed_.contains(round);
}

bool PostgresMaskStore::look_up(const std::vector<std::string>& names) {
  try {
    if (!reader_ || reader_->is_broken()) {
      reader_ = std::make_unique<PgConnection>(conninfo_, options_.timeout);
    }
    hold_rows(reader_->exec(
        (std::string("SELECT ") + kRowColumns + " FROM pathfinder_masks WHERE name = ANY($1)")
            .c_str(),
        {array_literal(names)}));
    return true;
  } catch (const std::exception& e) {
    reader_.reset();
    spdlog::warn("mask store: could not look {} names up in the database: {}", names.size(),
                 e.what());
    return false;
  }
}

// --- Following the other replicas -----------------------------------------

bool PostgresMaskStore::wait_unless_stopping(std::chrono::milliseconds delay) {
  std::unique_lock lock(stop_mutex_);
  return !stop_changed_.wait_for(lock, delay, [this] { return stopping_; });
}

void PostgresMaskStore::listen_loop(std::unique_ptr<PgConnection> connection) {
  std::chrono::milliseconds retry = options_.first_retry;
  while (!stop_requested_) {
    if (!connection) {
      try {
        connection = std::make_unique<PgConnection>(conninfo_, options_.timeout);
        connection->exec("LISTEN pathfinder_masks");
        connection->exec("LISTEN pathfinder_mask_patches");
        sync(*connection);
        available_ = true;
        retry = options_.first_retry;
        spdlog::info("mask store: reconnected to {}; {} masks held, serving from the store again",
                     database_, size());
      } catch (const std::exception& e) {
        connection.reset();
        spdlog::debug("mask store: reconnecting to {} failed: {}", database_, e.what());
        if (!wait_unless_stopping(retry)) return;
        retry = std::min(retry * 2, options_.max_retry);
        continue;
      }
    }
    try {
      follow_notifications(*connection);
    } catch (const std::exception& e) {
      available_ = false;
      connection.reset();
      spdlog::warn(
          "mask store: lost the database {} ({}); answering from the {} masks held, writes and "
          "other names answer UNAVAILABLE until it is back",
          database_, e.what(), size());
    }
  }
}

void PostgresMaskStore::follow_notifications(PgConnection& connection) {
  PGconn* conn = connection.get();
  // A stopped or cut-off database sends nothing and closes nothing: only
  // asking it tells. Every half timeout, or at once when a write found it
  // unreachable.
  const auto check_interval = std::max(options_.timeout / 2, std::chrono::milliseconds(100));
  auto last_check = std::chrono::steady_clock::now();
  // Rectangles told on kMaskPatchChannel, by name, until their notice comes.
  std::map<std::string, PatchNotice, std::less<>> patch_notices;
  while (!stop_requested_) {
    pollfd socket{PQsocket(conn), POLLIN, 0};
    const int ready = ::poll(&socket, 1, kListenPollMs);
    if (ready < 0 && errno != EINTR) {
      throw StoreUnavailable(std::string("poll: ") + std::strerror(errno));
    }
    if (ready > 0 && PQconsumeInput(conn) == 0) {
      throw StoreUnavailable(std::string("the connection was lost: ") + PQerrorMessage(conn));
    }
    if (connection.is_broken()) throw StoreUnavailable("the connection was closed");
    if (check_database_now_.exchange(false) ||
        std::chrono::steady_clock::now() - last_check >= check_interval) {
      // Throws StoreUnavailable when it does not answer in time; the
      // notifications it reads meanwhile are handled below.
      connection.exec("SELECT 1");
      last_check = std::chrono::steady_clock::now();
      // This connection never broke, so no notification was missed.
      if (!available_.exchange(true)) {
        spdlog::info("mask store: the database {} answers again; taking writes", database_);
      }
    }
    while (PGnotify* raw = PQnotifies(conn)) {
      const std::unique_ptr<PGnotify, decltype(&PQfreemem)> notification(raw, &PQfreemem);
      if (notification->relname == kMaskPatchChannel) {
        // Its mask's notice follows: kept for that one.
        if (auto patch = parse_patch_notice(notification->extra)) {
          if (patch_notices.size() >= kMaxPatchNotices) patch_notices.clear();
          patch_notices[patch->name] = PatchNotice{patch->revision, patch->rect};
        }
        continue;
      }
      const auto notice = parse_notice(notification->extra);
      if (!notice) {
        spdlog::warn("mask store: ignoring a notification '{}' on {}", notification->extra,
                     kMaskChannel);
        continue;
      }
      std::optional<PatchNotice> patch;
      if (const auto told = patch_notices.find(notice->name); told != patch_notices.end()) {
        if (told->second.revision == notice->revision) patch = told->second;
        patch_notices.erase(told);
      }
      if (notice->deleted) {
        hold(notice->name, notice->revision, State::kDeleted, nullptr);
      } else if (is_news(notice->name, notice->revision, State::kMask)) {
        refresh(connection, notice->name, notice->revision, patch);
      }
    }
  }
}

}  // namespace pathserver
