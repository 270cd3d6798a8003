#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "store/mask_store.h"

namespace pathserver {

class PgConnection;
class PgResult;

// The channel every write notifies and every store listens on.
inline constexpr std::string_view kMaskChannel = "pathfinder_masks";
// A patch also tells its rectangle here ('<revision> <name> <x> <y> <width>
// <height>'), just before its notice on kMaskChannel: a replica that does not
// listen here (an older version) still follows every change.
inline constexpr std::string_view kMaskPatchChannel = "pathfinder_mask_patches";
// The schema version this server creates and reads (table pathfinder_schema).
inline constexpr int kPostgresSchemaVersion = 1;

// Default PostgresStoreOptions::timeout and --store-timeout.
inline constexpr std::chrono::milliseconds kDefaultStoreTimeout{5000};

// How soon a store retries its database after losing it (tests shorten it),
// and how long any one wait on the database may last.
struct PostgresStoreOptions {
  std::chrono::milliseconds first_retry{100};  // doubled after each failed attempt
  std::chrono::milliseconds max_retry{5000};
  // Bounds every wait on the database: connecting, each statement of the
  // listener and of lookups, and a whole write (waiting for the write lock
  // included). --store-timeout.
  std::chrono::milliseconds timeout = kDefaultStoreTimeout;
};

// The masks in a PostgreSQL database shared by several servers (replicas).
//
// Schema (version 1, created at start in one transaction under an advisory
// lock, so replicas starting together do not race; a newer version refuses
// to open):
//   pathfinder_schema(version)                      one row: the version
//   pathfinder_masks(name PK, revision, width, height, sha256, encoding, areas)
//     areas: the grid, row-major, one byte per pixel; encoding 'zlib' when
//     deflating it made it smaller, else 'raw'
//   pathfinder_revisions(name PK, last_revision)    kept after a delete
// Every new revision of a name is its last_revision + 1, taken in the write's
// transaction, so revisions never repeat for a name across deletes and
// restarts of any replica.
//
// Writes: each put/patch/remove is one transaction on the store's write
// connection. put() takes a transaction-level advisory lock shared by every
// replica, so its limit check (count and bytes over the table) and its
// insert are atomic across replicas; patch() locks the mask's row (SELECT
// ... FOR UPDATE), so the expected_revision compare-and-set holds across
// replicas: of two patches expecting the same revision one commits, the
// other finds the new revision and throws RevisionMismatch. Each write
// sends NOTIFY pathfinder_masks with '<revision> <name>' (a put or patch) or
// '<revision> <name> deleted' in its transaction, so it is delivered only if
// it commits; a patch tells its rectangle on kMaskPatchChannel first, so the
// change listener of every replica hears what kind of change it was.
//
// Reads never touch the database: get() and list() read a map held in memory
// under a shared mutex. A thread of the store LISTENs on a second connection
// (polling its socket with a timeout, so it stops promptly) and on each
// notification re-reads that name's row unless it already holds that
// revision; entries only ever move to a newer revision (a delete of revision
// N beats the mask at revision N), so a late notification or a racing write
// of this replica never brings an older one back. When the connection is
// lost the store is unavailable (is_available() false) and retries with
// backoff (first_retry doubling to max_retry); after reconnecting it LISTENs,
// then re-reads every (name, revision) pair and the rows that changed, and
// only then is available again.
//
// While unavailable: get() and list() answer the masks held; put, patch and
// remove throw StoreUnavailable at once (no write is tried against a
// database the store cannot follow).
//
// Every wait on the database is bounded by options.timeout (PgConnection
// polls its socket with a deadline; a stopped server accepts TCP but never
// answers). A write waits for the write lock and runs its transaction within
// that time, else throws StoreUnavailable; a write that timed out or lost
// its connection makes the store unavailable at once (the writes queued
// behind it fail fast) and has the listener check the database. The listener
// checks it (SELECT 1, same bound) every half timeout when idle: a database
// that stops answering makes the store unavailable within about 1.5 timeouts,
// and one that answers again makes it available (after a re-read when the
// listening connection itself was lost).
//
// catch_up() is read-your-writes across replicas: it reads the rows of the
// names callers wait for from the database, in rounds on a connection of
// its own. One round runs at a time and takes every name asked for while
// the previous one ran, so the database sees at most one lookup statement
// per replica at a time, whatever the number of callers or names.
//
// A row that cannot be decoded (bad encoding, wrong size, area id above 63,
// digest mismatch, more than max_pixels) is a corrupt name (MaskStore): it
// is logged at error level and answers DATA_LOSS until replaced or deleted.
class PostgresMaskStore final : public MaskStore {
 public:
  // Connects (libpq connection string: key=value words or a URI; empty:
  // libpq's PG* environment variables), creates or checks the schema, loads
  // every mask and starts listening. Throws StoreUnavailable when the
  // database cannot be reached, StoreError when the schema is newer than
  // this server's or cannot be created; the messages are for the operator.
  explicit PostgresMaskStore(const std::string& conninfo, StoreLimits limits = {},
                             PostgresStoreOptions options = {});
  ~PostgresMaskStore() override;

  // "user@host:port/dbname", for the log.
  [[nodiscard]] const std::string& database() const { return database_; }

