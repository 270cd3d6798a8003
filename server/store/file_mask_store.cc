#include "store/file_mask_store.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <span>
#include <system_error>
#include <utility>

namespace pathserver {
namespace {

constexpr std::array<std::uint8_t, 8> kMagic = {'P', 'F', 'M', 'A', 'S', 'K', '\r', '\n'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kHeaderSize = 96;
constexpr std::size_t kShaHexSize = 64;
constexpr std::size_t kChecksumSize = 32;
constexpr std::string_view kMaskSuffix = ".pfmask";
constexpr std::string_view kTempSuffix = ".tmp";
// The highest revision of a deleted mask (FileMaskStore, "Revisions").
constexpr std::string_view kRevisionFloorFile = "revision-floor";
constexpr std::array<std::uint8_t, 8> kFloorMagic = {'P', 'F', 'F', 'L', 'O', 'O', 'R', '\n'};
constexpr std::uint32_t kFloorFormatVersion = 1;
constexpr std::size_t kFloorBodySize = 20;  // magic, version, floor
constexpr std::size_t kFloorFileSize = kFloorBodySize + kChecksumSize;
// Entries of the data dir are opened without following links; O_NONBLOCK
// keeps a FIFO swapped in after the listing from blocking the load.
constexpr int kLoadOpenFlags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;

std::string errno_text(int error) { return std::generic_category().message(error); }

// Errors of a write that had no room: disk full, quota used up, or the file
// size limit (RLIMIT_FSIZE; the server ignores SIGXFSZ so this is an error).
bool is_storage_full(int error) { return error == ENOSPC || error == EDQUOT || error == EFBIG; }

// Logs what failed where (the path is for the operator) and throws what a
// client may see: StoreFull when `error` says there was no room, else
// StoreError, both only naming the action ("store mask 'x'").
[[noreturn]] void throw_write_failure(const std::string& action, const std::string& detail,
                                      int error) {
  spdlog::error("mask store: could not {}: {}: {}", action, detail, errno_text(error));
  if (is_storage_full(error)) throw StoreFull("could not " + action + ": storage is full");
  throw StoreError("could not " + action);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void put_u32(std::uint8_t* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::uint8_t* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* in) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(in[i]) << (8 * i);
  return v;
}
std::uint64_t get_u64(const std::uint8_t* in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return v;
}

// Incremental SHA-256 over several buffers.
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) {
      throw std::runtime_error("SHA-256 initialisation failed");
    }
  }
  void update(std::span<const std::uint8_t> bytes) {
    if (EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) != 1) {
      throw std::runtime_error("SHA-256 update failed");
    }
  }
  std::array<std::uint8_t, kChecksumSize> finish() {
    std::array<std::uint8_t, kChecksumSize> digest{};
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), digest.data(), &size) != 1 || size != digest.size()) {
      throw std::runtime_error("SHA-256 finalisation failed");
    }
    return digest;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }
  // Closes now, reporting the error (close can report a failed write-back).
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

