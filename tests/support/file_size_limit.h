#pragma once

// A lowered file size limit for this process (RLIMIT_FSIZE, as `ulimit -f`
// sets it), for tests of what the store does when a write has no room: a
// write past the limit fails with EFBIG from the kernel, so the store's real
// write path fails the way it does on a full disk, without root or a small
// file system. SIGXFSZ is ignored meanwhile (as the server ignores it), or
// the signal would kill the test.

#include <signal.h>
#include <sys/resource.h>

namespace pathtest {

class FileSizeLimit {
 public:
  // Limits every file this process writes to `bytes` until destruction.
  // Throws std::runtime_error when the limit cannot be set.
  explicit FileSizeLimit(rlim_t bytes);
  ~FileSizeLimit();  // puts the previous limit and SIGXFSZ action back
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit previous_limit_{};
  struct sigaction previous_action_ {};
};

}  // namespace pathtest