  // MaskStore, as documented there and above.
  MaskEntryPtr put(std::string_view name, pathcore::Mask mask, bool* unchanged = nullptr) override;
  MaskEntryPtr patch(std::string_view name, const MaskPatch& patch) override;
  MaskEntryPtr remove(std::string_view name, bool* was_corrupt = nullptr) override;
  [[nodiscard]] MaskEntryPtr get(std::string_view name) const override;
  [[nodiscard]] std::vector<MaskEntryPtr> list() const override;
  [[nodiscard]] bool is_corrupt(std::string_view name) const override;
  [[nodiscard]] std::size_t corrupt_count() const override;
  [[nodiscard]] std::size_t size() const override;
  [[nodiscard]] std::uint64_t stored_bytes() const override;
  [[nodiscard]] const StoreLimits& limits() const override { return limits_; }
  [[nodiscard]] bool is_available() const override { return available_.load(); }
  [[nodiscard]] bool may_know_more(std::string_view name,
                                   std::uint64_t min_revision) const override;
  bool catch_up(std::string_view name, std::chrono::steady_clock::time_point deadline) override;

 private:
  // What the store holds of one name. A deleted name is kept (with the
  // revision it was deleted at) so nothing older can come back.
  enum class State { kMask, kCorrupt, kDeleted };
  struct Held {
    State state = State::kDeleted;
    std::uint64_t revision = 0;
    MaskEntryPtr entry;  // kMask only
  };

  // Moves `name` to (revision, state) unless it already holds that or
  // something newer; returns whether it did, after telling the change
  // listener (outside the map's lock).
  // `patched`: the rectangle of the patch that made `revision`, when known.
  bool hold(const std::string& name, std::uint64_t revision, State state, MaskEntryPtr entry,
            std::optional<PixelRect> patched = std::nullopt);
  bool hold_locked(const std::string& name, std::uint64_t revision, State state,
                   MaskEntryPtr entry);
  // Holds an entry this store just wrote; returns it, or the equal entry
  // of that revision the listener already holds.
  MaskEntryPtr hold_written(const MaskEntryPtr& entry,
                           std::optional<PixelRect> patched = std::nullopt);
  // The held state of `name`, if any.
  [[nodiscard]] std::optional<Held> held(std::string_view name) const;
  // True when (revision, state) is newer than what is held of `name`.
  [[nodiscard]] bool is_news(std::string_view name, std::uint64_t revision, State state) const;

  // Creates the schema or checks its version.
  void ensure_schema(PgConnection& connection);
  // Re-reads every (name, revision) and the rows that changed.
  void sync(PgConnection& connection);
  // Re-reads `name`'s row after a notification of revision `revision`.
  // `patch`: the patch that made a revision of it, when one was told.
  struct PatchNotice {
    std::uint64_t revision = 0;
    PixelRect rect;
  };
  void refresh(PgConnection& connection, const std::string& name, std::uint64_t revision,
               std::optional<PatchNotice> patch);
  // Holds the masks (or corrupt names) of rows (name, revision, width,
  // height, sha256, encoding, areas), decoding each.
  // `patch`: as refresh's, for a row of that name and revision.
  void hold_rows(const PgResult& rows, std::optional<PatchNotice> patch = std::nullopt);
  // Decodes one row; throws std::exception saying why it is unreadable.
  [[nodiscard]] MaskEntryPtr decode_row(const PgResult& rows, int row) const;

  // One lookup round of catch_up(): reads the rows of `names`. False when
  // the database could not be asked (logged).
  bool look_up(const std::vector<std::string>& names);
  // After a write found the database unreachable: unavailable now, and the
  // listener checks the database at once.
  void suspect_database();

  // Runs body(connection) in one transaction on the write connection, under
  // write_mutex_ (all within options_.timeout), and commits. Throws StoreUnavailable when the
  // database cannot be reached, StoreError("could not <action>") when a statement fails (logged);
  // the body's own exceptions roll back and pass through.
  template <typename Body>
  auto write(const std::string& action, Body&& body);
  // The next revision of `name`, in the transaction.
  static std::uint64_t next_revision(PgConnection& connection, std::string_view name);

  void listen_loop(std::unique_ptr<PgConnection> connection);
  // Handles notifications until stop is requested; throws when the
  // connection is lost.
  void follow_notifications(PgConnection& connection);
  // Waits `delay` or until stop is requested; false when it was.
  bool wait_unless_stopping(std::chrono::milliseconds delay);

  const std::string conninfo_;  // may hold a password: never logged
  const StoreLimits limits_;
  const PostgresStoreOptions options_;
  std::string database_;

  std::timed_mutex write_mutex_;           // one write at a time on writer_
  std::unique_ptr<PgConnection> writer_;   // guarded by write_mutex_; null after a loss

  mutable std::shared_mutex map_mutex_;  // guards held_ and the counts
  std::map<std::string, Held, std::less<>> held_;
  std::size_t mask_count_ = 0;
  std::size_t corrupt_count_ = 0;
  std::uint64_t stored_bytes_ = 0;

  // catch_up()'s rounds: names waiting for the next round, the rounds
  // started and done, the failed ones among the latest, and the round's
  // connection (used by the thread running the round only).
  std::mutex lookup_mutex_;
  std::condition_variable lookup_done_;
  std::set<std::string, std::less<>> lookup_pending_;
  std::uint64_t lookup_rounds_started_ = 0;
  std::uint64_t lookup_rounds_done_ = 0;
  bool lookup_running_ = false;
  std::set<std::uint64_t> lookup_rounds_failed_;
  std::unique_ptr<PgConnection> reader_;

  std::atomic<bool> available_{false};
  std::atomic<bool> check_database_now_{false};  // a write found it unreachable
  std::mutex stop_mutex_;
  std::condition_variable stop_changed_;
  bool stopping_ = false;  // guarded by stop_mutex_
  std::atomic<bool> stop_requested_{false};
  std::thread listener_;
};

}  // namespace pathserver