// Reads exactly out.size() bytes; false on a short file.
bool read_exact(int fd, std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("read failed: " + errno_text(errno));
    }
    if (n == 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Writes all of bytes; returns 0 or an errno value.
int write_all(int fd, std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

bool is_lower_hex(std::string_view s) {
  for (const char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string mask_file_name(std::string_view name) {
  std::string file(name);
  for (char& c : file) {
    if (c == '/') c = '~';
  }
  file += kMaskSuffix;
  return file;
}

namespace {

// The mask name whose file this is (mask_file_name reversed), or nullopt when
// the file name is not that of a valid mask name.
std::optional<std::string> mask_name_of_file(std::string_view file) {
  if (!ends_with(file, kMaskSuffix)) return std::nullopt;
  std::string name(file.substr(0, file.size() - kMaskSuffix.size()));
  for (char& c : name) {
    if (c == '~') c = '/';
  }
  if (mask_name_problem(name)) return std::nullopt;
  return name;
}

}  // namespace

FileMaskStore::FileMaskStore(std::filesystem::path dir, StoreLimits limits)
    : dir_(std::move(dir)), limits_(limits) {
  // The directories this creates, deepest first: their entries must be made
  // durable in their parents too, or a crash could lose the whole store.
  std::vector<std::filesystem::path> created;
  for (std::filesystem::path p = std::filesystem::absolute(dir_);
       !p.empty() && !std::filesystem::exists(p) && p != p.parent_path(); p = p.parent_path()) {
    created.push_back(p);
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    throw StoreError("cannot create data dir '" + dir_.string() + "': " + ec.message());
  }
  for (const auto& p : created) {
    Fd parent(::open(p.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (parent.get() < 0 || ::fsync(parent.get()) != 0) {
      throw StoreError("cannot fsync '" + p.parent_path().string() +
                       "' after creating the data dir: " + errno_text(errno));
    }
  }
  dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    throw StoreError("cannot open data dir '" + dir_.string() + "': " + errno_text(errno));
  }
  try {
    if (::flock(dir_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      if (error == EWOULDBLOCK) {
        throw StoreError("data dir '" + dir_.string() +
                         "' is in use by another pathfinder server (it is locked)");
      }
      throw StoreError("cannot lock data dir '" + dir_.string() + "': " + errno_text(error));
    }
    if (::access(dir_.c_str(), W_OK | X_OK) != 0) {
      throw StoreError("data dir '" + dir_.string() + "' is not writable: " + errno_text(errno));
    }
    load();
  } catch (...) {
    ::close(dir_fd_);
    dir_fd_ = -1;
    throw;
  }
}

FileMaskStore::~FileMaskStore() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

void FileMaskStore::load() {
  revision_floor_ = read_revision_floor();
  std::error_code ec;
  std::filesystem::directory_iterator it(dir_, ec);
  if (ec) {
    throw StoreError("cannot list data dir '" + dir_.string() + "': " + ec.message());
  }
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::filesystem::path& path = it->path();
    const std::string file = path.filename().string();
    std::error_code type_error;
    // The entry itself, not what a link points to.
    const std::filesystem::file_type type = it->symlink_status(type_error).type();
    if (type_error || type == std::filesystem::file_type::symlink ||
        (type != std::filesystem::file_type::regular &&
         type != std::filesystem::file_type::directory)) {
      // A link could make the store read (or load as a mask) any file the
      // server can read; a FIFO or device could block or never end.
      spdlog::warn("mask store: refusing '{}': {}; only regular files are read", path.string(),
                   type_error                                    ? type_error.message()
                   : type == std::filesystem::file_type::symlink ? "a symbolic link"
                                                                 : "not a regular file");
      ++load_report_.refused;
      continue;
    }
    const bool regular = type == std::filesystem::file_type::regular;
    if (regular && file == kRevisionFloorFile) continue;  // read above
    if (regular && file.starts_with('.') && ends_with(file, kTempSuffix)) {
      // A write that never got renamed into place: it was never acknowledged.
      std::error_code remove_error;
      std::filesystem::remove(path, remove_error);
      spdlog::warn("mask store: removed leftover temp file '{}' of an interrupted write{}",
                   path.string(),
                   remove_error ? " (removal failed: " + remove_error.message() + ")" : "");
      ++load_report_.temp_removed;
      continue;
    }
    if (!regular || !ends_with(file, kMaskSuffix)) {
      spdlog::info("mask store: ignoring '{}': not a mask file", path.string());
      ++load_report_.ignored;
      continue;
    }
    MaskEntryPtr entry;
    try {
      entry = load_file(path);
    } catch (const std::exception& e) {
      ++load_report_.skipped;
      if (auto name = mask_name_of_file(file)) {
        spdlog::error(
            "mask store: mask '{}' is corrupt, its file '{}' cannot be read: {}; requests for it "
            "answer DATA_LOSS until it is uploaded again or deleted (the file is left in place)",
            *name, path.string(), e.what());
        corrupt_.insert(std::move(*name));
      } else {
        spdlog::warn("mask store: skipping '{}': {}", path.string(), e.what());
      }
      continue;
    }
    last_revision_[entry->name] = entry->revision;
    stored_bytes_ += entry->mask->pixel_count();
    masks_[entry->name] = std::move(entry);
    ++load_report_.loaded;
  }
  if (ec) {
    throw StoreError("cannot list data dir '" + dir_.string() + "': " + ec.message());
  }
  load_report_.corrupt.assign(corrupt_.begin(), corrupt_.end());
  if (masks_.size() > limits_.max_masks || stored_bytes_ > limits_.max_bytes) {
    spdlog::warn(
        "mask store '{}' holds {} masks of {} bytes, above the limits of {} masks "
        "(--max-masks) and {} bytes (--max-stored-mb): all are kept and served, but uploads "
        "that grow the store are refused until it is back within them",
        dir_.string(), masks_.size(), stored_bytes_.load(), limits_.max_masks, limits_.max_bytes);
  }
}

MaskEntryPtr FileMaskStore::load_file(const std::filesystem::path& path) const {
  Fd fd(::open(path.c_str(), kLoadOpenFlags));
  if (fd.get() < 0) throw std::runtime_error("cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw std::runtime_error("cannot stat: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) throw std::runtime_error("not a regular file");
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  if (file_size < kHeaderSize + kChecksumSize) {
    throw std::runtime_error("truncated: " + std::to_string(file_size) + " bytes");
  }

  std::array<std::uint8_t, kHeaderSize> header{};
  if (!read_exact(fd.get(), header)) throw std::runtime_error("truncated header");
  if (!std::equal(kMagic.begin(), kMagic.end(), header.begin())) {
    throw std::runtime_error("not a pathfinder mask file (bad magic)");
  }
  const std::uint32_t version = get_u32(&header[8]);
  if (version != kFormatVersion) {
    throw std::runtime_error("unsupported format version " + std::to_string(version));
  }
  const std::uint32_t name_length = get_u32(&header[12]);
  const std::uint64_t revision = get_u64(&header[16]);
  const std::uint32_t width = get_u32(&header[24]);
  const std::uint32_t height = get_u32(&header[28]);
  if (name_length == 0 || name_length > kMaxMaskNameLength) {
    throw std::runtime_error("bad name length " + std::to_string(name_length));
  }
  const std::uint64_t pixels = std::uint64_t{width} * height;
  // Before anything is allocated: a file (sparse, say) must not make the
  // server hold more than an upload may.
  if (pixels > limits_.max_pixels) {
    throw std::runtime_error("declares " + std::to_string(width) + "x" + std::to_string(height) +
                             " = " + std::to_string(pixels) + " pixels, more than the limit of " +
                             std::to_string(limits_.max_pixels) + " (--max-pixels)");
  }
  const std::uint64_t expected = kHeaderSize + name_length + pixels + kChecksumSize;
  if (expected != file_size) {
    throw std::runtime_error("size " + std::to_string(file_size) + " bytes does not match the " +
                             std::to_string(expected) + " its header declares (truncated?)");
  }

  std::string name(name_length, '\0');
  std::vector<std::uint8_t> areas(pixels);
  std::array<std::uint8_t, kChecksumSize> stored_checksum{};
  if (!read_exact(fd.get(), std::span(reinterpret_cast<std::uint8_t*>(name.data()), name.size())) ||
      !read_exact(fd.get(), areas) || !read_exact(fd.get(), stored_checksum)) {
    throw std::runtime_error("truncated while reading");
  }
  Sha256 sha;
  sha.update(header);
  sha.update(std::span(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()));
  sha.update(areas);
  if (sha.finish() != stored_checksum) throw std::runtime_error("checksum mismatch (corrupt)");

  if (auto problem = mask_name_problem(name)) {
    throw std::runtime_error("stored name is invalid: " + *problem);
  }
  if (path.filename().string() != mask_file_name(name)) {
    throw std::runtime_error("holds mask '" + name + "', which belongs in '" +
                             mask_file_name(name) + "'");
  }
  if (revision == 0) throw std::runtime_error("revision 0");
  std::string sha256(reinterpret_cast<const char*>(&header[32]), kShaHexSize);
  if (!is_lower_hex(sha256)) throw std::runtime_error("bad area digest");

  // Throws pathcore::InvalidArgument for a zero dimension or an area id > 63.
  auto entry = make_mask_entry(std::move(name), revision,
                               pathcore::Mask(width, height, std::move(areas)));
  // The file's checksum only shows the bytes are as written; the digest is
  // what clients compare grids by, so it must be the grid's.
  if (entry->sha256 != sha256) {
    throw std::runtime_error("the area digest in its header does not match its area grid");
  }
  return entry;
}

std::uint64_t FileMaskStore::read_revision_floor() const {
  const std::filesystem::path path = dir_ / kRevisionFloorFile;
  auto unreadable = [&](const std::string& why) {
    return StoreError("revision floor '" + path.string() + "' is unreadable (" + why +
                      "): the store will not open, as revisions of deleted masks could repeat; "
                      "restore the file, or move it away to accept that risk");
  };
  Fd fd(::open(path.c_str(), kLoadOpenFlags));
  if (fd.get() < 0) {
    if (errno == ENOENT) return 0;  // no mask was ever deleted
    throw unreadable("cannot open: " + errno_text(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw unreadable("cannot stat: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) throw unreadable("not a regular file");
  if (st.st_size != static_cast<off_t>(kFloorFileSize)) {
    throw unreadable("size " + std::to_string(st.st_size) + " bytes, expected " +
                     std::to_string(kFloorFileSize));
  }
  std::array<std::uint8_t, kFloorFileSize> bytes{};
  try {
    if (!read_exact(fd.get(), bytes)) throw unreadable("truncated");
  } catch (const StoreError&) {
    throw;
  } catch (const std::exception& e) {
    throw unreadable(e.what());
  }
  if (!std::equal(kFloorMagic.begin(), kFloorMagic.end(), bytes.begin())) {
    throw unreadable("bad magic");
  }
  if (get_u32(&bytes[8]) != kFloorFormatVersion) {
    throw unreadable("unsupported format version " + std::to_string(get_u32(&bytes[8])));
  }
  Sha256 sha;
  sha.update(std::span(bytes).first(kFloorBodySize));
  const auto checksum = sha.finish();
  if (!std::equal(checksum.begin(), checksum.end(), bytes.begin() + kFloorBodySize)) {
    throw unreadable("checksum mismatch");
  }
  return get_u64(&bytes[12]);
}

void FileMaskStore::raise_revision_floor(std::uint64_t revision, const std::string& action) {
  if (revision <= revision_floor_) return;
  std::array<std::uint8_t, kFloorFileSize> bytes{};
  std::copy(kFloorMagic.begin(), kFloorMagic.end(), bytes.begin());
  put_u32(&bytes[8], kFloorFormatVersion);
  put_u64(&bytes[12], revision);
  Sha256 sha;
  sha.update(std::span(bytes).first(kFloorBodySize));
  const auto checksum = sha.finish();
  std::copy(checksum.begin(), checksum.end(), bytes.begin() + kFloorBodySize);
  const std::span<const std::uint8_t> parts[] = {bytes};
  write_durably(std::string(kRevisionFloorFile), parts, action);
  revision_floor_ = revision;
}

std::uint64_t FileMaskStore::next_revision(const std::string& name) {
  std::uint64_t& last = last_revision_[name];
  last = std::max(last, revision_floor_) + 1;
  return last;
}

void FileMaskStore::write_file(const MaskEntry& entry) {
  const std::string action = "store mask '" + entry.name + "'";
  std::array<std::uint8_t, kHeaderSize> header{};
  std::copy(kMagic.begin(), kMagic.end(), header.begin());
  put_u32(&header[8], kFormatVersion);
  put_u32(&header[12], static_cast<std::uint32_t>(entry.name.size()));
  put_u64(&header[16], entry.revision);
  put_u32(&header[24], entry.mask->width());
  put_u32(&header[28], entry.mask->height());
  if (entry.sha256.size() != kShaHexSize) throw StoreError("could not " + action + ": bad digest");
  std::memcpy(&header[32], entry.sha256.data(), kShaHexSize);
  const std::span name_bytes(reinterpret_cast<const std::uint8_t*>(entry.name.data()),
                             entry.name.size());
  const std::span<const std::uint8_t> areas(entry.mask->areas());
  Sha256 sha;
  sha.update(header);
  sha.update(name_bytes);
  sha.update(areas);
  const auto checksum = sha.finish();
  const std::span<const std::uint8_t> parts[] = {header, name_bytes, areas, checksum};
  write_durably(mask_file_name(entry.name), parts, action);
}

void FileMaskStore::write_durably(const std::string& file,
                                  std::span<const std::span<const std::uint8_t>> parts,
                                  const std::string& action) {
  const std::filesystem::path final_path = dir_ / file;
  const std::filesystem::path temp_path =
      dir_ / ("." + file + "." + std::to_string(::getpid()) + "-" +
              std::to_string(++temp_counter_) + std::string(kTempSuffix));
  // `what` is a literal, so errno is read before anything can change it.
  auto fail = [&](const char* what, int error) {
    std::error_code ignored;
    std::filesystem::remove(temp_path, ignored);
    throw_write_failure(action,
                        std::string(what) + " '" + temp_path.string() + "' (to become '" +
                            final_path.string() + "')",
                        error);
  };
  Fd fd(::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail("cannot create", errno);
  for (const auto part : parts) {
    if (const int error = write_all(fd.get(), part); error != 0) fail("cannot write", error);
  }
  if (::fsync(fd.get()) != 0) fail("cannot fsync", errno);
  if (fd.close() != 0) fail("cannot close", errno);
  if (::rename(temp_path.c_str(), final_path.c_str()) != 0) fail("cannot rename", errno);
  if (const int error = sync_dir(); error != 0) {
    throw_write_failure(action, "cannot fsync data dir '" + dir_.string() + "'", error);
  }
}

int FileMaskStore::sync_dir() { return ::fsync(dir_fd_) == 0 ? 0 : errno; }

void FileMaskStore::check_limits(std::string_view name, const MaskEntry* old_entry,
                                 const pathcore::Mask& mask) const {
  std::optional<std::uint64_t> old_bytes;
  if (old_entry != nullptr) old_bytes = old_entry->mask->pixel_count();
  check_store_limits(limits_, {.masks = masks_.size(), .bytes = stored_bytes_.load()}, name, mask,
                     old_bytes);
}

MaskEntryPtr FileMaskStore::put(std::string_view name, pathcore::Mask mask, bool* unchanged) {
  if (auto problem = mask_name_problem(name)) throw InvalidMaskName("name: " + *problem);
  auto entry = make_mask_entry(std::string(name), 0, std::move(mask));
  const std::uint64_t new_bytes = entry->mask->pixel_count();

  const std::lock_guard write_lock(write_mutex_);
  // masks_ only changes under write_mutex_, which this thread holds.
  const auto old = masks_.find(name);
  const MaskEntryPtr old_entry = old == masks_.end() ? nullptr : old->second;
  // The same grid again (say a level tool re-uploading on every save, or the
  // same level as PNG instead of RAW): keep the revision and the file, so
  // cached fields and clients' expected revisions stay valid.
  const bool same_grid = old_entry && old_entry->mask->width() == entry->mask->width() &&
                         old_entry->mask->height() == entry->mask->height() &&
                         old_entry->sha256 == entry->sha256 &&
                         old_entry->mask->areas() == entry->mask->areas();
  if (unchanged != nullptr) *unchanged = same_grid;
  if (same_grid) return old_entry;
  check_limits(name, old_entry.get(), *entry->mask);
  // The number is used up even if the write fails, so a revision is never
  // reused for different contents.
  entry->revision = next_revision(entry->name);
  write_file(*entry);
  const std::unique_lock map_lock(map_mutex_);
  masks_.insert_or_assign(entry->name, entry);
  corrupt_.erase(entry->name);  // its unreadable file was just replaced
  const std::uint64_t old_bytes = old_entry ? old_entry->mask->pixel_count() : 0;
  stored_bytes_.store(stored_bytes_.load() - old_bytes + new_bytes);
  return entry;
}

MaskEntryPtr FileMaskStore::patch(std::string_view name, const MaskPatch& patch) {
  if (auto problem = mask_name_problem(name)) throw InvalidMaskName("name: " + *problem);
  check_patch(patch);

  const std::lock_guard write_lock(write_mutex_);
  const MaskEntryPtr current = get(name);
  if (!current && is_corrupt(name)) throw MaskCorrupt(corrupt_mask_message(name));
  if (!current) throw MaskNotFound("mask '" + std::string(name) + "' not found");
  check_expected_revision(patch, current->name, current->revision);
  if (patch_changes_nothing(*current, patch)) return current;  // nothing to write
  auto entry = make_mask_entry(current->name, 0, apply_patch(*current, patch));
  // As in put(): the number is used up even if the write fails.
  entry->revision = next_revision(entry->name);
  write_file(*entry);
  const std::unique_lock map_lock(map_mutex_);
  masks_.insert_or_assign(entry->name, entry);
  return entry;
}

MaskEntryPtr FileMaskStore::remove(std::string_view name, bool* was_corrupt) {
  if (auto problem = mask_name_problem(name)) throw InvalidMaskName("name: " + *problem);
  if (was_corrupt != nullptr) *was_corrupt = false;
  const std::lock_guard write_lock(write_mutex_);
  bool corrupt = false;
  MaskEntryPtr current;
  {
    const std::shared_lock map_lock(map_mutex_);
    corrupt = corrupt_.contains(name);
    if (const auto it = masks_.find(name); it != masks_.end()) current = it->second;
    if (!corrupt && !current) return nullptr;
  }
  const std::string key(name);
  const std::string action = "delete mask '" + key + "'";
  if (current) {
    // Durable before the file goes, so no restart can hand this name (or
    // another) a revision a client may still expect of the deleted mask.
    raise_revision_floor(std::max(current->revision, last_revision_[key]), action);
  }
  const std::filesystem::path path = dir_ / mask_file_name(name);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    const int error = errno;
    throw_write_failure(action, "cannot delete '" + path.string() + "'", error);
  }
  if (const int error = sync_dir(); error != 0) {
    throw_write_failure(action, "cannot fsync data dir '" + dir_.string() + "'", error);
  }
  last_revision_.erase(key);  // the floor covers it now
  const std::unique_lock map_lock(map_mutex_);
  if (corrupt) {
    corrupt_.erase(corrupt_.find(name));
    if (was_corrupt != nullptr) *was_corrupt = true;
    return nullptr;
  }
  const auto it = masks_.find(name);
  stored_bytes_ -= current->mask->pixel_count();
  masks_.erase(it);
  return current;
}

MaskEntryPtr FileMaskStore::get(std::string_view name) const {
  const std::shared_lock lock(map_mutex_);
  const auto it = masks_.find(name);
  return it == masks_.end() ? nullptr : it->second;
}

std::vector<MaskEntryPtr> FileMaskStore::list() const {
  const std::shared_lock lock(map_mutex_);
  std::vector<MaskEntryPtr> entries;
  entries.reserve(masks_.size());
  for (const auto& [name, entry] : masks_) entries.push_back(entry);
  return entries;
}

bool FileMaskStore::is_corrupt(std::string_view name) const {
  const std::shared_lock lock(map_mutex_);
  return corrupt_.contains(name);
}

std::size_t FileMaskStore::corrupt_count() const {
  const std::shared_lock lock(map_mutex_);
  return corrupt_.size();
}

std::size_t FileMaskStore::size() const {
  const std::shared_lock lock(map_mutex_);
  return masks_.size();
}

}  // namespace pathserver
